/*
   Topology-aware placement of a DMDA's node blocks (paper docs/bibliography.md [000] §6.3, Figure 17;
   docs/models.md §7.8). Plain functions of their inputs: one process, no MPI, no files.

   The node-aware layout (placement.c) gives each node a block of the process grid but says nothing about which
   node of the allocation gets which block: block b goes to the b-th node. On a switch tree that order matters: two
   neighbouring blocks under different leaf switches send their halo up through the spine. Here the blocks (groups
   of ranks) are assigned to the allocation's nodes so that neighbouring blocks share a leaf switch. The grid and the
   blocks stay the node-aware ones, so on-node and off-node bytes are unchanged; only switch-to-switch traffic moves.

   Cost of an assignment: the halo bytes of one ghost update on every switch-to-switch link direction (each leaf's
   or switch's uplink, up and down). Nodes under one leaf are interchangeable (host links carry a node's own
   traffic, the same wherever it sits), so an assignment is a map from blocks to leaf switches with each leaf's
   count of allocation nodes. The search minimises, in this order,
     1. the bytes summed over the switch-to-switch link directions (what the network carries: bytes x switch hops),
     2. the busiest switch-to-switch link direction ([004]'s contention l),
   among the assignments no worse than the node-aware order on either (so the result never is), and keeps the
   node-aware order on a tie.

   Search. Exhaustive (branch and bound over blocks in order, leaves of equal size under one parent taken in order
   to skip mirror images; a partial assignment's cost only grows, so it is cut as soon as it is no better than the
   best) while it finishes within maxsteps steps: optimal (16 nodes under 4 leaves of 4: 22501 steps). Beyond that
   (64 nodes under 8 leaves of 8; more than 64 blocks are not tried) a heuristic: recursive bisection down the tree
   (each switch's blocks split between two runs of its children, the runs' node counts as the part sizes, in the
   coordinate order of the blocks that cuts the fewest bytes: compact super-blocks of the leaf sizes), from three
   orders of the children, then pairwise swaps of blocks under different leaves while one lowers the cost, from
   each start and from the node-aware order; the best of them. The heuristic is a local optimum: docs/models.md
   §7.8 says where it is not the optimum, measured (tests/topology_unit -compare).
*/
#include "dmimpl.h"

/* ---------------------------------------------------------------------------------------------------------- */
/* The halo of one ghost update, message by message */

typedef struct {
  PetscInt        M[3], procs[3], s, dof;
  DMDAStencilType st;
} PKHaloGrid;

/* The messages position `me` (x-fastest) receives in one ghost update, as placement.c counts them: from each
   neighbour, s x (my other local widths) points through a face, s x s x (the remaining width) along an edge (box
   stencil), s^3 at a corner; times dof and sizeof(PetscScalar). Returns their number (at most 26). */
static PetscInt PKHaloRecvs(const PKHaloGrid *g, PetscInt me, PetscInt from[], PetscReal bytes[])
{
  const PetscInt m = g->procs[0], n = g->procs[1], p = g->procs[2];
  const PetscInt i = me % m, j = (me / m) % n, k = me / (m * n);
  const PetscInt w[3] = {PKDMDAWidth(g->M[0], m, i), PKDMDAWidth(g->M[1], n, j), PKDMDAWidth(g->M[2], p, k)};
  PetscInt       cnt  = 0;

  for (PetscInt ok = -1; ok <= 1; ok++)
    for (PetscInt oj = -1; oj <= 1; oj++)
      for (PetscInt oi = -1; oi <= 1; oi++) {
        const PetscInt nz = (oi != 0) + (oj != 0) + (ok != 0), ii = i + oi, jj = j + oj, kk = k + ok;
        if (!nz || (g->st == DMDA_STENCIL_STAR && nz > 1)) continue;
        if (ii < 0 || jj < 0 || kk < 0 || ii >= m || jj >= n || kk >= p) continue;
        from[cnt]  = ii + m * (jj + n * kk);
        bytes[cnt] = (PetscReal)(oi ? g->s : w[0]) * (oj ? g->s : w[1]) * (ok ? g->s : w[2]) * g->dof * (PetscReal)sizeof(PetscScalar);
        cnt++;
      }
  return cnt;
}

/* The grid and the node (block) of every position of a layout: the default one (PETSc's grid, rank r on node
   rank_node[r], or r / ppn) or the node-aware one (its grid, node b owning block b; the default's when not placed) */
static PetscErrorCode PKLayoutNodes(const PKPlacement *pl, const PetscMPIInt rank_node[], PetscBool nodeaware, PKHaloGrid *g, PetscInt **node_of_pos)
{
  const PetscBool blocks = (PetscBool)(nodeaware && pl->placed);
  const PetscInt *pr     = blocks ? pl->procs : pl->def_procs;
  PetscInt        size, *nop;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    g->M[d]     = pl->M[d];
    g->procs[d] = pr[d];
  }
  g->s   = pl->s;
  g->dof = pl->dof;
  g->st  = pl->stencil;
  size   = pr[0] * pr[1] * pr[2];
  PetscCall(PetscMalloc1(size, &nop));
  if (blocks) {
    const PetscInt m = pr[0], n = pr[1], bm = m / pl->block[0], bn = n / pl->block[1];
    for (PetscInt r = 0; r < size; r++) {
      const PetscInt i = r % m, j = (r / m) % n, k = r / (m * n);
      nop[r] = i / pl->block[0] + bm * (j / pl->block[1] + bn * (k / pl->block[2]));
    }
  } else {
    for (PetscInt r = 0; r < size; r++) nop[r] = rank_node ? rank_node[r] : (pl->ppn > 0 ? r / pl->ppn : r);
  }
  *node_of_pos = nop;
  PetscFunctionReturn(0);
}

/* What a layout puts on the tree, counted with PKTopoLoads: node_of_pos[] gives the node (block) of each position,
   where[] the tree node of each block (-1: not listed; its messages are not routed), isleaf[] the leaf switches.
   Messages are added a bufferful at a time (no list of all of them). */
static PetscErrorCode PKLayoutTraffic(PKTopo topo, const PetscBool isleaf[], const PKHaloGrid *g, const PetscInt node_of_pos[], const PetscInt where[], PKTopoTraffic *tr, PetscReal *offnode)
{
  enum {
    CHUNK = 1024
  };
  const PetscInt size = g->procs[0] * g->procs[1] * g->procs[2];
  PetscInt       nsw, n = 0, src[CHUNK], dst[CHUNK], from[26];
  PetscReal      bytes[CHUNK], b[26];
  PKTopoLoads    L;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(topo, &nsw, NULL, NULL, NULL));
  PetscCall(PKTopoLoadsCreate(topo, &L));
  *offnode = 0;
  for (PetscInt me = 0; me < size; me++) {
    const PetscInt cnt = PKHaloRecvs(g, me, from, b);
    for (PetscInt c = 0; c < cnt; c++) {
      if (node_of_pos[from[c]] == node_of_pos[me]) continue; /* on node: no link, nothing to count */
      *offnode += b[c];
      src[n]     = where[node_of_pos[from[c]]];
      dst[n]     = where[node_of_pos[me]];
      bytes[n++] = b[c];
      if (n == CHUNK) {
        PetscCall(PKTopoLoadsAdd(topo, n, src, dst, bytes, &L));
        n = 0;
      }
    }
  }
  PetscCall(PKTopoLoadsAdd(topo, n, src, dst, bytes, &L));
  PetscCall(PKTopoLoadsSummarize(topo, &L));
  PetscCall(PetscMemzero(tr, sizeof(*tr)));
  tr->busiest       = L.busiest_net;
  tr->busiest_bytes = L.busiest_net_bytes;
  tr->busiest_nmsg  = L.busiest_net_nmsg;
  tr->n_off         = L.n_off;
  tr->n_unknown     = L.n_unknown;
  /* the switch-to-switch links are the switches' uplinks; a message that leaves its leaf goes up the leaf's uplink
     exactly once (a leaf holds nodes only, and switches above it hold switches only) */
  for (PetscInt s = 0; s < nsw; s++) {
    tr->link_bytes += L.bytes[2 * s + PK_TOPO_UP] + L.bytes[2 * s + PK_TOPO_DOWN];
    if (isleaf[s]) tr->leaf_bytes += L.bytes[2 * s + PK_TOPO_UP];
  }
  PetscCall(PKTopoLoadsDestroy(&L));
  PetscFunctionReturn(0);
}

/* The leaf switches of a tree (isleaf: nsw entries, free with PetscFree()) */
static PetscErrorCode PKTopoLeaves(PKTopo topo, PetscBool **isleaf)
{
  PetscInt nsw, nnode;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(topo, &nsw, &nnode, NULL, NULL));
  PetscCall(PetscCalloc1(nsw, isleaf));
  for (PetscInt v = 0; v < nnode; v++) {
    PetscInt leaf;
    PetscCall(PKTopoGetNode(topo, v, NULL, &leaf));
    (*isleaf)[leaf] = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/*@C
   PKDMDATopoTraffic - The halo traffic of one ghost update of a DMDA on the switch-to-switch links of a tree, for
   any layout: which node holds each position of the process grid, and where each node is in the tree.

   Not Collective

   Input Parameters:
+  dim, M, stencil, s, dof - the DMDA (M: dim global sizes)
.  procs       - the process grid (3 entries, 1 beyond dim)
.  node_of_pos - the node (0, 1, ...) of every grid position, x-fastest (the DMDA's rank order)
.  topo        - the tree
-  where       - the tree node of every node (PKTopoFindNode(); -1: not listed, its messages are not routed)

   Output Parameter:
.  tr - bytes summed over the switch-to-switch link directions, the busiest direction, bytes leaving a leaf switch

   Notes:
   The messages are PKDMDAPlacementCompute()'s (one per neighbour, PETSc's partition, periodic boundaries not
   counted), routed with PKTopoLoadsAdd(). For the layout a run really has (the DMDA's ranks on the nodes MPI put them
   on), and for a report's what-if.

   Level: developer

.seealso: `PKDMDAPlacementComputeTopology()`, `PKTopoLoadsAdd()`
@*/
PetscErrorCode PKDMDATopoTraffic(PetscInt dim, const PetscInt M[], DMDAStencilType stencil, PetscInt s, PetscInt dof, const PetscInt procs[], const PetscInt node_of_pos[], PKTopo topo, const PetscInt where[], PKTopoTraffic *tr)
{
  PKHaloGrid g;
  PetscBool *isleaf;
  PetscReal  off;

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "dim must be 1, 2 or 3, not %" PetscInt_FMT, dim);
  for (PetscInt d = 0; d < 3; d++) {
    g.M[d]     = d < dim ? M[d] : 1;
    g.procs[d] = d < dim ? procs[d] : 1;
    PetscCheck(g.procs[d] >= 1 && g.procs[d] <= g.M[d], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Process grid %" PetscInt_FMT " parts of %" PetscInt_FMT " points in direction %" PetscInt_FMT, g.procs[d], g.M[d], d);
  }
  g.s   = s;
  g.dof = dof;
  g.st  = stencil;
  PetscCall(PKTopoLeaves(topo, &isleaf));
  PetscCall(PKLayoutTraffic(topo, isleaf, &g, node_of_pos, where, tr, &off));
  PetscCall(PetscFree(isleaf));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The blocks' graph (the search itself: toposearch.c) */

/* The blocks' graph from the node-aware layout: for each block, the bytes it receives from each other block (one
   pass over its positions, merged with a scratch index per sender block), and the coordinate sums */
static PetscErrorCode PKSearchGraph(PKSearch *S, const PKHaloGrid *g, const PetscInt node_of_pos[])
{
  const PetscInt size = g->procs[0] * g->procs[1] * g->procs[2];
  PetscInt      *poff, *pos, *slot, *cnt, cap = 0, from[26];
  PetscReal      b[26];

  PetscFunctionBegin;
  /* positions of each block (CSR) */
  PetscCall(PetscCalloc1(S->B + 1, &poff));
  PetscCall(PetscMalloc1(size, &pos));
  PetscCall(PetscCalloc1(3 * S->B, &S->csum));
  for (PetscInt r = 0; r < size; r++) poff[node_of_pos[r] + 1]++;
  for (PetscInt q = 0; q < S->B; q++) poff[q + 1] += poff[q];
  PetscCall(PetscCalloc1(S->B, &cnt));
  for (PetscInt r = 0; r < size; r++) {
    const PetscInt q        = node_of_pos[r];
    pos[poff[q] + cnt[q]++] = r;
    S->csum[3 * q + 0] += r % g->procs[0];
    S->csum[3 * q + 1] += (r / g->procs[0]) % g->procs[1];
    S->csum[3 * q + 2] += r / (g->procs[0] * g->procs[1]);
  }
  /* edges into each block, merged per sender */
  PetscCall(PetscMalloc1(S->B, &slot));
  for (PetscInt q = 0; q < S->B; q++) slot[q] = -1;
  S->ne = 0;
  for (PetscInt q = 0; q < S->B; q++) {
    const PetscInt first = S->ne;
    for (PetscInt t = poff[q]; t < poff[q + 1]; t++) {
      const PetscInt c = PKHaloRecvs(g, pos[t], from, b);
      for (PetscInt k = 0; k < c; k++) {
        const PetscInt h = node_of_pos[from[k]];
        if (h == q) continue;
        if (slot[h] < 0) {
          if (S->ne == cap) {
            cap = 2 * cap + 64;
            PetscCall(PetscRealloc(sizeof(PetscInt) * cap, &S->efrom));
            PetscCall(PetscRealloc(sizeof(PetscInt) * cap, &S->eto));
            PetscCall(PetscRealloc(sizeof(PetscReal) * cap, &S->ew));
          }
          slot[h]         = S->ne;
          S->efrom[S->ne] = h;
          S->eto[S->ne]   = q;
          S->ew[S->ne++]  = 0;
        }
        S->ew[slot[h]] += b[k];
      }
    }
    for (PetscInt e = first; e < S->ne; e++) slot[S->efrom[e]] = -1;
  }
  /* the edges at each block: as sender and as receiver */
  PetscCall(PetscCalloc1(S->B + 1, &S->ioff));
  PetscCall(PetscMalloc1(2 * S->ne + 1, &S->inc));
  for (PetscInt e = 0; e < S->ne; e++) {
    S->ioff[S->efrom[e] + 1]++;
    S->ioff[S->eto[e] + 1]++;
  }
  for (PetscInt q = 0; q < S->B; q++) S->ioff[q + 1] += S->ioff[q];
  for (PetscInt q = 0; q < S->B; q++) cnt[q] = 0;
  for (PetscInt e = 0; e < S->ne; e++) {
    S->inc[S->ioff[S->efrom[e]] + cnt[S->efrom[e]]++] = e;
    S->inc[S->ioff[S->eto[e]] + cnt[S->eto[e]]++]     = e;
  }
  PetscCall(PetscFree(slot));
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree(pos));
  PetscCall(PetscFree(poff));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The placement */

/* Why the tree cannot place these nodes (note set), or nothing: every node listed once, all under one root, more
   than one leaf. Sets tp->tnode and the root. */
static PetscErrorCode PKTopoPlaceCheck(const PKPlacement *pl, PKTopo topo, const char *const names[], PKTopoPlacement *tp, PetscInt *root)
{
  PetscInt    nsw, unlisted = 0, first = -1, *seen, leaf0 = -1;
  PetscBool   oneleaf = PETSC_TRUE;
  const char *sname;

  PetscFunctionBegin;
  *root = -1;
  PetscCall(PKTopoGetSizes(topo, &nsw, NULL, NULL, NULL));
  for (PetscInt i = 0; i < tp->nnodes; i++) {
    PetscCall(PKTopoFindNode(topo, names[i], &tp->tnode[i]));
    if (tp->tnode[i] < 0 && !unlisted++) first = i;
  }
  if (pl->ppn <= 0) {
    PetscCall(PetscSNPrintf(tp->note, sizeof(tp->note), "nodes differ in size: node-aware order kept"));
    PetscFunctionReturn(0);
  }
  {
    /* the leaf switches that hold listed nodes (reported even when the tree cannot be used) */
    PetscBool *has;
    PetscCall(PetscCalloc1(nsw, &has));
    for (PetscInt i = 0; i < tp->nnodes; i++) {
      PetscInt leaf;
      if (tp->tnode[i] < 0) continue;
      PetscCall(PKTopoGetNode(topo, tp->tnode[i], NULL, &leaf));
      if (!has[leaf]) tp->nleaves++;
      has[leaf] = PETSC_TRUE;
    }
    PetscCall(PetscFree(has));
  }
  if (unlisted) {
    PetscCall(PetscSNPrintf(tp->note, sizeof(tp->note), "%" PetscInt_FMT " of the %" PetscInt_FMT " nodes %s not in the topology (the first: '%s'): node-aware order kept", unlisted, tp->nnodes, unlisted > 1 ? "are" : "is", names[first]));
    PetscFunctionReturn(0);
  }
  {
    PetscInt nnode;
    PetscCall(PKTopoGetSizes(topo, NULL, &nnode, NULL, NULL));
    PetscCall(PetscMalloc1(nnode, &seen));
    for (PetscInt v = 0; v < nnode; v++) seen[v] = -1;
  }
  for (PetscInt i = 0; i < tp->nnodes; i++) {
    PetscInt v = tp->tnode[i], leaf, r;
    if (seen[v] >= 0) {
      const char *tn;
      PetscCall(PKTopoGetNode(topo, v, &tn, NULL));
      PetscCall(PetscSNPrintf(tp->note, sizeof(tp->note), "nodes %" PetscInt_FMT " ('%s') and %" PetscInt_FMT " ('%s') are one node of the topology, '%s': node-aware order kept", seen[v], names[seen[v]], i, names[i], tn));
      *root = -1;
      PetscCall(PetscFree(seen));
      PetscFunctionReturn(0);
    }
    seen[v] = i;
    PetscCall(PKTopoGetNode(topo, v, NULL, &leaf));
    if (leaf0 < 0) leaf0 = leaf;
    if (leaf != leaf0) oneleaf = PETSC_FALSE;
    for (r = leaf;;) { /* its root */
      PetscInt parent;
      PetscCall(PKTopoGetSwitch(topo, r, NULL, &parent, NULL, NULL));
      if (parent < 0) break;
      r = parent;
    }
    if (*root < 0) *root = r;
    else if (r != *root) {
      const char *n1, *n2;
      PetscCall(PKTopoGetSwitch(topo, *root, &n1, NULL, NULL, NULL));
      PetscCall(PKTopoGetSwitch(topo, r, &n2, NULL, NULL, NULL));
      PetscCall(PetscSNPrintf(tp->note, sizeof(tp->note), "the nodes are under separate trees ('%s' and '%s' have no route between them): node-aware order kept", n1, n2));
      *root = -1;
      PetscCall(PetscFree(seen));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(PetscFree(seen));
  tp->usable = PETSC_TRUE;
  if (oneleaf) {
    PetscCall(PKTopoGetSwitch(topo, leaf0, &sname, NULL, NULL, NULL));
    PetscCall(PetscSNPrintf(tp->note, sizeof(tp->note), "all %" PetscInt_FMT " nodes are under one leaf switch, '%s': no halo byte crosses a switch-to-switch link", tp->nnodes, sname));
    *root = -1;
  }
  PetscFunctionReturn(0);
}

/* The search's view of the tree and the node-aware assignment (block b under the leaf of allocation node b) */
static PetscErrorCode PKSearchSetup(PKSearch *S, PKTopo topo, const PKTopoPlacement *tp, const PKHaloGrid *g, const PetscInt node_of_pos[])
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(S, sizeof(*S)));
  PetscCall(PKTopoGetSizes(topo, &S->nsw, NULL, NULL, NULL));
  PetscCall(PetscMalloc1(S->nsw, &S->par));
  PetscCall(PetscMalloc1(S->nsw, &S->lev));
  PetscCall(PetscMalloc1(S->nsw, &S->lord));
  PetscCall(PetscMalloc1(S->nsw, &S->lsw));
  PetscCall(PetscCalloc1(S->nsw, &S->lcap));
  PetscCall(PetscCalloc1(2 * S->nsw, &S->load));
  for (PetscInt sw = 0; sw < S->nsw; sw++) {
    PetscCall(PKTopoGetSwitch(topo, sw, NULL, &S->par[sw], &S->lev[sw], NULL));
    S->lord[sw] = -1;
  }
  S->B = tp->nnodes;
  PetscCall(PetscMalloc1(S->B, &S->gl));
  /* leaves in the order of their switches (the file's), so that the result does not depend on the node order */
  for (PetscInt i = 0; i < S->B; i++) {
    PetscInt leaf;
    PetscCall(PKTopoGetNode(topo, tp->tnode[i], NULL, &leaf));
    S->lord[leaf] = 0;
  }
  S->nl = 0;
  for (PetscInt sw = 0; sw < S->nsw; sw++)
    if (S->lord[sw] >= 0) {
      S->lord[sw]     = S->nl;
      S->lsw[S->nl++] = sw;
    }
  for (PetscInt i = 0; i < S->B; i++) {
    PetscInt leaf;
    PetscCall(PKTopoGetNode(topo, tp->tnode[i], NULL, &leaf));
    S->gl[i] = S->lord[leaf];
    S->lcap[S->gl[i]]++;
  }
  PetscCall(PKSearchGraph(S, g, node_of_pos));
  PKEvaluate(S);
  PetscFunctionReturn(0);
}

/* order[]: the blocks under each leaf go to its nodes, both in increasing order (so that an unchanged leaf
   assignment is the node-aware order itself) */
static PetscErrorCode PKSearchOrder(const PKSearch *S, PKTopoPlacement *tp, PKTopo topo)
{
  PetscInt *next, *nodes, *noff;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(S->nl + 1, &noff));
  PetscCall(PetscMalloc1(S->B, &nodes));
  PetscCall(PetscCalloc1(S->nl, &next));
  for (PetscInt L = 0; L < S->nl; L++) noff[L + 1] = noff[L] + S->lcap[L];
  for (PetscInt i = 0; i < S->B; i++) {
    PetscInt leaf;
    PetscCall(PKTopoGetNode(topo, tp->tnode[i], NULL, &leaf));
    nodes[noff[S->lord[leaf]] + next[S->lord[leaf]]++] = i;
  }
  for (PetscInt L = 0; L < S->nl; L++) next[L] = 0;
  for (PetscInt q = 0; q < S->B; q++) tp->order[q] = nodes[noff[S->gl[q]] + next[S->gl[q]]++];
  PetscCall(PetscFree(next));
  PetscCall(PetscFree(nodes));
  PetscCall(PetscFree(noff));
  PetscFunctionReturn(0);
}

/* Does the search's cost of its assignment equal what PKTopoLoads counts for the same layout? (it must: the search
   routes the same messages merged per pair of blocks; a difference is a bug here, not a property of the input) */
static PetscErrorCode PKSearchCheck(const PKSearch *S, const PKTopoTraffic *tr, const char what[])
{
  PetscFunctionBegin;
  PetscCheck(S->total == tr->link_bytes && S->busy == tr->busiest_bytes, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Topology-aware placement: the search's %s layout has %g bytes on switch links, busiest %g; PKTopoLoads counts %g and %g", what, (double)S->total,
             (double)S->busy, (double)tr->link_bytes, (double)tr->busiest_bytes);
  PetscFunctionReturn(0);
}

/*@C
   PKDMDAPlacementComputeTopology - Topology-aware placement: assigns the node blocks of a node-aware DMDA layout to
   the nodes of an allocation on a switch tree so that neighbouring blocks share a leaf switch, with the traffic
   each layout puts on the switch-to-switch links. One process, no communication.

   Not Collective

   Input Parameters:
+  pl        - the node-aware placement (PKDMDAPlacementCompute(), or PKDMDACommCreateNodeAware()'s with its dof)
.  rank_node - NULL: rank r of the default layout is on node r / ppn; else the node of every rank (PKCommGetNodes()),
               which is also the node-aware layout's when pl is not placed
.  topo      - the switch tree (PKTopoCreateFromFile(), PKTopoCreateFromString())
.  names     - the name of each of the pl->nnodes nodes (MPI_Get_processor_name()'s, or the hosts of a rankfile), found
               in the tree with PKTopoFindNode() (short names match)
-  maxsteps  - the exhaustive search gives up (for the heuristic) after this many steps; PETSC_DEFAULT for
               PK_TOPO_PLACE_STEPS, 0 for the heuristic alone

   Output Parameter:
.  tp - order (node block b on node order[b]), placed, optimal, the traffic of the default, node-aware and
        topology-aware layouts on the switch-to-switch links, note; free with PKTopoPlacementDestroy()

   Notes:
   The process grid and the blocks stay the node-aware ones: on-node and off-node bytes do not change, only which
   block sits under which leaf switch. The search minimises the bytes summed over the switch-to-switch link
   directions, then the busiest direction's bytes (004's l), among assignments no worse than the node-aware order on
   either; the node-aware order is kept on a tie. It is exhaustive (optimal) when that finishes within maxsteps,
   else recursive bisection down the tree and pairwise swaps (docs/models.md §7.8).

   The node-aware order is kept, with a note, when nodes differ in size, a node is not in the tree, two nodes are
   one node of the tree, the nodes are under different roots, all are under one leaf switch, or no assignment is
   better. The traffic of all three layouts is counted in every case (messages with an unlisted node are counted
   as not routed).

   Level: developer

.seealso: `PKDMDAPlacementCompute()`, `PKTopoPlacementDestroy()`, `PKTopoLoadsAdd()`
@*/
PetscErrorCode PKDMDAPlacementComputeTopology(const PKPlacement *pl, const PetscMPIInt rank_node[], PKTopo topo, const char *const names[], PetscInt maxsteps, PKTopoPlacement *tp)
{
  PKHaloGrid gd, gn;
  PetscInt  *nop_def, *nop_na, root;
  PetscReal  off;
  PetscBool *isleaf;

  PetscFunctionBegin;
  PetscCheck(pl && topo && tp, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Need a placement, a topology and an output");
  PetscCheck(pl->nnodes >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The placement has no nodes");
  PetscCheck(names, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Need the name of every node");
  if (maxsteps == PETSC_DEFAULT) maxsteps = PK_TOPO_PLACE_STEPS;
  PetscCheck(maxsteps >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "maxsteps must be >= 0 or PETSC_DEFAULT");
  PetscCall(PetscMemzero(tp, sizeof(*tp)));
  tp->nnodes = pl->nnodes;
  PetscCall(PetscMalloc1(tp->nnodes, &tp->order));
  PetscCall(PetscMalloc1(tp->nnodes, &tp->tnode));
  for (PetscInt b = 0; b < tp->nnodes; b++) tp->order[b] = b;
  PetscCall(PKTopoPlaceCheck(pl, topo, names, tp, &root));

  /* the traffic of the default and node-aware layouts, whatever happens next */
  PetscCall(PKTopoLeaves(topo, &isleaf));
  PetscCall(PKLayoutNodes(pl, rank_node, PETSC_FALSE, &gd, &nop_def));
  PetscCall(PKLayoutNodes(pl, rank_node, PETSC_TRUE, &gn, &nop_na));
  PetscCall(PKLayoutTraffic(topo, isleaf, &gd, nop_def, tp->tnode, &tp->def, &off));
  PetscCheck(off == (PetscReal)pl->def_bytes_off, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Topology-aware placement: default layout off node %g bytes, the placement counted %" PetscInt64_FMT, (double)off, pl->def_bytes_off);
  PetscCall(PKLayoutTraffic(topo, isleaf, &gn, nop_na, tp->tnode, &tp->nodeaware, &off));
  PetscCheck(off == (PetscReal)pl->bytes_off, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Topology-aware placement: node-aware layout off node %g bytes, the placement counted %" PetscInt64_FMT, (double)off, pl->bytes_off);
  tp->topo = tp->nodeaware;

  if (root >= 0) {
    PKSearch  S;
    PetscBool found = PETSC_FALSE, finished = PETSC_FALSE;
    PetscReal nat, nab;

    PetscCall(PKSearchSetup(&S, topo, tp, &gn, nop_na));
    PetscCall(PKSearchCheck(&S, &tp->nodeaware, "node-aware"));
    nat = S.total;
    nab = S.busy;
    if (S.B <= PK_TOPO_EXHAUSTIVE_BLOCKS && maxsteps > 0) PetscCall(PKSearchExhaustive(&S, maxsteps, nat, nab, &found, &finished));
    if (!finished) PetscCall(PKSearchHeuristic(&S, root, nat, nab, &found));
    tp->optimal = finished;
    tp->steps   = S.steps;
    if (found) {
      PetscCall(PKSearchOrder(&S, tp, topo));
      {
        PetscInt *where_b;
        PetscCall(PetscMalloc1(tp->nnodes, &where_b));
        for (PetscInt b = 0; b < tp->nnodes; b++) where_b[b] = tp->tnode[tp->order[b]];
        PetscCall(PKLayoutTraffic(topo, isleaf, &gn, nop_na, where_b, &tp->topo, &off));
        PetscCall(PetscFree(where_b));
      }
      PetscCall(PKSearchCheck(&S, &tp->topo, "topology-aware"));
      tp->placed = PETSC_TRUE;
      PetscCall(PetscSNPrintf(tp->note, sizeof(tp->note), "%s: %" PetscInt64_FMT " steps", finished ? "optimal (exhaustive search)" : "heuristic (recursive bisection and swaps; not proven optimal)", S.steps));
    } else {
      PetscCall(PetscSNPrintf(tp->note, sizeof(tp->note), "the node-aware order is %s on this tree (%" PetscInt64_FMT " steps): kept", finished ? "already optimal" : "the best the heuristic found", S.steps));
    }
    PetscCall(PKSearchDestroy(&S));
  }
  PetscCall(PetscFree(isleaf));
  PetscCall(PetscFree(nop_def));
  PetscCall(PetscFree(nop_na));
  PetscFunctionReturn(0);
}

/*@C
   PKTopoPlacementDestroy - Frees what PKDMDAPlacementComputeTopology() allocated.

   Not Collective

   Input Parameter:
.  tp - the placement

   Level: developer

.seealso: `PKDMDAPlacementComputeTopology()`
@*/
PetscErrorCode PKTopoPlacementDestroy(PKTopoPlacement *tp)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(tp->order));
  PetscCall(PetscFree(tp->tnode));
  PetscFunctionReturn(0);
}
