/*
   Halo message accounting from an operator's actual scatter: who sends how much to whom in one MatMult, split into
   on-node and off-node (docs/algorithms.md §8). The receive side is read from the matrix (the global column of
   every ghost and the owner of that column in the column layout), the send side follows with one sparse exchange
   (PetscCommBuildTwoSided), so no rank holds more than its neighbours' counts (plus the node of every rank).
*/
#include <pipekrylov.h>
#include <petscmat.h>
#include <petsc/private/hashseti.h>
#include <pipekrylov/private/pkcompat.h>

/* The ghost columns of this rank (global indices, sorted, each once) and the bytes each ghost carries */
static PetscErrorCode PKMatGhosts(Mat A, PetscInt *nghost, PetscInt **ghosts, PetscInt *bytes_per_ghost)
{
  PetscBool isaij, isbaij;
  PetscInt  nc = 0, bs = 1;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &isaij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIBAIJ, &isbaij));
  *bytes_per_ghost = (PetscInt)sizeof(PetscScalar);
  if (isaij || isbaij) {
    Mat             Ad, Ao;
    const PetscInt *garray;
    if (isaij) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
    else {
      PetscCall(MatMPIBAIJGetSeqBAIJ(A, &Ad, &Ao, &garray));
      PetscCall(MatGetBlockSize(A, &bs));
    }
    PetscCall(MatGetSize(Ao, NULL, &nc));
    nc /= bs;
    PetscCall(PetscMalloc1(nc, ghosts));
    for (PetscInt i = 0; i < nc; i++) (*ghosts)[i] = garray[i] * bs; /* first column of each ghost block */
    *bytes_per_ghost *= bs;
    *nghost = nc;
  } else {
    /* any other type with MatGetRow: the columns of the local rows outside the local column range */
    PetscBool  has;
    PetscInt   rstart, rend, cstart, cend, n = 0;
    PetscHSetI set;
    PetscCall(MatHasOperation(A, MATOP_GET_ROW, &has));
    PetscCheck(has, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Cannot count the halo of a Mat of type %s: it has neither an MPIAIJ/MPIBAIJ off-diagonal part nor MatGetRow()", ((PetscObject)A)->type_name);
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    PetscCall(MatGetOwnershipRangeColumn(A, &cstart, &cend));
    PetscCall(PetscHSetICreate(&set));
    for (PetscInt r = rstart; r < rend; r++) {
      PetscInt        ncols;
      const PetscInt *cols;
      PetscCall(MatGetRow(A, r, &ncols, &cols, NULL));
      for (PetscInt c = 0; c < ncols; c++)
        if (cols[c] < cstart || cols[c] >= cend) PetscCall(PetscHSetIAdd(set, cols[c]));
      PetscCall(MatRestoreRow(A, r, &ncols, &cols, NULL));
    }
    PetscCall(PetscHSetIGetSize(set, &nc));
    PetscCall(PetscMalloc1(nc, ghosts));
    PetscCall(PetscHSetIGetElems(set, &n, *ghosts));
    PetscCall(PetscHSetIDestroy(&set));
    PetscCall(PetscSortInt(nc, *ghosts));
    *nghost = nc;
  }
  PetscFunctionReturn(0);
}

/*@C
   PKMatGetHaloCounts - On-node and off-node halo messages and bytes of one MatMult, from the operator's actual
   off-process columns: for this rank and summed over ranks, with the largest number of messages one rank posts.

   Collective

   Input Parameters:
+  A         - the operator (MPIAIJ and MPIBAIJ and their subtypes read directly; any other type with MatGetRow();
               one rank: no messages)
-  rank_node - the node of every rank of A's communicator, or NULL for PKCommGetNodes() with -ksp_perf_node_size
               (else MPI_COMM_TYPE_SHARED)

   Output Parameter:
.  hc - the counts: this rank's sends and receives on and off node; sums over ranks (msgs_on_total, msgs_off_total,
        bytes_on_total, bytes_off_total: each message once); msgs_max (sends + receives of the busiest rank),
        send_msgs_max, recv_msgs_max, send_msgs_off_max; bytes_off_node_max (the most bytes leaving one node);
        the smallest and largest off-node message

   Level: intermediate

   Notes:
   A message is the values one rank needs from one other rank in a MatMult (the VecScatter of MPIAIJ sends one per
   neighbour). Bytes are values times sizeof(PetscScalar) (times the block size for BAIJ), without MPI's headers.
   For MPISBAIJ and the MatGetRow() fallback the receive side is the local rows' off-process columns.

.seealso: `PKCommGetNodes()`, `PKDMDAPlacementCompute()`
@*/
PetscErrorCode PKMatGetHaloCounts(Mat A, const PetscMPIInt rank_node[], PKHaloCounts *hc)
{
  MPI_Comm           comm;
  PetscMPIInt        rank, size, nnodes, *rn = NULL, nto = 0, nfrom = 0, *to, *from;
  const PetscMPIInt *node;
  PetscInt           nghost, *ghosts, bpg;
  PetscInt64        *todata, *fromdata, *nodebytes, sums[4], mine[4];
  PetscLayout        cmap;
  PetscInt           mx[4], mxl[4];
  PetscInt64         mm[2], mml[2];

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PKAssertPointer(hc, 3);
  PetscCall(PetscObjectGetComm((PetscObject)A, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMemzero(hc, sizeof(*hc)));
  if (!rank_node) PetscCall(PKCommGetNodes(comm, PETSC_DETERMINE, &nnodes, &rn));
  node   = rank_node ? rank_node : rn;
  nnodes = 0;
  for (PetscMPIInt r = 0; r < size; r++) nnodes = PetscMax(nnodes, node[r] + 1);
  hc->nranks = size;
  hc->nnodes = nnodes;
  if (size == 1) {
    PetscCall(PetscFree(rn));
    PetscFunctionReturn(0);
  }

  /* receive side: the owner of every ghost column (ghosts sorted, so owners come in runs) */
  PetscCall(PKMatGhosts(A, &nghost, &ghosts, &bpg));
  PetscCall(MatGetLayouts(A, NULL, &cmap));
  PetscCall(PetscLayoutSetUp(cmap));
  PetscCall(PetscMalloc2(nghost, &to, nghost, &todata));
  for (PetscInt g = 0; g < nghost; g++) {
    PetscMPIInt owner;
    PetscCall(PetscLayoutFindOwner(cmap, ghosts[g], &owner));
    if (owner == rank) continue; /* cannot happen for a ghost, but harmless */
    if (nto && to[nto - 1] == owner) todata[nto - 1] += bpg;
    else {
      to[nto]     = owner;
      todata[nto] = bpg;
      nto++;
    }
  }
  for (PetscMPIInt i = 0; i < nto; i++) {
    if (node[to[i]] == node[rank]) {
      hc->recv_msgs_on++;
      hc->recv_bytes_on += todata[i];
    } else {
      hc->recv_msgs_off++;
      hc->recv_bytes_off += todata[i];
    }
  }
  /* send side: each owner learns what it sends to whom */
  PetscCall(PetscCommBuildTwoSided(comm, 1, MPIU_INT64, nto, to, todata, &nfrom, &from, &fromdata));
  hc->msg_bytes_off_min = INT64_MAX;
  PetscCall(PetscCalloc1(nnodes, &nodebytes));
  for (PetscMPIInt i = 0; i < nfrom; i++) {
    if (node[from[i]] == node[rank]) {
      hc->send_msgs_on++;
      hc->send_bytes_on += fromdata[i];
    } else {
      hc->send_msgs_off++;
      hc->send_bytes_off += fromdata[i];
      nodebytes[node[rank]] += fromdata[i];
      hc->msg_bytes_off_min = PetscMin(hc->msg_bytes_off_min, fromdata[i]);
      hc->msg_bytes_off_max = PetscMax(hc->msg_bytes_off_max, fromdata[i]);
    }
  }
  mine[0] = hc->send_msgs_on;
  mine[1] = hc->send_msgs_off;
  mine[2] = hc->send_bytes_on;
  mine[3] = hc->send_bytes_off;
  PetscCallMPI(MPIU_Allreduce(mine, sums, 4, MPIU_INT64, MPI_SUM, comm));
  hc->msgs_on_total   = sums[0];
  hc->msgs_off_total  = sums[1];
  hc->bytes_on_total  = sums[2];
  hc->bytes_off_total = sums[3];
  mxl[0]              = hc->send_msgs_on + hc->send_msgs_off + hc->recv_msgs_on + hc->recv_msgs_off;
  mxl[1]              = hc->send_msgs_on + hc->send_msgs_off;
  mxl[2]              = hc->recv_msgs_on + hc->recv_msgs_off;
  mxl[3]              = hc->send_msgs_off;
  PetscCallMPI(MPIU_Allreduce(mxl, mx, 4, MPIU_INT, MPI_MAX, comm));
  hc->msgs_max          = mx[0];
  hc->send_msgs_max     = mx[1];
  hc->recv_msgs_max     = mx[2];
  hc->send_msgs_off_max = mx[3];
  mml[0]                = -hc->msg_bytes_off_min; /* max of the negated = min */
  mml[1]                = hc->msg_bytes_off_max;
  PetscCallMPI(MPIU_Allreduce(mml, mm, 2, MPIU_INT64, MPI_MAX, comm));
  hc->msg_bytes_off_min = hc->msgs_off_total ? -mm[0] : 0;
  hc->msg_bytes_off_max = mm[1];
  {
    PetscInt64 *all;
    PetscCall(PetscMalloc1(nnodes, &all));
    PetscCallMPI(MPIU_Allreduce(nodebytes, all, nnodes, MPIU_INT64, MPI_SUM, comm));
    for (PetscMPIInt q = 0; q < nnodes; q++) hc->bytes_off_node_max = PetscMax(hc->bytes_off_node_max, all[q]);
    PetscCall(PetscFree(all));
  }
  PetscCall(PetscFree(nodebytes));
  PetscCall(PetscFree(from));
  PetscCall(PetscFree(fromdata));
  PetscCall(PetscFree2(to, todata));
  PetscCall(PetscFree(ghosts));
  PetscCall(PetscFree(rn));
  PetscFunctionReturn(0);
}
