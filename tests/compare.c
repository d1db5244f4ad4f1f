static const char help[] = "Solve one model problem with PETSc's reference solver and with pipekrylov solvers; compare.\n"
                           "  -problem ... (see examples/common/problems.h)   -pc_type ... and any -ksp_* option\n"
                           "  -ref_type <cg>            PETSc's reference KSP type\n"
                           "  -types <pcg,sapcg>        the types under test, comma separated\n"
                           "  -its_tol <k>              allowed |its - its_ref| (default 1)\n"
                           "  -its_rtol <f>             or allowed relative difference (default 0: use -its_tol)\n"
                           "  -res_factor <f>           true residual must be <= f * max(rtol * ||b||_norm, atol) (default 2)\n"
                           "  -sol_rtol <f>             ||x - x_ref|| / ||x_ref|| bound (default 1e-6)\n"
                           "  -expect_reason <NAME>     every solver (and the reference) must stop with this reason\n"
                           "  -expect_same_reason       the test solvers must stop with the reference's reason (default true)\n"
                           "  -sol_always               check the solution against the reference's also when both stopped with the same\n"
                           "                            non-converged reason (e.g. DIVERGED_ITS after a fixed iteration count)\n"
                           "  -expect_its <k>           every solver (and the reference) must stop after exactly k iterations\n"
                           "  -nsolves <k>              solve k times with the same KSPs; -change_operator scales A by 2 between\n"
                           "  -nonzero_guess            start from a nonzero initial guess\n"
                           "  -rhs_zero, -rhs_nan, -rhs_inf    bad right-hand sides\n"
                           "  -pc_indefinite            a shell preconditioner with both signs (an indefinite PC)\n"
                           "  -mark_nonsymmetric        MatSetOption(A, MAT_SYMMETRIC, PETSC_FALSE)\n"
                           "  -empty_ranks              redistribute the problem so that the odd ranks own no rows\n"
                           "  -eigs                     every KSP computes eigenvalue estimates (KSPSetComputeEigenvalues): each solver's\n"
                           "                            extreme singular values must agree with the reference's within -eig_rtol, and\n"
                           "                            every eigenvalue within -eig_all_rtol of the largest when both computed as many\n"
                           "  -eig_rtol <f>             (default 1e-8)\n"
                           "  -eig_all_rtol <f>         (default: -eig_rtol)\n"
                           "  -transpose                solve with KSPSolveTranspose() (A^T x = b), reference and solvers alike\n"
                           "  -op_nan_at <k>            the operator (a MatShell around A) returns a NaN in its first entry at its k-th\n"
                           "                            application of every solve (counted from 1): each type must stop with\n"
                           "                            DIVERGED_NANORINF, or converge with a true residual that meets the tolerance\n"
                           "                            (the method discarded that product)\n\n";

#include <pipekrylov.h>
#include "problems.h"

typedef struct {
  PetscInt  its_tol, expect_its;
  PetscReal its_rtol, res_factor, sol_rtol, eig_rtol, eig_all_rtol;
  char      expect_reason[64];
  PetscBool expect_same, nonzero_guess, pc_indefinite, sol_always, eigs, transpose;
} Checks;

/* y = D x with D = +1 / -1 alternating in blocks: symmetric, indefinite */
static PetscErrorCode PCApply_Indefinite(PC pc, Vec x, Vec y)
{
  (void)pc;
  PetscInt           n, lo;
  const PetscScalar *a;
  PetscScalar       *b;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetOwnershipRange(x, &lo, NULL));
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArray(y, &b));
  for (PetscInt i = 0; i < n; i++) b[i] = ((lo + i) % 7 == 3) ? -a[i] : a[i];
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCall(VecRestoreArray(y, &b));
  PetscFunctionReturn(0);
}

/* A MatShell around A that puts a NaN into its k-th product of a solve (a failing operator) */
typedef struct {
  Mat      A;
  PetscInt k, count;
} NaNOp;

static PetscErrorCode MatMult_NaNOp(Mat S, Vec x, Vec y)
{
  NaNOp *op;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &op));
  PetscCall(MatMult(op->A, x, y));
  if (++op->count == op->k) {
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(y, &lo, &hi));
    if (!lo && hi > lo) PetscCall(VecSetValue(y, 0, (PetscScalar)NAN, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(y));
    PetscCall(VecAssemblyEnd(y));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_NaNOp(Mat S, Vec d)
{
  NaNOp *op;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &op));
  PetscCall(MatGetDiagonal(op->A, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_NaNOp(Mat S)
{
  NaNOp *op;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &op));
  PetscCall(MatDestroy(&op->A));
  PetscCall(PetscFree(op));
  PetscFunctionReturn(0);
}

/* p->A replaced by the shell around it */
static PetscErrorCode NaNOpCreate(PKProblem *p, PetscInt k, NaNOp **ctx)
{
  PetscInt m, n, M, N;
  NaNOp   *op;
  Mat      S;

  PetscFunctionBegin;
  PetscCall(PetscNew(&op));
  op->A = p->A;
  op->k = k;
  PetscCall(MatGetLocalSize(p->A, &m, &n));
  PetscCall(MatGetSize(p->A, &M, &N));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)p->A), m, n, M, N, op, &S));
  PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))MatMult_NaNOp));
  PetscCall(MatShellSetOperation(S, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_NaNOp));
  PetscCall(MatShellSetOperation(S, MATOP_DESTROY, (void (*)(void))MatDestroy_NaNOp));
  PetscCall(MatSetOption(S, MAT_SYMMETRIC, PETSC_TRUE));
  p->A = S;
  *ctx = op;
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeKSP(PKProblem *p, const char *type, const Checks *c, KSP *ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, p->A, p->A));
  PetscCall(KSPSetType(*ksp, type));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  if (c->nonzero_guess) PetscCall(KSPSetInitialGuessNonzero(*ksp, PETSC_TRUE));
  if (c->eigs) PetscCall(KSPSetComputeEigenvalues(*ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(*ksp));
  if (c->pc_indefinite) {
    PC pc;
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetType(pc, PCSHELL));
    PetscCall(PCShellSetApply(pc, PCApply_Indefinite));
    PetscCall(PCShellSetName(pc, "indefinite +-1 diagonal"));
  }
  PetscFunctionReturn(0);
}

/* The same problem with the rows of the odd ranks moved to the even ones: ranks that own no rows */
static PetscErrorCode EmptyOddRanks(PKProblem *p)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)p->A);
  PetscMPIInt rank, size;
  PetscInt    N, nloc = 0, lo = 0, neven;
  IS          is;
  Mat         B;
  Vec         b, x;
  VecScatter  sc;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetSize(p->A, &N, NULL));
  neven = (size + 1) / 2;
  if (rank % 2 == 0) nloc = N / neven + (rank / 2 < N % neven ? 1 : 0);
  PetscCallMPI(MPI_Scan(&nloc, &lo, 1, MPIU_INT, MPI_SUM, comm));
  lo -= nloc;
  PetscCall(ISCreateStride(comm, nloc, lo, 1, &is));
  PetscCall(MatCreateSubMatrix(p->A, is, is, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatCreateVecs(B, &x, &b));
  PetscCall(VecScatterCreate(p->b, is, b, NULL, &sc));
  PetscCall(VecScatterBegin(sc, p->b, b, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, p->b, b, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(sc, p->xexact, x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, p->xexact, x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(ISDestroy(&is));
  PetscCall(MatDestroy(&p->A));
  PetscCall(VecDestroy(&p->b));
  PetscCall(VecDestroy(&p->xexact));
  p->A      = B;
  p->b      = b;
  p->xexact = x;
  PetscFunctionReturn(0);
}

/* The true residual (of A^T x = b with transpose) in the norm the KSP's convergence test uses, and the limit it must
   satisfy */
static PetscErrorCode TrueResidual(KSP ksp, PetscBool transpose, Vec b, Vec x, PetscReal *res, PetscReal *limit)
{
  Mat         A;
  Vec         r, z;
  PC          pc;
  KSPNormType nt;
  PetscReal   rtol, atol, bn;
  PetscScalar rz;

  PetscFunctionBegin;
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPGetNormType(ksp, &nt));
  PetscCall(KSPGetTolerances(ksp, &rtol, &atol, NULL, NULL));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecDuplicate(b, &z));
  if (transpose) PetscCall(MatMultTranspose(A, x, r));
  else PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  for (int pass = 0; pass < 2; pass++) { /* pass 0: residual of x; pass 1: of x = 0, i.e. b */
    Vec       v = pass ? b : r;
    PetscReal nrm;
    if (nt == KSP_NORM_PRECONDITIONED) {
      if (transpose) PetscCall(PCApplyTranspose(pc, v, z));
      else PetscCall(PCApply(pc, v, z));
      PetscCall(VecNorm(z, NORM_2, &nrm));
    } else if (nt == KSP_NORM_NATURAL) {
      if (transpose) PetscCall(PCApplyTranspose(pc, v, z));
      else PetscCall(PCApply(pc, v, z));
      PetscCall(VecDot(v, z, &rz));
      nrm = PetscSqrtReal(PetscAbsScalar(rz));
    } else PetscCall(VecNorm(v, NORM_2, &nrm));
    if (pass) bn = nrm;
    else *res = nrm;
  }
  *limit = PetscMax(rtol * bn, atol);
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(0);
}

/* The test KSP's estimates against the reference's: extreme singular values within eig_rtol (relative), and every
   eigenvalue within all_rtol of the largest when both computed as many. Returns whether they agree. */
static PetscErrorCode CompareEigs(KSP ref, KSP test, PetscReal rtol, PetscReal all_rtol, PetscBool *ok, char *why, size_t len)
{
  PetscReal emax[2], emin[2], *r[2], *c[2], dmax = 0.0, scale;
  PetscInt  n[2], its[2];
  KSP       k[2] = {ref, test};

  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) {
    PetscCall(KSPComputeExtremeSingularValues(k[i], &emax[i], &emin[i]));
    PetscCall(KSPGetIterationNumber(k[i], &its[i]));
    PetscCall(PetscMalloc2(its[i] + 1, &r[i], its[i] + 1, &c[i]));
    PetscCall(KSPComputeEigenvalues(k[i], its[i] + 1, r[i], c[i], &n[i]));
  }
  scale = PetscMax(PetscAbsReal(emax[0]), PetscAbsReal(emin[0]));
  *ok   = PETSC_TRUE;
  if (!(PetscAbsReal(emax[1] - emax[0]) <= rtol * PetscAbsReal(emax[0])) || !(PetscAbsReal(emin[1] - emin[0]) <= rtol * PetscAbsReal(emin[0]))) {
    *ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(why + strlen(why), len - strlen(why), " extreme singular values %.10g %.10g, reference %.10g %.10g (rtol %g);", (double)emax[1], (double)emin[1], (double)emax[0], (double)emin[0], (double)rtol));
  }
  if (n[0] == n[1]) {
    for (PetscInt j = 0; j < n[0]; j++) dmax = PetscMax(dmax, PetscMax(PetscAbsReal(r[1][j] - r[0][j]), PetscAbsReal(c[1][j] - c[0][j])));
    if (!(dmax <= all_rtol * scale)) {
      *ok = PETSC_FALSE;
      PetscCall(PetscSNPrintf(why + strlen(why), len - strlen(why), " eigenvalues differ by %.3e (allowed %.3e);", (double)dmax, (double)(all_rtol * scale)));
    }
  } else if (n[1] < 1 && n[0] > 0) {
    *ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(why + strlen(why), len - strlen(why), " no eigenvalues, reference %" PetscInt_FMT ";", n[0]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    eigenvalue estimates: %" PetscInt_FMT " (reference %" PetscInt_FMT "), extreme singular values %.10g %.10g (reference %.10g %.10g), relative differences %.2e %.2e%s%.2e\n", n[1], n[0], (double)emax[1], (double)emin[1], (double)emax[0], (double)emin[0], (double)(PetscAbsReal(emax[1] - emax[0]) / PetscAbsReal(emax[0])), (double)(PetscAbsReal(emin[1] - emin[0]) / PetscAbsReal(emin[0])), n[0] == n[1] ? ", every eigenvalue within " : ", counts differ: not compared ", (double)(n[0] == n[1] ? dmax / scale : 0.0)));
  for (int i = 0; i < 2; i++) PetscCall(PetscFree2(r[i], c[i]));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PKProblem   prob;
  Checks      c           = {1, -1, 0.0, 2.0, 1e-6, 1e-8, -1.0, "", PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  char        reftype[64] = "cg", *types[16] = {NULL};
  PetscInt    ntypes = 16, nsolves = 1, failures = 0, nan_at = 0;
  NaNOp      *nanop    = NULL;
  PetscBool   settypes = PETSC_FALSE, change_op = PETSC_FALSE, rhs_zero = PETSC_FALSE, rhs_nan = PETSC_FALSE, rhs_inf = PETSC_FALSE, mark_nonsym = PETSC_FALSE, empty_ranks = PETSC_FALSE;
  PetscMPIInt size;
  KSP         ref, test[16];
  Vec         xref, xt, x0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "compare options", "");
  PetscCall(PetscOptionsString("-ref_type", "reference KSP type", "", reftype, reftype, sizeof(reftype), NULL));
  PetscCall(PetscOptionsStringArray("-types", "types under test", "", types, &ntypes, &settypes));
  PetscCall(PetscOptionsInt("-its_tol", "allowed iteration difference", "", c.its_tol, &c.its_tol, NULL));
  PetscCall(PetscOptionsReal("-its_rtol", "allowed relative iteration difference", "", c.its_rtol, &c.its_rtol, NULL));
  PetscCall(PetscOptionsReal("-res_factor", "true residual factor", "", c.res_factor, &c.res_factor, NULL));
  PetscCall(PetscOptionsReal("-sol_rtol", "solution difference", "", c.sol_rtol, &c.sol_rtol, NULL));
  PetscCall(PetscOptionsString("-expect_reason", "expected converged reason", "", c.expect_reason, c.expect_reason, sizeof(c.expect_reason), NULL));
  PetscCall(PetscOptionsBool("-sol_always", "check the solution also when not converged", "", c.sol_always, &c.sol_always, NULL));
  PetscCall(PetscOptionsInt("-expect_its", "expected iteration count", "", c.expect_its, &c.expect_its, NULL));
  PetscCall(PetscOptionsBool("-expect_same_reason", "same reason as the reference", "", c.expect_same, &c.expect_same, NULL));
  PetscCall(PetscOptionsInt("-nsolves", "solves", "", nsolves, &nsolves, NULL));
  PetscCall(PetscOptionsBool("-change_operator", "scale A by 2 between solves", "", change_op, &change_op, NULL));
  PetscCall(PetscOptionsBool("-nonzero_guess", "nonzero initial guess", "", c.nonzero_guess, &c.nonzero_guess, NULL));
  PetscCall(PetscOptionsBool("-rhs_zero", "b = 0", "", rhs_zero, &rhs_zero, NULL));
  PetscCall(PetscOptionsBool("-rhs_nan", "a NaN in b", "", rhs_nan, &rhs_nan, NULL));
  PetscCall(PetscOptionsBool("-rhs_inf", "an Inf in b", "", rhs_inf, &rhs_inf, NULL));
  PetscCall(PetscOptionsBool("-pc_indefinite", "indefinite shell PC", "", c.pc_indefinite, &c.pc_indefinite, NULL));
  PetscCall(PetscOptionsBool("-mark_nonsymmetric", "MAT_SYMMETRIC false", "", mark_nonsym, &mark_nonsym, NULL));
  PetscCall(PetscOptionsBool("-empty_ranks", "the odd ranks own no rows", "", empty_ranks, &empty_ranks, NULL));
  PetscCall(PetscOptionsBool("-eigs", "compare eigenvalue estimates", "", c.eigs, &c.eigs, NULL));
  PetscCall(PetscOptionsReal("-eig_rtol", "extreme singular values' tolerance", "", c.eig_rtol, &c.eig_rtol, NULL));
  PetscCall(PetscOptionsReal("-eig_all_rtol", "every eigenvalue's tolerance", "", c.eig_all_rtol, &c.eig_all_rtol, NULL));
  PetscCall(PetscOptionsBool("-transpose", "KSPSolveTranspose", "", c.transpose, &c.transpose, NULL));
  PetscCall(PetscOptionsInt("-op_nan_at", "the operator's k-th product of a solve gets a NaN", "", nan_at, &nan_at, NULL));
  PetscOptionsEnd();
  if (c.eig_all_rtol < 0) c.eig_all_rtol = c.eig_rtol;
  if (!settypes || !ntypes) { /* default: pcg */
    PetscCall(PetscStrallocpy("pcg", &types[0]));
    ntypes = 1;
  }
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  if (empty_ranks) PetscCall(EmptyOddRanks(&prob));
  if (rhs_zero) PetscCall(VecSet(prob.b, 0.0));
  if (rhs_nan || rhs_inf) {
    PetscInt lo;
    PetscCall(VecGetOwnershipRange(prob.b, &lo, NULL));
    if (!lo) PetscCall(VecSetValue(prob.b, 0, rhs_nan ? (PetscScalar)NAN : (PetscScalar)PETSC_INFINITY, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(prob.b));
    PetscCall(VecAssemblyEnd(prob.b));
  }
  if (mark_nonsym) PetscCall(MatSetOption(prob.A, MAT_SYMMETRIC, PETSC_FALSE));
  if (nan_at > 0) PetscCall(NaNOpCreate(&prob, nan_at, &nanop));
  PetscCall(VecDuplicate(prob.b, &xref));
  PetscCall(VecDuplicate(prob.b, &xt));
  PetscCall(VecDuplicate(prob.b, &x0));
  PetscCall(VecCopy(prob.xexact, x0)); /* a nonzero guess: the exact solution, perturbed */
  PetscCall(VecScale(x0, 0.5));
  PetscCall(VecShift(x0, 0.25));
  PetscCall(MakeKSP(&prob, reftype, &c, &ref));
  for (PetscInt t = 0; t < ntypes; t++) PetscCall(MakeKSP(&prob, types[t], &c, &test[t]));

  for (PetscInt s = 0; s < nsolves; s++) {
    PetscInt           its_ref;
    KSPConvergedReason rref;
    PetscReal          nref;

    if (s && change_op) PetscCall(MatScale(prob.A, 2.0));
    PetscCall(VecCopy(x0, xref));
    if (nanop) nanop->count = 0;
    if (c.transpose) PetscCall(KSPSolveTranspose(ref, prob.b, xref));
    else PetscCall(KSPSolve(ref, prob.b, xref));
    PetscCall(KSPGetIterationNumber(ref, &its_ref));
    PetscCall(KSPGetConvergedReason(ref, &rref));
    PetscCall(VecNorm(xref, NORM_2, &nref));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compare: %s ranks %d solve %" PetscInt_FMT ": reference %s its %" PetscInt_FMT " %s\n", prob.name, size, s, reftype, its_ref, KSPConvergedReasons[rref]));
    if (c.expect_reason[0] && strcmp(KSPConvergedReasons[rref], c.expect_reason)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  FAIL reference %s stopped with %s, expected %s\n", reftype, KSPConvergedReasons[rref], c.expect_reason));
      failures++;
    }
    if (c.expect_its >= 0 && its_ref != c.expect_its) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  FAIL reference %s stopped after %" PetscInt_FMT " iterations, expected %" PetscInt_FMT "\n", reftype, its_ref, c.expect_its));
      failures++;
    }
    for (PetscInt t = 0; t < ntypes; t++) {
      PetscInt           its;
      KSPConvergedReason r;
      PetscReal          res = 0, limit = 0, diff = 0;
      PetscBool          ok       = PETSC_TRUE;
      char               why[512] = "";
      KSPNormType        nt;

      PetscCall(VecCopy(x0, xt));
      if (nanop) nanop->count = 0;
      if (c.transpose) PetscCall(KSPSolveTranspose(test[t], prob.b, xt));
      else PetscCall(KSPSolve(test[t], prob.b, xt));
      PetscCall(KSPGetIterationNumber(test[t], &its));
      PetscCall(KSPGetConvergedReason(test[t], &r));
      PetscCall(KSPGetNormType(test[t], &nt));
      if (nanop) { /* a NaN product: reported as such, or discarded by the method (a recomputed vector) and the solve
                      converged, which the true residual must confirm */
        if (r > 0) {
          PetscCall(TrueResidual(test[t], c.transpose, prob.b, xt, &res, &limit));
          if (!(res <= c.res_factor * limit)) {
            ok = PETSC_FALSE;
            PetscCall(PetscSNPrintf(why + strlen(why), sizeof(why) - strlen(why), " %s claimed after a NaN product, true residual %.3e above %g x %.3e;", KSPConvergedReasons[r], (double)res, (double)c.res_factor, (double)limit));
          }
        } else if (r != KSP_DIVERGED_NANORINF) {
          ok = PETSC_FALSE;
          PetscCall(PetscSNPrintf(why + strlen(why), sizeof(why) - strlen(why), " reason %s after a NaN product, expected DIVERGED_NANORINF;", KSPConvergedReasons[r]));
        }
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s %-8s its %4" PetscInt_FMT " %-24s true residual %.2e (limit %.2e)%s\n", ok ? "ok  " : "FAIL", types[t], its, KSPConvergedReasons[r], (double)res, (double)limit, why));
        if (!ok) failures++;
        continue;
      }
      if (c.expect_reason[0] && strcmp(KSPConvergedReasons[r], c.expect_reason)) {
        ok = PETSC_FALSE;
        PetscCall(PetscSNPrintf(why + strlen(why), sizeof(why) - strlen(why), " reason %s, expected %s;", KSPConvergedReasons[r], c.expect_reason));
      }
      if (c.expect_its >= 0 && its != c.expect_its) {
        ok = PETSC_FALSE;
        PetscCall(PetscSNPrintf(why + strlen(why), sizeof(why) - strlen(why), " %" PetscInt_FMT " iterations, expected %" PetscInt_FMT ";", its, c.expect_its));
      }
      if (c.expect_same && r != rref) {
        ok = PETSC_FALSE;
        PetscCall(PetscSNPrintf(why + strlen(why), sizeof(why) - strlen(why), " reason %s differs from reference %s;", KSPConvergedReasons[r], KSPConvergedReasons[rref]));
      }
      if (r > 0 && rref > 0) {
        PetscInt allowed = c.its_rtol > 0 ? (PetscInt)PetscCeilReal(c.its_rtol * its_ref) : c.its_tol;
        if (PetscAbsInt(its - its_ref) > allowed) {
          ok = PETSC_FALSE;
          PetscCall(PetscSNPrintf(why + strlen(why), sizeof(why) - strlen(why), " %" PetscInt_FMT " iterations, reference %" PetscInt_FMT " (allowed difference %" PetscInt_FMT ");", its, its_ref, allowed));
        }
        if (nt != KSP_NORM_NONE) {
          PetscCall(TrueResidual(test[t], c.transpose, prob.b, xt, &res, &limit));
          if (!(res <= c.res_factor * limit)) {
            ok = PETSC_FALSE;
            PetscCall(PetscSNPrintf(why + strlen(why), sizeof(why) - strlen(why), " true residual %.3e above %g x %.3e;", (double)res, (double)c.res_factor, (double)limit));
          }
        }
      }
      if ((r > 0 && rref > 0) || (c.sol_always && r == rref)) {
        PetscCall(VecAXPY(xt, -1.0, xref));
        PetscCall(VecNorm(xt, NORM_2, &diff));
        diff = nref > 0 ? diff / nref : diff;
        if (!(diff <= c.sol_rtol)) {
          ok = PETSC_FALSE;
          PetscCall(PetscSNPrintf(why + strlen(why), sizeof(why) - strlen(why), " solution differs from the reference by %.3e (allowed %g);", (double)diff, (double)c.sol_rtol));
        }
      }
      if (c.eigs) {
        PetscBool eok = PETSC_TRUE;
        PetscCall(CompareEigs(ref, test[t], c.eig_rtol, c.eig_all_rtol, &eok, why, sizeof(why)));
        if (!eok) ok = PETSC_FALSE;
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s %-8s its %4" PetscInt_FMT " (ref %4" PetscInt_FMT ") %-24s true residual %.2e (limit %.2e) solution diff %.1e%s\n", ok ? "ok  " : "FAIL", types[t], its, its_ref, KSPConvergedReasons[r], (double)res, (double)limit, (double)diff, why));
      if (!ok) failures++;
    }
  }
  for (PetscInt t = 0; t < ntypes; t++) {
    PetscCall(KSPDestroy(&test[t]));
    PetscCall(PetscFree(types[t]));
  }
  PetscCall(KSPDestroy(&ref));
  PetscCall(VecDestroy(&xref));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&x0));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
