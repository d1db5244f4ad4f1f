/*
   A non-blocking global sum by recursive doubling on point-to-point messages, advanced round by round inside the
   progress calls (-ksp_pipe_iallreduce rd). It is what Open MPI's own MPI_Iallreduce does without a progress
   thread (libNBC: a schedule of rounds of sends and receives, each round started when the previous one is seen
   complete inside an MPI call), written out so that it can be used where the MPI's own non-blocking allreduce is
   not that: SimGrid's SMPI implements MPI_Iallreduce as every rank sending to every other (P - 1 messages per rank
   and reduction), which is neither what real machines do nor affordable to simulate at hundreds of ranks.

   P ranks, p the largest power of two <= P, r = P - p: the first 2r ranks pair up (the even one hands its values to
   the odd one and waits for the result), the remaining p ranks run log2(p) rounds of pairwise exchanges. Every
   rank ends with the same bits: a round adds the same two partial sums on both sides (IEEE addition commutes).
   The messages use a tag of PETSc's inner communicator (PetscCommDuplicate), so they never meet the
   application's own.
*/
#include <pipekrylov/private/pkcore.h>

/* Partner of rank `me` in round `k` of the power-of-two part (-1: none), and whether `me` takes part */
static PetscMPIInt PKRDRank(PetscMPIInt newrank, PetscMPIInt rem)
{
  return newrank < rem ? 2 * newrank + 1 : newrank + rem; /* the real rank of a rank of the power-of-two part */
}

/* Post the messages of step `step` (0: fold, 1..log2 p: the rounds, last: unfold); returns whether one was posted */
static PetscErrorCode PKRDPost(PKReduce *red, PetscBool *posted)
{
  PKReduceRD       *rd = &red->rd;
  const PetscMPIInt me = rd->rank, rem = rd->rem;
  const PetscMPIInt n = (PetscMPIInt)red->n;

  PetscFunctionBegin;
  *posted  = PETSC_FALSE;
  rd->nreq = 0;
  if (rd->step == 0) { /* fold: the even ranks below 2r give their values to the odd one above them */
    if (me < 2 * rem) {
      if (me % 2 == 0) PetscCallMPI(MPI_Isend(red->global, n, MPIU_SCALAR, me + 1, rd->tag, rd->comm, &rd->req[rd->nreq++]));
      else PetscCallMPI(MPI_Irecv(rd->tmp, n, MPIU_SCALAR, me - 1, rd->tag, rd->comm, &rd->req[rd->nreq++]));
    }
  } else if (rd->step <= rd->nrounds) { /* round k: exchange with the partner at distance 2^(k-1) */
    if (rd->newrank >= 0) {
      const PetscMPIInt partner = PKRDRank(rd->newrank ^ (1 << (rd->step - 1)), rem);
      PetscCallMPI(MPI_Irecv(rd->tmp, n, MPIU_SCALAR, partner, rd->tag, rd->comm, &rd->req[rd->nreq++]));
      PetscCallMPI(MPI_Isend(red->global, n, MPIU_SCALAR, partner, rd->tag, rd->comm, &rd->req[rd->nreq++]));
    }
  } else { /* unfold: the odd ranks below 2r give the result back */
    if (me < 2 * rem) {
      if (me % 2 == 1) PetscCallMPI(MPI_Isend(red->global, n, MPIU_SCALAR, me - 1, rd->tag, rd->comm, &rd->req[rd->nreq++]));
      else PetscCallMPI(MPI_Irecv(red->global, n, MPIU_SCALAR, me + 1, rd->tag, rd->comm, &rd->req[rd->nreq++]));
    }
  }
  *posted = (PetscBool)(rd->nreq > 0);
  PetscFunctionReturn(0);
}

/* The step's messages are in: add what was received (lower rank's partial sum first, the same on both sides) */
static void PKRDCombine(PKReduce *red)
{
  PKReduceRD *rd = &red->rd;

  if (rd->step == 0 && rd->rank < 2 * rd->rem && rd->rank % 2 == 1) {
    for (PetscInt i = 0; i < red->n; i++) red->global[i] = rd->tmp[i] + red->global[i];
  } else if (rd->step >= 1 && rd->step <= rd->nrounds && rd->newrank >= 0) {
    const PetscMPIInt partner = PKRDRank(rd->newrank ^ (1 << (rd->step - 1)), rd->rem);
    if (partner < rd->rank)
      for (PetscInt i = 0; i < red->n; i++) red->global[i] = rd->tmp[i] + red->global[i];
    else
      for (PetscInt i = 0; i < red->n; i++) red->global[i] = red->global[i] + rd->tmp[i];
  }
}

/* Advance as far as the messages allow: complete the steps whose messages are in, post the next ones. wait: block
   until the whole sum is done. Sets red->done at the end. */
PetscErrorCode PKReduceRDProgress(PKReduce *red, PetscBool wait)
{
  PKReduceRD *rd = &red->rd;

  PetscFunctionBegin;
  while (rd->step <= rd->nrounds + 1) {
    int flag = 1;

    if (rd->nreq) {
      if (wait) PetscCallMPI(MPI_Waitall(rd->nreq, rd->req, MPI_STATUSES_IGNORE));
      else PetscCallMPI(MPI_Testall(rd->nreq, rd->req, &flag, MPI_STATUSES_IGNORE));
      if (!flag) PetscFunctionReturn(0);
      PKRDCombine(red);
      rd->nreq = 0;
    }
    for (PetscBool posted = PETSC_FALSE; !posted && ++rd->step <= rd->nrounds + 1;) PetscCall(PKRDPost(red, &posted));
  }
  red->done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Start: global[] holds the local values, the first step with messages is posted */
PetscErrorCode PKReduceRDBegin(PKReduce *red)
{
  PKReduceRD *rd = &red->rd;
  PetscMPIInt p;
  PetscBool   posted = PETSC_FALSE;

  PetscFunctionBegin;
  if (rd->comm == MPI_COMM_NULL) { /* first use: PETSc's inner communicator and a tag of its own */
    PetscCall(PetscCommDuplicate(red->comm, &rd->comm, &rd->tag));
    PetscCallMPI(MPI_Comm_rank(rd->comm, &rd->rank));
    for (p = 1, rd->nrounds = 0; 2 * p <= red->size; p *= 2) rd->nrounds++;
    rd->rem = red->size - p;
    if (rd->rank < 2 * rd->rem) rd->newrank = rd->rank % 2 ? rd->rank / 2 : -1;
    else rd->newrank = rd->rank - rd->rem;
  }
  if (rd->ntmp < red->n) {
    PetscCall(PetscFree(rd->tmp));
    PetscCall(PetscMalloc1(red->nmax, &rd->tmp));
    rd->ntmp = red->nmax;
  }
  PetscCall(PetscArraycpy(red->global, red->local, red->n));
  rd->nreq = 0;
  for (rd->step = 0; rd->step <= rd->nrounds + 1; rd->step++) {
    PetscCall(PKRDPost(red, &posted));
    if (posted) break;
  }
  if (!posted) red->done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode PKReduceRDDestroy(PKReduce *red)
{
  PKReduceRD *rd = &red->rd;

  PetscFunctionBegin;
  if (rd->nreq) PetscCallMPI(MPI_Waitall(rd->nreq, rd->req, MPI_STATUSES_IGNORE));
  rd->nreq = 0;
  PetscCall(PetscFree(rd->tmp));
  rd->ntmp = 0;
  if (rd->comm != MPI_COMM_NULL) PetscCall(PetscCommDestroy(&rd->comm));
  PetscFunctionReturn(0);
}
