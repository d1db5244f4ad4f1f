/*
   pipecg: Ghysels-Vanroose pipelined preconditioned CG (docs/algorithms.md §4). One non-blocking reduction of
   {(r,u), (w,u), norm, (u,s), (p,s)} per iteration, overlapped with w = A u (recomputed, §4.2), m = M w and
   n = A m; the eight vector updates of an iteration and the local dots of the next one are a single fused pass.

   The norm that arrives with the reduction of pass i belongs to x_i, the iterate in ksp->vec_sol at that moment,
   so iteration i is tested, reported and returned exactly as PETSc's cg would; the pipeline costs one
   PCApply + MatMult beyond the last iteration, never an extra iteration.

   Accuracy: the recurrences for r, u, w (and s, q, z) drift away from b - A x, and on ill-conditioned problems
   their rounding delays convergence. w = A u is recomputed every iteration (the delay goes); optional residual
   replacement (Cools et al., KSPPIPECGRR) recomputes all of them every k iterations or when the measured gap
   asks for it, and every claimed convergence is checked against the true residual: a false claim replaces the
   residuals and iterating continues.
*/
#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkcgimpl.h>
#include <pipekrylov/private/pksimd.h>

typedef struct {
  KSP_PK   pk;        /* must be first */
  PetscInt replace;   /* -ksp_pipecg_replace: period of residual replacement, 0 = off */
  /* what happened in the last solve, for -ksp_view */
  PetscInt nreplace;  /* residual replacements */
  PetscInt nfalse;    /* convergence claims refuted by the true residual */
  PetscInt nrecover;  /* breakdowns that a replacement showed to be drift */
  PetscInt nrestart;  /* restarts (p = u): the curvature had no significant digit left, or the gap was as large as r */
  PetscBool restart;  /* restart at the next replacement */
  PetscInt  nfrozen;  /* iterations that kept x: the recursive residual below machine precision */
  PetscInt nprobe;    /* measurements of the gap r - (b - A x) (one MatMult each) */
  PetscReal maxgap;   /* the largest gap measured, relative to the tolerance (2-norm) */
  PetscReal gaptol;   /* -ksp_pipecg_replace_gap: replace before the gap reaches this fraction of the tolerance, 0 = off,
                         PETSC_DEFAULT: PIPECG_DEFAULT_GAP with the plain recurrence, off with the recompute */
  PetscInt nlate;     /* passes whose overlapped work was held back for a predicted convergence that did not come */
  PetscBool recompute; /* -ksp_pipecg_recompute: w = A u recomputed in the overlap window of every pass */
  PetscInt  nrecompute; /* passes of the last solve that recomputed w */
  PetscBool fused;    /* -ksp_pipecg_fused: the one-loop update kernel, with a diagonal PC applied in it */
  PetscBool fusedpc;  /* the last solve applied the (diagonal) preconditioner inside the update pass */
} KSP_PKPIPECG;

#define PIPECG_DEFAULT_GAP  0.1  /* replace before the gap r - (b - A x) reaches this fraction of the tolerance */

/* The gap tolerance in force: with w recomputed the gap grows as cg's does (its r and s recurrences are cg's, fed
   with w = A u), and replacements would only inject perturbations (measured: 44 replacements cost 13% more
   iterations on the variable-coefficient problem at 1e-12, none needed on ex2 down to 1e-13) */
static PetscReal PipeCGGapTol(const KSP_PKPIPECG *cg)
{
  if (cg->gaptol >= 0) return cg->gaptol;
  return cg->recompute ? 0.0 : PIPECG_DEFAULT_GAP;
}
#define PIPECG_REL_GAP      1e-5 /* ... or this fraction of ||r||: beyond, the drift delays convergence */
#define PIPECG_FIRST_PROBE  20   /* iteration of the first measurement of the gap, and the first after a replacement */
#define PIPECG_MIN_PROBE    4    /* a replacement is brought forward rather than measure again sooner than this */
#define PIPECG_MAX_PROBE    100  /* longest interval between two measurements */
#define PIPECG_GAP_POWER    4.0  /* the gap of a window of L iterations grows about like L^4 (measured 3-5 on ex2) */
#define PIPECG_RESTART_GAP  0.5  /* a gap this large against ||r|| also restarts (p = u) at the replacement */

/* Local dots of pass i into red.local: [0] = (r,u), [1] = (w,u), [2] = norm dot; returns their number */
static PetscInt PipeCGDots(KSP ksp, Vec R, Vec U, Vec W, PKDot d[])
{
  d[0].x = U;
  d[0].y = R;
  d[1].x = U;
  d[1].y = W;
  if (ksp->normtype == KSP_NORM_PRECONDITIONED) {
    d[2].x = U;
    d[2].y = U;
    return 3;
  } else if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
    d[2].x = R;
    d[2].y = R;
    return 3;
  }
  return 2; /* natural norm = sqrt((r,u)); none */
}

/* Values of the one reduction per iteration */
#define PIPECG_NRED 5

/* After the (optional) updates u[8], the local values of pass i+1 into out[0..4]: (r,u), (w,u), the norm dot (0 if
   the norm needs none), and, if curv, (u_{i+1}, s_i) and (p_i, s_i) (else 0). With them the curvature
   (p_{i+1}, A p_{i+1}) = (u,w) + 2 beta (u,s) + beta^2 (p,s) (A symmetric, s = A p) is computed from the vectors
   rather than recurred as (u,w) - beta gamma / alpha, as Chen and Carson's predict-and-recompute variants do
   (docs/algorithms.md §5.6, docs/bibliography.md [004]): the recurred value loses all its digits to cancellation
   once ||r|| is small, turns negative and fakes an indefinite operator, where the computed one stays positive.
   The two extra dots cost two multiply-adds per element in the pass that reads u, s and p anyway. */
static PetscErrorCode PipeCGLocalDots(KSP_PK *pk, PetscInt nd, PetscBool curv, PKDot d[], const PKAxpbypcz *u, PetscScalar out[])
{
  const PetscInt nu = u ? 8 : 0;

  PetscFunctionBegin;
  if (!nd) {
    PetscCall(PKVecFused(pk, nu, u, 0, NULL, out));
    PetscFunctionReturn(0);
  }
  PetscCall(PKVecFused(pk, nu, u, curv ? nd + 2 : nd, d, out));
  if (nd == 2) { /* no norm dot: the curvature dots move to [3] and [4] */
    out[4] = curv ? out[3] : 0.0;
    out[3] = curv ? out[2] : 0.0;
    out[2] = 0.0;
  } else if (!curv) out[3] = out[4] = 0.0;
  PetscFunctionReturn(0);
}

/* r = b - A x, u = M r, w = A u, s = A p, q = M s, z = A q: the recurrence vectors recomputed from x and p */
static PetscErrorCode PipeCGReplace(KSP ksp, KSP_PK *pk)
{
  Vec R = ksp->work[0], U = ksp->work[1], W = ksp->work[2], Z = ksp->work[5], Q = ksp->work[6], S = ksp->work[7], P = ksp->work[8];

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PK_Event_Replace, ksp, 0, 0, 0));
  PetscCall(PKMatMult(ksp, pk, ksp->vec_sol, R));
  PetscCall(VecAYPX(R, -1.0, ksp->vec_rhs));
  PetscCall(PKPCApply(ksp, pk, R, U));
  PetscCall(PKMatMult(ksp, pk, U, W));
  PetscCall(PKMatMult(ksp, pk, P, S));
  PetscCall(PKPCApply(ksp, pk, S, Q));
  PetscCall(PKMatMult(ksp, pk, Q, Z));
  PetscCall(PetscLogEventEnd(PK_Event_Replace, ksp, 0, 0, 0));
  PetscFunctionReturn(0);
}

#if defined(PK_HAVE_V4D)
/* The eight updates of an iteration and the next iteration's dots in one loop over the elements, each element's
   ten values loaded once and eight stored once; with a diagonal preconditioner also m = M w of the new w (the
   overlapped PCApply of the next iteration). Same arithmetic per element as the generic path. */
typedef struct {
  PetscScalar       *x, *r, *u, *w, *m, *n, *z, *q, *s, *p;
  const PetscScalar *dinv;   /* m = w .* dinv in the pass, or NULL */
  PetscScalar        alpha, beta;
  PetscBool          first;  /* z = n, q = m, s = w, p = u: a (re)start, never reading the old z, q, s, p */
  PetscInt           ndots;  /* 0, 2: (u,r), (u,w); 3: and (u,u) or (r,r); with dots, also (u,s) and (p,s) in out[3..4] */
  PetscBool          normr;  /* the third dot is (r,r) */
  PetscInt           len;
  PetscScalar        out[5];
} PCGFused;

  #define PCG_UPDATE(T, LD, ST, BC, DOT) \
    do { \
      const T nn = LD(k->n), mm = LD(k->m), ww = LD(k->w), uu = LD(k->u), al = BC(k->alpha), mal = BC(-k->alpha); \
      T       zz, qq, ss, pp, xx, rr, u2, w2; \
      if (k->first || k->beta == 0.0) { \
        zz = nn; qq = mm; ss = ww; pp = uu; \
      } else { \
        const T be = BC(k->beta); \
        zz = nn + be * LD(k->z); qq = mm + be * LD(k->q); ss = ww + be * LD(k->s); pp = uu + be * LD(k->p); \
      } \
      xx = al * pp + LD(k->x); \
      u2 = mal * qq + uu; \
      w2 = mal * zz + ww; \
      rr = mal * ss + LD(k->r); \
      ST(k->z, zz); ST(k->q, qq); ST(k->s, ss); ST(k->p, pp); ST(k->x, xx); ST(k->u, u2); ST(k->w, w2); ST(k->r, rr); \
      if (k->dinv) ST(k->m, w2 * LD(k->dinv)); \
      if (nd) { \
        DOT(0, u2, rr); DOT(1, u2, w2); \
        if (nd > 2) { \
          if (k->normr) DOT(2, rr, rr); \
          else DOT(2, u2, u2); \
        } \
        DOT(3, u2, ss); DOT(4, pp, ss); \
      } \
    } while (0)

  #define PCG_LDV(a)    (*(const PKv4d *)((a) + i))
  #define PCG_STV(a, v) (*(PKv4d *)((a) + i) = (v))
  #define PCG_BCV(c)    ((PKv4d){(c), (c), (c), (c)})
  #define PCG_LDS(a)    ((a)[i])
  #define PCG_STS(a, v) ((a)[i] = (v))
  #define PCG_BCS(c)    (c)

PK_SIMD_CLONES static void PipeCGFusedKernel(PCGFused *k)
{
  const PetscInt nd = k->ndots, len = k->len;
  PetscScalar    sum[5] = {0, 0, 0, 0, 0};

  PK_FUSED_BLOCKS(len, 5, sum, PETSC_TRUE, PCG_UPDATE, PCG_LDV, PCG_STV, PCG_BCV, PCG_LDS, PCG_STS, PCG_BCS)
  for (PetscInt j = 0; j < 5; j++) k->out[j] = sum[j];
}

/* x += a p, etc. (see above) for the vectors of the solve: ksp->vec_sol, then work[0..8] = r u w m n z q s p */
static PetscErrorCode PipeCGFusedPass(KSP ksp, PetscScalar alpha, PetscScalar beta, PetscBool first, Vec dinv, PetscInt nd, PetscScalar out[])
{
  PCGFused     k;
  PetscScalar *a[10];
  Vec          v[10] = {ksp->vec_sol, ksp->work[0], ksp->work[1], ksp->work[2], ksp->work[3], ksp->work[4], ksp->work[5], ksp->work[6], ksp->work[7], ksp->work[8]};

  PetscFunctionBegin;
  for (PetscInt j = 0; j < 10; j++) {
    if (j == 5) PetscCall(VecGetArrayRead(v[j], (const PetscScalar **)&a[j])); /* n */
    else PetscCall(VecGetArray(v[j], &a[j]));
  }
  k.x = a[0], k.r = a[1], k.u = a[2], k.w = a[3], k.m = a[4], k.n = a[5], k.z = a[6], k.q = a[7], k.s = a[8], k.p = a[9];
  if (dinv) PetscCall(VecGetArrayRead(dinv, &k.dinv));
  else k.dinv = NULL;
  k.alpha = alpha;
  k.beta  = beta;
  k.first = first;
  k.ndots = nd;
  k.normr = (PetscBool)(ksp->normtype == KSP_NORM_UNPRECONDITIONED);
  PetscCall(VecGetLocalSize(ksp->work[0], &k.len));
  PetscCall(PetscLogEventBegin(PK_Event_VecFused, 0, 0, 0, 0));
  PipeCGFusedKernel(&k);
  PetscCall(PetscLogEventEnd(PK_Event_VecFused, 0, 0, 0, 0));
  PetscCall(PetscLogFlops((16.0 + 2.0 * (nd ? nd + 2 : 0) + (dinv ? 1.0 : 0.0)) * k.len));
  if (nd) for (PetscInt j = 0; j < PIPECG_NRED; j++) out[j] = k.out[j];
  if (dinv) PetscCall(VecRestoreArrayRead(dinv, &k.dinv));
  for (PetscInt j = 0; j < 10; j++) {
    if (j == 5) PetscCall(VecRestoreArrayRead(v[j], (const PetscScalar **)&a[j]));
    else PetscCall(VecRestoreArray(v[j], &a[j]));
  }
  PetscFunctionReturn(0);
}
#endif

/* The gap between the recursive residual and b - A x, measured at the start of pass i (one MatMult into n, free
   until the overlapped work): local ||b - A x - r||^2 and ||r||^2 into out[0], out[1] */
static PetscErrorCode PipeCGProbe(KSP ksp, KSP_PK *pk, PetscScalar out[2])
{
  Vec              R = ksp->work[0], N = ksp->work[4];
  const PKAxpbypcz g = {N, 1.0, ksp->vec_rhs, -1.0, R, -1.0}; /* n = b - r - A x */
  const PKDot      d[2] = {
    {N, N},
    {R, R}
  };

  PetscFunctionBegin;
  PetscCall(PKMatMult(ksp, pk, ksp->vec_sol, N));
  PetscCall(PKVecFused(pk, 1, &g, 2, d, out));
  PetscFunctionReturn(0);
}

/* After a probe at iteration i (gap and ||r|| in the 2-norm, tolerance carried over to it): whether to replace at
   the next pass, and the iteration of the next probe. The gap of a window (the iterations since the last
   replacement, of length L) grows at most about like L^PIPECG_GAP_POWER (docs/algorithms.md §5.5); replace
   when it has reached, or would reach before a probe PIPECG_MIN_PROBE iterations on, the threshold. */
static void PipeCGSchedule(KSP_PKPIPECG *cg, PetscInt i, PetscInt lastrep, PetscReal gap, PetscReal rn, PetscReal ttolr, PetscBool *replace, PetscInt *nextprobe)
{
  const PetscReal thr = PetscMin(PipeCGGapTol(cg) * ttolr, PIPECG_REL_GAP * rn), L = (PetscReal)PetscMax(i - lastrep, 1);
  PetscReal       wait;

  cg->maxgap = ttolr > 0 ? PetscMax(cg->maxgap, gap / ttolr) : cg->maxgap;
  if (gap >= thr) wait = 0;
  else if (gap <= 0) wait = PIPECG_MAX_PROBE;
  else wait = L * PetscPowReal(thr / gap, 1.0 / PIPECG_GAP_POWER) - L;
  if (wait < PIPECG_MIN_PROBE) {
    *replace   = PETSC_TRUE;
    *nextprobe = i + 1 + PIPECG_FIRST_PROBE;
    /* a gap as large as the recursive residual itself: the recurrences have nothing left to say (past the
       attainable accuracy); their search direction neither: restart from x (p = u) with the replacement */
    if (gap >= PIPECG_RESTART_GAP * rn) cg->restart = PETSC_TRUE;
  } else *nextprobe = i + (PetscInt)PetscMin(wait, (PetscReal)PIPECG_MAX_PROBE);
}

/* The work overlapped with the reduction of a pass: m = M w and n = A m for the next iteration and, with
   -ksp_pipecg_recompute, first w = A u. That is the predict-and-recompute idea of Chen and Carson ([004],
   docs/algorithms.md §4.2): the pass's dot (w, u) was computed with the recurred w (the prediction), and every
   update from here on uses the recomputed one, so the rounding errors of the recurrence w -= a z are not carried
   from one iteration to the next. They are what delays pipelined CG against cg on ill-conditioned problems (the
   delay does not depend on the tolerance, and residual replacement does not cure it). fresh: w is A u already
   (first pass, or r, u, w were just replaced). */
static PetscErrorCode PipeCGOverlap(KSP ksp, KSP_PKPIPECG *cg, PetscBool fresh, PetscBool *m_ready)
{
  KSP_PK *pk = &cg->pk;
  Vec     U = ksp->work[1], W = ksp->work[2], M = ksp->work[3], N = ksp->work[4];

  PetscFunctionBegin;
  if (cg->recompute && !fresh) {
    PetscCall(PKMatMult(ksp, pk, U, W)); /* w = A u */
    *m_ready = PETSC_FALSE;
    cg->nrecompute++;
  }
  if (!*m_ready) PetscCall(PKPCApply(ksp, pk, W, M)); /* m = M w */
  PetscCall(PKMatMult(ksp, pk, M, N));                /* n = A m */
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSolve_PKPIPECG_Private(KSP ksp, KSP_PKPIPECG *cg)
{
  KSP_PK            *pk = &cg->pk;
  Vec                X = ksp->vec_sol, R = ksp->work[0], U = ksp->work[1], W = ksp->work[2], M = ksp->work[3], N = ksp->work[4];
  Vec                Z = ksp->work[5], Q = ksp->work[6], S = ksp->work[7], P = ksp->work[8], D = ksp->work[9];
  PetscScalar        gamma, delta, gammaold = 0.0, alpha = 0.0, beta = 0.0, pap = 0.0, papold = 0.0;
  PetscScalar        gref = 0.0, papref = 0.0; /* (r, u) and (p, A p) of the last (re)start: the signs to keep */
  PetscReal          gmax = 0.0;               /* the largest |(r, u)| of the solve */
  PetscBool          frozen;
  PetscReal          dp, ttol = 0.0, dpm1 = 0.0, dpm2 = 0.0;
  PetscInt           i = 0, nd, nextprobe = PIPECG_FIRST_PROBE, lastrep = 0;
  PetscBool          replace = PETSC_FALSE, replaced, probed, dots_ready = PETSC_FALSE, redo = PETSC_FALSE, first;
  PetscBool          diagpc = PETSC_FALSE, m_ready = PETSC_FALSE, lazy, adaptive;
  KSPConvergedReason breakdown;
  PKDot              d[5];

  PetscFunctionBegin;
  (void)D; /* the diagonal of a fused preconditioner: only with the fused kernel (PK_HAVE_V4D) */
  ksp->its     = 0;
  cg->nreplace = cg->nfalse = cg->nrecover = cg->nlate = cg->nprobe = cg->nrecompute = cg->nrestart = 0;
  cg->restart  = PETSC_FALSE;
  cg->nfrozen  = 0;
  cg->maxgap   = 0.0;
  /* also without a norm (-ksp_norm_type none, as PCMG and GAMG set on their smoothers and coarse solvers): past the
     attainable accuracy the recurrences amplify their rounding (the recursive residual of ex2 4x4 without
     preconditioner grew by 10% per iteration after it had converged exactly at iteration 3, and x drifted to an
     error of 1e7 in 10000 iterations); then the gap is judged against ||r|| alone */
  adaptive     = (PetscBool)(PipeCGGapTol(cg) > 0);
  nd           = PipeCGDots(ksp, R, U, W, d);
  d[nd]        = (PKDot){S, U}; /* the curvature dots, see PipeCGLocalDots */
  d[nd + 1]    = (PKDot){S, P};
  PetscCall(PKCGInitialResidual(ksp, pk, R));
  PetscCall(PKPCApply(ksp, pk, R, U));
  PetscCall(PKMatMult(ksp, pk, U, W));
#if defined(PK_HAVE_V4D)
  /* a diagonal preconditioner is applied inside the update pass (m = M w of the next iteration), if it computes
     exactly what PCApply does: checked on u = M r */
  if (cg->fused) PetscCall(PKCGDiagonalPC(ksp, M, D, &diagpc));
  if (diagpc) PetscCall(PKCGDiagonalSame(D, R, U, &diagpc));
#endif
  cg->fusedpc = (PetscBool)(diagpc && !cg->recompute);

  for (;;) {
    /* recompute r, u, w, s, q, z from x and p: periodically (-ksp_pipecg_replace), when the measured gap asks for
       it, after a refuted convergence claim, or to tell a suspected breakdown from drift (redo) */
    replaced = (PetscBool)(i > 0 && (replace || redo || (cg->replace > 0 && i - lastrep >= cg->replace)));
    if (replaced) {
      PetscCall(PipeCGReplace(ksp, pk));
      m_ready    = PETSC_FALSE; /* w is new */
      cg->nreplace++;
      replace    = PETSC_FALSE;
      dots_ready = PETSC_FALSE;
      lastrep    = i;
    }
    if (!dots_ready) PetscCall(PipeCGLocalDots(pk, nd, i > 0, d, NULL, pk->red.local));
    /* the gap, in two more values of the same reduction */
    probed = (PetscBool)(adaptive && !replaced && !redo && i >= nextprobe && i < ksp->max_it);
    if (probed) {
      PetscCall(PipeCGProbe(ksp, pk, pk->red.local + PIPECG_NRED));
      cg->nprobe++;
    }
    /* {(r,u), (w,u), norm, (u,s), (p,s) [, gap, (r,r)]}, completed after the overlapped work */
    /* m and n are only needed if the solve goes on: when the last norms predict that x_i converges, they are
       computed after the reduction, and only if it does go on (same operations, same results) */
    lazy = (PetscBool)(!redo && i < ksp->max_it && dpm2 > 0 && dpm1 > 0 && dpm1 * (dpm1 / dpm2) <= ttol);
    PetscCall(PKReduceBegin(&pk->red, probed ? PIPECG_NRED + 2 : PIPECG_NRED));
    if (i < ksp->max_it && !lazy) PetscCall(PipeCGOverlap(ksp, cg, (PetscBool)(i == 0 || replaced), &m_ready)); /* pass max_it only tests x_max_it: nothing to prepare */
    PetscCall(PKReduceEnd(&pk->red));
    gamma = pk->red.global[0];
    delta = pk->red.global[1];
    KSPCheckDot(ksp, gamma);
    KSPCheckDot(ksp, delta);

    if (!redo) { /* the norm is x_i's: test iteration i (a redone pass belongs to an iteration already tested) */
      ksp->its = i;
      PetscCall(PKCGNorm(ksp, gamma, nd > 2 ? &pk->red.global[2] : NULL, &dp));
      PetscCall(PKConvergenceStep(ksp, dp));
      if (i > 0) PetscCall(PKRecIterEnd(pk->rec, i));
      /* r and s are scratch for the check: after a refuted claim the next pass replaces them (x and p are kept) */
      if (i > 0) PetscCall(PKCGCheckClaim(ksp, pk, i, X, dp, R, S, &cg->nfalse, &replace, NULL));
      if (ksp->reason) break;
      if (i >= ksp->max_it) break; /* KSP_DIVERGED_ITS, set by PKSolveEnd */
      if (i == 0) ttol = PetscMax(ksp->rtol * dp, ksp->abstol);
      if (probed) {
        const PetscReal gap = PetscSqrtReal(PetscAbsScalar(pk->red.global[PIPECG_NRED])), rn = PetscSqrtReal(PetscAbsScalar(pk->red.global[PIPECG_NRED + 1]));
        PipeCGSchedule(cg, i, lastrep, gap, rn, ksp->normtype == KSP_NORM_NONE ? PETSC_INFINITY : (dp > 0 ? ttol * rn / dp : 0.0), &replace, &nextprobe);
        PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ", %" PetscInt_FMT " after the last replacement: gap %g, %g x the tolerance, %g x ||r||%s; next measurement at %" PetscInt_FMT "\n", i, i - lastrep, (double)gap, dp > 0 && ttol > 0 ? (double)(gap * dp / (ttol * rn)) : 0.0, rn > 0 ? (double)(gap / rn) : 0.0, replace ? ": replacing" : "", nextprobe));
      }
      dpm2 = dpm1;
      dpm1 = dp;
      if (lazy) { /* the prediction was wrong: the work that was not overlapped */
        PetscCall(PipeCGOverlap(ksp, cg, (PetscBool)(i == 0 || replaced), &m_ready));
        cg->nlate++;
      }
    }

    /* scalars of iteration i, with PETSc cg's breakdown tests in cg's order. The signs are compared with those of
       the last (re)start, not only with the previous iteration's: past the attainable accuracy (a problem that
       converges exactly, -ksp_norm_type none running on) the recurred values are noise, and a curvature that
       turned negative and stayed negative passed the test against its predecessor while alpha = gamma / noise
       made x drift without bound (ex2 4x4 without preconditioner, norm none, 10000 iterations: error 1e7; as
       GAMG's coarse solver: 1e18). Any change from the start's sign is first taken for drift (recomputed below) */
    /* a recursive residual below machine precision against the largest of the solve ((r, u) below eps^2 times it) is
       past what any iterate can reach: the recurrences then run on rounding and, on a problem that converges
       exactly (GAMG's 2x2 coarse problem, norm none, 10000 iterations), they amplify it (by 13% per iteration there)
       until x is garbage. There x is kept (alpha = 0) and nothing is judged a breakdown; cg keeps its x there too.
       A replacement (the gap schedule) brings the true residual back. */
    gmax   = PetscMax(gmax, PetscAbsScalar(gamma));
    frozen = (PetscBool)(i > 0 && PetscAbsScalar(gamma) <= PETSC_MACHINE_EPSILON * PETSC_MACHINE_EPSILON * gmax);
    first     = (PetscBool)(i == 0 || (replaced && cg->restart)); /* p = u */
    if (first && i > 0) {
      cg->restart = PETSC_FALSE;
      cg->nrestart++;
    }
    breakdown = PKCGCheckGamma(gamma, first ? gamma : gref, first); /* (r, u) = 0: x is the solution; sign change: indefinite PC */
    if (frozen && breakdown < 0) breakdown = KSP_CONVERGED_ITERATING;
    if (!breakdown) {
      beta      = first ? 0.0 : gamma / gammaold;
      pap       = first ? delta : delta + 2.0 * beta * pk->red.global[3] + beta * beta * pk->red.global[4]; /* (p_i, s_i), see PipeCGLocalDots */
      breakdown = PKCGCheckCurvature(pap, first ? pap : papref, first);
      /* with every vector fresh a curvature whose terms cancel to rounding has no significant digit (the residual is
         at the rounding level): its sign is noise, not evidence of an indefinite operator; restart, p = u */
      if (breakdown < 0 && replaced && !first && PetscAbsScalar(pap) <= 64.0 * PETSC_MACHINE_EPSILON * (PetscAbsScalar(delta) + PetscAbsScalar(2.0 * beta * pk->red.global[3]) + PetscAbsScalar(beta * beta * pk->red.global[4]))) {
        PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": (p, A p) has no significant digit with fresh vectors (the residual is at the rounding level): restart\n", i));
        first     = PETSC_TRUE;
        beta      = 0.0;
        pap       = delta;
        breakdown = PKCGCheckCurvature(pap, papref, PETSC_FALSE);
        cg->nrestart++;
      }
    }
    if (frozen && breakdown < 0) breakdown = KSP_CONVERGED_ITERATING;
    if (breakdown < 0 && i > 0 && !replaced) {
      /* in exact arithmetic impossible for SPD A and M: first rule out drift of the recurrences by recomputing
         them from x and p and redoing the reduction; (p, A p) is then computed from s = A p fresh */
      PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": %s; recomputing the residuals to rule out rounding\n", i, KSPConvergedReasons[breakdown]));
      cg->nrecover++;
      redo = PETSC_TRUE;
      continue;
    }
    /* with every vector fresh, (p, A p) is computed from s = A p: a negative value is evidence of an indefinite
       operator (a restart, p = u, would hide it: steepest descent can stay in the positive part) */
    redo = PETSC_FALSE;
    if (breakdown) {
      ksp->reason = breakdown;
      ksp->its    = i + 1; /* as cg reports it: the iteration the breakdown prevents */
      PetscCall(PetscInfo(ksp, "stopping after iteration %" PetscInt_FMT ": %s, (r, u) = %g (previous %g), (p, A p) = %g (previous %g)\n", i, KSPConvergedReasons[breakdown], (double)PetscRealPart(gamma), (double)PetscRealPart(gammaold), (double)PetscRealPart(pap), (double)PetscRealPart(papold)));
      break;
    }
    alpha    = frozen ? 0.0 : gamma / pap;
    if (frozen && !cg->nfrozen++) PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": (r, u) = %g is below machine precision against %g: x is kept\n", i, (double)PetscAbsScalar(gamma), (double)gmax));
    gammaold = gamma;
    papold   = pap;
    if (first) { /* the signs a definite operator and preconditioner keep */
      gref   = gamma;
      papref = pap;
    }
    {
      /* the eight updates of iteration i and, unless the next pass replaces the vectors, its three dots */
      const PetscScalar c = first ? 0.0 : beta; /* 0: a (re)start copies, never reading z, q, s, p */
      PKAxpbypcz        u[8] = {
        {Z, 1.0,    N, 0, NULL, c  }, /* z = n + b z */
        {Q, 1.0,    M, 0, NULL, c  }, /* q = m + b q */
        {S, 1.0,    W, 0, NULL, c  }, /* s = w + b s */
        {P, 1.0,    U, 0, NULL, c  }, /* p = u + b p */
        {X, alpha,  P, 0, NULL, 1.0}, /* x += a p */
        {U, -alpha, Q, 0, NULL, 1.0}, /* u -= a q */
        {W, -alpha, Z, 0, NULL, 1.0}, /* w -= a z */
        {R, -alpha, S, 0, NULL, 1.0}  /* r -= a s */
      };
      i++;
      dots_ready = (PetscBool)!(replace || (cg->replace > 0 && i - lastrep >= cg->replace));
#if defined(PK_HAVE_V4D)
      if (cg->fused) {
        /* with the recompute, m = M w of the recurred w would be thrown away: not written */
        PetscCall(PipeCGFusedPass(ksp, alpha, beta, first, diagpc && !cg->recompute ? D : NULL, dots_ready ? nd : 0, pk->red.local));
        m_ready = (PetscBool)(diagpc && !cg->recompute);
      } else
#endif
        PetscCall(PipeCGLocalDots(pk, dots_ready ? nd : 0, PETSC_TRUE, d, u, pk->red.local));
    }
  }
  PetscFunctionReturn(0);
}

/* The iteration, run by the common solve wrapper (KSPSolve_PK in common.c) between PKSolveBegin and PKSolveEnd */
static PetscErrorCode PipeCGIterate(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  (void)pk;
  PetscCall(KSPSolve_PKPIPECG_Private(ksp, (KSP_PKPIPECG *)ksp->data));
  PetscFunctionReturn(0);
}

/* After PKSolveEnd: one check of the true residual at exit (common.c) */
static PetscErrorCode PipeCGAfterSolve(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  PetscCall(PKTrueResidualAtExit(ksp, pk, ksp->work[0], ksp->work[7]));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_PKPIPECG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, 10)); /* and the diagonal of a diagonal preconditioner */
  PetscCall(PKCGSetUp(ksp, (KSP_PK *)ksp->data, PIPECG_NRED + 2));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPDestroy_PKPIPECG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeCGSetReplacement_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeCGSetRecompute_C", NULL));
  PetscCall(PKDestroy_Common(ksp, (KSP_PK *)ksp->data));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_PKPIPECG(KSP ksp, PetscViewer viewer)
{
  KSP_PKPIPECG *cg = (KSP_PKPIPECG *)ksp->data;
  PetscBool     iascii;

  PetscFunctionBegin;
  PetscCall(PKView_Common(ksp, &cg->pk, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
#if defined(PK_HAVE_V4D)
  PetscCall(PetscViewerASCIIPrintf(viewer, "  update kernel (-ksp_pipecg_fused): %s\n", cg->fused ? "one fused loop, a jacobi or none preconditioner applied in it" : "the generic multi-vector kernel and PCApply"));
#else
  PetscCall(PetscViewerASCIIPrintf(viewer, "  update kernel: the generic multi-vector kernel and PCApply (the fused kernels are built for real double scalars only)\n"));
#endif
  if (cg->fusedpc) PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: the diagonal preconditioner applied inside the fused vector pass\n"));
  if (PipeCGGapTol(cg) > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement when the measured gap ||r - (b - A x)|| would reach %g x the tolerance or %g x ||r|| (-ksp_pipecg_replace_gap)\n", (double)PipeCGGapTol(cg), (double)PIPECG_REL_GAP));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  gap-driven residual replacement: off%s (-ksp_pipecg_replace_gap %g to turn on)\n", cg->gaptol < 0 ? ", not needed with the recompute" : "", (double)PIPECG_DEFAULT_GAP));
  if (cg->recompute) PetscCall(PetscViewerASCIIPrintf(viewer, "  w = A u recomputed in the overlap of every iteration (predict-and-recompute: 2 MatMult per iteration; -ksp_pipecg_recompute 0 for 1)%s\n", cg->nrecompute ? "" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  w = A u by recurrence (1 MatMult per iteration; on ill-conditioned problems this delays convergence against cg: -ksp_pipecg_recompute)\n"));
  if (cg->replace) PetscCall(PetscViewerASCIIPrintf(viewer, "  periodic residual replacement every %" PetscInt_FMT " iterations\n", cg->replace));
  if (cg->nreplace || cg->nprobe || cg->nfalse || cg->nrecover) PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " residual replacements, %" PetscInt_FMT " gap measurements, largest gap %.2e x the tolerance, %" PetscInt_FMT " convergence claims refuted by the true residual, %" PetscInt_FMT " breakdowns found to be rounding, %" PetscInt_FMT " restarts at the attainable accuracy\n", cg->nreplace, cg->nprobe, (double)cg->maxgap, cg->nfalse, cg->nrecover, cg->nrestart));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPPipeCGSetReplacement_PKPIPECG(KSP ksp, PetscInt k)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipecg_replace must be >= 0 (0 = off, k = every k iterations), not %" PetscInt_FMT, k);
  ((KSP_PKPIPECG *)ksp->data)->replace = k;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetFromOptions_PKPIPECG(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
  KSP_PKPIPECG *cg = (KSP_PKPIPECG *)ksp->data;
  PetscInt      k;
  PetscBool     flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP pipecg (pipekrylov) options");
  PetscCall(PKSetFromOptions_Common(ksp, &cg->pk, PetscOptionsObject));
  PetscCall(PetscOptionsBool("-ksp_pipecg_fused", "The eight updates and the dots in one loop over the elements, with a diagonal preconditioner (jacobi, none) applied in it (else the generic fused kernel and PCApply)", "", cg->fused, &cg->fused, NULL));
  PetscCall(PetscOptionsBool("-ksp_pipecg_recompute", "Recompute w = A u in the overlap window of every iteration instead of recurring it (one more MatMult, overlapped): cg's iteration counts on ill-conditioned problems", "KSPPipeCGSetRecompute", cg->recompute, &cg->recompute, NULL));
  PetscCall(PetscOptionsInt("-ksp_pipecg_replace", "Recompute r, u, w, s, q, z from x and p every k iterations (0: off)", "KSPPipeCGSetReplacement", cg->replace, &k, &flg));
  if (flg) PetscCall(KSPPipeCGSetReplacement_PKPIPECG(ksp, k));
  {
    PetscReal g = PipeCGGapTol(cg);
    PetscCall(PetscOptionsReal("-ksp_pipecg_replace_gap", "Measure the gap ||r - (b - A x)|| (one MatMult per measurement) and replace before it reaches this fraction of the tolerance (0: off; default 0.1 without -ksp_pipecg_recompute, off with it)", "KSPPipeCGSetReplacement", g, &g, &flg));
    if (flg) {
      PetscCheck(g >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipecg_replace_gap must be >= 0 (0 = off), not %g", (double)g);
      cg->gaptol = g;
    }
  }
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

/*@
   KSPPipeCGSetReplacement - Sets how often pipekrylov's pipecg replaces its recursively updated residuals by
   freshly computed ones: r = b - A x, u = M r, w = A u, s = A p, q = M s, z = A q (3 MatMult + 2 PCApply).

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (ignored unless its type is pipecg from pipekrylov)
-  k   - replace every k iterations; 0 turns periodic replacement off

   Options Database Key:
.  -ksp_pipecg_replace <k> - default 0 (off)

   Notes:
   Pipelined CG loses attainable accuracy through its extra recurrences (Cools et al., SIMAX 2018); periodic
   replacement, as in PETSc's KSPPIPECGRR, restores it at the price of the extra products. Independently of k,
   every convergence claim is checked against the true residual, and a refuted claim triggers one replacement.

   Level: intermediate

.seealso: `KSPPKPIPECG`, `KSPPipe2CGSetReplacement()`, `KSPPIPECGRR`
@*/
PetscErrorCode KSPPipeCGSetReplacement(KSP ksp, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, k, 2);
  PetscTryMethod(ksp, "KSPPipeCGSetReplacement_C", (KSP, PetscInt), (ksp, k));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPPipeCGSetRecompute_PKPIPECG(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  ((KSP_PKPIPECG *)ksp->data)->recompute = flg;
  PetscFunctionReturn(0);
}

/*@
   KSPPipeCGSetRecompute - Sets whether pipekrylov's pipecg recomputes w = A u in the overlap window of every
   iteration (predict-and-recompute) instead of updating it by the recurrence w -= alpha z.

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (ignored unless its type is pipecg from pipekrylov)
-  flg - PETSC_TRUE to recompute, PETSC_FALSE (the default) for the plain Ghysels-Vanroose recurrence

   Options Database Key:
.  -ksp_pipecg_recompute <bool> - default false

   Notes:
   The rounding errors of pipelined CG's extra recurrences perturb the Lanczos process more than cg's own rounding
   does: on some ill-conditioned problems the plain recurrence needs more iterations than cg, from the loosest
   tolerance on (the variable-coefficient test problem without preconditioner: 20% more), and residual
   replacement does not cure it. Recomputing w each iteration, with the dot (w, u) still taken on the recurred w
   so that the one reduction per iteration stays where it is (Chen and Carson's predict-and-recompute), keeps the
   iteration count within the spread of cg's own implementations.

   The price is one more MatMult per iteration, overlapped with the reduction like the other (and, with a diagonal
   preconditioner, a separate PCApply instead of the one inside the update pass): measured on one node, 1.5 to 1.8
   times the time per iteration of the plain recurrence, more than the iterations it saves on that problem (time to
   solution 22.6 against 13.9 ms). It pays where the overlap window is free (a reduction latency longer than the
   work, at scale), where the preconditioner dominates the iteration, or where the iteration count itself matters.
   On well-conditioned problems (or with a good preconditioner) the plain recurrence already gives cg's counts.

   Level: intermediate

.seealso: `KSPPKPIPECG`, `KSPPipeCGSetReplacement()`, `KSPPIPEPRCG`
@*/
PetscErrorCode KSPPipeCGSetRecompute(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPPipeCGSetRecompute_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(0);
}

/* What an iteration costs, for the performance model (composed as "KSPPipeGetCost_C"; see pkcost.h) */
static PetscErrorCode KSPPipeGetCost_PKPIPECG(KSP ksp, PKSolverCost *c)
{
  KSP_PKPIPECG *cg = (KSP_PKPIPECG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->pattern = "pipecg";
  c->its     = 1;
  c->nred    = 1;
  /* (r,u), (w,u), the norm, and (u,s), (p,s) for the curvature computed from products; in flight during m = M w and
     n = A m, and w = A u first with the recompute. With a diagonal PC the update pass writes m (not with the
     recompute: m of the recurred w would be thrown away), so the window has no PCApply */
  c->red[0]       = (PKReductionCost){.nvals = PIPECG_NRED, .w_spmv = cg->recompute ? 2 : 1, .w_pc = 1, .w_pc_fused = cg->recompute ? 0 : 1};
  c->nspmv        = cg->recompute ? 2 : 1;
  c->npc          = 1;
  c->streams      = 29; /* z q s p 12, x u w r 12, (r,u) (w,u) norm 5, unfused */
  c->init_spmv    = ksp->guess_zero ? 2 : 3; /* r = b - A x, w = A u, and the lagging pass's n = A m (docs/algorithms.md §4) */
  c->init_pc      = 2;
  c->init_nvals   = 3;
  c->init_streams = 12;
  c->replace      = cg->replace; /* -ksp_pipecg_replace; a replacement is PipeCGReplace: 4 MatMult + 2 PCApply */
  c->replace_spmv = 4;
  c->replace_pc   = 2;
  c->nreplaced    = cg->nreplace;
#if defined(PK_HAVE_V4D)
  c->fuse_pc = (cg->fused && !cg->recompute) ? 1 : 0;
#endif
  c->fuse_pc_streams = 2; /* read the diagonal, write m */
  c->fused_last      = cg->fusedpc;
  if (ksp->its > 0) { /* after a solve, what it really did: gap measurements (one MatMult each) and replacements */
    c->nspmv += (PetscReal)cg->nprobe / ksp->its;
    if (cg->nreplace && (!c->replace || ksp->its / cg->nreplace < c->replace)) c->replace = PetscMax(1, ksp->its / cg->nreplace);
  }
  PetscFunctionReturn(0);
}

/*MC
   KSPPKPIPECG - "pipecg": the pipelined preconditioned conjugate gradient method of Ghysels and Vanroose, from
   pipekrylov. One non-blocking reduction per iteration, overlapped with one PCApply and one MatMult, which are
   split into chunks with an MPI_Test between them so that the reduction progresses without an MPI progress thread.

   Options Database Keys:
+  -ksp_pipe_chunks <n> - pieces the overlapped PCApply/MatMult/vector work is split into (default 8, 1 = no polling)
.  -ksp_pipecg_recompute <bool> - recompute w = A u every iteration (default false; one more MatMult, overlapped), see `KSPPipeCGSetRecompute()`
.  -ksp_pipecg_replace <k> - residual replacement every k iterations (default 0 = off), see `KSPPipeCGSetReplacement()`
.  -ksp_pipecg_replace_gap <f> - replace before the measured gap reaches f x the tolerance (default 0.1 without the recompute, 0 = off with it)
.  -ksp_pipecg_fused <bool> - the updates and dots in one loop over the elements, a jacobi or none preconditioner applied in it (default true; false: the generic kernel and PCApply, same results)
.  -ksp_pipe_check_symmetry - check at set-up that the operator is symmetric (one transpose), error if not
.  -ksp_pipe_check_symmetry_tol <t> - tolerance of that check (default 1e-12)
-  -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - the norm the convergence test uses

   Notes:
   This type replaces PETSc's KSPPIPECG once pipekrylov is loaded; PETSc's stays available as "petsc_pipecg".

   Cost: the eight vector updates of an iteration and the next iteration's three dots are one loop over the
   elements (each of ten vectors read once, eight written once; AVX2 where the CPU has it, without FMA, so the
   results do not depend on the CPU); with PCJACOBI or PCNONE (and no null space) the next iteration's m = M w is
   written in the same loop instead of a separate PCApply, after a check that it gives the same bits. When the
   norms of the last two iterations predict that the current one converges, the overlapped PCApply and MatMult
   wait until the reduction has confirmed that the solve goes on.

   Norms: all ride in the one reduction. Preconditioned (default): ||u|| = ||M r||, dot (u,u); unpreconditioned:
   ||r||, dot (r,r); natural: sqrt((r,u)), which the method computes anyway (2 values instead of 3); none: no
   norm, only -ksp_max_it stops the iteration.

   Iterations: the norm that completes in pass i belongs to the current iterate x_i, so ksp->its, the residual
   history and the returned solution are those of PETSc's cg (up to rounding); the pipeline costs one PCApply and
   one MatMult beyond the last iteration, never an extra iteration. Every convergence claim of the recursive
   residual (iterations > 0) is checked against the true residual b - A x in the same norm (the convergence test
   is called a second time for that iteration, with the true norm; monitors are not); a claim it refutes
   replaces the residuals (and restarts, p = u, if the true residual is more than twice the recursive one) and the
   iteration continues (KSP_DIVERGED_BREAKDOWN if the true residual stagnates above the tolerance). The true
   residual norm at exit is shown by -ksp_view.

   Breakdowns are reported with PETSc's reasons, in cg's order and, as cg does, with ksp->its one past the last
   tested iterate: KSP_DIVERGED_INDEFINITE_PC ((r,u) changes sign), KSP_DIVERGED_INDEFINITE_MAT ((p,A p) zero or
   changing sign), KSP_DIVERGED_NANORINF, KSP_DIVERGED_PC_FAILED. Since drift of the recurrences can fake the
   first two, one is reported only if it persists after r, u, w, s, q, z are recomputed from x and p (with (p,A p)
   then computed, not recurred); otherwise the iteration restarts from x and continues.

   Accuracy: on ill-conditioned problems the rounding of the plain recurrences delays convergence against cg
   (the variable-coefficient test problem without preconditioner: 583 iterations to 1e-4 where cg needs 476,
   1692 to 1e-8 where cg needs 1413); -ksp_pipecg_recompute removes that delay (476, 1455) at the price of one more
   MatMult per iteration, see KSPPipeCGSetRecompute(). Residual replacement does not cure the delay; it keeps the
   attainable accuracy: the gap between recursive and true residual is measured and replaced before it threatens
   the tolerance (-ksp_pipecg_replace_gap; off by default with the recompute, which does not need it down to
   rtol 1e-13 on the test problems). Left preconditioning only; operator and preconditioner symmetric positive
   definite.

   Reference:
   P. Ghysels and W. Vanroose, Hiding global synchronization latency in the preconditioned conjugate gradient
   algorithm, Parallel Computing 40(7), 2014.

   Level: intermediate

.seealso: `KSPPKPIPE2CG`, `KSPPKNBPCG`, `KSPPKPCG`, `KSPPIPECG`, `KSPPipeSetChunks()`, `KSPPipeCGSetReplacement()`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_PKPIPECG(KSP ksp)
{
  KSP_PKPIPECG *cg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cg));
  ksp->data = (void *)cg;
  cg->fused  = PETSC_TRUE;
  cg->gaptol    = PETSC_DEFAULT; /* PipeCGGapTol */
  cg->recompute = PETSC_FALSE;
  PetscCall(PKCreate_Common(ksp, &cg->pk, "pipelined CG (Ghysels-Vanroose), one non-blocking reduction per iteration overlapped with PCApply + MatMult", PETSC_TRUE, PipeCGIterate));
  cg->pk.after_solve = PipeCGAfterSolve;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", KSPPipeGetCost_PKPIPECG));
  PetscCall(PKCGSetSupportedNorms(ksp));
  ksp->ops->setup          = KSPSetUp_PKPIPECG;
  ksp->ops->destroy        = KSPDestroy_PKPIPECG;
  ksp->ops->view           = KSPView_PKPIPECG;
  ksp->ops->setfromoptions = KSPSetFromOptions_PKPIPECG;
  ksp->ops->buildsolution  = KSPBuildSolutionDefault;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeCGSetReplacement_C", KSPPipeCGSetReplacement_PKPIPECG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeCGSetRecompute_C", KSPPipeCGSetRecompute_PKPIPECG));
  PetscFunctionReturn(0);
}
