/*
   Node-aware DMDA placement (docs/algorithms.md §8; paper docs/bibliography.md [000] §6.2).

   PETSc's DMDA numbers ranks x-fastest over the process grid and knows nothing of nodes, and MPI libraries ignore
   reorder in MPI_Cart_create: with K ranks per node, node k gets ranks kK..kK+K-1, a 1-wide row of the process
   grid, and most halo messages leave the node. Here each node gets a compact block of a x b x c subdomains
   (a b c = K, a | m, b | n, c | p) and the process grid (m, n, p) and the block shape are chosen together to
   minimise the off-node halo bytes of one ghost update, counted exactly from the DMDA's own partition (PETSc's
   lx[i] = M/m + (i < M % m)) and stencil: a face neighbour sends s x (the other local widths) points, an edge
   neighbour (box stencil) s x s x (the remaining width), a corner neighbour s^3; times dof and sizeof(PetscScalar).
   The guard: only process grids whose halo bytes in all (on + off node; a property of the grid alone) do not
   exceed those of PETSc's default grid take part, so that off-node bytes are never bought with more traffic in
   all (no machine constant needed). Ties go to fewer bytes in all, then fewer off-node messages, then PETSc's
   default grid; a layout that does not beat the default layout itself leaves the default in place.

   The search enumerates every process grid and block shape and evaluates each layout in O(ranks): cheap up to some
   thousands of ranks. Periodic boundaries are not counted (the DMDA's non-periodic ghost update is).

   Three ways in:
     PKDMDAPlacementCompute     pure, no communication: for bin/pipekrylov-place and the tests (here)
     PKDMDACommCreateNodeAware  a communicator whose rank order gives each node its block, and (m, n, p) (nodeaware.c)
     DMDACreateNodeAware        the DMDA itself, on that communicator (nodeaware.c)
   With -da_node_aware_topology FILE the last two also choose which node gets which block, by the cluster's switch
   tree (topoplace.c, docs/models.md §7.8): rank 0 reads the file and computes the order, every rank applies it.
*/
#include "dmimpl.h"

/* ---------------------------------------------------------------------------------------------------------- */
/* PETSc's default process grid */

/*@C
   PKDMDADefaultProcs - The process grid DMDACreate1d/2d/3d() chooses for PETSC_DECIDE (the same rule as PETSc 3.18's
   DMSetUp_DA_2D and DMSetUp_DA_3D: as square as possible, the larger count along the longer direction).

   Not Collective

   Input Parameters:
+  dim   - 1, 2 or 3
.  M     - global sizes (dim entries)
.  size  - number of ranks
-  given - NULL, or dim entries each a count or PETSC_DECIDE

   Output Parameter:
.  procs - the grid (3 entries; 1 beyond dim)

   Level: developer

.seealso: `PKDMDAPlacementCompute()`
@*/
PetscErrorCode PKDMDADefaultProcs(PetscInt dim, const PetscInt M[], PetscMPIInt size, const PetscInt given[], PetscInt procs[])
{
  PetscInt m = PETSC_DECIDE, n = PETSC_DECIDE, p = PETSC_DECIDE;

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "dim must be 1, 2 or 3, not %" PetscInt_FMT, dim);
  if (given) {
    m = given[0];
    if (dim > 1) n = given[1];
    if (dim > 2) p = given[2];
  }
  procs[0] = procs[1] = procs[2] = 1;
  if (dim == 1) {
    procs[0] = size;
  } else if (dim == 2) {
    if (n != PETSC_DECIDE && m == PETSC_DECIDE) m = size / n;
    else if (m != PETSC_DECIDE && n == PETSC_DECIDE) n = size / m;
    else if (m == PETSC_DECIDE) {
      m = (PetscInt)(0.5 + PetscSqrtReal(((PetscReal)M[0]) * ((PetscReal)size) / ((PetscReal)M[1])));
      if (!m) m = 1;
      while (m > 0) {
        n = size / m;
        if (m * n == size) break;
        m--;
      }
      if (M[0] > M[1] && m < n) {
        PetscInt t = m;
        m          = n;
        n          = t;
      }
    }
    procs[0] = m;
    procs[1] = n;
  } else {
    const PetscInt Mx = M[0], Ny = M[1], Pz = M[2];
    if (m == PETSC_DECIDE && n != PETSC_DECIDE && p != PETSC_DECIDE) m = size / (n * p);
    else if (m != PETSC_DECIDE && n == PETSC_DECIDE && p != PETSC_DECIDE) n = size / (m * p);
    else if (m != PETSC_DECIDE && n != PETSC_DECIDE && p == PETSC_DECIDE) p = size / (m * n);
    else if (m == PETSC_DECIDE && n == PETSC_DECIDE && p != PETSC_DECIDE) {
      m = (PetscInt)(0.5 + PetscSqrtReal(((PetscReal)Mx) * ((PetscReal)size) / ((PetscReal)Ny * p)));
      if (!m) m = 1;
      while (m > 0) {
        n = size / (m * p);
        if (m * n * p == size) break;
        m--;
      }
      if (Mx > Ny && m < n) {
        PetscInt t = m;
        m          = n;
        n          = t;
      }
    } else if (m == PETSC_DECIDE && n != PETSC_DECIDE && p == PETSC_DECIDE) {
      m = (PetscInt)(0.5 + PetscSqrtReal(((PetscReal)Mx) * ((PetscReal)size) / ((PetscReal)Pz * n)));
      if (!m) m = 1;
      while (m > 0) {
        p = size / (m * n);
        if (m * n * p == size) break;
        m--;
      }
      if (Mx > Pz && m < p) {
        PetscInt t = m;
        m          = p;
        p          = t;
      }
    } else if (m != PETSC_DECIDE && n == PETSC_DECIDE && p == PETSC_DECIDE) {
      n = (PetscInt)(0.5 + PetscSqrtReal(((PetscReal)Ny) * ((PetscReal)size) / ((PetscReal)Pz * m)));
      if (!n) n = 1;
      while (n > 0) {
        p = size / (m * n);
        if (m * n * p == size) break;
        n--;
      }
      if (Ny > Pz && n < p) {
        PetscInt t = n;
        n          = p;
        p          = t;
      }
    } else if (m == PETSC_DECIDE && n == PETSC_DECIDE && p == PETSC_DECIDE) {
      n = (PetscInt)(0.5 + PetscPowReal(((PetscReal)Ny * Ny) * ((PetscReal)size) / ((PetscReal)Pz * Mx), (PetscReal)(1. / 3.)));
      if (!n) n = 1;
      while (n > 0) {
        if ((size / n) * n == size) break;
        n--;
      }
      if (!n) n = 1;
      m = (PetscInt)(0.5 + PetscSqrtReal(((PetscReal)Mx) * ((PetscReal)size) / ((PetscReal)Pz * n)));
      if (!m) m = 1;
      while (m > 0) {
        p = size / (m * n);
        if (m * n * p == size) break;
        m--;
      }
      if (Mx > Pz && m < p) {
        PetscInt t = m;
        m          = p;
        p          = t;
      }
    }
    procs[0] = m;
    procs[1] = n;
    procs[2] = p;
  }
  PetscCheck(procs[0] * procs[1] * procs[2] == size, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No process grid for %d ranks with the given counts", (int)size);
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Exact halo of one ghost update for a layout */

typedef struct {
  PetscInt64 msgs_on, msgs_off, bytes_on, bytes_off;
} PKHaloSums;

/* Counts of the grid procs[] (x-fastest rank = position) where node_of_pos[rank] is the node of each position;
   one message from each neighbour to each rank, sized by the stencil (received side, summed over ranks). */
static void PKHaloEval(PetscInt dim, const PetscInt M[], DMDAStencilType st, PetscInt s, PetscInt dof, const PetscInt procs[], const PetscInt node_of_pos[], PKHaloSums *h)
{
  const PetscInt m = procs[0], n = procs[1], p = procs[2];
  const PetscInt dz = dim > 2 ? 1 : 0, dy = dim > 1 ? 1 : 0;

  h->msgs_on = h->msgs_off = h->bytes_on = h->bytes_off = 0;
  for (PetscInt k = 0; k < p; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < m; i++) {
        const PetscInt me   = i + m * (j + n * k);
        const PetscInt w[3] = {PKDMDAWidth(M[0], m, i), dim > 1 ? PKDMDAWidth(M[1], n, j) : 1, dim > 2 ? PKDMDAWidth(M[2], p, k) : 1};
        for (PetscInt ok = -dz; ok <= dz; ok++)
          for (PetscInt oj = -dy; oj <= dy; oj++)
            for (PetscInt oi = -1; oi <= 1; oi++) {
              PetscInt   nz = (oi != 0) + (oj != 0) + (ok != 0), ii = i + oi, jj = j + oj, kk = k + ok, other;
              PetscInt64 vals;
              if (!nz || (st == DMDA_STENCIL_STAR && nz > 1)) continue;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= m || jj >= n || kk >= p) continue;
              other = ii + m * (jj + n * kk);
              vals  = (PetscInt64)(oi ? s : w[0]) * (oj ? s : w[1]) * (ok ? s : w[2]) * dof;
              if (node_of_pos[other] == node_of_pos[me]) {
                h->msgs_on++;
                h->bytes_on += vals * (PetscInt64)sizeof(PetscScalar);
              } else {
                h->msgs_off++;
                h->bytes_off += vals * (PetscInt64)sizeof(PetscScalar);
              }
            }
      }
}

/* node_of_pos for grid procs[] and block shape blk[]: the node owning the block containing each position */
static void PKBlockNodes(const PetscInt procs[], const PetscInt blk[], PetscInt node_of_pos[])
{
  const PetscInt m = procs[0], n = procs[1], p = procs[2], bm = m / blk[0], bn = n / blk[1];
  for (PetscInt k = 0; k < p; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < m; i++) node_of_pos[i + m * (j + n * k)] = i / blk[0] + bm * (j / blk[1] + bn * (k / blk[2]));
}

/* The same counts for a block layout (node of position = its block of blk[], as PKBlockNodes), in O(m + n + p)
   instead of O(m n p): the positions are a product set and a neighbour at offset o is on the same node exactly when,
   in every direction d where o_d != 0, both positions lie in the same block, so every sum over positions factorises
   into one sum per direction. Per direction d and offset value o: C (positions with a neighbour at o), Con (of them,
   with it in the same block), B and Bon (their widths: the part's own width for o = 0, else the stencil width s).
   Messages at offset o: prod_d C_d(o_d), on node prod_d Con_d(o_d); bytes likewise with B. The placement search
   evaluates every grid x block shape with it (with PKHaloEval, 100000 nodes x 8 on a 10000^3 grid took minutes). */
static void PKHaloEvalBlocks(PetscInt dim, const PetscInt M[], DMDAStencilType st, PetscInt s, PetscInt dof, const PetscInt procs[], const PetscInt blk[], PKHaloSums *h)
{
  PetscInt64 C[3][3], Con[3][3], B[3][3], Bon[3][3]; /* [direction][offset + 1] */

  h->msgs_on = h->msgs_off = h->bytes_on = h->bytes_off = 0;
  for (PetscInt d = 0; d < 3; d++) {
    const PetscInt P = procs[d], b = blk[d];
    C[d][1] = Con[d][1] = P;
    B[d][1] = Bon[d][1] = d < dim ? M[d] : 1; /* the parts' widths add up to the global size */
    for (PetscInt o = -1; o <= 1; o += 2) {
      PetscInt64 c = 0, con = 0;
      for (PetscInt i = 0; i < P; i++) {
        if (i + o < 0 || i + o >= P) continue;
        c++;
        if (i / b == (i + o) / b) con++;
      }
      C[d][o + 1]   = c;
      Con[d][o + 1] = con;
      B[d][o + 1]   = c * s;
      Bon[d][o + 1] = con * s;
    }
  }
  for (PetscInt ok = (dim > 2 ? -1 : 0); ok <= (dim > 2 ? 1 : 0); ok++)
    for (PetscInt oj = (dim > 1 ? -1 : 0); oj <= (dim > 1 ? 1 : 0); oj++)
      for (PetscInt oi = -1; oi <= 1; oi++) {
        const PetscInt nz = (oi != 0) + (oj != 0) + (ok != 0);
        PetscInt64     msgs, on, bytes, bon;
        if (!nz || (st == DMDA_STENCIL_STAR && nz > 1)) continue;
        msgs  = C[0][oi + 1] * C[1][oj + 1] * C[2][ok + 1];
        on    = Con[0][oi + 1] * Con[1][oj + 1] * Con[2][ok + 1];
        bytes = B[0][oi + 1] * B[1][oj + 1] * B[2][ok + 1] * dof * (PetscInt64)sizeof(PetscScalar);
        bon   = Bon[0][oi + 1] * Bon[1][oj + 1] * Bon[2][ok + 1] * dof * (PetscInt64)sizeof(PetscScalar);
        h->msgs_on += on;
        h->msgs_off += msgs - on;
        h->bytes_on += bon;
        h->bytes_off += bytes - bon;
      }
}

/* Is procs[] a valid DMDA grid for these sizes: every local width >= s where there is a neighbour */
static PetscBool PKGridOK(PetscInt dim, const PetscInt M[], PetscInt s, const PetscInt procs[])
{
  for (PetscInt d = 0; d < dim; d++) {
    if (procs[d] > M[d]) return PETSC_FALSE;
    if (procs[d] > 1 && M[d] / procs[d] < s) return PETSC_FALSE;
  }
  for (PetscInt d = dim; d < 3; d++)
    if (procs[d] != 1) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* All bytes of one ghost update, on and off node: a property of the process grid alone (not of the nodes) */
static inline PetscInt64 PKHaloTotal(const PKHaloSums *h)
{
  return h->bytes_on + h->bytes_off;
}

/* better(a, b) among the admissible layouts: off-node bytes, all bytes, off-node messages; 0 = tie */
static int PKHaloCmp(const PKHaloSums *a, const PKHaloSums *b)
{
  if (a->bytes_off != b->bytes_off) return a->bytes_off < b->bytes_off ? -1 : 1;
  if (PKHaloTotal(a) != PKHaloTotal(b)) return PKHaloTotal(a) < PKHaloTotal(b) ? -1 : 1;
  if (a->msgs_off != b->msgs_off) return a->msgs_off < b->msgs_off ? -1 : 1;
  return 0;
}

/* Up to this many ranks the search checks the factorised block counts against the exact ones (cheap there) */
#define PK_PLACEMENT_CHECK_RANKS 4096

/* The search (dmimpl.h) */
PetscErrorCode PKPlacementSearch(PetscInt dim, const PetscInt M[], DMDAStencilType st, PetscInt s, PetscInt dof, PetscInt nnodes, PetscInt ppn, PetscMPIInt size, const PetscMPIInt rank_node[], const PetscInt given[], PKPlacement *pl)
{
  PetscInt  *nop, gv[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE};
  PKHaloSums best  = {0, 0, 0, 0}, def, cur;
  PetscBool  found = PETSC_FALSE, blocked = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "dim must be 1, 2 or 3, not %" PetscInt_FMT, dim);
  PetscCheck(s >= 0 && dof >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Stencil width must be >= 0 and dof >= 1");
  PetscCheck(size >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No ranks");
  for (PetscInt d = 0; d < dim; d++) PetscCheck(M[d] >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Global size %" PetscInt_FMT " in direction %" PetscInt_FMT " must be >= 1", M[d], d);
  if (given)
    for (PetscInt d = 0; d < dim; d++) gv[d] = given[d] > 0 ? given[d] : PETSC_DECIDE;
  PetscCall(PetscMemzero(pl, sizeof(*pl)));
  pl->dim     = dim;
  pl->s       = s;
  pl->dof     = dof;
  pl->stencil = st;
  pl->nnodes  = nnodes;
  pl->ppn     = ppn;
  for (PetscInt d = 0; d < 3; d++) pl->M[d] = d < dim ? M[d] : 1;
  PetscCall(PKDMDADefaultProcs(dim, M, size, gv, pl->def_procs));
  PetscCheck(PKGridOK(dim, M, s, pl->def_procs), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The process grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " is too fine for the grid and stencil width %" PetscInt_FMT, pl->def_procs[0], pl->def_procs[1], pl->def_procs[2], s);
  PetscCall(PetscMalloc1(size, &nop));
  for (PetscMPIInt r = 0; r < size; r++) nop[r] = rank_node ? rank_node[r] : (ppn > 0 ? r / ppn : r);
  PKHaloEval(dim, M, st, s, dof, pl->def_procs, nop, &def);
  pl->def_msgs_on   = def.msgs_on;
  pl->def_msgs_off  = def.msgs_off;
  pl->def_bytes_on  = def.bytes_on;
  pl->def_bytes_off = def.bytes_off;
  if (ppn > 0 && ppn * nnodes == size) {
    PetscInt pr[3], b[3];
    for (pr[0] = 1; pr[0] <= size; pr[0]++) {
      if (size % pr[0] || (gv[0] > 0 && pr[0] != gv[0])) continue;
      for (pr[1] = 1; pr[1] <= size / pr[0]; pr[1]++) {
        if ((size / pr[0]) % pr[1] || (gv[1] > 0 && pr[1] != gv[1])) continue;
        pr[2] = size / (pr[0] * pr[1]);
        if ((gv[2] > 0 && pr[2] != gv[2]) || !PKGridOK(dim, M, s, pr)) continue;
        /* block shapes: b[0] and b[1] divide ppn, so the loops run to ppn at most, whatever the grid */
        for (b[0] = 1; b[0] <= PetscMin(pr[0], ppn); b[0]++) {
          if (pr[0] % b[0] || ppn % b[0]) continue;
          for (b[1] = 1; b[1] <= PetscMin(pr[1], ppn / b[0]); b[1]++) {
            if (pr[1] % b[1] || (ppn / b[0]) % b[1]) continue;
            b[2] = ppn / (b[0] * b[1]);
            if (pr[2] % b[2]) continue;
            PKHaloEvalBlocks(dim, M, st, s, dof, pr, b, &cur);
            if (size <= PK_PLACEMENT_CHECK_RANKS) { /* small runs (every test's) also count position by position */
              PKHaloSums ex;
              PKBlockNodes(pr, b, nop);
              PKHaloEval(dim, M, st, s, dof, pr, nop, &ex);
              PetscCheck(ex.msgs_on == cur.msgs_on && ex.msgs_off == cur.msgs_off && ex.bytes_on == cur.bytes_on && ex.bytes_off == cur.bytes_off, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Block halo counts differ from the exact ones for grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " block %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT, pr[0], pr[1], pr[2], b[0], b[1], b[2]);
            }
            blocked = PETSC_TRUE;
            /* the guard: no grid that carries more halo bytes in all than PETSc's default grid, whatever it saves
               off node (1 x 1 x 16 slabs of 48^3 on 2 nodes x 8 cut off-node bytes by 8% and tripled the rest) */
            if (PKHaloTotal(&cur) > PKHaloTotal(&def)) continue;
            {
              int       c     = found ? PKHaloCmp(&cur, &best) : -1;
              PetscBool isdef = (PetscBool)(pr[0] == pl->def_procs[0] && pr[1] == pl->def_procs[1] && pr[2] == pl->def_procs[2]);
              PetscBool bdef  = (PetscBool)(pl->procs[0] == pl->def_procs[0] && pl->procs[1] == pl->def_procs[1] && pl->procs[2] == pl->def_procs[2]);
              if (c < 0 || (c == 0 && isdef && !bdef)) {
                best  = cur;
                found = PETSC_TRUE;
                for (PetscInt d = 0; d < 3; d++) {
                  pl->procs[d] = pr[d];
                  pl->block[d] = b[d];
                }
              }
            }
          }
        }
      }
    }
  }
  PetscCall(PetscFree(nop));
  /* a move must gain something: when no admissible block layout beats the default layout itself (x-fastest ranks,
     nodes as they are; it need not be a block, and may already be the best one), the default stays */
  if (found && PKHaloCmp(&best, &def) >= 0) found = PETSC_FALSE;
  if (found) {
    pl->placed    = PETSC_TRUE;
    pl->msgs_on   = best.msgs_on;
    pl->msgs_off  = best.msgs_off;
    pl->bytes_on  = best.bytes_on;
    pl->bytes_off = best.bytes_off;
  } else {
    /* the default layout, with the reason */
    pl->placed = PETSC_FALSE;
    for (PetscInt d = 0; d < 3; d++) {
      pl->procs[d] = pl->def_procs[d];
      pl->block[d] = 0;
    }
    pl->msgs_on   = def.msgs_on;
    pl->msgs_off  = def.msgs_off;
    pl->bytes_on  = def.bytes_on;
    pl->bytes_off = def.bytes_off;
    if (ppn <= 0 || ppn * nnodes != size) PetscCall(PetscSNPrintf(pl->note, sizeof(pl->note), "nodes differ in size (%" PetscInt_FMT " nodes for %d ranks): default layout kept", nnodes, (int)size));
    else if (!blocked) PetscCall(PetscSNPrintf(pl->note, sizeof(pl->note), "no process grid allowed here has a block of %" PetscInt_FMT " ranks per node: default layout kept", ppn));
    else PetscCall(PetscSNPrintf(pl->note, sizeof(pl->note), "no block layout of a process grid with no more halo bytes in all than the default grid's has fewer off-node bytes: default layout kept"));
  }
  PetscFunctionReturn(0);
}

/*@C
   PKDMDAPlacementCompute - The node-aware layout of a DMDA on nnodes nodes of ppn ranks each: the process grid
   and the block of the grid each node owns, chosen to minimise the off-node bytes of one ghost update (exact)
   among the process grids that carry no more halo bytes in all than PETSc's default grid, with the counts of the
   default layout (PETSc's grid, ranks x-fastest, rank r on node r / ppn) and of the placed one. No communication.

   Not Collective

   Input Parameters:
+  dim     - 1, 2 or 3
.  M       - global sizes (dim entries)
.  stencil - DMDA_STENCIL_STAR or DMDA_STENCIL_BOX
.  s       - stencil width
.  dof     - degrees of freedom per point
.  nnodes  - number of nodes
.  ppn     - ranks per node (0 if nodes differ in size: then the default layout is returned, with a note)
-  procs   - NULL, or dim entries each a fixed count or PETSC_DECIDE

   Output Parameter:
.  pl - the placement (procs, block, placed, counts, note)

   Level: intermediate

   Notes:
   The rule: a layout is a process grid with one block shape for all nodes. Only grids whose halo bytes in all (on
   and off node, summed over ranks; they do not depend on the nodes) do not exceed those of PETSc's default grid
   (or of procs, when it fixes the grid) are admissible; among their block layouts the one with the fewest
   off-node bytes wins, ties going to fewer bytes in all, then fewer off-node messages, then PETSc's default grid.
   Without the guard, slabs win on off-node bytes alone: 48^3, 27-point, on 2 nodes x 8 would go to 1 x 1 x 16,
   off node 40000 -> 36864 bytes but on node 155264 -> 516096. If the winner does not beat the default layout
   itself (fewer off-node bytes, else as many in fewer bytes in all, else in fewer off-node messages), the default
   is kept (placed = PETSC_FALSE, with a note), so the placed layout never has more off-node bytes nor more
   bytes in all than the default one.

   Counts are the DMDA's ghost update, one message per neighbour, periodic boundaries not counted; for an operator
   assembled with the DMDA's stencil they are the messages of one MatMult (see PKMatGetHaloCounts()).

.seealso: `PKDMDACommCreateNodeAware()`, `DMDACreateNodeAware()`, `PKDMDAPlacementRankNode()`
@*/
PetscErrorCode PKDMDAPlacementCompute(PetscInt dim, const PetscInt M[], DMDAStencilType stencil, PetscInt s, PetscInt dof, PetscInt nnodes, PetscInt ppn, const PetscInt procs[], PKPlacement *pl)
{
  PetscInt size = ppn > 0 ? nnodes * ppn : nnodes;

  PetscFunctionBegin;
  PetscCheck(nnodes >= 1 && ppn >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need nnodes >= 1 and ppn >= 0");
  PetscCall(PKPlacementSearch(dim, M, stencil, s, dof, nnodes, ppn, (PetscMPIInt)size, NULL, procs, pl));
  PetscFunctionReturn(0);
}

/*@C
   PKDMDAPlacementRankNode - For an unmodified application: the node (and the slot within it) that rank r must run
   on so that, with PETSc's x-fastest numbering of the placed process grid, each node holds its block.

   Not Collective

   Input Parameters:
+  pl - a placement from PKDMDAPlacementCompute()
-  r  - an MPI rank of the application

   Output Parameters:
+  node - the node of rank r
-  slot - its index among the node's ranks (x-fastest within the block)

   Level: intermediate

.seealso: `PKDMDAPlacementCompute()`
@*/
PetscErrorCode PKDMDAPlacementRankNode(const PKPlacement *pl, PetscInt r, PetscInt *node, PetscInt *slot)
{
  const PetscInt m = pl->procs[0], n = pl->procs[1];
  PetscInt       i, j, k;

  PetscFunctionBegin;
  PetscCheck(r >= 0 && r < pl->procs[0] * pl->procs[1] * pl->procs[2], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rank %" PetscInt_FMT " outside the grid", r);
  if (!pl->placed) { /* default: consecutive ranks per node */
    if (node) *node = pl->ppn > 0 ? r / pl->ppn : 0;
    if (slot) *slot = pl->ppn > 0 ? r % pl->ppn : r;
    PetscFunctionReturn(0);
  }
  i = r % m;
  j = (r / m) % n;
  k = r / (m * n);
  if (node) *node = i / pl->block[0] + (m / pl->block[0]) * (j / pl->block[1] + (n / pl->block[1]) * (k / pl->block[2]));
  if (slot) *slot = i % pl->block[0] + pl->block[0] * (j % pl->block[1] + pl->block[1] * (k % pl->block[2]));
  PetscFunctionReturn(0);
}
