/*
   pipecg: Ghysels-Vanroose pipelined preconditioned CG (docs/algorithms.md §4). One non-blocking reduction of
   {(r,u), (w,u), norm, (u,s), (p,s)} per iteration, overlapped with w = A u (recomputed, §4.2), m = M w and
   n = A m; the eight vector updates of an iteration and the local dots of the next one are a single fused pass.

   The norm that arrives with the reduction of pass i belongs to x_i, the iterate in ksp->vec_sol at that moment,
   so iteration i is tested, reported and returned exactly as PETSc's cg would; the pipeline costs one
   PCApply + MatMult beyond the last iteration, never an extra iteration.

   Accuracy: the recurrences for r, u, w (and s, q, z) drift away from b - A x, and on ill-conditioned problems
   their rounding delays convergence. w = A u is recomputed in the overlap window when the policy (pkcgimpl.h)
   predicts that delay, or when the user asks; residual replacement (Cools et al., KSPPIPECGRR) recomputes all of
   them every k iterations or when the measured gap asks for it, and every claimed convergence is checked against
   the true residual: a false claim replaces the residuals and iterating continues.
*/
#ifndef PKPIPECGIMPL_H
#define PKPIPECGIMPL_H

#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkcgimpl.h>
#include <pipekrylov/private/pksimd.h>

/* The work vectors, ksp->work[PIPECG_...]: r, u = M r, w = A u, m = M w, n = A m, z, q, s = A p, p (x is
   ksp->vec_sol), and the diagonal of a preconditioner applied inside the fused pass */
enum {
  PIPECG_R,
  PIPECG_U,
  PIPECG_W,
  PIPECG_M,
  PIPECG_N,
  PIPECG_Z,
  PIPECG_Q,
  PIPECG_S,
  PIPECG_P,
  PIPECG_DIAG,
  PIPECG_NWORK
};

typedef struct {
  KSP_PK   pk;      /* must be first */
  PetscInt replace; /* -ksp_pipecg_replace: period of residual replacement, 0 = off */
  /* what happened in the last solve, for -ksp_view */
  PetscInt    nreplace; /* residual replacements */
  PetscInt    nfalse;   /* convergence claims refuted by the true residual */
  PetscInt    nrecover; /* breakdowns that a replacement showed to be drift */
  PetscInt    nrestart; /* restarts (p = u): the curvature had no significant digit left, or the gap was as large as r */
  PetscBool   restart;  /* restart at the next replacement */
  PetscInt    nfrozen;  /* iterations that kept x: the recursive residual below machine precision */
  PetscInt    nprobe;   /* measurements of the gap r - (b - A x) (one MatMult each) */
  PetscReal   maxgap;   /* the largest gap measured, relative to the tolerance (2-norm) */
  PetscReal   gaptol;   /* -ksp_pipecg_replace_gap: replace before the gap reaches this fraction of the tolerance, 0 = off,
                         PETSC_DEFAULT: PIPECG_DEFAULT_GAP while w is recurred, off while it is recomputed */
  PetscInt    nlate;    /* passes whose overlapped work was held back for a predicted convergence that did not come */
  PKRecompute rc;       /* w = A u recomputed in the overlap window: -ksp_pipecg_recompute, else the policy (pkcgimpl.h) */
  PetscBool   fused;    /* -ksp_pipecg_fused: the one-loop update kernel, with a diagonal PC applied in it */
  PetscBool   fusedpc;  /* the last solve applied the (diagonal) preconditioner inside the update pass */
} KSP_PKPIPECG;

#define PIPECG_DEFAULT_GAP 0.1 /* replace before the gap r - (b - A x) reaches this fraction of the tolerance */

/* The gap tolerance in force for the coming pass: while w is recomputed the gap grows as cg's does (its r and s
   recurrences are cg's, fed with w = A u), and replacements would only inject perturbations
   (docs/pipelined-accuracy.md); while it is recurred the gap is measured and replaced */
static inline PetscReal PipeCGGapTol(KSP ksp, const KSP_PKPIPECG *cg)
{
  if (cg->gaptol >= 0) return cg->gaptol;
  /* without a norm the solve runs on past convergence, where a replacement is a step of iterative refinement:
     measured and replaced with or without the recompute */
  return cg->rc.on && ksp->normtype != KSP_NORM_NONE ? 0.0 : PIPECG_DEFAULT_GAP;
}
#define PIPECG_REL_GAP     1e-5 /* ... or this fraction of ||r||: beyond, the drift delays convergence */
#define PIPECG_FIRST_PROBE 20   /* iteration of the first measurement of the gap, and the first after a replacement */
#define PIPECG_MIN_PROBE   4    /* a replacement is brought forward rather than measure again sooner than this */
#define PIPECG_MAX_PROBE   100  /* longest interval between two measurements */
#define PIPECG_GAP_POWER   4.0  /* the gap of a window of L iterations grows about like L^4 (measured 3-5 on ex2) */
#define PIPECG_RESTART_GAP 0.5  /* a gap this large against ||r|| also restarts (p = u) at the replacement */

/* Values of the one reduction per iteration */
#define PIPECG_NRED 5

#if defined(PK_HAVE_V4D)
/* the eight updates of an iteration and the next pass's products in one loop over the elements (pipecgfused.c) */
PETSC_INTERN PetscErrorCode PipeCGFusedPass(KSP, PetscScalar, PetscScalar, PetscBool, PetscBool, Vec, PetscInt, PetscScalar[]);
#endif
/* the iteration of one solve (pipecgsolve.c) */
PETSC_INTERN PetscErrorCode PipeCGSolve(KSP, KSP_PKPIPECG *);

#endif
