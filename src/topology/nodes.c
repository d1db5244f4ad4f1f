/*
   Which ranks share a node: the one rule every part of pipekrylov groups ranks by (the monitor's statistics, the
   report, the placement, the calibration tool and the examples), so that they all count the same nodes.
*/
#include <pipekrylov.h>

/*@C
   PKCommGetNodes - The node of every rank of a communicator.

   Collective

   Input Parameters:
+  comm      - the communicator
-  node_size - k > 0: every k consecutive ranks of PETSC_COMM_WORLD are one node (so a reordered comm keeps its nodes); 0: nodes from MPI_COMM_TYPE_SHARED;
               PETSC_DETERMINE: from the option -ksp_perf_node_size (default 0)

   Output Parameters:
+  nnodes    - number of nodes
-  rank_node - the node (0 .. nnodes-1, numbered in the order of their lowest ranks) of every rank; free with
               PetscFree()

   Level: intermediate

.seealso: `PKNodesGetSizes()`, `PKMatGetHaloCounts()`, `PKDMDACommCreateNodeAware()`
@*/
PetscErrorCode PKCommGetNodes(MPI_Comm comm, PetscInt node_size, PetscMPIInt *nnodes, PetscMPIInt *rank_node[])
{
  PetscMPIInt rank, size, me, *rn;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (node_size == PETSC_DETERMINE) {
    node_size = 0;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-ksp_perf_node_size", &node_size, NULL));
  }
  PetscCheck(node_size >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Node size must be positive (or 0 for MPI_COMM_TYPE_SHARED), not %" PetscInt_FMT, node_size);
  if (node_size > 0) {
    /* a node is a property of the process, not of comm: k consecutive ranks of PETSC_COMM_WORLD */
    PetscMPIInt wrank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &wrank));
    me = (PetscMPIInt)(wrank / node_size);
  } else {
    MPI_Comm sh;

    PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &sh));
    PetscCallMPI(MPIU_Allreduce(&rank, &me, 1, MPI_INT, MPI_MIN, sh)); /* the node's lowest rank in comm */
    PetscCallMPI(MPI_Comm_free(&sh));
  }
  PetscCall(PetscMalloc1(size, &rn));
  PetscCallMPI(MPI_Allgather(&me, 1, MPI_INT, rn, 1, MPI_INT, comm));
  {
    /* renumber 0 .. nnodes-1 in the order of the nodes' lowest ranks in comm */
    PetscMPIInt mx = 0, *map;
    for (PetscMPIInt r = 0; r < size; r++) mx = PetscMax(mx, rn[r]);
    PetscCall(PetscMalloc1(mx + 1, &map));
    for (PetscMPIInt q = 0; q <= mx; q++) map[q] = -1;
    *nnodes = 0;
    for (PetscMPIInt r = 0; r < size; r++) {
      if (map[rn[r]] < 0) map[rn[r]] = (*nnodes)++;
      rn[r] = map[rn[r]];
    }
    PetscCall(PetscFree(map));
  }
  *rank_node = rn;
  PetscFunctionReturn(0);
}

/*@C
   PKNodesGetSizes - How many ranks each node runs, from the nodes PKCommGetNodes() found.

   Not Collective

   Input Parameters:
+  size      - the number of ranks
.  nnodes    - the number of nodes
-  rank_node - the node of every rank (0 .. nnodes-1)

   Output Parameters:
+  count - NULL, or nnodes entries: the ranks of each node
-  ppn   - NULL, or the ranks of the fullest node

   Level: intermediate

.seealso: `PKCommGetNodes()`
@*/
PetscErrorCode PKNodesGetSizes(PetscMPIInt size, PetscMPIInt nnodes, const PetscMPIInt rank_node[], PetscMPIInt count[], PetscMPIInt *ppn)
{
  PetscMPIInt *c = count, most = 0;

  PetscFunctionBegin;
  PetscCheck(size >= 0 && nnodes >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative rank or node count");
  if (!c) PetscCall(PetscMalloc1(nnodes, &c));
  for (PetscMPIInt q = 0; q < nnodes; q++) c[q] = 0;
  for (PetscMPIInt r = 0; r < size; r++) {
    PetscCheck(rank_node[r] >= 0 && rank_node[r] < nnodes, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rank %d is on node %d, not one of 0..%d", r, rank_node[r], nnodes - 1);
    c[rank_node[r]]++;
  }
  for (PetscMPIInt q = 0; q < nnodes; q++) most = PetscMax(most, c[q]);
  if (!count) PetscCall(PetscFree(c));
  if (ppn) *ppn = most;
  PetscFunctionReturn(0);
}
