/*
   What a list of messages puts on the links of a switch tree (docs/models.md §7): bytes and messages per
   link direction, hop counts, the busiest link (004's contention l). Plain functions of their inputs, the tree from
   topology.c; the report (pricing a halo) and the placement (keeping halo bytes off the switch-to-switch links) both
   count them.
*/
#include <pipekrylov/private/pktopo.h>

/*@C
   PKTopoLoadsCreate - Empty link loads for a tree.

   Not Collective

   Input Parameter:
.  topo - the tree

   Output Parameter:
.  loads - zero loads on each of its nswitches + nnodes links; free with PKTopoLoadsDestroy()

   Level: developer

.seealso: `PKTopoLoadsAdd()`, `PKTopoLoadsSummarize()`
@*/
PetscErrorCode PKTopoLoadsCreate(PKTopo topo, PKTopoLoads *loads)
{
  PetscInt nsw, nnode;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(topo, &nsw, &nnode, NULL, NULL));
  PetscCall(PetscMemzero(loads, sizeof(*loads)));
  loads->nlinks = nsw + nnode;
  PetscCall(PetscCalloc1(2 * loads->nlinks, &loads->bytes));
  PetscCall(PetscCalloc1(2 * loads->nlinks, &loads->nmsg));
  loads->busiest.link     = -1;
  loads->busiest_net.link = -1;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLoadsAdd - Adds the bytes of a list of messages to the links they cross.

   Not Collective

   Input Parameters:
+  topo  - the tree
.  n     - the number of messages
.  src   - the sending node of each (PKTopoFindNode(); < 0: a node the topology does not list)
.  dst   - the receiving node of each
-  bytes - the size of each (>= 0)

   Input/Output Parameter:
.  loads - bytes and messages per link direction, message counts and hop sums (see PKTopoLoads)

   Notes:
   A message between two ranks of one node crosses no link (n_on). A message with an unlisted node, or between two
   roots' trees, is counted in n_unknown and crosses nothing. The others follow PKTopoRoute(). Each rank may add
   its own messages and the sums be reduced across ranks (hops_max with a maximum) before PKTopoLoadsSummarize().

   Level: developer

.seealso: `PKTopoLoadsCreate()`, `PKTopoLoadsSummarize()`, `PKTopoRoute()`
@*/
PetscErrorCode PKTopoLoadsAdd(PKTopo topo, PetscInt n, const PetscInt src[], const PetscInt dst[], const PetscReal bytes[], PKTopoLoads *loads)
{
  PKTopoLink links[PK_TOPO_MAX_ROUTE];
  PetscInt   nsw, nnode;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(topo, &nsw, &nnode, NULL, NULL));
  PetscCheck(loads->nlinks == nsw + nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Loads of %" PetscInt_FMT " links, not made for this tree of %" PetscInt_FMT, loads->nlinks, nsw + nnode);
  for (PetscInt m = 0; m < n; m++) {
    PetscInt nl;

    PetscCheck(bytes[m] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Message %" PetscInt_FMT ": negative size %g", m, (double)bytes[m]);
    PetscCheck(src[m] < nnode && dst[m] < nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Message %" PetscInt_FMT ": node %" PetscInt_FMT " or %" PetscInt_FMT " not in the tree's %" PetscInt_FMT " nodes", m, src[m], dst[m], nnode);
    if (src[m] < 0 || dst[m] < 0) {
      loads->n_unknown++;
      continue;
    }
    if (src[m] == dst[m]) {
      loads->n_on++;
      continue;
    }
    PetscCall(PKTopoRoute(topo, src[m], dst[m], &nl, links));
    if (nl < 0) {
      loads->n_unknown++;
      continue;
    }
    for (PetscInt k = 0; k < nl; k++) {
      loads->bytes[2 * links[k].link + links[k].dir] += bytes[m];
      loads->nmsg[2 * links[k].link + links[k].dir]++;
    }
    loads->n_off++;
    loads->bytes_off += bytes[m];
    loads->hops_sum += nl;
    loads->hops_bytes += nl * bytes[m];
    loads->hops_max = PetscMax(loads->hops_max, nl);
  }
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLoadsSummarize - The averages and the busiest links of accumulated link loads.

   Not Collective

   Input Parameter:
.  topo - the tree

   Input/Output Parameter:
.  loads - on output hops_avg (per off-node message: 000 5.6's n_hops), hops_byte_avg (per byte: 004 4.2's h),
           busiest (the link direction with the most bytes) and busiest_net (the same among switch-to-switch links:
           004's l of the contention term delta l), with their bytes and messages

   Notes:
   Links are full duplex: each direction is a link of its own. Ties go to the lowest link index, up before down
   (switch uplinks come before host links), so the result is deterministic. A busiest link of no bytes has link -1.
   The contention term uses busiest_net: traffic on a host link is the node's own injection, priced by the postal
   and max-rate terms; a switch-to-switch link is where messages of different nodes queue behind each other.

   Level: developer

.seealso: `PKTopoLoadsAdd()`, `PKModelContentionLoad()`, `PKTopoLinkName()`
@*/
PetscErrorCode PKTopoLoadsSummarize(PKTopo topo, PKTopoLoads *loads)
{
  PetscInt nsw, nnode;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(topo, &nsw, &nnode, NULL, NULL));
  PetscCheck(loads->nlinks == nsw + nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Loads of %" PetscInt_FMT " links, not made for this tree of %" PetscInt_FMT, loads->nlinks, nsw + nnode);
  loads->hops_avg      = loads->n_off ? loads->hops_sum / loads->n_off : 0;
  loads->hops_byte_avg = loads->bytes_off > 0 ? loads->hops_bytes / loads->bytes_off : 0;
  loads->busiest       = (PKTopoLink){-1, PK_TOPO_UP};
  loads->busiest_net   = (PKTopoLink){-1, PK_TOPO_UP};
  loads->busiest_bytes = loads->busiest_net_bytes = 0;
  loads->busiest_nmsg = loads->busiest_net_nmsg = 0;
  for (PetscInt l = 0; l < loads->nlinks; l++) {
    for (PetscInt d = 0; d < 2; d++) {
      PetscReal b = loads->bytes[2 * l + d];
      if (b > loads->busiest_bytes) {
        loads->busiest       = (PKTopoLink){l, (PKTopoDir)d};
        loads->busiest_bytes = b;
        loads->busiest_nmsg  = loads->nmsg[2 * l + d];
      }
      if (l < nsw && b > loads->busiest_net_bytes) {
        loads->busiest_net       = (PKTopoLink){l, (PKTopoDir)d};
        loads->busiest_net_bytes = b;
        loads->busiest_net_nmsg  = loads->nmsg[2 * l + d];
      }
    }
  }
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLoadsDestroy - Frees link loads.

   Not Collective

   Input Parameter:
.  loads - the loads

   Level: developer

.seealso: `PKTopoLoadsCreate()`
@*/
PetscErrorCode PKTopoLoadsDestroy(PKTopoLoads *loads)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(loads->bytes));
  PetscCall(PetscFree(loads->nmsg));
  loads->nlinks = 0;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoRecursiveDoublingHops - The hops of an allreduce's off-node rounds on the tree: recursive doubling over the
   nodes (000 5.3: one rank per node talks off node), round k pairing node i with node i XOR 2^k; a round waits for
   its farthest pair.

   Not Collective

   Input Parameters:
+  topo  - the tree
.  n     - nodes of the run
-  where - [n] each node's index in the tree (< 0: not in it)

   Output Parameters:
+  mean - the mean over the rounds of the largest hop count of the round's pairs (links, as PKTopoHops); 0 if none
-  known - rounds whose pairs were all in the tree (the others are left out)

   Level: developer

.seealso: `PKTopoHops()`
@*/
PetscErrorCode PKTopoRecursiveDoublingHops(PKTopo topo, PetscInt n, const PetscInt where[], PetscReal *mean, PetscInt *known)
{
  PetscReal sum = 0;

  PetscFunctionBegin;
  *mean  = 0;
  *known = 0;
  for (PetscInt bit = 1; bit < n; bit <<= 1) {
    PetscInt  hmax = 0;
    PetscBool ok   = PETSC_TRUE;
    for (PetscInt i = 0; i < n && ok; i++) {
      PetscInt j = i ^ bit, h;
      if (j >= n || j < i) continue;
      if (where[i] < 0 || where[j] < 0) {
        ok = PETSC_FALSE;
        break;
      }
      PetscCall(PKTopoHops(topo, where[i], where[j], &h));
      if (h < 0) ok = PETSC_FALSE; /* different roots: no route */
      else hmax = PetscMax(hmax, h);
    }
    if (!ok) continue;
    sum += hmax;
    (*known)++;
  }
  if (*known) *mean = sum / *known;
  PetscFunctionReturn(0);
}
