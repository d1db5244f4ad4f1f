/*
   nbpcg: Gropp's non-blocking PCG (PETSc's KSPGROPPCG; Eller and Gropp, SC16). Two non-blocking reductions per
   iteration, each hidden behind one of the two operator applications: {(p, s)} behind S = M s and
   {(r, z), norm} behind Z = A z. z = M r and s = A p are kept by recurrences. See docs/algorithms.md §3.
*/
#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkcgimpl.h>

/* The work vectors, ksp->work[NBPCG_...]: r, z = M r, p, s = A p, M s, A z (x is ksp->vec_sol) */
enum {
  NBPCG_R,
  NBPCG_Z,
  NBPCG_P,
  NBPCG_S,
  NBPCG_MS,
  NBPCG_AZ,
  NBPCG_NWORK
};

typedef struct {
  KSP_PK pk; /* must be first */
} KSP_PKNBPCG;

/* The dots of the second reduction: [0] = (r, z), [1] = the norm's own dot (none for natural or no norm) */
static PetscInt NBPCGRZDots(KSP ksp, Vec R, Vec Z, PKDot d[2])
{
  d[0].x = Z;
  d[0].y = R;
  return PKCGNormDot(ksp, R, Z, &d[1]) ? 2 : 1;
}

/* Restart from x: r = b - A x, z = M r, p = z, s = A p, M s, and (r, z), (p, s) in one (blocking) reduction. The
   recurrences for z = M r and s = A p drift; at the attainable accuracy the recurred (r, z) or (p, s) can change
   sign on an SPD problem. Fresh vectors tell that apart from a really indefinite operator or preconditioner. */
static PetscErrorCode NBPCGRestart(KSP ksp, KSP_PK *pk, PetscScalar *gamma, PetscScalar *dpi)
{
  Vec   X = ksp->vec_sol, R = ksp->work[NBPCG_R], Z = ksp->work[NBPCG_Z], P = ksp->work[NBPCG_P], S = ksp->work[NBPCG_S], MS = ksp->work[NBPCG_MS];
  PKDot d[2] = {
    {Z, R},
    {S, P}
  };

  PetscFunctionBegin;
  PetscCall(PKMatMult(ksp, pk, X, R));
  PetscCall(VecAYPX(R, -1.0, ksp->vec_rhs));
  PetscCall(PKPCApply(ksp, pk, R, Z));
  PetscCall(VecCopy(Z, P));
  PetscCall(PKMatMult(ksp, pk, P, S));
  PetscCall(PKVecFused(pk, 0, NULL, 2, d, pk->red.local));
  PetscCall(PKReduceBegin(&pk->red, 2));
  PetscCall(PKPCApply(ksp, pk, S, MS));
  PetscCall(PKReduceEnd(&pk->red));
  *gamma = pk->red.global[0];
  *dpi   = pk->red.global[1];
  KSPCheckDot(ksp, *gamma);
  KSPCheckDot(ksp, *dpi);
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSolve_PKNBPCG_Private(KSP ksp, KSP_PK *pk)
{
  Vec                X = ksp->vec_sol, R = ksp->work[NBPCG_R], Z = ksp->work[NBPCG_Z], P = ksp->work[NBPCG_P], S = ksp->work[NBPCG_S];
  Vec                MS = ksp->work[NBPCG_MS], AZ = ksp->work[NBPCG_AZ]; /* M s and A z */
  PetscScalar        gamma, gammaold = 1.0, dpi = 0.0, dpiold = 0.0, beta, alpha;
  PetscReal          dp, gmax;
  PetscInt           i, n;
  PetscBool          fresh = PETSC_TRUE; /* p = z and s = A p computed, not updated: the start or a restart */
  KSPConvergedReason br;
  PKDot              d[2];

  PetscFunctionBegin;
  ksp->its = 0;
  PetscCall(PKCGInitialResidual(ksp, pk, R));
  PetscCall(PKPCApply(ksp, pk, R, Z));
  n = NBPCGRZDots(ksp, R, Z, d);
  {
    PKAxpbypcz u = {P, 1.0, Z, 0, NULL, 0.0}; /* p = z, in the pass that computes the dots */
    PetscCall(PKVecFused(pk, 1, &u, n, d, pk->red.local));
  }
  PetscCall(PKReduceBegin(&pk->red, n));
  PetscCall(PKMatMult(ksp, pk, P, S)); /* overlapped: s = A p */
  PetscCall(PKReduceEnd(&pk->red));
  gamma = pk->red.global[0];
  KSPCheckDot(ksp, gamma);
  gmax = PetscAbsScalar(gamma);
  PetscCall(PKCGNorm(ksp, pk->red.global[0], n > 1 ? &pk->red.global[1] : NULL, &dp));
  PetscCall(PKConvergenceStep(ksp, dp));
  if (ksp->reason) PetscFunctionReturn(0);

  for (i = 0; i < ksp->max_it; i++) {
    ksp->its = i + 1;
    br       = PKCGCheckGamma(gamma, gammaold, (PetscBool)!i);
    if (!br) {
      /* p = z + b p and s = A z + b s (= A p), then the local (p, s), in one pass; after a (re)start p and s are ready */
      PKAxpbypcz u[2];
      PKDot      ps = {S, P};
      beta          = fresh ? 0.0 : gamma / gammaold;
      u[0]          = (PKAxpbypcz){P, 1.0, Z, 0, NULL, beta};
      u[1]          = (PKAxpbypcz){S, 1.0, AZ, 0, NULL, beta};
      PetscCall(PKVecFused(pk, fresh ? 0 : 2, u, 1, &ps, pk->red.local));
      PetscCall(PKReduceBegin(&pk->red, 1)); /* reduction 1: (p, A p) */
      PetscCall(PKPCApply(ksp, pk, S, MS));  /* overlapped: M s */
      PetscCall(PKReduceEnd(&pk->red));
      dpi = pk->red.global[0];
      KSPCheckDot(ksp, dpi);
      br = PKCGCheckCurvature(dpi, dpiold, (PetscBool)!i);
    }
    if (br < 0 && !fresh) {
      /* impossible in exact arithmetic for SPD A and M: restart from x, and report only what fresh vectors show */
      PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": %s from the recurrences; restarting from x to rule out rounding\n", i, KSPConvergedReasons[br]));
      PKLanczosStop(pk->lanczos, "drift of the recurrences forced a restart");
      PetscCall(NBPCGRestart(ksp, pk, &gamma, &dpi));
      fresh = PETSC_TRUE;
      br    = PKCGCheckGamma(gamma, gammaold, PETSC_FALSE);
      if (!br) br = PKCGCheckCurvature(dpi, dpiold, PETSC_FALSE);
    }
    if ((ksp->reason = PKCGExhausted(br, gamma, gmax))) {
      PetscCall(PetscInfo(ksp, "stopped by (r, z) = %g (previous %g), (p, A p) = %g (previous %g)\n", (double)PetscRealPart(gamma), (double)PetscRealPart(gammaold), (double)PetscRealPart(dpi), (double)PetscRealPart(dpiold)));
      break;
    }
    dpiold = dpi;
    alpha  = gamma / dpi;
    /* the Lanczos tridiagonal, if estimates are requested: after a restart p = z (beta 0), a new block */
    PKLanczosPushCG(pk->lanczos, alpha, fresh ? 0.0 : beta, gamma);
    fresh = PETSC_FALSE;
    {
      /* x += a p, r -= a s, z -= a M s, then the local (r, z) and the norm's dot, in one pass */
      PKAxpbypcz u[3] = {
        {X, alpha,  P,  0, NULL, 1.0},
        {R, -alpha, S,  0, NULL, 1.0},
        {Z, -alpha, MS, 0, NULL, 1.0}
      };
      n = NBPCGRZDots(ksp, R, Z, d);
      PetscCall(PKVecFused(pk, 3, u, n, d, pk->red.local));
    }
    PetscCall(PKReduceBegin(&pk->red, n)); /* reduction 2: (r, z) and the norm */
    PetscCall(PKMatMult(ksp, pk, Z, AZ));  /* overlapped: A z */
    PetscCall(PKReduceEnd(&pk->red));
    gammaold = gamma;
    gamma    = pk->red.global[0];
    KSPCheckDot(ksp, gamma);
    gmax = PetscMax(gmax, PetscAbsScalar(gamma));
    PetscCall(PKCGNorm(ksp, pk->red.global[0], n > 1 ? &pk->red.global[1] : NULL, &dp));
    PetscCall(PKConvergenceStep(ksp, dp));
    PetscCall(PKRecIterEnd(pk->rec, ksp->its));
    if (ksp->reason) break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_PKNBPCG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, NBPCG_NWORK));
  PetscCall(PKCGSetUp(ksp, (KSP_PK *)ksp->data, 2));
  PetscFunctionReturn(0);
}

/* What an iteration costs, for the performance model (composed as "KSPPipeGetCost_C"; see pkcost.h) */
static PetscErrorCode KSPPipeGetCost_PKNBPCG(KSP ksp, PKSolverCost *c)
{
  const PetscInt nrm = PKCGNormValues(ksp);

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->pattern      = "nbpcg";
  c->chunks       = ((KSP_PK *)ksp->data)->chunks; /* MPI_Test between the pieces of the overlapped work (1: none) */
  c->its          = 1;
  c->nred         = 2;
  c->red[0]       = (PKReductionCost){.nvals = 1, .w_pc = 1};         /* (p, A p), in flight during M s */
  c->red[1]       = (PKReductionCost){.nvals = 1 + nrm, .w_spmv = 1}; /* (r, z) and the norm, during A z */
  c->nspmv        = 1;
  c->npc          = 1;
  c->streams      = 15;                      /* vector traffic as implemented: p, s and (p,s) in one pass (reads p z s Az, writes p s) 6, x, r, z and the dots in one pass (reads x p r s z Ms, writes x r z) 9 */
  c->init_spmv    = ksp->guess_zero ? 1 : 2; /* r = b - A x, s = A p */
  c->init_pc      = 1;
  c->init_nvals   = 1 + nrm;
  c->init_streams = 9;
  PetscFunctionReturn(0);
}

/*MC
   KSPPKNBPCG - "nbpcg": Gropp's non-blocking preconditioned conjugate gradients from pipekrylov (PETSc's
   KSPGROPPCG; Eller and Gropp, SC16). Two non-blocking reductions per iteration: (p, A p) is overlapped with the
   preconditioner application M s, and (r, z) with the norm is overlapped with the MatMult A z. The overlapped
   work is split into chunks with an MPI_Test between them, so that the reduction progresses without an
   asynchronous progress thread.

   Options Database Keys:
+  -ksp_pipe_chunks <n> - pieces the overlapped PCApply and MatMult are split into (MPI_Test between them); the
                          MatMult is chunked for AIJ matrices, the PCApply gets an MPI_Test before and after
.  -ksp_pipe_check_symmetry - check at set-up that the operator is symmetric (one transpose), error if not
.  -ksp_pipe_check_symmetry_tol <t> - tolerance of that check (default 1e-12)
-  -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - the norm the convergence test uses

   Notes:
   Left preconditioning only; operator and preconditioner must be symmetric positive definite. Breakdowns are
   reported with PETSc's reasons (KSP_DIVERGED_INDEFINITE_MAT, KSP_DIVERGED_INDEFINITE_PC, KSP_DIVERGED_NANORINF,
   KSP_DIVERGED_PC_FAILED). z = M r and s = A p are updated by recurrences, so the preconditioned norm is that of
   the recurred z; iterates equal KSPCG's in exact arithmetic. Each iteration does one MatMult and one PCApply;
   the MatMult of the last iteration is not needed (it overlaps the final reduction).

   Estimates: KSPComputeEigenvalues() and KSPComputeExtremeSingularValues() from the Lanczos tridiagonal of alpha
   and beta, as KSPCG's (requested with KSPSetComputeEigenvalues() or KSPSetComputeSingularValues()); a restart
   (p = z) starts a new block. The tridiagonal ends where the recurrences reach their rounding level or drift forces
   a restart (-info says where): past that point their coefficients are no longer a Lanczos process's
   (docs/algorithms.md §12). KSPSolveTranspose() solves with A^T and M^T (MatMultTranspose, not chunked).

   Level: intermediate

.seealso: `KSPGROPPCG`, `KSPCG`, `KSPPKPCG`, `KSPPKSAPCG`, `KSPPKPIPECG`, `KSPPipeSetChunks()`, `KSPPipeGetOverlapStats()`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_PKNBPCG(KSP ksp)
{
  KSP_PKNBPCG *cg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cg));
  ksp->data       = (void *)cg;
  cg->pk.recurred = PETSC_TRUE; /* z = M r and s = A p by recurrence */
  PetscCall(PKCreate_Common(ksp, &cg->pk, "Gropp's non-blocking PCG, two non-blocking reductions per iteration: (p,Ap) behind PCApply, (r,z) and the norm behind MatMult", PETSC_FALSE, KSPSolve_PKNBPCG_Private));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", KSPPipeGetCost_PKNBPCG));
  PetscCall(PKCGCreate_Common(ksp));
  ksp->ops->setup = KSPSetUp_PKNBPCG;
  PetscFunctionReturn(0);
}
