/*
   A test plugin for unmodified PETSc applications: -dll_append build/tests/libpkhalotest.so prints, at the first
   MatMult of a parallel operator, its halo messages per SpMV on and off node (PKMatGetHaloCounts), once:
     halotest: process grid ..., N nodes; off-node M messages B bytes; on-node M messages B bytes
   Nodes: -pk_halotest_hostfile FILE (a host list, line r = host of rank r of PETSC_COMM_WORLD, as
   bin/pipekrylov-place --format slurm writes), else -ksp_perf_node_size, else MPI_COMM_TYPE_SHARED.
   It watches MatMult through PETSc's event stream, as the monitor does: PETSc 3.18's hook PetscLogPLB (chained),
   or from PETSc 3.20 on a PetscLogHandler of its own.
*/
#include <pipekrylov.h>
#include <petsc/private/matimpl.h>
#if PETSC_VERSION_LT(3, 20, 0)
  #include <petsc/private/logimpl.h>
typedef PetscErrorCode (*PKLogHook)(PetscLogEvent, int, PetscObject, PetscObject, PetscObject, PetscObject);
static PKLogHook prev_plb;
#else
  #include <petsc/private/loghandlerimpl.h>
#endif
static PetscBool done = PETSC_FALSE, busy = PETSC_FALSE;

static PetscErrorCode HaloTestReport(Mat A)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt  size, *rank_node = NULL;
  PKHaloCounts hc;
  char         file[PETSC_MAX_PATH_LEN] = "";
  PetscBool    flg;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pk_halotest_hostfile", file, sizeof(file), &flg));
  if (flg) {
    /* the host of every rank of comm: read the list (rank of PETSC_COMM_WORLD), gather my host's number */
    PetscMPIInt wrank, me            = -1;
    char        line[256], mine[256] = "";
    FILE       *f;
    PetscInt    r = 0;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &wrank));
    PetscCheck(f = fopen(file, "r"), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot read %s", file);
    while (fgets(line, sizeof(line), f)) {
      line[strcspn(line, "\r\n")] = 0;
      if (r++ == wrank) PetscCall(PetscStrcpy(mine, line));
    }
    fclose(f);
    /* host numbers 0, 1, ... in the order of their first appearance in the list */
    {
      char     seen[256][64];
      PetscInt nseen = 0;
      f              = fopen(file, "r");
      while (me < 0 && fgets(line, sizeof(line), f)) {
        PetscInt k;
        line[strcspn(line, "\r\n")] = 0;
        for (k = 0; k < nseen; k++)
          if (!strcmp(seen[k], line)) break;
        if (k == nseen && nseen < 256) PetscCall(PetscStrncpy(seen[nseen++], line, sizeof(seen[0])));
        if (!strcmp(line, mine)) me = (PetscMPIInt)k;
      }
      fclose(f);
    }
    PetscCheck(me >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "rank %d is not in %s", (int)wrank, file);
    PetscCall(PetscMalloc1(size, &rank_node));
    PetscCallMPI(MPI_Allgather(&me, 1, MPI_INT, rank_node, 1, MPI_INT, comm));
  }
  PetscCall(PKMatGetHaloCounts(A, rank_node, &hc));
  PetscCall(PetscPrintf(comm, "halotest: %d ranks, %d nodes; off-node %" PetscInt64_FMT " messages %" PetscInt64_FMT " bytes; on-node %" PetscInt64_FMT " messages %" PetscInt64_FMT " bytes per SpMV\n", (int)size, (int)hc.nnodes, hc.msgs_off_total, hc.bytes_off_total, hc.msgs_on_total, hc.bytes_on_total));
  PetscCall(PetscFree(rank_node));
  PetscFunctionReturn(0);
}

static PetscErrorCode HaloTestEvent(PetscLogEvent e, PetscObject o1)
{
  PetscFunctionBegin;
  if (e == MAT_Mult && !done && !busy && o1) {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm(o1), &size));
    if (size > 1) {
      busy = PETSC_TRUE;
      PetscCall(HaloTestReport((Mat)o1));
      busy = PETSC_FALSE;
      done = PETSC_TRUE;
    }
  }
  PetscFunctionReturn(0);
}

#if PETSC_VERSION_LT(3, 20, 0)
static PetscErrorCode HaloTestPLB(PetscLogEvent e, int t, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  PetscFunctionBegin;
  PetscCall(HaloTestEvent(e, o1));
  if (prev_plb) PetscCall(prev_plb(e, t, o1, o2, o3, o4));
  PetscFunctionReturn(0);
}
#else
static PetscErrorCode HaloTestBegin(PetscLogHandler h, PetscLogEvent e, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  (void)h;
  (void)o2;
  (void)o3;
  (void)o4;
  return HaloTestEvent(e, o1);
}
#endif

PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_pkhalotest(void)
{
  PetscFunctionBegin;
  PetscCall(MatInitializePackage());
#if PETSC_VERSION_LT(3, 20, 0)
  prev_plb    = PetscLogPLB;
  PetscLogPLB = HaloTestPLB;
#else
  {
    PetscLogHandler h;

    PetscCall(PetscLogHandlerCreate(PETSC_COMM_SELF, &h));
    h->ops->eventbegin = HaloTestBegin;
    PetscCall(PetscLogHandlerStart(h));
    PetscCall(PetscLogHandlerDestroy(&h)); /* PETSc keeps it while started, and destroys it at PetscFinalize */
  }
#endif
  PetscFunctionReturn(0);
}
