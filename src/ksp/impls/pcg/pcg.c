/*
   pcg: Hestenes-Stiefel preconditioned conjugate gradients with two blocking reductions per iteration,
   {(p, A p)} and {(r, z), norm}: PETSc's KSPCG needs a third for the norm, here it rides in the second.
   See docs/algorithms.md §1.
*/
#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkcgimpl.h>

typedef struct {
  KSP_PK pk; /* must be first */
} KSP_PKPCG;

/* Local (r, z) and the norm's own dot, packed for one reduction: [0] = (r, z), [1] = the norm dot if any */
static PetscErrorCode PCGRZAndNorm(KSP ksp, KSP_PK *pk, Vec R, Vec Z, PetscInt *n)
{
  PKDot d[2] = {
    {Z, R},
    {Z, Z}
  };

  PetscFunctionBegin;
  *n = PKCGNormDot(ksp, R, Z, &d[1]) ? 2 : 1;
  PetscCall(PKVecFused(pk, 0, NULL, *n, d, pk->red.local));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSolve_PKPCG_Private(KSP ksp, KSP_PK *pk)
{
  Vec         X = ksp->vec_sol, R = ksp->work[0], Z = ksp->work[1], P = ksp->work[2], S = ksp->work[3];
  PetscScalar beta, betaold = 1.0, dpi = 0.0, dpiold, a;
  PetscReal   dp, gmax;
  PetscInt    i, n;

  PetscFunctionBegin;
  ksp->its = 0;
  PetscCall(PKCGInitialResidual(ksp, pk, R));
  PetscCall(PKPCApply(ksp, pk, R, Z));
  PetscCall(PCGRZAndNorm(ksp, pk, R, Z, &n));
  PetscCall(PKReduceAllreduce(&pk->red, n));
  beta = pk->red.global[0];
  KSPCheckDot(ksp, beta);
  gmax = PetscAbsScalar(beta);
  PetscCall(PKCGNorm(ksp, pk->red.global[0], n > 1 ? &pk->red.global[1] : NULL, &dp));
  PetscCall(PKConvergenceStep(ksp, dp));
  if (ksp->reason) PetscFunctionReturn(0);

  for (i = 0; i < ksp->max_it; i++) {
    ksp->its = i + 1;
    if ((ksp->reason = PKCGExhausted(PKCGCheckGamma(beta, betaold, (PetscBool)!i), beta, gmax))) {
      PetscCall(PetscInfo(ksp, "stopped by (r, z) = %g (previous %g, largest %g)\n", (double)PetscRealPart(beta), (double)PetscRealPart(betaold), (double)gmax));
      break;
    }
    if (!i) PetscCall(VecCopy(Z, P));
    else PetscCall(VecAYPX(P, beta / betaold, Z)); /* p = z + b p */
    PetscCall(PKMatMult(ksp, pk, P, S));           /* s = A p */
    {
      PKDot d = {S, P};
      PetscCall(PKVecFused(pk, 0, NULL, 1, &d, pk->red.local));
    }
    PetscCall(PKReduceAllreduce(&pk->red, 1)); /* reduction 1: (p, A p) */
    dpiold = dpi;
    dpi    = pk->red.global[0];
    KSPCheckDot(ksp, dpi);
    if ((ksp->reason = PKCGExhausted(PKCGCheckCurvature(dpi, dpiold, (PetscBool)!i), beta, gmax))) {
      PetscCall(PetscInfo(ksp, "stopped by (p, A p) = %g (previous %g), (r, z) = %g (largest %g): %s\n", (double)PetscRealPart(dpi), (double)PetscRealPart(dpiold), (double)PetscRealPart(beta), (double)gmax, ksp->reason > 0 ? "the Krylov space is exhausted" : "indefinite or negative definite matrix"));
      break;
    }
    a = beta / dpi;
    PKLanczosPushCG(pk->lanczos, a, i ? beta / betaold : 0.0, beta); /* the Lanczos tridiagonal, if estimates are requested */
    {
      PKAxpbypcz u[2] = {
        {X, a,  P, 0, NULL, 1.0},
        {R, -a, S, 0, NULL, 1.0}
      };
      PetscCall(PKVecFused(pk, 2, u, 0, NULL, NULL)); /* x += a p, r -= a s */
    }
    PetscCall(PKPCApply(ksp, pk, R, Z));
    PetscCall(PCGRZAndNorm(ksp, pk, R, Z, &n));
    PetscCall(PKReduceAllreduce(&pk->red, n)); /* reduction 2: (r, z) and the norm */
    betaold = beta;
    beta    = pk->red.global[0];
    KSPCheckDot(ksp, beta);
    gmax = PetscMax(gmax, PetscAbsScalar(beta));
    PetscCall(PKCGNorm(ksp, pk->red.global[0], n > 1 ? &pk->red.global[1] : NULL, &dp));
    PetscCall(PKConvergenceStep(ksp, dp));
    PetscCall(PKRecIterEnd(pk->rec, ksp->its));
    if (ksp->reason) break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_PKPCG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, 4));
  PetscCall(PKCGSetUp(ksp, (KSP_PK *)ksp->data, 2));
  PetscFunctionReturn(0);
}

/* What an iteration costs, for the performance model (composed as "KSPPipeGetCost_C"; see pkcost.h) */
static PetscErrorCode KSPPipeGetCost_PKPCG(KSP ksp, PKSolverCost *c)
{
  const PetscInt nrm = PKCGNormValues(ksp);

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->pattern      = "pcg";
  c->chunks       = ((KSP_PK *)ksp->data)->chunks; /* MPI_Test between the pieces of the overlapped work (1: none) */
  c->its          = 1;
  c->nred         = 2;
  c->red[0]       = (PKReductionCost){.nvals = 1, .blocking = PETSC_TRUE};       /* (p, A p) */
  c->red[1]       = (PKReductionCost){.nvals = 1 + nrm, .blocking = PETSC_TRUE}; /* (r, z) and the norm */
  c->nspmv        = 1;
  c->npc          = 1;
  c->streams      = 13;                      /* vector traffic as implemented (PKVecFused reads and writes each vector once per pass): p = z + b p 3, (p,s) 2, x and r in one pass 6, (r,z) and the norm in one pass 2 */
  c->init_spmv    = ksp->guess_zero ? 0 : 1; /* r = b - A x */
  c->init_pc      = 1;
  c->init_nvals   = 1 + nrm;
  c->init_streams = 7; /* r = b - Ax 3, (r,z)+norm 2, p = z 2 */
  PetscFunctionReturn(0);
}

/*MC
   KSPPKPCG - "pcg": Hestenes-Stiefel preconditioned conjugate gradients from pipekrylov, with two blocking
   reductions per iteration: (p, A p), then (r, z) together with the norm.

   Options Database Keys:
+  -ksp_pipe_chunks <n> - accepted for uniformity; pcg has no non-blocking reduction to progress
.  -ksp_pipe_check_symmetry - check at set-up that the operator is symmetric (one transpose), error if not
.  -ksp_pipe_check_symmetry_tol <t> - tolerance of that check (default 1e-12)
-  -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - the norm the convergence test uses

   Notes:
   Left preconditioning only; operator and preconditioner must be symmetric positive definite. Breakdowns are
   reported with PETSc's reasons (KSP_DIVERGED_INDEFINITE_MAT, KSP_DIVERGED_INDEFINITE_PC, KSP_DIVERGED_NANORINF,
   KSP_DIVERGED_PC_FAILED). Iterates are PETSc's KSPCG's, up to rounding.

   Estimates: with KSPSetComputeEigenvalues() or KSPSetComputeSingularValues() (-ksp_view_eigenvalues,
   -ksp_view_singularvalues, a Chebyshev smoother's estimator) the Lanczos tridiagonal is built from alpha and beta
   as KSPCG builds it, and KSPComputeEigenvalues() / KSPComputeExtremeSingularValues() give KSPCG's values up to
   rounding (docs/algorithms.md §12). KSPSolveTranspose() solves with A^T and M^T (MatMultTranspose).

   Level: beginner

.seealso: `KSPCG`, `KSPPKSAPCG`, `KSPPKNBPCG`, `KSPPKPIPECG`, `KSPPKPIPE2CG`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_PKPCG(KSP ksp)
{
  KSP_PKPCG *cg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cg));
  ksp->data = (void *)cg;
  PetscCall(PKCreate_Common(ksp, &cg->pk, "Hestenes-Stiefel PCG, two blocking reductions per iteration (norm fused into the second)", PETSC_FALSE, KSPSolve_PKPCG_Private));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", KSPPipeGetCost_PKPCG));
  PetscCall(PKCGCreate_Common(ksp));
  ksp->ops->setup = KSPSetUp_PKPCG;
  PetscFunctionReturn(0);
}
