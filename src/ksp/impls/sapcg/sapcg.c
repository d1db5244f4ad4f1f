/*
   sapcg: single-reduction PCG (Chronopoulos-Gear 1989; D'Azevedo-Eijkhout-Romine, LAWN 56, "Method 1").
   A is applied to z rather than p, w = A p is kept by recurrence and (p, A p) follows from
   (p_i, A p_i) = (z_i, A z_i) - beta_i^2 (p_{i-1}, A p_{i-1}), so (z, r), (z, A z) and the norm's dot travel in
   ONE blocking reduction per iteration. See docs/algorithms.md §2.
*/
#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkcgimpl.h>

typedef struct {
  KSP_PK pk; /* must be first */
} KSP_PKSAPCG;

/* Local [0] = (z, r), [1] = (z, A z), [2] = the norm's own dot (none for the natural norm or no norm) */
/* The one reduction's local values: [0] = (z, r), [1] = (z, A z), [2] = the norm's own dot if any */
static PetscErrorCode SAPCGDots(KSP ksp, KSP_PK *pk, Vec R, Vec Z, Vec S, PetscInt *n)
{
  PKDot d[3] = {
    {Z, R},
    {Z, S},
    {Z, Z}
  };

  PetscFunctionBegin;
  *n = PKCGNormDot(ksp, R, Z, &d[2]) ? 3 : 2;
  PetscCall(PKVecFused(pk, 0, NULL, *n, d, pk->red.local));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSolve_PKSAPCG_Private(KSP ksp, KSP_PK *pk)
{
  Vec         X = ksp->vec_sol, R = ksp->work[0], Z = ksp->work[1], S = ksp->work[2], P = ksp->work[3], W = ksp->work[4];
  PetscScalar gamma, gammaold = 1.0, delta, dpi = 0.0, dpiold, beta, alpha;
  PetscReal   dp, gmax;
  PetscInt    i, n;

  PetscFunctionBegin;
  ksp->its = 0;
  PetscCall(PKCGInitialResidual(ksp, pk, R));
  PetscCall(PKPCApply(ksp, pk, R, Z));
  PetscCall(PKMatMult(ksp, pk, Z, S));
  PetscCall(SAPCGDots(ksp, pk, R, Z, S, &n));
  PetscCall(PKReduceAllreduce(&pk->red, n)); /* the one reduction: (z, r), (z, A z) and the norm */
  gamma = pk->red.global[0];
  delta = pk->red.global[1];
  KSPCheckDot(ksp, gamma);
  gmax = PetscAbsScalar(gamma);
  PetscCall(PKCGNorm(ksp, pk->red.global[0], n > 2 ? &pk->red.global[2] : NULL, &dp));
  PetscCall(PKConvergenceStep(ksp, dp));
  if (ksp->reason) PetscFunctionReturn(0);

  for (i = 0; i < ksp->max_it; i++) {
    ksp->its = i + 1;
    if ((ksp->reason = PKCGExhausted(PKCGCheckGamma(gamma, gammaold, (PetscBool)!i), gamma, gmax))) {
      PetscCall(PetscInfo(ksp, "stopped by (r, z) = %g (previous %g, largest %g)\n", (double)PetscRealPart(gamma), (double)PetscRealPart(gammaold), (double)gmax));
      break;
    }
    dpiold = dpi;
    if (!i) {
      beta = 0.0;
      dpi  = delta; /* p = z: (p, A p) = (z, A z) exactly */
    } else {
      beta = gamma / gammaold;
      dpi  = delta - beta * PetscConj(beta) * dpiold; /* (p, A p) by the Chronopoulos-Gear recurrence */
    }
    KSPCheckDot(ksp, dpi);
    if ((ksp->reason = PKCGExhausted(PKCGCheckCurvature(dpi, dpiold, (PetscBool)!i), gamma, gmax))) {
      PetscCall(PetscInfo(ksp, "stopped by (p, A p) = %g (previous %g), (r, z) = %g (largest %g): %s\n", (double)PetscRealPart(dpi), (double)PetscRealPart(dpiold), (double)PetscRealPart(gamma), (double)gmax, ksp->reason > 0 ? "the Krylov space is exhausted" : "indefinite or negative definite matrix"));
      break;
    }
    alpha = gamma / dpi;
    PKLanczosPushCG(pk->lanczos, alpha, beta, gamma); /* the Lanczos tridiagonal, if estimates are requested */
    {
      /* one pass: p = z + b p, w = s + b w (= A p), x += a p, r -= a w; with b = 0 the old p and w are not read */
      PKAxpbypcz u[4] = {
        {P, 1.0,    Z, 0, NULL, beta},
        {W, 1.0,    S, 0, NULL, beta},
        {X, alpha,  P, 0, NULL, 1.0 },
        {R, -alpha, W, 0, NULL, 1.0 }
      };
      PetscCall(PKVecFused(pk, 4, u, 0, NULL, NULL));
    }
    PetscCall(PKPCApply(ksp, pk, R, Z));
    PetscCall(PKMatMult(ksp, pk, Z, S));
    PetscCall(SAPCGDots(ksp, pk, R, Z, S, &n));
    PetscCall(PKReduceAllreduce(&pk->red, n));
    gammaold = gamma;
    gamma    = pk->red.global[0];
    delta    = pk->red.global[1];
    KSPCheckDot(ksp, gamma);
    gmax = PetscMax(gmax, PetscAbsScalar(gamma));
    PetscCall(PKCGNorm(ksp, pk->red.global[0], n > 2 ? &pk->red.global[2] : NULL, &dp));
    PetscCall(PKConvergenceStep(ksp, dp));
    PetscCall(PKRecIterEnd(pk->rec, ksp->its));
    if (ksp->reason) break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_PKSAPCG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, 5));
  PetscCall(PKCGSetUp(ksp, (KSP_PK *)ksp->data, 3));
  PetscFunctionReturn(0);
}

/* What an iteration costs, for the performance model (composed as "KSPPipeGetCost_C"; see pkcost.h) */
static PetscErrorCode KSPPipeGetCost_PKSAPCG(KSP ksp, PKSolverCost *c)
{
  const PetscInt nrm = PKCGNormValues(ksp);

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->pattern      = "sapcg";
  c->chunks       = ((KSP_PK *)ksp->data)->chunks; /* MPI_Test between the pieces of the overlapped work (1: none) */
  c->its          = 1;
  c->nred         = 1;
  c->red[0]       = (PKReductionCost){.nvals = 2 + nrm, .blocking = PETSC_TRUE}; /* (z, r), (z, A z) and the norm */
  c->nspmv        = 1;
  c->npc          = 1;
  c->streams      = 13;                      /* vector traffic as implemented: p, w, x, r in one pass (reads p z w s x r, writes p w x r) 10, the dots of r, z, s in one pass 3 */
  c->init_spmv    = ksp->guess_zero ? 1 : 2; /* r = b - A x, s = A z */
  c->init_pc      = 1;
  c->init_nvals   = 2 + nrm;
  c->init_streams = 9;
  PetscFunctionReturn(0);
}

/*MC
   KSPPKSAPCG - "sapcg": single-reduction preconditioned conjugate gradients from pipekrylov (Chronopoulos and
   Gear; "Method 1" of D'Azevedo, Eijkhout and Romine, LAWN 56). One blocking reduction per iteration carries
   (z, r), (z, A z) and the norm; A p is kept by a recurrence, so there is still one MatMult per iteration.

   Options Database Keys:
+  -ksp_pipe_chunks <n> - accepted for uniformity; sapcg has no non-blocking reduction to progress
.  -ksp_pipe_check_symmetry - check at set-up that the operator is symmetric (one transpose), error if not
.  -ksp_pipe_check_symmetry_tol <t> - tolerance of that check (default 1e-12)
-  -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - the norm the convergence test uses

   Notes:
   Left preconditioning only; operator and preconditioner must be symmetric positive definite. Breakdowns are
   reported with PETSc's reasons: KSP_DIVERGED_INDEFINITE_MAT when the recurred (p, A p) vanishes or changes sign,
   KSP_DIVERGED_INDEFINITE_PC when (z, r) changes sign, KSP_DIVERGED_NANORINF or KSP_DIVERGED_PC_FAILED for a
   NaN or Inf inner product. Iterates equal KSPCG's in exact arithmetic; this is what PETSc's
   `-ksp_cg_single_reduction` computes, with one MatMult fewer at the first iteration and the vector updates of
   an iteration done in one pass over memory.

   The (p, A p) recurrence subtracts two positive numbers: on very ill-conditioned problems it can lose accuracy
   earlier than KSPCG (see LAWN 56).

   Estimates: KSPComputeEigenvalues() and KSPComputeExtremeSingularValues() from the Lanczos tridiagonal of alpha
   and beta, as KSPCG's (requested with KSPSetComputeEigenvalues() or KSPSetComputeSingularValues();
   docs/algorithms.md §12). KSPSolveTranspose() solves with A^T and M^T (MatMultTranspose).

   Level: intermediate

.seealso: `KSPCG`, `KSPCGUseSingleReduction()`, `KSPPKPCG`, `KSPPKNBPCG`, `KSPPKPIPECG`, `KSPPKPIPE2CG`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_PKSAPCG(KSP ksp)
{
  KSP_PKSAPCG *cg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cg));
  ksp->data = (void *)cg;
  PetscCall(PKCreate_Common(ksp, &cg->pk, "single-reduction PCG (Chronopoulos-Gear), one blocking reduction per iteration of (z,r), (z,Az) and the norm", PETSC_FALSE, KSPSolve_PKSAPCG_Private));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", KSPPipeGetCost_PKSAPCG));
  PetscCall(PKCGCreate_Common(ksp));
  ksp->ops->setup = KSPSetUp_PKSAPCG;
  PetscFunctionReturn(0);
}
