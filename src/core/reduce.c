/*
   Global sums of a few scalars: blocking (MPI_Allreduce) and non-blocking (MPI_Iallreduce) with MPI_Test
   progress. Open MPI 4.1 has no asynchronous progress thread, so a non-blocking reduction advances only inside
   MPI calls: the solvers call PKReduceTest between chunks of the work they overlap with it.

   One rank: no MPI call at all, the local values are the result (and the reduction counts as done early).
   The non-blocking sum is MPI_Iallreduce, or recursive doubling on point-to-point messages (reduce_rd.c).
*/
#include <pipekrylov/private/pkcore.h>

const char *const PKIallreduceTypes[] = {"mpi", "rd", "PKIallreduceType", "PK_IALLREDUCE_", NULL};

PetscErrorCode PKReduceCreate(MPI_Comm comm, PetscInt nmax, PKReduce *red)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(red, sizeof(*red)));
  red->comm    = comm;
  red->req     = MPI_REQUEST_NULL;
  red->poll    = PETSC_TRUE;
  red->algo    = PK_IALLREDUCE_DEFAULT;
  red->rd.comm = MPI_COMM_NULL;
  PetscCallMPI(MPI_Comm_size(comm, &red->size));
  PetscCall(PKReduceEnsure(red, nmax));
  PetscFunctionReturn(0);
}

/* Make room for n values (pgmres needs restart+2) */
PetscErrorCode PKReduceEnsure(PKReduce *red, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(!red->active, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Cannot resize a reduction that is under way");
  if (n <= red->nmax) PetscFunctionReturn(0);
  PetscCall(PetscFree2(red->local, red->global));
  PetscCall(PetscCalloc2(n, &red->local, n, &red->global));
  red->nmax = n;
  PetscFunctionReturn(0);
}

PetscErrorCode PKReduceDestroy(PKReduce *red)
{
  PetscFunctionBegin;
  /* A reduction can only be left outstanding by an error inside a solve; complete it so MPI stays consistent */
  if (red->active && !red->done && red->algo == PK_IALLREDUCE_MPI) PetscCallMPI(MPI_Wait(&red->req, MPI_STATUS_IGNORE));
  PetscCall(PKReduceRDDestroy(red));
  red->active = PETSC_FALSE;
  PetscCall(PetscFree2(red->local, red->global));
  red->nmax = 0;
  PetscFunctionReturn(0);
}

/* Blocking sum of local[0..n) into global[0..n) */
PetscErrorCode PKReduceAllreduce(PKReduce *red, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(!red->active, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "A non-blocking reduction is still outstanding");
  PetscCheck(n <= red->nmax, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Reduction of %" PetscInt_FMT " values exceeds capacity %" PetscInt_FMT, n, red->nmax);
  PKRecPhase(red->rec, PK_PHASE_REDUCE);
  PetscCall(PetscLogEventBegin(PK_Event_Reduce, 0, 0, 0, 0));
  if (red->size > 1) PetscCallMPI(MPI_Allreduce(red->local, red->global, (PetscMPIInt)n, MPIU_SCALAR, MPIU_SUM, red->comm));
  else PetscCall(PetscArraycpy(red->global, red->local, n));
  PetscCall(PetscLogEventEnd(PK_Event_Reduce, 0, 0, 0, 0));
  PKRecPhase(red->rec, PK_PHASE_VEC);
  red->nblocking++;
  red->n = n;
  PetscFunctionReturn(0);
}

/* Start the non-blocking sum of local[0..n); the work done until PKReduceEnd is charged to the overlap phase */
PetscErrorCode PKReduceBegin(PKReduce *red, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(!red->active, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "A non-blocking reduction is already outstanding");
  PetscCheck(n <= red->nmax, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Reduction of %" PetscInt_FMT " values exceeds capacity %" PetscInt_FMT, n, red->nmax);
  red->n      = n;
  red->ntests = 0;
  red->active = PETSC_TRUE;
  PKRecOverlapBegin(red->rec); /* the post is the window's: what it costs is the reduction's, not the vector work's */
  if (red->size > 1) {
    red->done = PETSC_FALSE;
    if (red->algo == PK_IALLREDUCE_RD) PetscCall(PKReduceRDBegin(red));
    else PetscCallMPI(MPI_Iallreduce(red->local, red->global, (PetscMPIInt)n, MPIU_SCALAR, MPIU_SUM, red->comm, &red->req));
    PKRecPosted(red->rec);
  } else {
    PetscCall(PetscArraycpy(red->global, red->local, n));
    red->done = PETSC_TRUE;
  }
  red->nnonblock++;
  PetscFunctionReturn(0);
}

PetscErrorCode PKReduceTest_Private(PKReduce *red)
{
  int            flag = 0;
  PetscLogDouble t0   = 0, t1;
  /* with a recorder on, every 7th call of the KSP's life is timed (counted across reductions: each reduction's first
     call, which advances its first round, is no more likely to be timed than another): what a call costs in this run,
     two clock reads per 7 calls; 7, a prime, so as not to fall in step with a library's own cycle */
  const PetscBool timed = (PetscBool)(red->rec && !((red->ntesttotal + red->ntests) % 7));

  PetscFunctionBegin;
  red->ntests++;
  if (timed) PetscCall(PetscTime(&t0));
  if (red->algo == PK_IALLREDUCE_RD) PetscCall(PKReduceRDProgress(red, PETSC_FALSE));
  else {
    PetscCallMPI(MPI_Test(&red->req, &flag, MPI_STATUS_IGNORE));
    if (flag) red->done = PETSC_TRUE;
  }
  if (timed) {
    PetscCall(PetscTime(&t1));
    PKRecTestTimed(red->rec, t1 - t0);
  }
  PetscFunctionReturn(0);
}

/* Complete the reduction; global[0..n) is valid afterwards */
PetscErrorCode PKReduceEnd(PKReduce *red)
{
  PetscBool early;

  PetscFunctionBegin;
  PetscCheck(red->active, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "No non-blocking reduction is outstanding");
  early = red->done;
  PKRecPhase(red->rec, PK_PHASE_REDUCE);
  if (!red->done) {
    PetscCall(PetscLogEventBegin(PK_Event_Wait, 0, 0, 0, 0));
    if (red->algo == PK_IALLREDUCE_RD) PetscCall(PKReduceRDProgress(red, PETSC_TRUE));
    else PetscCallMPI(MPI_Wait(&red->req, MPI_STATUS_IGNORE));
    PetscCall(PetscLogEventEnd(PK_Event_Wait, 0, 0, 0, 0));
    red->done = PETSC_TRUE;
  }
  red->active = PETSC_FALSE;
  if (early) red->nearly++;
  red->ntesttotal += red->ntests;
  PKRecOverlapEnd(red->rec, early, red->ntests);
  PKRecPhase(red->rec, PK_PHASE_VEC);
  PetscFunctionReturn(0);
}
