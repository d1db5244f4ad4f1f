/*
   What the five CG-family solvers (pcg, sapcg, nbpcg, pipecg, pipe2cg) share beyond KSP_PK.
*/
#ifndef PKCGIMPL_H
#define PKCGIMPL_H

#include <pipekrylov/private/pkkspimpl.h>

/* The breakdown tests every CG variant makes, on the same quantities as PETSc's cg: gamma = (r, z) vanishing
   means the iterate is the solution; (r, z) changing sign means an indefinite preconditioner; the curvature
   (p, A p) vanishing or changing sign means an indefinite operator. 0: none.
   Signs are compared, not the sign of the product (as PETSc's cg does): run past convergence (KSP_NORM_NONE, as
   PCMG and GAMG set on their coarse solvers, or -ksp_rtol 0) the values fall below 1e-160 and their product
   underflows to 0, which read as a sign change. */
static inline PetscBool PKCGSignsDiffer(PetscScalar a, PetscScalar b)
{
  return (PetscBool)(PetscSign(PetscRealPart(a)) * PetscSign(PetscRealPart(b)) < 0);
}

static inline KSPConvergedReason PKCGCheckGamma(PetscScalar gamma, PetscScalar gammaold, PetscBool first)
{
  if (gamma == 0.0) return KSP_CONVERGED_ATOL;
  if (!first && PKCGSignsDiffer(gamma, gammaold)) return KSP_DIVERGED_INDEFINITE_PC;
  return KSP_CONVERGED_ITERATING;
}

static inline KSPConvergedReason PKCGCheckCurvature(PetscScalar pap, PetscScalar papold, PetscBool first)
{
  if (pap == 0.0 || (!first && PKCGSignsDiffer(pap, papold))) return KSP_DIVERGED_INDEFINITE_MAT;
  return KSP_CONVERGED_ITERATING;
}

/* A breakdown found by the tests above while (r, z) is below eps^2 times its largest of the solve is no evidence of
   anything: the Krylov space is exhausted (the residual is far past what any iterate can reach), and the values
   compared are rounding or have underflowed ((p, A p) reaches 0 before (r, z) does when A's small eigenvalues are
   below 1). cg ends such a solve when (r, z) reaches 0 exactly, with KSP_CONVERGED_ATOL: so do we, a little earlier.
   r: the reason the tests gave; gamma: (r, z) now; gmax: its largest magnitude in the solve. */
static inline KSPConvergedReason PKCGExhausted(KSPConvergedReason r, PetscScalar gamma, PetscReal gmax)
{
  if (r < 0 && r != KSP_DIVERGED_NANORINF && PetscAbsScalar(gamma) <= PETSC_MACHINE_EPSILON * PETSC_MACHINE_EPSILON * gmax) return KSP_CONVERGED_ATOL;
  return r;
}

/* The dot the norm type needs besides (r, z): (z, z) preconditioned, (r, r) unpreconditioned; none for natural
   and none. Returns whether there is one. */
static inline PetscBool PKCGNormDot(KSP ksp, Vec R, Vec Z, PKDot *d)
{
  if (ksp->normtype == KSP_NORM_PRECONDITIONED) {
    d->x = Z;
    d->y = Z;
    return PETSC_TRUE;
  }
  if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
    d->x = R;
    d->y = R;
    return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* 1 if the norm type needs its own value in a reduction (PKCGNormDot), else 0: for the cost descriptions. A KSP
   not set up yet has KSP_NORM_DEFAULT, which becomes the preconditioned norm */
static inline PetscInt PKCGNormValues(KSP ksp)
{
  return (ksp->normtype == KSP_NORM_NATURAL || ksp->normtype == KSP_NORM_NONE) ? 0 : 1;
}

/* The convergence-test norm from the reduced (r, z) and, when the norm type needs it, the reduced norm dot */
static inline PetscErrorCode PKCGNorm(KSP ksp, PetscScalar rz, const PetscScalar *normdot, PetscReal *norm)
{
  return PKNormFromDots(ksp, normdot ? *normdot : 0.0, normdot ? *normdot : 0.0, rz, norm);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Eigenvalue estimates (docs/algorithms.md §12). CG is the Lanczos process in disguise: the coefficients of k
   iterations define a k x k symmetric tridiagonal T_k whose eigenvalues (Ritz values) estimate those of the
   preconditioned operator M A. With CG's alpha_k = (r_k, z_k) / (p_k, A p_k) and beta_k = (r_k, z_k) /
   (r_{k-1}, z_{k-1}) (beta_0 = 0), as PETSc's cg forms it:
     T[k][k]   = 1 / alpha_k + beta_k / alpha_{k-1}     (as sqrt(beta_k) e_k + 1 / alpha_k)
     T[k-1][k] = e_k = sqrt(beta_k) / alpha_{k-1}
   Each type appends one entry per iteration it applies (the coefficients that really moved x), never in a pass that
   is redone. A restart (p = z, beta = 0) makes e_k = 0: T splits into blocks, each the tridiagonal of a Lanczos
   process of its own (from the restart's residual), so every eigenvalue is still a Ritz value of M A. A residual
   replacement that keeps p changes the coefficients only by the gap it removes: T goes on.

   The types whose residual and products come from recurrences (nbpcg, pipecg, pipe2cg) stop appending where those
   stop describing a Lanczos process: once (r, z) is at the rounding level of the largest of the solve
   (PK_LANCZOS_FLOOR), once a measured gap r - (b - A x) exceeds PK_LANCZOS_GAP ||r||, or at a restart or redo that
   drift forced (PKCGLanczosStop). Past that point their Ritz values leave the spectrum (varcoef, jacobi, run to
   rtol 1e-30: largest 4.6, 2.0163 and 7.5 where cg's T gives 1.9986, from the iteration the residual reached 1e-15);
   the extreme ones have converged long before. pcg and sapcg keep going as cg does: their T stays valid. */
#define PK_LANCZOS_FLOOR (1e3 * PETSC_MACHINE_EPSILON) /* natural-norm residual relative to the solve's largest */
#define PK_LANCZOS_GAP   1e-4                          /* measured gap relative to ||r|| */

struct _n_PKLanczos {
  PetscInt    cap;     /* entries allocated: max_it + 1 when allocated */
  PetscInt    n;       /* entries of the solve under way (or the last) */
  PetscReal   aprev;   /* alpha of the last entry (0: none yet, or a new block follows) */
  PetscReal   muprev;  /* (r, z) of the last entry (three-term form) */
  PetscReal   floor;   /* stop below this residual relative to the largest (0: never; the recurrence-based types) */
  PetscReal   rzmax;   /* the largest |(r, z)| of the entries so far */
  const char *stopped; /* why the tridiagonal ended before the solve did (NULL: it did not) */
  PetscReal  *d, *e;   /* T[k][k] = d[k], T[k-1][k] = e[k] (e[0] = 0) */
  PetscReal  *dd, *ee; /* copies that LAPACK overwrites */
};

/* Whether an entry whose residual has (r, z) = rz may be appended; ends the tridiagonal at the rounding level */
static inline PetscBool PKLanczosAccept(PKLanczos L, PetscScalar rz)
{
  const PetscReal m = PetscAbsScalar(rz);

  if (!L || L->stopped || L->n >= L->cap) return PETSC_FALSE;
  L->rzmax = PetscMax(L->rzmax, m);
  if (L->floor > 0 && m < L->floor * L->floor * L->rzmax) {
    L->stopped = "the residual reached the rounding level of the recurrences";
    return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/* Appends entry k = L->n, the diagonal d and the coupling e to the previous entry */
static inline void PKLanczosPush(PKLanczos L, PetscReal d, PetscReal e)
{
  L->e[L->n] = L->n ? e : 0.0;
  L->d[L->n] = d;
  L->n++;
}

/* The entry of a CG iteration from its alpha, beta (0 for the first iteration and after a restart p = z) and
   (r, z); nothing when L is NULL (no estimates requested). An alpha of 0 (pipecg keeps x once the residual is below
   machine precision) or not finite adds nothing: the Lanczos process has ended there, and what follows is a new
   block. */
static inline void PKLanczosPushCG(PKLanczos L, PetscScalar alpha, PetscScalar beta, PetscScalar rz)
{
  const PetscReal a = PetscRealPart(alpha), sb = PetscSqrtReal(PetscAbsScalar(beta));
  PetscReal       e;

  if (!PKLanczosAccept(L, rz)) return;
  if (a == 0.0 || PetscIsInfOrNanReal(a) || PetscIsInfOrNanReal(sb)) {
    L->aprev = 0.0;
    return;
  }
  e = (L->aprev != 0.0) ? sb / L->aprev : 0.0;
  PKLanczosPush(L, sb * e + 1.0 / a, e);
  L->aprev = a;
}

/* The entry of a three-term-recurrence step (pipe2cg): x_{k+1} = rho_k (x_k + gamma_k z_k) + (1 - rho_k) x_{k-1},
   mu_k = (r_k, z_k). In CG's terms alpha_k = rho_k gamma_k and beta_k = mu_k / mu_{k-1}, and
   1 / alpha_k + beta_k / alpha_{k-1} = (z_k, A z_k) / mu_k, to which the step's gamma_k is fitted: the entry is
   T[k][k] = 1 / gamma_k, T[k-1][k] = sqrt(mu_k / mu_{k-1}) / alpha_{k-1}. restart: the step has no predecessor
   (step 0, or rho_k = 1 after a restart). A null step (gamma = 0) adds nothing. */
static inline void PKLanczosPushThreeTerm(PKLanczos L, PetscScalar mu, PetscScalar gamma, PetscScalar rho, PetscBool restart)
{
  const PetscReal g = PetscRealPart(gamma), m = PetscAbsScalar(mu), a = PetscRealPart(rho * gamma);
  PetscReal       e = 0.0;

  if (!PKLanczosAccept(L, mu)) return;
  if (g == 0.0 || a == 0.0 || PetscIsInfOrNanReal(g) || PetscIsInfOrNanReal(a)) {
    L->aprev = 0.0;
    return;
  }
  if (!restart && L->aprev != 0.0 && L->muprev > 0.0) e = PetscSqrtReal(m / L->muprev) / PetscAbsReal(L->aprev);
  PKLanczosPush(L, 1.0 / g, e);
  L->aprev  = a;
  L->muprev = m;
}

/* A gap r - (b - A x) measured at relative size relgap (pipecg, pipe2cg): beyond PK_LANCZOS_GAP the tridiagonal ends */
static inline void PKLanczosGap(PKLanczos L, PetscReal relgap)
{
  if (L && !L->stopped && relgap > PK_LANCZOS_GAP) L->stopped = "a measured gap between the recursive and the true residual exceeded 1e-4 ||r||";
}

/* Drift forced a restart or a redo: the entries from here on would not be those of the Lanczos process */
static inline void PKLanczosStop(PKLanczos L, const char *why)
{
  if (L && !L->stopped) L->stopped = why;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The recompute policy of the pipelined types (src/ksp/utils/cgpolicy.c; docs/pipelined-accuracy.md, "The
   policy"): whether the auxiliary vectors are recomputed in the overlap window of the coming pass (pipecg: w = A u;
   pipe2cg: w = A z, p = M w, q = A p of the newer iterate) or recurred. The user's -ksp_pipecg_recompute /
   -ksp_pipe2cg_recompute force it; by default the policy switches it as the solve goes:
   - on when the solve is predicted to run for at least PK_RC_LANCZOS times the number of unknowns (the predicted
     count from the residual's decrease so far, judged after every test from iteration PK_RC_FIRST on, with one
     residual replacement at the switch): there CG resolves individual
     eigenvalues, its Ritz values converge and the loss of orthogonality that follows is seeded by the local
     rounding errors; the pipelined recurrences seed it with errors 100-1000 times the unit roundoff (the drift
     of w at iteration 40: 4e-14 to 2e-13 on the test problems), and convergence is delayed
     (the unpreconditioned variable-coefficient problem: 20-25%). Off again once the predicted count falls below
     half of that;
   - on (pipe2cg) when the measured gap between recursive and true residual forces a residual replacement and the
     replacements done and predicted to the tolerance (PKRecomputeGap) exceed PK_RC_MAX_REPLACE: each injects the
     gap into pipe2cg's three-term recurrences, and more of them cost accuracy (docs/pipelined-accuracy.md);
     pipecg's two-term recurrences take replacements without loss, so there the gap is left to them;
   - on from the start without a norm (KSP_NORM_NONE) when max_it, the count such a solve runs, reaches
     PK_RC_LANCZOS times the unknowns: far past convergence the recurred vectors are rounding alone and make x drift;
   - off for the rest of the solve (pipecg) when a convergence claim is refuted by the true residual while
     recomputing: the recurrences have reached their attainable accuracy at the tolerance, and the measured gap and
     its replacements take over (varcoef with jacobi at 1e-13, switched on without the replacement: converged
     after 625 iterations where it ran to -ksp_max_it otherwise; with the replacement no claim is refuted there). */
#define PK_RC_FIRST       1   /* the first iteration at which the predicted count is judged */
#define PK_RC_LANCZOS     0.1 /* predicted iterations per unknown from which the recompute is on */
#define PK_RC_MAX_REPLACE 2   /* pipe2cg: more gap-driven replacements than this (done and predicted): the recompute instead */

typedef enum {
  PK_RC_OFF_START, /* not (yet) on */
  PK_RC_LANCZOS_REGIME,
  PK_RC_GAP,
  PK_RC_FORCED
} PKRecomputeWhy;

typedef struct {
  PetscInt       user;      /* -1: the policy decides; 0 or 1: forced off or on by the user */
  PetscBool      on;        /* in force for the coming pass */
  PKRecomputeWhy why;       /* why it is on (or was last) */
  PetscReal      nrows;     /* unknowns of the solve */
  PetscReal      predicted; /* the predicted iteration count at the last judgement (0: none yet) */
  PetscBool      final;     /* switched off for the rest of the solve (PKRecomputeRefuted) */
  /* what the last solve did, for -ksp_view and the cost description */
  PetscInt npasses;        /* passes that recomputed */
  PetscInt non, noff;      /* switches on and off by the policy */
  PetscInt at_on, at_off;  /* iterations of the last switch on and off (-1: none) */
  char     reason[2][192]; /* the last switch on and the last switch off, and why, as -ksp_view prints them */
} PKRecompute;

PETSC_INTERN PetscErrorCode PKRecomputeStart(KSP, PKRecompute *);
PETSC_INTERN PetscErrorCode PKRecomputeJudge(KSP, PKRecompute *, PetscInt, PetscReal, PetscReal, PetscReal, PetscBool *);
PETSC_INTERN PetscErrorCode PKRecomputeGap(KSP, PKRecompute *, PetscInt, PetscInt, PetscInt, PetscReal, PetscReal, PetscReal, PetscReal, PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode PKRecomputeRefuted(KSP, PKRecompute *, PetscInt);
PETSC_INTERN PetscErrorCode PKRecomputeView(const PKRecompute *, PetscViewer, PetscInt, const char *, const char *);

PETSC_INTERN PetscErrorCode PKCGLanczosSetUp(KSP, KSP_PK *);
PETSC_INTERN PetscErrorCode PKCGLanczosBegin(KSP, KSP_PK *);
PETSC_INTERN PetscErrorCode PKCGLanczosEnd(KSP, KSP_PK *);
PETSC_INTERN PetscErrorCode PKCGLanczosDestroy(KSP_PK *);

PETSC_INTERN PetscErrorCode PKCGCreate_Common(KSP);
PETSC_INTERN PetscErrorCode KSPComputeExtremeSingularValues_PKCG(KSP, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode KSPComputeEigenvalues_PKCG(KSP, PetscInt, PetscReal *, PetscReal *, PetscInt *);
PETSC_INTERN PetscErrorCode PKCGSetSupportedNorms(KSP);
PETSC_INTERN PetscErrorCode PKCGSetUp(KSP, KSP_PK *, PetscInt);
PETSC_INTERN PetscErrorCode PKCGInitialResidual(KSP, KSP_PK *, Vec);
PETSC_INTERN PetscErrorCode PKCGDiagonalPC(KSP, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode PKCGDiagonalSame(Vec, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode PKCGCheckClaim(KSP, KSP_PK *, PetscInt, Vec, PetscReal, Vec, Vec, PetscInt *, PetscBool *, PetscReal *);

#endif
