static const char help[] = "Paper 003 section VII: hypre's own PCG with diagonal scaling (IJ interface, HYPRE_ParCSRPCG with\n"
                           "HYPRE_ParCSRDiagScale) against pipekrylov's pcg and nbpcg with Jacobi, through PETSc, on the 27-point\n"
                           "Poisson problem of 000 (the same matrix, right-hand side and initial guess). Prints iterations and\n"
                           "solve times side by side, and the analytic model's prediction for ours (from its -ksp_perfmodel_view\n"
                           "report, CSV form).\n"
                           "  -rows_per_rank <k>  rows per rank (a cube of side k^(1/3); default 8000 = 20^3)\n"
                           "  -rtol <r>           relative tolerance of all three (default 1e-8), in the norm sqrt(r'Cr) hypre's\n"
                           "                      PCG uses by default (PETSc: -ksp_norm_type natural), so the counts compare\n"
                           "  -nsolves <k>        solves per side (default 3); the time printed is the median\n"
                           "  Our two KSPs have the options prefixes pcg_ and nbpcg_ (e.g. -nbpcg_ksp_pipe_chunks 4).\n\n";

#include <pipekrylov.h>
#include "problems.h"
#include "report_csv.h"
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <HYPRE_krylov.h>

#define HypreCall(call) \
  do { \
    HYPRE_Int _e = (call); \
    PetscCheck(!_e, PETSC_COMM_SELF, PETSC_ERR_LIB, "hypre: %s failed with error %d", #call, (int)_e); \
  } while (0)

static int CmpDouble(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double Median(double *t, PetscInt n)
{
  qsort(t, (size_t)n, sizeof(double), CmpDouble);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The PETSc matrix and vectors, copied row by row into hypre's IJ objects (the same global numbering) */
static PetscErrorCode ToHypre(Mat A, Vec b, HYPRE_IJMatrix *Aij, HYPRE_IJVector *bij, HYPRE_IJVector *xij)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  PetscInt           rs, re, ncols;
  const PetscInt    *cols;
  const PetscScalar *vals, *ba;
  HYPRE_BigInt       idx[64];
  HYPRE_Real         v[64];

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  HypreCall(HYPRE_IJMatrixCreate(comm, rs, re - 1, rs, re - 1, Aij));
  HypreCall(HYPRE_IJMatrixSetObjectType(*Aij, HYPRE_PARCSR));
  HypreCall(HYPRE_IJMatrixInitialize(*Aij));
  for (PetscInt i = rs; i < re; i++) {
    HYPRE_BigInt row = i;
    HYPRE_Int    nc;
    PetscCall(MatGetRow(A, i, &ncols, &cols, &vals));
    PetscCheck(ncols <= 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "Row %" PetscInt_FMT " has %" PetscInt_FMT " > 64 entries", i, ncols);
    for (PetscInt j = 0; j < ncols; j++) idx[j] = cols[j], v[j] = PetscRealPart(vals[j]);
    nc = (HYPRE_Int)ncols;
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, &vals));
    HypreCall(HYPRE_IJMatrixSetValues(*Aij, 1, &nc, &row, idx, v));
  }
  HypreCall(HYPRE_IJMatrixAssemble(*Aij));
  HypreCall(HYPRE_IJVectorCreate(comm, rs, re - 1, bij));
  HypreCall(HYPRE_IJVectorSetObjectType(*bij, HYPRE_PARCSR));
  HypreCall(HYPRE_IJVectorInitialize(*bij));
  HypreCall(HYPRE_IJVectorCreate(comm, rs, re - 1, xij));
  HypreCall(HYPRE_IJVectorSetObjectType(*xij, HYPRE_PARCSR));
  HypreCall(HYPRE_IJVectorInitialize(*xij));
  PetscCall(VecGetArrayRead(b, &ba));
  for (PetscInt i = rs; i < re; i++) {
    HYPRE_BigInt row = i;
    HYPRE_Real   bv = PetscRealPart(ba[i - rs]), zero = 0;
    HypreCall(HYPRE_IJVectorSetValues(*bij, 1, &row, &bv));
    HypreCall(HYPRE_IJVectorSetValues(*xij, 1, &row, &zero));
  }
  PetscCall(VecRestoreArrayRead(b, &ba));
  HypreCall(HYPRE_IJVectorAssemble(*bij));
  HypreCall(HYPRE_IJVectorAssemble(*xij));
  PetscFunctionReturn(0);
}

typedef struct {
  const char *name;
  PetscInt    its;
  double      t, model, err, measured_report;
  PetscBool   have_model;
} Side;

static PetscErrorCode CreateOurs(PKProblem *prob, const char type[], const char prefix[], PetscReal rtol, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, prob->A, prob->A));
  PetscCall(KSPSetType(*ksp, type));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_NATURAL));
  PetscCall(KSPSetTolerances(*ksp, rtol, 0.0, PETSC_DEFAULT, 100000));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(0);
}

/* Timed solves first (no report: its end-of-solve statistics would be timed too), then two more solves on a
   fresh KSP with the report in CSV form; the second's report is read back for the model */
static PetscErrorCode RunOurs(PKProblem *prob, const char type[], const char prefix[], PetscReal rtol, PetscInt nsolves, Side *s)
{
  MPI_Comm    comm = PETSC_COMM_WORLD;
  KSP         ksp;
  Vec         x;
  double     *t;
  PKReportCSV rep;
  PetscReal   v;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nsolves, &t));
  PetscCall(VecDuplicate(prob->b, &x));
  PetscCall(CreateOurs(prob, type, prefix, rtol, &ksp));
  for (PetscInt k = 0; k < nsolves; k++) {
    PetscLogDouble t0, t1;
    PetscCall(VecSet(x, 0.0));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, prob->b, x));
    PetscCall(PetscTime(&t1));
    t[k] = t1 - t0;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, t, (int)nsolves, MPI_DOUBLE, MPI_MAX, comm));
  s->name = type;
  s->t    = Median(t, nsolves);
  PetscCall(KSPGetIterationNumber(ksp, &s->its));
  PetscCall(PKProblemError(prob, x, &v));
  s->err = v;
  PetscCall(KSPDestroy(&ksp));

  PetscCall(PKReportCSVBegin(comm, prefix, type, &rep));
  PetscCall(CreateOurs(prob, type, prefix, rtol, &ksp));
  for (PetscInt k = 0; k < 2; k++) { /* a warm-up, then the solve whose report is read (the file's last block) */
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, prob->b, x));
  }
  PetscCall(KSPDestroy(&ksp)); /* closes the report's file */
  PetscCall(PKReportCSVRead(comm, &rep));
  s->have_model      = PKReportCSVGet(&rep, "analytic,total", &v);
  s->model           = s->have_model ? v : 0;
  s->measured_report = PKReportCSVGet(&rep, "measured,ksp_solve", &v) ? v : 0;
  PetscCall(VecDestroy(&x));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  PKProblem          prob;
  PetscInt           nsolves = 3, n;
  PetscReal          rtol    = 1e-8;
  PetscMPIInt        size;
  HYPRE_IJMatrix     Aij;
  HYPRE_IJVector     bij, xij;
  HYPRE_ParCSRMatrix A;
  HYPRE_ParVector    b, x;
  HYPRE_Solver       solver;
  Side               sides[3];
  double            *t;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsolves", &nsolves, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCheck(nsolves >= 1 && rtol > 0 && rtol < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-nsolves must be >= 1 and -rtol in (0, 1)");
  PetscCall(PKProblemCreate(comm, NULL, &prob));
  PetscCall(VecGetSize(prob.b, &n));
  PetscCall(PetscMalloc1(nsolves, &t));

  /* hypre's PCG, diagonal scaling, its default norm sqrt(r'Cr) relative to sqrt(b'Cb) */
  PetscCall(ToHypre(prob.A, prob.b, &Aij, &bij, &xij));
  HypreCall(HYPRE_IJMatrixGetObject(Aij, (void **)&A));
  HypreCall(HYPRE_IJVectorGetObject(bij, (void **)&b));
  HypreCall(HYPRE_IJVectorGetObject(xij, (void **)&x));
  HypreCall(HYPRE_ParCSRPCGCreate(comm, &solver));
  HypreCall(HYPRE_PCGSetTol(solver, rtol));
  HypreCall(HYPRE_PCGSetMaxIter(solver, 100000));
  HypreCall(HYPRE_PCGSetTwoNorm(solver, 0));
  HypreCall(HYPRE_PCGSetPrecond(solver, (HYPRE_PtrToSolverFcn)HYPRE_ParCSRDiagScale, (HYPRE_PtrToSolverFcn)HYPRE_ParCSRDiagScaleSetup, NULL));
  HypreCall(HYPRE_ParCSRPCGSetup(solver, A, b, x));
  for (PetscInt k = 0; k < nsolves; k++) {
    double t0;
    HypreCall(HYPRE_ParVectorSetConstantValues(x, 0.0));
    PetscCallMPI(MPI_Barrier(comm));
    t0   = MPI_Wtime();
    HypreCall(HYPRE_ParCSRPCGSolve(solver, A, b, x));
    t[k] = MPI_Wtime() - t0;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, t, (int)nsolves, MPI_DOUBLE, MPI_MAX, comm));
  {
    HYPRE_Int its;
    Vec       xp;
    PetscInt  rs, re;
    PetscReal err;
    HypreCall(HYPRE_PCGGetNumIterations(solver, &its));
    sides[0].name       = "hypre PCG";
    sides[0].its        = its;
    sides[0].t          = Median(t, nsolves);
    sides[0].have_model = PETSC_FALSE;
    /* hypre's solution back into PETSc for the same error measure */
    PetscCall(VecDuplicate(prob.b, &xp));
    PetscCall(VecGetOwnershipRange(xp, &rs, &re));
    {
      PetscScalar *xa;
      PetscCall(VecGetArray(xp, &xa));
      for (PetscInt i = rs; i < re; i++) {
        HYPRE_BigInt row = i;
        HYPRE_Real   val;
        HypreCall(HYPRE_IJVectorGetValues(xij, 1, &row, &val));
        xa[i - rs] = val;
      }
      PetscCall(VecRestoreArray(xp, &xa));
    }
    PetscCall(PKProblemError(&prob, xp, &err));
    sides[0].err = err;
    PetscCall(VecDestroy(&xp));
  }
  HypreCall(HYPRE_ParCSRPCGDestroy(solver));
  HypreCall(HYPRE_IJMatrixDestroy(Aij));
  HypreCall(HYPRE_IJVectorDestroy(bij));
  HypreCall(HYPRE_IJVectorDestroy(xij));

  PetscCall(RunOurs(&prob, KSPPKPCG, "pcg_", rtol, nsolves, &sides[1]));
  PetscCall(RunOurs(&prob, KSPPKNBPCG, "nbpcg_", rtol, nsolves, &sides[2]));

  PetscCall(PetscPrintf(comm, "hypre_pcg (003 section VII): %s, %" PetscInt_FMT " unknowns on %d ranks, diagonal scaling, rtol %.0e in sqrt(r'Cr), x0 = 0; median of %" PetscInt_FMT " solves, slowest rank\n", prob.name, n, size, (double)rtol, nsolves));
  PetscCall(PetscPrintf(comm, "  %-12s %6s %12s %12s %12s %12s %8s %11s\n", "solver", "its", "solve_s", "per_it_us", "report_s", "model_s", "gap", "rel_error"));
  for (int i = 0; i < 3; i++) {
    char ms[32] = "-", gs[32] = "-", rs[32] = "-";
    if (sides[i].measured_report > 0) snprintf(rs, sizeof(rs), "%.4e", sides[i].measured_report);
    if (sides[i].have_model) {
      /* the model is of the report's own measurement of that solve; the gap is against it */
      snprintf(ms, sizeof(ms), "%.4e", sides[i].model);
      if (sides[i].measured_report > 0) snprintf(gs, sizeof(gs), "%+.1f%%", 100.0 * (sides[i].model - sides[i].measured_report) / sides[i].measured_report);
    }
    PetscCall(PetscPrintf(comm, "  %-12s %6" PetscInt_FMT " %12.4e %12.2f %12s %12s %8s %11.3e\n", sides[i].name, sides[i].its, sides[i].t, sides[i].its ? 1e6 * sides[i].t / sides[i].its : 0.0, rs, ms, gs, sides[i].err));
  }
  PetscCall(PetscPrintf(comm, "  ours/hypre per iteration: pcg %.2f, nbpcg %.2f\n  (solve_s: timed solves without the monitor; report_s, model_s, gap: a later solve with -ksp_perfmodel_view (after a warm-up),\n  its measured KSPSolve and the analytic model's prediction of it)\n", (sides[1].t / PetscMax(sides[1].its, 1)) / (sides[0].t / PetscMax(sides[0].its, 1)), (sides[2].t / PetscMax(sides[2].its, 1)) / (sides[0].t / PetscMax(sides[0].its, 1))));
  PetscCall(PetscFree(t));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}
