static const char help[] = "Paper 001 section 3.1: the 1-D Laplacian of PETSc's ex23 (tridiagonal -1 2 -1, Jacobi), with a forced\n"
                           "iteration count, for the GMRES/PGMRES noise study. Prints the measured KSPSolve time beside the\n"
                           "analytic and stochastic models of -ksp_perfmodel_view.\n"
                           "  -rows_per_rank <k>  rows per rank (default 1000); or -n <N> global rows\n"
                           "  -its <N>            force exactly N iterations (default 200; 0: solve to -ksp_rtol, default 1e-8):\n"
                           "                      rtol = atol = 0, max_it = N, and the norm type none where the solver supports it\n"
                           "                      (unless -ksp_norm_type is given); the solve ends with DIVERGED_ITS by design\n"
                           "  -nsolves <k>        solve k times (the first is a warm-up; the report read back is the last one's)\n"
                           "Default solver: -ksp_type gmres -pc_type jacobi (paper 001: GMRES and PGMRES, restart 30).\n\n";

#include <pipekrylov.h>
#include <petsc/private/kspimpl.h> /* normsupporttable: whether the type supports KSP_NORM_NONE */
#include "report_csv.h"

static PetscErrorCode Assemble(MPI_Comm comm, PetscInt n, Mat *A, Vec *b, Vec *u)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 1, NULL, A));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscInt    col[3] = {i - 1, i, i + 1}, nc = 3, c0 = 0;
    PetscScalar v[3] = {-1.0, 2.0, -1.0};
    if (i == 0) c0 = 1, nc = 2;
    if (i == n - 1) nc--;
    PetscCall(MatSetValues(*A, 1, &i, nc, col + c0, v + c0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(*A, u, b));
  PetscCall(VecSet(*u, 1.0)); /* ex23's exact solution */
  PetscCall(MatMult(*A, *u, *b));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  Mat                A;
  Vec                b, u, x;
  KSP                ksp;
  PC                 pc;
  PetscMPIInt        size;
  PetscInt           rows = 1000, n, its = 200, nsolves = 1, done;
  PetscBool          nset, normset, none_ok = PETSC_FALSE;
  PetscReal          err, unorm, v;
  PetscLogDouble     t0, t1, tsolve = 0;
  KSPConvergedReason reason;
  KSPType            type;
  KSPNormType        nt;
  PKReportCSV        rep;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-rows_per_rank", &rows, NULL));
  n = rows * size;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, &nset));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &its, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsolves", &nsolves, NULL));
  PetscCheck(n >= size && n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "Need at least 2 rows and one row per rank, got %" PetscInt_FMT, n);
  PetscCheck(its >= 0 && nsolves >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-its must be >= 0 and -nsolves >= 1");
  PetscCall(PetscOptionsHasName(NULL, NULL, "-ksp_norm_type", &normset));
  PetscCall(Assemble(comm, n, &A, &b, &u));
  PetscCall(VecDuplicate(b, &x));

  PetscCall(PKReportCSVBegin(comm, NULL, "laplace1d", &rep));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  if (its > 0) PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_DEFAULT, its));
  else PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  if (rep.ours) PetscCall(KSPPerfMonitorSet(ksp, PETSC_TRUE)); /* PETSc's types too: install the hooks now */
  PetscCall(KSPSetFromOptions(ksp));
  if (its > 0 && !normset) {
    /* no norm at all when the type can do without one (CG types, GMRES right-preconditioned): its reductions are
       then only the method's own; otherwise the norm stays and rtol = atol = 0 still forces the count */
    PCSide side;
    PetscCall(KSPGetPCSide(ksp, &side));
    if (side == PC_SIDE_DEFAULT) none_ok = (PetscBool)(ksp->normsupporttable[KSP_NORM_NONE][PC_LEFT] > 0 || ksp->normsupporttable[KSP_NORM_NONE][PC_RIGHT] > 0);
    else none_ok = (PetscBool)(ksp->normsupporttable[KSP_NORM_NONE][side] > 0);
    if (none_ok) PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  }
  PetscCall(KSPSetUp(ksp));
  for (PetscInt s = 0; s < nsolves; s++) {
    PetscCall(VecSet(x, 0.0));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PetscTime(&t1));
    tsolve = t1 - t0;
  }
  PetscCall(KSPGetIterationNumber(ksp, &done));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(KSPGetNormType(ksp, &nt));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &tsolve, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(VecAXPY(x, -1.0, u));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(VecNorm(u, NORM_2, &unorm));
  PetscCall(PetscPrintf(comm, "laplace1d: %" PetscInt_FMT " rows on %d ranks, KSP %s, norm %s, %" PetscInt_FMT " iterations (%s%s), relative error %.3e\n", n, size, type, KSPNormTypes[nt], done, its > 0 ? "forced, " : "", KSPConvergedReasons[reason], (double)(err / unorm)));
  PetscCall(KSPDestroy(&ksp)); /* closes the report file */
  PetscCall(PKReportCSVRead(comm, &rep));
  if (rep.ours) {
    if (PKReportCSVGet(&rep, "measured,ksp_solve", &v)) PetscCall(PetscPrintf(comm, "  measured: KSPSolve %.4e s (slowest rank, as the report records it), %.3e s per iteration\n", (double)v, done ? (double)(v / done) : 0.0));
    if (PKReportCSVGet(&rep, "analytic,total", &v)) {
      PetscReal gap = 0;
      (void)PKReportCSVGet(&rep, "analytic,gap", &gap);
      PetscCall(PetscPrintf(comm, "  model:    analytic %.4e s (gap %+.1f%%)\n", (double)v, (double)gap));
    } else PetscCall(PetscPrintf(comm, "  model:    no analytic model for KSP %s\n", type));
    if (PKReportCSVGet(&rep, "stochastic,ET", &v)) {
      PetscReal etp = 0, meas = 0;
      (void)PKReportCSVGet(&rep, "stochastic,ETprime", &etp);
      (void)PKReportCSVGet(&rep, "stochastic,measured_iterations", &meas);
      PetscCall(PetscPrintf(comm, "  model:    stochastic E[T] %.4e s (blocking), E[T'] %.4e s (non-blocking), measured iterations %.4e s\n", (double)v, (double)etp, (double)meas));
    }
  }
  PetscCall(PetscPrintf(comm, "  wall clock around the last KSPSolve %.4e s (slowest rank; includes the end-of-solve statistics%s)\n", (double)tsolve, rep.ours ? " and report" : ""));
  if (!rep.ours) PetscCall(PetscPrintf(comm, "  (the model is in the report, where -ksp_perfmodel_view sent it)\n"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
