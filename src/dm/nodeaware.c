/*
   The node-aware layout applied (placement.c computes it): a communicator whose rank order gives each node its block
   of the process grid, the DMDA on it, the order of the node blocks on the switch tree (-da_node_aware_topology,
   topoplace.c) and the views (-da_node_aware_view).
*/
#include "dmimpl.h"

/* ---------------------------------------------------------------------------------------------------------- */
/* Topology-aware order of the node blocks (-da_node_aware_topology): rank 0 reads the tree, finds the nodes by
   name and computes the order (src/dm/topoplace.c); every rank gets the order */

typedef struct {
  char      file[PETSC_MAX_PATH_LEN]; /* -da_node_aware_topology; empty: none */
  PetscBool view;                     /* -da_node_aware_view */
  PetscInt *order;                    /* [nnodes], every rank: node block b runs on node order[b] */
  PetscBool placed;                   /* the order is not the node-aware one */
  /* rank 0 only, for the view */
  PKTopo          topo;
  PKTopoPlacement tp;
  char           *names; /* [nnodes][MPI_MAX_PROCESSOR_NAME] */
} PKNodeAwareTopo;

static PetscErrorCode PKNodeAwareTopoDestroy(PKNodeAwareTopo *nt)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(nt->order));
  PetscCall(PetscFree(nt->names));
  if (nt->topo) PetscCall(PKTopoPlacementDestroy(&nt->tp));
  PetscCall(PKTopoDestroy(&nt->topo));
  PetscFunctionReturn(0);
}

/* The options, read collectively so that -help lists them */
static PetscErrorCode PKNodeAwareOptions(MPI_Comm comm, PKNodeAwareTopo *nt)
{
  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Node-aware DMDA placement (DMDACreateNodeAware)", "DM");
  PetscCall(PetscOptionsString("-da_node_aware_topology", "Slurm topology.conf (topology/tree) locating the nodes on a switch tree: node blocks placed so that neighbouring blocks share a leaf switch", "DMDACreateNodeAware", nt->file, nt->file, sizeof(nt->file), NULL));
  PetscCall(PetscOptionsBool("-da_node_aware_view", "Print the placement: process grid, node blocks, off-node bytes; with a topology the switch-to-switch bytes of the default, node-aware and topology-aware layouts", "DMDACreateNodeAware", nt->view, &nt->view, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

/* The processor name of every node (that of its lowest rank) on rank 0, node by node: the nodes are numbered in the
   order of their lowest ranks (PKCommGetNodes), so the lowest ranks' names arrive in node order */
static PetscErrorCode PKNodeNames(MPI_Comm comm, PetscMPIInt nnodes, const PetscMPIInt rank_node[], char **names)
{
  PetscMPIInt rank, size, len, first = 1, *counts = NULL, *displs = NULL;
  char        me[MPI_MAX_PROCESSOR_NAME];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMemzero(me, sizeof(me)));
  PetscCallMPI(MPI_Get_processor_name(me, &len));
  for (PetscMPIInt r = 0; r < rank; r++)
    if (rank_node[r] == rank_node[rank]) first = 0;
  *names = NULL;
  if (rank == 0) {
    PetscInt   k = 0;
    PetscBool *seen;
    PetscCall(PetscCalloc1((size_t)nnodes * MPI_MAX_PROCESSOR_NAME, names));
    PetscCall(PetscMalloc2(size, &counts, size, &displs));
    PetscCall(PetscCalloc1(nnodes, &seen));
    for (PetscMPIInt r = 0; r < size; r++) { /* the lowest rank of each node sends its name */
      const PetscBool lead = (PetscBool)!seen[rank_node[r]];
      seen[rank_node[r]]   = PETSC_TRUE;
      counts[r]            = lead ? MPI_MAX_PROCESSOR_NAME : 0;
      displs[r]            = (PetscMPIInt)(k * MPI_MAX_PROCESSOR_NAME);
      k += lead;
    }
    PetscCall(PetscFree(seen));
  }
  PetscCallMPI(MPI_Gatherv(me, first ? MPI_MAX_PROCESSOR_NAME : 0, MPI_CHAR, *names, counts, displs, MPI_CHAR, 0, comm));
  PetscCall(PetscFree2(counts, displs));
  PetscFunctionReturn(0);
}

/* The order of the node blocks by the tree in nt->file; every rank gets nt->order (the identity when the tree cannot
   be used, with a note on standard error). A file that cannot be read or parsed is an error on every rank. */
static PetscErrorCode PKNodeAwareTopoCompute(MPI_Comm comm, const PKPlacement *place, PetscMPIInt nnodes, const PetscMPIInt rank_node[], PKNodeAwareTopo *nt)
{
  PetscMPIInt rank;
  struct {
    int       rc;
    PetscBool placed, usable;
    char      msg[1024];
  } st = {0, PETSC_FALSE, PETSC_TRUE, ""};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(nnodes, &nt->order));
  for (PetscInt b = 0; b < nnodes; b++) nt->order[b] = b;
  PetscCall(PKNodeNames(comm, nnodes, rank_node, &nt->names));
  if (rank == 0) {
    const char   **nm;
    PetscErrorCode ierr;

    PetscCall(PetscMalloc1(nnodes, &nm));
    for (PetscInt i = 0; i < nnodes; i++) nm[i] = nt->names + i * MPI_MAX_PROCESSOR_NAME;
    /* errors here are rank 0's alone: caught, sent to all, raised by all */
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PKTopoCreateFromFile(nt->file, &nt->topo);
    if (!ierr) ierr = PKDMDAPlacementComputeTopology(place, rank_node, nt->topo, nm, PETSC_DEFAULT, &nt->tp);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscFree(nm));
    if (ierr) {
      const char *text;
      char       *specific = NULL;
      PetscCall(PetscErrorMessage(ierr, &text, &specific));
      st.rc = (int)ierr;
      PetscCall(PetscSNPrintf(st.msg, sizeof(st.msg), "-da_node_aware_topology: %s", specific && specific[0] ? specific : text));
      PetscCall(PKTopoDestroy(&nt->topo));
    } else {
      st.placed = nt->tp.placed;
      st.usable = nt->tp.usable;
      PetscCall(PetscStrncpy(st.msg, nt->tp.note, sizeof(st.msg)));
      for (PetscInt b = 0; b < nnodes; b++) nt->order[b] = nt->tp.order[b];
    }
  }
  PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, comm));
  PetscCheck(!st.rc, comm, (PetscErrorCode)st.rc, "%s", st.msg);
  PetscCallMPI(MPI_Bcast(nt->order, nnodes, MPIU_INT, 0, comm));
  nt->placed = st.placed;
  /* a tree that does not describe this allocation is the user's to know about; a tree with nothing to gain is not */
  if (!st.usable) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "DMDACreateNodeAware: -da_node_aware_topology %s: %s\n", nt->file, st.msg));
  PetscCall(PetscInfo(NULL, "topology %s: %s\n", nt->file, st.msg));
  PetscFunctionReturn(0);
}

/* One layout's traffic on the switch-to-switch links */
static PetscErrorCode PKTrafficView(MPI_Comm comm, PKTopo topo, const char what[], const PKTopoTraffic *tr)
{
  char link[2 * PK_TOPO_MAX_NAME + 8] = "none";

  PetscFunctionBegin;
  if (topo && tr->busiest.link >= 0) PetscCall(PKTopoLinkName(topo, tr->busiest, link, sizeof(link)));
  PetscCall(PetscPrintf(comm, "  switch links, %s: %.0f bytes per ghost update (busiest %s %.0f bytes; %.0f bytes leave a leaf switch)%s\n", what, (double)tr->link_bytes, link, (double)tr->busiest_bytes, (double)tr->leaf_bytes, tr->n_unknown ? "; some messages not routed (a node not in the topology)" : ""));
  PetscFunctionReturn(0);
}

/* -da_node_aware_view: the placement, and with a topology the three layouts' switch-to-switch traffic (rank 0) */
static PetscErrorCode PKNodeAwareView(MPI_Comm comm, const PKPlacement *pl, const PKNodeAwareTopo *nt)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscPrintf(comm, "node-aware DMDA: %" PetscInt_FMT " nodes x %" PetscInt_FMT " ranks, process grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", ", pl->nnodes, pl->ppn, pl->procs[0], pl->procs[1], pl->procs[2]));
  if (pl->placed) PetscCall(PetscPrintf(comm, "node blocks %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT, pl->block[0], pl->block[1], pl->block[2]));
  else PetscCall(PetscPrintf(comm, "%s", pl->note));
  PetscCall(PetscPrintf(comm, "; off-node bytes per ghost update %" PetscInt64_FMT " (default layout %" PetscInt64_FMT ")\n", pl->bytes_off, pl->def_bytes_off));
  if (!nt->file[0] || rank) PetscFunctionReturn(0);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "node-aware DMDA: topology %s: %" PetscInt_FMT " nodes, leaf switches holding them: %" PetscInt_FMT "\n", nt->file, nt->tp.nnodes, nt->tp.nleaves));
  if (nt->tp.usable) { /* else the counts are of a tree that is not this allocation's */
    PetscCall(PKTrafficView(PETSC_COMM_SELF, nt->topo, "default", &nt->tp.def));
    PetscCall(PKTrafficView(PETSC_COMM_SELF, nt->topo, "node-aware", &nt->tp.nodeaware));
    PetscCall(PKTrafficView(PETSC_COMM_SELF, nt->topo, "topology-aware", &nt->tp.topo));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  topology-aware: %s", nt->tp.note));
  if (nt->tp.placed && nt->tp.nnodes <= 64) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "; node blocks 0..%" PetscInt_FMT " on nodes", nt->tp.nnodes - 1));
    for (PetscInt b = 0; b < nt->tp.nnodes; b++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %s", nt->names + nt->tp.order[b] * MPI_MAX_PROCESSOR_NAME));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  PetscFunctionReturn(0);
}

/* The communicator and grid of PKDMDACommCreateNodeAware(), for dof values per point; nt (may be NULL) keeps the
   topology's result for DMDACreateNodeAware()'s view */
static PetscErrorCode PKNodeAwareCommCreate(MPI_Comm comm, PetscInt dim, const PetscInt M[], DMDAStencilType stencil, PetscInt s, PetscInt dof, const PetscInt procs[], MPI_Comm *newcomm, PetscInt procs_out[], PKPlacement *pl, PKNodeAwareTopo *ntout)
{
  PetscMPIInt     rank, size, nnodes, *rank_node, key = 0, *count, most;
  PetscInt        ppn, *inv, node, block, slot        = 0;
  PKPlacement     place;
  PKNodeAwareTopo nt;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&nt, sizeof(nt)));
  PetscCall(PKNodeAwareOptions(comm, &nt));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PKCommGetNodes(comm, PETSC_DETERMINE, &nnodes, &rank_node));
  PetscCall(PetscMalloc1(nnodes, &count));
  PetscCall(PKNodesGetSizes(size, nnodes, rank_node, count, &most));
  ppn = most; /* 0 when the nodes differ in size: the search keeps the default layout */
  for (PetscMPIInt q = 0; q < nnodes; q++)
    if (count[q] != most) ppn = 0;
  PetscCall(PKPlacementSearch(dim, M, stencil, s, dof, nnodes, ppn, size, rank_node, procs, &place));
  if (!place.placed) PetscCall(PetscInfo(NULL, "%s\n", place.note));
  if (nt.file[0]) PetscCall(PKNodeAwareTopoCompute(comm, &place, nnodes, rank_node, &nt));
  /* my node runs block inv[node] (node block b on node order[b]; the identity without a tree); slot: my index among
     the ranks of my node */
  PetscCall(PetscMalloc1(nnodes, &inv));
  for (PetscInt b = 0; b < nnodes; b++) inv[nt.order ? nt.order[b] : b] = b;
  node  = rank_node[rank];
  block = inv[node];
  for (PetscMPIInt r = 0; r < rank; r++) slot += rank_node[r] == node;
  if (place.placed) {
    /* my position: my slot within my block, x-fastest */
    const PetscInt bm = place.procs[0] / place.block[0], bn = place.procs[1] / place.block[1];
    const PetscInt bi = block % bm, bj = (block / bm) % bn, bk = block / (bm * bn);
    const PetscInt li = slot % place.block[0], lj = (slot / place.block[0]) % place.block[1], lk = slot / (place.block[0] * place.block[1]);
    key = (PetscMPIInt)((bi * place.block[0] + li) + place.procs[0] * ((bj * place.block[1] + lj) + place.procs[1] * (bk * place.block[2] + lk)));
  } else {
    /* the default layout's blocks are the nodes' own rank sets: my position is the slot-th rank of node `block`
       (my own rank when block == node) */
    PetscInt k = 0;
    for (PetscMPIInt r = 0; r < size; r++)
      if (rank_node[r] == block && k++ == slot) {
        key = r;
        break;
      }
  }
  PetscCallMPI(MPI_Comm_split(comm, 0, key, newcomm));
  if (nt.view) PetscCall(PKNodeAwareView(comm, &place, &nt));
  PetscCall(PetscFree(inv));
  PetscCall(PetscFree(count));
  PetscCall(PetscFree(rank_node));
  for (PetscInt d = 0; d < 3; d++) procs_out[d] = place.procs[d];
  if (pl) *pl = place;
  if (ntout) *ntout = nt;
  else PetscCall(PKNodeAwareTopoDestroy(&nt));
  PetscFunctionReturn(0);
}

/*@C
   PKDMDACommCreateNodeAware - A communicator whose rank order gives each node a compact block of a DMDA's process
   grid, and that grid (the rule of PKDMDAPlacementCompute(); nodes as PKCommGetNodes() finds them). Where nodes
   differ in size or nothing beats the default layout, comm's order and PETSc's grid (pl->note and -info say why).

   Collective

   Input Parameters:
+  comm    - the communicator
.  dim     - 1, 2 or 3
.  M       - global sizes (dim entries)
.  stencil - DMDA_STENCIL_STAR or DMDA_STENCIL_BOX
.  s       - stencil width
-  procs   - NULL, or dim entries each a fixed count or PETSC_DECIDE

   Output Parameters:
+  newcomm - the reordered communicator (free it with MPI_Comm_free() once no object uses it)
.  procs_out - the process grid (m, n, p) to pass to DMDACreate1d/2d/3d() with newcomm
-  pl      - NULL, or the placement with the counts of the default and of the placed layout (dof 1)

   Options Database Keys:
+  -da_node_aware_topology <file> - Slurm's topology.conf (topology/tree plugin) locating the nodes, by their
                                    MPI_Get_processor_name(), on a switch tree: neighbouring blocks go to nodes under
                                    one leaf switch (never worse than the node-aware order, which is kept, with a note,
                                    when a node is not in the file)
-  -da_node_aware_view            - print the placement and, with a topology, its bytes on the switch-to-switch links

   References:
   docs/algorithms.md §8 (the placement), docs/models.md §7.8 (the order on the switch tree; rank 0 reads the file,
   a regular file of at most 4 MiB)

   Level: intermediate

.seealso: `DMDACreateNodeAware()`, `PKDMDAPlacementCompute()`, `PKCommGetNodes()`
@*/
PetscErrorCode PKDMDACommCreateNodeAware(MPI_Comm comm, PetscInt dim, const PetscInt M[], DMDAStencilType stencil, PetscInt s, const PetscInt procs[], MPI_Comm *newcomm, PetscInt procs_out[], PKPlacement *pl)
{
  PetscFunctionBegin;
  PetscCall(PKNodeAwareCommCreate(comm, dim, M, stencil, s, 1, procs, newcomm, procs_out, pl, NULL));
  PetscFunctionReturn(0);
}

/* -da_node_aware_view with a topology: the switch-to-switch traffic of the DMDA as it was made, counted from its own
   grid and each rank's place in it and node (so that a wrong order of the communicator would show) */
static PetscErrorCode PKNodeAwareViewPlaced(DM da, MPI_Comm comm, const PKNodeAwareTopo *nt)
{
  PetscMPIInt     rank, size, pos, *posv = NULL, nnodes, *rank_node;
  PetscInt        dim, M[3], procs[3], dof, s, *nop = NULL, *where = NULL;
  DMDAStencilType st;
  PKTopoTraffic   tr;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PKCommGetNodes(comm, PETSC_DETERMINE, &nnodes, &rank_node));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)da), &pos)); /* the DMDA's rank is the position, x-fastest */
  if (!rank) PetscCall(PetscMalloc1(size, &posv));
  PetscCallMPI(MPI_Gather(&pos, 1, MPI_INT, posv, 1, MPI_INT, 0, comm));
  if (!rank && nt->topo && nt->tp.usable) {
    PetscCall(DMDAGetInfo(da, &dim, &M[0], &M[1], &M[2], &procs[0], &procs[1], &procs[2], &dof, &s, NULL, NULL, NULL, &st));
    PetscCall(PetscMalloc1(size, &nop));
    PetscCall(PetscMalloc1(nnodes, &where));
    for (PetscMPIInt r = 0; r < size; r++) nop[posv[r]] = rank_node[r];
    for (PetscInt q = 0; q < nnodes; q++) where[q] = nt->tp.tnode[q];
    PetscCall(PKDMDATopoTraffic(dim, M, st, s, dof, procs, nop, nt->topo, where, &tr));
    PetscCall(PKTrafficView(PETSC_COMM_SELF, nt->topo, "as placed (the DMDA's ranks on their nodes)", &tr));
  }
  PetscCall(PetscFree(posv));
  PetscCall(PetscFree(nop));
  PetscCall(PetscFree(where));
  PetscCall(PetscFree(rank_node));
  PetscFunctionReturn(0);
}

/*@C
   DMDACreateNodeAware - Creates a DMDA whose ranks are placed node-aware: each node owns a compact block of the
   process grid, chosen to minimise off-node halo bytes without more halo bytes in all than PETSc's default grid
   (PKDMDACommCreateNodeAware(), PKDMDAPlacementCompute()); with -da_node_aware_topology the blocks go to the nodes by
   the cluster's switch tree. The DMDA lives on a
   reordered communicator: build the KSP and vectors on PetscObjectComm((PetscObject)da). The process grid can
   still be fixed with -da_processors_x/y/z only if it keeps the placement's; the DMDA is set up (DMSetFromOptions()
   and DMSetUp() are called).

   Collective

   Input Parameters:
+  comm     - the communicator
.  dim      - 1, 2 or 3
.  bx,by,bz - boundary types (periodic neighbours are not counted by the placement)
.  stencil  - DMDA_STENCIL_STAR or DMDA_STENCIL_BOX
.  M,N,P    - global sizes (1 beyond dim)
.  dof      - degrees of freedom per point
-  s        - stencil width

   Output Parameter:
.  da - the DMDA

   Options Database Keys:
+  -da_node_aware_topology <file> - place the node blocks by a Slurm topology.conf (PKDMDACommCreateNodeAware())
-  -da_node_aware_view            - print the placement; with a topology also the switch-to-switch bytes of the
                                    DMDA as made (its ranks on the nodes they run on), beside the predicted ones

   Level: beginner

.seealso: `PKDMDACommCreateNodeAware()`, `DMDACreate3d()`
@*/
PetscErrorCode DMDACreateNodeAware(MPI_Comm comm, PetscInt dim, DMBoundaryType bx, DMBoundaryType by, DMBoundaryType bz, DMDAStencilType stencil, PetscInt M, PetscInt N, PetscInt P, PetscInt dof, PetscInt s, DM *da)
{
  const PetscInt  Ms[3] = {M, N, P};
  PetscInt        procs[3];
  MPI_Comm        nc;
  PKPlacement     pl;
  PKNodeAwareTopo nt;

  PetscFunctionBegin;
  PetscCall(PKNodeAwareCommCreate(comm, dim, Ms, stencil, s, dof, NULL, &nc, procs, &pl, &nt));
  PetscCall(PetscInfo(NULL, "node-aware DMDA: grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", block %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", off-node bytes %" PetscInt64_FMT " (default %" PetscInt64_FMT ")\n", procs[0], procs[1], procs[2], pl.block[0], pl.block[1], pl.block[2], pl.bytes_off, pl.def_bytes_off));
  if (dim == 1) PetscCall(DMDACreate1d(nc, bx, M, dof, s, NULL, da));
  else if (dim == 2) PetscCall(DMDACreate2d(nc, bx, by, stencil, M, N, procs[0], procs[1], dof, s, NULL, NULL, da));
  else PetscCall(DMDACreate3d(nc, bx, by, bz, stencil, M, N, P, procs[0], procs[1], procs[2], dof, s, NULL, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  if (nt.view && nt.file[0]) PetscCall(PKNodeAwareViewPlaced(*da, comm, &nt));
  PetscCall(PKNodeAwareTopoDestroy(&nt));
  /* PETSc keeps its own duplicate of nc, referenced by the DMDA and everything built from it */
  PetscCallMPI(MPI_Comm_free(&nc));
  PetscFunctionReturn(0);
}
