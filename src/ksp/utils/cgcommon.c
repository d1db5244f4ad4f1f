/*
   Shared by the CG family: supported norms, the symmetric-operator check, the initial residual.
*/
#include <pipekrylov/private/pkcgimpl.h>

/* Left preconditioning only; the preconditioned norm is the default, as for PETSc's KSPCG */
PetscErrorCode PKCGSetSupportedNorms(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(PKSetCGNorms(ksp));
  ((KSP_PK *)ksp->data)->needs_spd = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* What every CG type's create does: left preconditioning and its norms, the estimates' operations (cglanczos.c),
   and the family's steps around every solve: an empty tridiagonal at the start, the estimates at the end */
PetscErrorCode PKCGCreate_Common(KSP ksp)
{
  KSP_PK *pk = (KSP_PK *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PKCGSetSupportedNorms(ksp));
  ksp->ops->computeextremesingularvalues = KSPComputeExtremeSingularValues_PKCG;
  ksp->ops->computeeigenvalues           = KSPComputeEigenvalues_PKCG;
  pk->family_begin                       = PKCGLanczosBegin;
  pk->family_end                         = PKCGLanczosEnd;
  pk->family_reset                       = PKCGLanczosDestroy;
  PetscFunctionReturn(0);
}

/* Set-up shared by the CG family: reduction capacity, the Lanczos storage if estimates are requested, and a clear
   error for an operator known not to be symmetric */
PetscErrorCode PKCGSetUp(KSP ksp, KSP_PK *pk, PetscInt nred)
{
  Mat       Amat;
  PetscBool set, flg;

  PetscFunctionBegin;
  PetscCall(PKSetUp_Common(ksp, pk, nred));
  PetscCall(PKCGLanczosSetUp(ksp, pk));
  PetscCall(PCGetOperators(ksp->pc, &Amat, NULL));
  PetscCall(MatIsSymmetricKnown(Amat, &set, &flg));
  PetscCheck(!set || flg, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONG, "KSP %s needs a symmetric positive definite operator, but the operator is marked non-symmetric (MatSetOption MAT_SYMMETRIC false); use gmres or pgmres",
             ((PetscObject)ksp)->type_name);
  if (pk->check_symmetry && !set) {
    /* Whether an operator can be checked is not told by its MATOP_IS_SYMMETRIC: PETSc 3.22's AIJ matrices have none
       and are checked through MatIsTranspose. So the check is tried, and an operator that cannot be checked
       (matrix-free: PETSC_ERR_SUP on every rank) is said so instead of PETSc's message; other errors pass through. */
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatIsSymmetric(Amat, pk->symmetry_tol, &flg);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr != PETSC_ERR_SUP, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "-ksp_pipe_check_symmetry cannot check this operator: a matrix of type %s (matrix-free) has no MatIsSymmetric; drop the option, or declare the operator symmetric with MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE)",
               ((PetscObject)Amat)->type_name);
    PetscCall(ierr);
    PetscCheck(flg, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONG, "KSP %s needs a symmetric positive definite operator, but the operator is not symmetric (-ksp_pipe_check_symmetry, tolerance %g); use gmres or pgmres", ((PetscObject)ksp)->type_name,
               (double)pk->symmetry_tol);
  }
  PetscFunctionReturn(0);
}

/* r = b - A x, or r = b when the initial guess is zero */
PetscErrorCode PKCGInitialResidual(KSP ksp, KSP_PK *pk, Vec R)
{
  PetscFunctionBegin;
  if (!ksp->guess_zero) {
    PetscCall(PKMatMult(ksp, pk, ksp->vec_sol, R));
    PetscCall(VecAYPX(R, -1.0, ksp->vec_rhs));
  } else PetscCall(VecCopy(ksp->vec_rhs, R));
  PetscFunctionReturn(0);
}

/* For a pointwise-diagonal preconditioner (PCJACOBI, PCNONE; no null space to remove after it, no transpose solve):
   d = M 1 (the inverse diagonal, or ones), which the pipelined solvers apply inside their fused vector passes
   instead of a separate PCApply; *isdiag = PETSC_FALSE otherwise. one is scratch. Whether M x = x .* d holds bit
   for bit on this rank is for the solver to check on its first application (PKCGDiagonalSame). */
PetscErrorCode PKCGDiagonalPC(KSP ksp, Vec one, Vec d, PetscBool *isdiag)
{
  PC           pc;
  Mat          A;
  MatNullSpace nsp = NULL;
  PetscBool    flg;

  PetscFunctionBegin;
  *isdiag = PETSC_FALSE;
  if (ksp->transpose_solve) PetscFunctionReturn(0);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &flg, PCJACOBI, PCNONE, ""));
  if (!flg) PetscFunctionReturn(0);
  PetscCall(PCGetOperators(pc, &A, NULL));
  PetscCall(MatGetNullSpace(A, &nsp));
  if (nsp) PetscFunctionReturn(0);
  PetscCall(VecSet(one, 1.0));
  PetscCall(KSP_PCApply(ksp, one, d));
  *isdiag = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Whether y = x .* d on this rank, bit for bit (y = M x as the preconditioner computed it) */
PetscErrorCode PKCGDiagonalSame(Vec d, Vec x, Vec y, PetscBool *same)
{
  const PetscScalar *a, *b, *c;
  PetscInt           n;

  PetscFunctionBegin;
  *same = PETSC_TRUE;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(d, &a));
  PetscCall(VecGetArrayRead(x, &b));
  PetscCall(VecGetArrayRead(y, &c));
  for (PetscInt i = 0; i < n; i++)
    if (c[i] != b[i] * a[i] && !(PetscIsNanScalar(c[i]) && PetscIsNanScalar(b[i] * a[i]))) {
      *same = PETSC_FALSE;
      break;
    }
  PetscCall(VecRestoreArrayRead(d, &a));
  PetscCall(VecRestoreArrayRead(x, &b));
  PetscCall(VecRestoreArrayRead(y, &c));
  PetscFunctionReturn(0);
}

/* A convergence claim of the recursive residual of iterate x (iteration its, norm dp) is checked against the true
   residual b - A x in the same norm: the convergence test is called again with the true norm (monitors are not).
   If it refutes the claim, ksp->reason is reset, *nfalse counted and *replace set: the caller recomputes its
   recurrences from x and goes on, as cg would, until the tolerance or -ksp_max_it (never a breakdown reason: below
   the attainable accuracy both stop with KSP_DIVERGED_ITS). r and z are scratch. truenorm (may be NULL) gets the
   true norm, or -1 when nothing was checked. */
PetscErrorCode PKCGCheckClaim(KSP ksp, KSP_PK *pk, PetscInt its, Vec x, PetscReal dp, Vec r, Vec z, PetscInt *nfalse, PetscBool *replace, PetscReal *truenorm)
{
  KSPConvergedReason claimed = ksp->reason;
  PetscReal          tn;

  PetscFunctionBegin;
  if (truenorm) *truenorm = -1.0;
  if (claimed <= 0 || ksp->normtype == KSP_NORM_NONE || ksp->converged == KSPConvergedSkip) PetscFunctionReturn(0);
  PetscCall(PKTrueResidualNorm(ksp, pk, x, r, z, &tn));
  pk->true_rnorm = tn;
  if (truenorm) *truenorm = tn;
  ksp->reason = KSP_CONVERGED_ITERATING;
  PetscCall((*ksp->converged)(ksp, its, tn, &ksp->reason, ksp->cnvP));
  if (ksp->reason > 0) {
    ksp->reason = claimed;
    PetscFunctionReturn(0);
  }
  (*nfalse)++;
  PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": recursive residual %g claims convergence, true residual %g does not; replacing the residual\n", its, (double)dp, (double)tn));
  PKLanczosStop(pk->lanczos, "a convergence claim of the recursive residual was refuted by the true residual");
  ksp->reason = KSP_CONVERGED_ITERATING;
  *replace    = PETSC_TRUE;
  PetscFunctionReturn(0);
}
