/* pipecg's iteration: the products of a pass, residual replacement and the gap it measures, and the main loop
   (the algorithm is described in pipecgimpl.h and docs/algorithms.md §4) */
#include "pipecgimpl.h"

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
  Vec R = ksp->work[PIPECG_R], U = ksp->work[PIPECG_U], W = ksp->work[PIPECG_W], Z = ksp->work[PIPECG_Z], Q = ksp->work[PIPECG_Q], S = ksp->work[PIPECG_S], P = ksp->work[PIPECG_P];

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

/* The gap between the recursive residual and b - A x, measured at the start of pass i (one MatMult into n, free
   until the overlapped work): local ||b - A x - r||^2 and ||r||^2 into out[0], out[1] */
static PetscErrorCode PipeCGProbe(KSP ksp, KSP_PK *pk, PetscScalar out[2])
{
  Vec              R = ksp->work[PIPECG_R], N = ksp->work[PIPECG_N];
  const PKAxpbypcz g    = {N, 1.0, ksp->vec_rhs, -1.0, R, -1.0}; /* n = b - r - A x */
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
static void PipeCGSchedule(KSP ksp, KSP_PKPIPECG *cg, PetscInt i, PetscInt lastrep, PetscReal gap, PetscReal rn, PetscReal ttolr, PetscBool *replace, PetscInt *nextprobe)
{
  const PetscReal thr = PetscMin(PipeCGGapTol(ksp, cg) * ttolr, PIPECG_REL_GAP * rn), L = (PetscReal)PetscMax(i - lastrep, 1);
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

/* The work overlapped with the reduction of a pass: m = M w and n = A m for the next iteration and, while the
   recompute is on (-ksp_pipecg_recompute, or the policy: pkcgimpl.h), first w = A u. That is the predict-and-recompute idea of Chen and Carson ([004],
   docs/algorithms.md §4.2): the pass's dot (w, u) was computed with the recurred w (the prediction), and every
   update from here on uses the recomputed one, so the rounding errors of the recurrence w -= a z are not carried
   from one iteration to the next. They are what delays pipelined CG against cg on ill-conditioned problems (the
   delay does not depend on the tolerance, and residual replacement does not cure it). fresh: w is A u already
   (first pass, or r, u, w were just replaced). */
static PetscErrorCode PipeCGOverlap(KSP ksp, KSP_PKPIPECG *cg, PetscBool recompute, PetscBool fresh, PetscBool *m_ready)
{
  KSP_PK *pk = &cg->pk;
  Vec     U = ksp->work[PIPECG_U], W = ksp->work[PIPECG_W], M = ksp->work[PIPECG_M], N = ksp->work[PIPECG_N];

  PetscFunctionBegin;
  if (recompute && !fresh) {
    PetscCall(PKMatMult(ksp, pk, U, W)); /* w = A u */
    *m_ready = PETSC_FALSE;
    cg->rc.npasses++;
  }
  if (!*m_ready) PetscCall(PKPCApply(ksp, pk, W, M)); /* m = M w */
  PetscCall(PKMatMult(ksp, pk, M, N));                /* n = A m */
  PetscFunctionReturn(0);
}

/* The main loop, pass by pass (docs/algorithms.md §4.1): pass i brings the norm of x_i and the products of
   iteration i in one non-blocking reduction.
     prepare   the local products of pass i, after a replacement of r, u, w, s, q, z if one is due, and a gap probe
     reduce    the reduction, in flight during m = M w and n = A m (and w = A u with the recompute)
     test      x_i against the convergence test (a refuted claim asks for a replacement)
     scalars   beta, (p, A p), alpha of iteration i with cg's breakdown tests; a test that fails is first taken for
               drift: the next pass is a redo (replace, reduce again, no test, no update)
     update    the eight vector updates of iteration i and the products of pass i+1 in one sweep
   The state that lives from one pass to the next is PCGLoop; what one pass found is PCGPass. */
typedef struct {
  PetscInt    i;                /* the pass under way brings the norm of x_i */
  PetscInt    lastrep;          /* iteration of the last replacement (0: the start) */
  PetscInt    nextprobe;        /* measure the gap at the first pass that reaches this iteration */
  PetscBool   replace;          /* the coming pass replaces r, u, w, s, q, z (period, gap, refuted claim) */
  PetscBool   redo;             /* the coming pass replaces them and redoes iteration i's reduction, no test */
  PetscBool   dots_ready;       /* the update sweep computed the coming pass's local products */
  PetscBool   m_ready;          /* m = M w is there already (the fused sweep wrote it) */
  PetscBool   rc_next;          /* the coming overlap recomputes w: the policy's decision when the update sweep ran,
                                   which then left the recurred w unstored (a deferred overlap keeps to it) */
  PetscBool   diagpc;           /* the diagonal preconditioner is applied in the update sweep */
  PetscScalar gammaold, papold; /* (r, u) and (p, A p) of the previous iteration */
  PetscScalar gref, papref;     /* ... of the last (re)start: the signs a definite operator and PC keep */
  PetscReal   gmax;             /* the largest |(r, u)| since the last (re)start */
  PetscReal   ttol, dp0;        /* the convergence test's tolerance and norm at iteration 0 */
  PetscReal   dpm1, dpm2;       /* the norms of the last two iterates: they predict convergence in this pass */
  PetscInt    nd;               /* local products of a pass */
  PKDot       d[5];
} PCGLoop;

typedef struct {
  PetscBool   replaced; /* r, u, w, s, q, z were recomputed at the start of the pass */
  PetscBool   probed;   /* the gap and ||r|| ride in the reduction */
  PetscBool   lazy;     /* the norms predict that x_i converges: the overlapped work waits for the verdict */
  PetscScalar gamma;    /* (r, u) of iterate i */
  PetscScalar delta;    /* (w, u) */
} PCGPass;

/* The start: r = b - A x, u = M r, w = A u, and whether the diagonal preconditioner goes into the update sweep */
static PetscErrorCode PipeCGStart(KSP ksp, KSP_PKPIPECG *cg, PCGLoop *st)
{
  KSP_PK *pk = &cg->pk;
  Vec     R = ksp->work[PIPECG_R], U = ksp->work[PIPECG_U], W = ksp->work[PIPECG_W], M = ksp->work[PIPECG_M], S = ksp->work[PIPECG_S], P = ksp->work[PIPECG_P], D = ksp->work[PIPECG_DIAG];

  PetscFunctionBegin;
  (void)M;
  (void)D; /* the diagonal of a fused preconditioner: only with the fused kernel (PK_HAVE_V4D) */
  PetscCall(PetscMemzero(st, sizeof(*st)));
  st->nextprobe = PIPECG_FIRST_PROBE;
  ksp->its      = 0;
  cg->nreplace = cg->nfalse = cg->nrecover = cg->nlate = cg->nprobe = cg->nrestart = 0;
  cg->restart                                                                      = PETSC_FALSE;
  cg->nfrozen                                                                      = 0;
  cg->maxgap                                                                       = 0.0;
  st->nd                                                                           = PipeCGDots(ksp, R, U, W, st->d);
  st->d[st->nd]                                                                    = (PKDot){S, U}; /* the curvature dots, see PipeCGLocalDots */
  st->d[st->nd + 1]                                                                = (PKDot){S, P};
  PetscCall(PKCGInitialResidual(ksp, pk, R));
  PetscCall(PKPCApply(ksp, pk, R, U));
  PetscCall(PKMatMult(ksp, pk, U, W));
#if defined(PK_HAVE_V4D)
  /* a diagonal preconditioner is applied inside the update pass (m = M w of the next iteration), if it computes
     exactly what PCApply does: checked on u = M r */
  if (cg->fused) PetscCall(PKCGDiagonalPC(ksp, M, D, &st->diagpc));
  if (st->diagpc) PetscCall(PKCGDiagonalSame(D, R, U, &st->diagpc));
#endif
  cg->fusedpc = PETSC_FALSE; /* set by the first pass that applies it */
  PetscCall(PKRecomputeStart(ksp, &cg->rc));
  st->rc_next = cg->rc.on;
  PetscFunctionReturn(0);
}

/* The local values of pass i: after a replacement (periodic -ksp_pipecg_replace, asked for by the gap, a refuted
   convergence claim, or a redo that tells a suspected breakdown from drift) the products of the fresh vectors;
   with a probe, the gap and ||r|| */
static PetscErrorCode PipeCGPrepare(KSP ksp, KSP_PKPIPECG *cg, PCGLoop *st, PCGPass *pp)
{
  KSP_PK        *pk = &cg->pk;
  const PetscInt i  = st->i;

  PetscFunctionBegin;
  pp->replaced = (PetscBool)(i > 0 && (st->replace || st->redo || (cg->replace > 0 && i - st->lastrep >= cg->replace)));
  if (pp->replaced) {
    PetscCall(PipeCGReplace(ksp, pk));
    st->m_ready = PETSC_FALSE; /* w is new */
    cg->nreplace++;
    st->replace    = PETSC_FALSE;
    st->dots_ready = PETSC_FALSE;
    st->lastrep    = i;
  }
  if (!st->dots_ready) PetscCall(PipeCGLocalDots(pk, st->nd, (PetscBool)(i > 0), st->d, NULL, pk->red.local));
  /* the gap is measured while w is recurred, also without a norm (-ksp_norm_type none, as PCMG and GAMG set on their
     smoothers and coarse solvers): past the attainable accuracy the recurrences amplify their rounding and x drifts
     away from the solution (docs/pipelined-accuracy.md); then it is judged against ||r|| alone */
  pp->probed = (PetscBool)(PipeCGGapTol(ksp, cg) > 0 && !pp->replaced && !st->redo && i >= st->nextprobe && i < ksp->max_it);
  if (pp->probed) {
    PetscCall(PipeCGProbe(ksp, pk, pk->red.local + PIPECG_NRED));
    cg->nprobe++;
  }
  /* m and n are only needed if the solve goes on: when the last norms predict that x_i converges, they are computed
     after the reduction, and only if it does go on (same operations, same results) */
  pp->lazy = (PetscBool)(!st->redo && i < ksp->max_it && st->dpm2 > 0 && st->dpm1 > 0 && st->dpm1 * (st->dpm1 / st->dpm2) <= st->ttol);
  PetscFunctionReturn(0);
}

/* {(r,u), (w,u), norm, (u,s), (p,s) [, gap, (r,r)]}, in flight during the overlapped work (pass max_it only tests
   x_max_it: nothing to prepare) */
static PetscErrorCode PipeCGReduce(KSP ksp, KSP_PKPIPECG *cg, PCGLoop *st, PCGPass *pp)
{
  KSP_PK        *pk = &cg->pk;
  const PetscInt nv = pp->probed ? PIPECG_NRED + 2 : PIPECG_NRED;

  PetscFunctionBegin;
  PetscCall(PKReduceBegin(&pk->red, nv));
  if (st->i < ksp->max_it && !pp->lazy) PetscCall(PipeCGOverlap(ksp, cg, st->rc_next, (PetscBool)(st->i == 0 || pp->replaced), &st->m_ready));
  PetscCall(PKReduceEnd(&pk->red));
  pp->gamma = pk->red.global[0];
  pp->delta = pk->red.global[1];
  /* every value, not only (r, u) and (w, u): a NaN in the curvature dots would otherwise read as a sign change */
  for (PetscInt k = 0; k < nv; k++) KSPCheckDot(ksp, pk->red.global[k]);
  PetscFunctionReturn(0);
}

/* The norm is x_i's: test iteration i (a refuted convergence claim asks for a replacement) and schedule the gap
   probes; *stop when the solve ends at x_i */
static PetscErrorCode PipeCGTest(KSP ksp, KSP_PKPIPECG *cg, PCGLoop *st, PCGPass *pp, PetscBool *stop)
{
  KSP_PK        *pk = &cg->pk;
  const PetscInt i  = st->i;
  PetscReal      dp;

  PetscFunctionBegin;
  *stop    = PETSC_FALSE;
  ksp->its = i;
  PetscCall(PKCGNorm(ksp, pp->gamma, st->nd > 2 ? &pk->red.global[2] : NULL, &dp));
  PetscCall(PKConvergenceStep(ksp, dp));
  if (i > 0) PetscCall(PKRecIterEnd(pk->rec, i));
  /* r and s are scratch for the check: after a refuted claim the next pass replaces them (x and p are kept) */
  if (i > 0) PetscCall(PKCGCheckClaim(ksp, pk, i, ksp->vec_sol, dp, ksp->work[PIPECG_R], ksp->work[PIPECG_S], &cg->nfalse, &st->replace, NULL));
  if (st->replace && cg->rc.on) { /* refuted: the replacements of the measured gap take over (pkcgimpl.h) */
    PetscCall(PKRecomputeRefuted(ksp, &cg->rc, i));
    if (!cg->rc.on) st->nextprobe = i + PIPECG_MIN_PROBE;
  }
  if (ksp->reason || i >= ksp->max_it) { /* KSP_DIVERGED_ITS at max_it is set by PKSolveEnd */
    *stop = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (i == 0) {
    st->ttol = PetscMax(ksp->rtol * dp, ksp->abstol);
    st->dp0  = dp;
    /* the first measurement where the growth law puts the gap as close to the tolerance as at PIPECG_FIRST_PROBE
       for a relative tolerance of 1e-10 (never earlier): a solve to 1e-8 measures at 63, so a short solve makes
       no measurement, whose SpMV would be a visible share of it */
    if (dp > 0 && st->ttol < dp) st->nextprobe = (PetscInt)PetscMax((PetscReal)PIPECG_FIRST_PROBE, PIPECG_FIRST_PROBE * PetscPowReal(st->ttol / dp / 1e-10, 1.0 / PIPECG_GAP_POWER));
  } else {
    PetscBool changed;

    /* the policy: from here on w recomputed or recurred (the overlap of the next pass). Switched on, the vectors
       are replaced first: while w is recomputed the gap is not measured, and the one the recurrences built up so far
       (when the residual was largest) would stay in r to the end (varcoef with jacobi at 1e-13: a true residual
       of 2.4e-13 against cg's 1.1e-13 without that replacement). Recurred again, the gap is measured again, first
       PIPECG_FIRST_PROBE iterations on */
    PetscCall(PKRecomputeJudge(ksp, &cg->rc, i, st->dp0, dp, st->ttol, &changed));
    if (changed && cg->rc.on) st->replace = PETSC_TRUE;
    if (changed && !cg->rc.on) st->nextprobe = i + PIPECG_FIRST_PROBE;
  }
  if (pp->probed) {
    const PetscReal gap = PetscSqrtReal(PetscAbsScalar(pk->red.global[PIPECG_NRED])), rn = PetscSqrtReal(PetscAbsScalar(pk->red.global[PIPECG_NRED + 1]));
    PipeCGSchedule(ksp, cg, i, st->lastrep, gap, rn, ksp->normtype == KSP_NORM_NONE ? PETSC_INFINITY : (dp > 0 ? st->ttol * rn / dp : 0.0), &st->replace, &st->nextprobe);
    PKLanczosGap(pk->lanczos, rn > 0 ? gap / rn : PETSC_INFINITY);
    PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ", %" PetscInt_FMT " after the last replacement: gap %g, %g x the tolerance, %g x ||r||%s; next measurement at %" PetscInt_FMT "\n", i, i - st->lastrep, (double)gap, dp > 0 && st->ttol > 0 ? (double)(gap * dp / (st->ttol * rn)) : 0.0, rn > 0 ? (double)(gap / rn) : 0.0, st->replace ? ": replacing" : "", st->nextprobe));
  }
  st->dpm2 = st->dpm1;
  st->dpm1 = dp;
  if (pp->lazy) { /* the prediction was wrong: the work that was not overlapped */
    PetscCall(PipeCGOverlap(ksp, cg, st->rc_next, (PetscBool)(i == 0 || pp->replaced), &st->m_ready));
    cg->nlate++;
  }
  PetscFunctionReturn(0);
}

/* Scalars of iteration i, with PETSc cg's breakdown tests in cg's order. The signs are compared with those of the
   last (re)start, not only with the previous iteration's: past the attainable accuracy (a problem that converges
   exactly, -ksp_norm_type none running on) the recurred values are noise, and a curvature that turned negative and
   stayed negative passed the test against its predecessor while alpha = gamma / noise made x drift without bound
   (ex2 4x4 without preconditioner, norm none, 10000 iterations: error 1e7; as GAMG's coarse solver: 1e18). Any
   change from the start's sign is first taken for drift: the next pass is then a redo (st->redo).
   A recursive residual below machine precision against the largest since the last (re)start ((r, u) below eps^2
   times it) is past what any iterate of that cycle can reach: the recurrences then run on rounding and, on a
   problem that converges exactly (GAMG's 2x2 coarse problem, norm none), they amplify it until x is garbage. There x
   is kept (alpha = 0) and nothing is judged a breakdown; cg keeps its x there too. A replacement (the gap schedule)
   brings the true residual back, and the restart that follows it when the gap is as large as r starts a new cycle:
   a step of iterative refinement, measured against its own start, so that x goes on improving as cg's does. Sets ksp->reason when the solve stops here. */
static PetscErrorCode PipeCGScalars(KSP ksp, KSP_PKPIPECG *cg, PCGLoop *st, const PCGPass *pp, PetscScalar *alpha, PetscScalar *beta, PetscBool *first)
{
  KSP_PK            *pk    = &cg->pk;
  const PetscInt     i     = st->i;
  const PetscScalar  gamma = pp->gamma, delta = pp->delta;
  PetscScalar        pap = 0.0;
  PetscBool          frozen;
  KSPConvergedReason breakdown;

  PetscFunctionBegin;
  *first   = (PetscBool)(i == 0 || (pp->replaced && cg->restart)); /* p = u */
  st->gmax = *first ? PetscAbsScalar(gamma) : PetscMax(st->gmax, PetscAbsScalar(gamma));
  frozen   = (PetscBool)(i > 0 && PetscAbsScalar(gamma) <= PETSC_MACHINE_EPSILON * PETSC_MACHINE_EPSILON * st->gmax);
  *beta    = 0.0;
  if (*first && i > 0) {
    cg->restart = PETSC_FALSE;
    cg->nrestart++;
  }
  breakdown = PKCGCheckGamma(gamma, *first ? gamma : st->gref, *first); /* (r, u) = 0: x is the solution; sign change: indefinite PC */
  if (frozen && breakdown < 0) breakdown = KSP_CONVERGED_ITERATING;
  if (!breakdown) {
    *beta     = *first ? 0.0 : gamma / st->gammaold;
    pap       = *first ? delta : delta + 2.0 * *beta * pk->red.global[3] + *beta * *beta * pk->red.global[4]; /* (p_i, s_i), see PipeCGLocalDots */
    breakdown = PKCGCheckCurvature(pap, *first ? pap : st->papref, *first);
    /* with every vector fresh a curvature whose terms cancel to rounding has no significant digit (the residual is
       at the rounding level): its sign is noise, not evidence of an indefinite operator; restart, p = u */
    if (breakdown < 0 && pp->replaced && !*first && PetscAbsScalar(pap) <= 64.0 * PETSC_MACHINE_EPSILON * (PetscAbsScalar(delta) + PetscAbsScalar(2.0 * *beta * pk->red.global[3]) + PetscAbsScalar(*beta * *beta * pk->red.global[4]))) {
      PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": (p, A p) has no significant digit with fresh vectors (the residual is at the rounding level): restart\n", i));
      *first    = PETSC_TRUE;
      *beta     = 0.0;
      pap       = delta;
      breakdown = PKCGCheckCurvature(pap, st->papref, PETSC_FALSE);
      cg->nrestart++;
    }
  }
  if (frozen && breakdown < 0) breakdown = KSP_CONVERGED_ITERATING;
  if (breakdown < 0 && i > 0 && !pp->replaced) {
    /* in exact arithmetic impossible for SPD A and M: first rule out drift of the recurrences by recomputing them
       from x and p and redoing the reduction; (p, A p) is then computed from s = A p fresh */
    PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": %s; recomputing the residuals to rule out rounding\n", i, KSPConvergedReasons[breakdown]));
    cg->nrecover++;
    PKLanczosStop(pk->lanczos, "drift of the recurrences faked a breakdown");
    st->redo = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  /* with every vector fresh, (p, A p) is computed from s = A p: a negative value is evidence of an indefinite
     operator (a restart, p = u, would hide it: steepest descent can stay in the positive part) */
  st->redo = PETSC_FALSE;
  if (breakdown) {
    ksp->reason = breakdown;
    ksp->its    = i + 1; /* as cg reports it: the iteration the breakdown prevents */
    if (PKCGCheckGamma(gamma, *first ? gamma : st->gref, *first))
      PetscCall(PetscInfo(ksp, "stopping after iteration %" PetscInt_FMT ": %s, (r, u) = %g (previous %g)\n", i, KSPConvergedReasons[breakdown], (double)PetscRealPart(gamma), (double)PetscRealPart(st->gammaold)));
    else
      PetscCall(PetscInfo(ksp, "stopping after iteration %" PetscInt_FMT ": %s, (r, u) = %g (previous %g), (p, A p) = %g (previous %g)\n", i, KSPConvergedReasons[breakdown], (double)PetscRealPart(gamma), (double)PetscRealPart(st->gammaold), (double)PetscRealPart(pap), (double)PetscRealPart(st->papold)));
    PetscFunctionReturn(0);
  }
  *alpha = frozen ? 0.0 : gamma / pap;
  if (frozen && !cg->nfrozen++) PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": (r, u) = %g is below machine precision against %g: x is kept\n", i, (double)PetscAbsScalar(gamma), (double)st->gmax));
  st->gammaold = gamma;
  st->papold   = pap;
  if (*first) { /* the signs a definite operator and preconditioner keep */
    st->gref   = gamma;
    st->papref = pap;
  }
  PetscFunctionReturn(0);
}

/* The eight updates of iteration i and, unless the next pass replaces the vectors, the local products of pass i+1 */
static PetscErrorCode PipeCGUpdate(KSP ksp, KSP_PKPIPECG *cg, PCGLoop *st, PetscScalar alpha, PetscScalar beta, PetscBool first)
{
  KSP_PK           *pk = &cg->pk;
  Vec               X = ksp->vec_sol, R = ksp->work[PIPECG_R], U = ksp->work[PIPECG_U], W = ksp->work[PIPECG_W], M = ksp->work[PIPECG_M], N = ksp->work[PIPECG_N];
  Vec               Z = ksp->work[PIPECG_Z], Q = ksp->work[PIPECG_Q], S = ksp->work[PIPECG_S], P = ksp->work[PIPECG_P], D = ksp->work[PIPECG_DIAG];
  const PetscScalar c    = first ? 0.0 : beta; /* 0: a (re)start copies, never reading z, q, s, p */
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

  PetscFunctionBegin;
  (void)D;
  st->i++;
  st->rc_next    = cg->rc.on;
  st->dots_ready = (PetscBool) !(st->replace || (cg->replace > 0 && st->i - st->lastrep >= cg->replace));
#if defined(PK_HAVE_V4D)
  if (cg->fused) {
    /* with the recompute, m = M w of the recurred w would be thrown away: not written */
    st->m_ready = (PetscBool)(st->diagpc && !cg->rc.on);
    /* a w that the next overlap (or the replacement the next pass makes) recomputes is not stored: one vector
       stream of the eighteen less; its dots take the value */
    PetscCall(PipeCGFusedPass(ksp, alpha, beta, first, (PetscBool)!cg->rc.on, st->m_ready ? D : NULL, st->dots_ready ? st->nd : 0, pk->red.local));
    if (st->m_ready) cg->fusedpc = PETSC_TRUE;
  } else
#endif
    PetscCall(PipeCGLocalDots(pk, st->dots_ready ? st->nd : 0, PETSC_TRUE, st->d, u, pk->red.local));
  PetscFunctionReturn(0);
}

/* One solve: the start, then pass after pass until a test or a breakdown ends it */
PetscErrorCode PipeCGSolve(KSP ksp, KSP_PKPIPECG *cg)
{
  PCGLoop st;

  PetscFunctionBegin;
  PetscCall(PipeCGStart(ksp, cg, &st));
  for (;;) {
    PCGPass     pp    = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, 0.0, 0.0};
    PetscScalar alpha = 0.0, beta = 0.0;
    PetscBool   first, stop       = PETSC_FALSE;

    PetscCall(PipeCGPrepare(ksp, cg, &st, &pp));
    PetscCall(PipeCGReduce(ksp, cg, &st, &pp));
    if (ksp->reason) break; /* a NaN or Inf product */
    if (!st.redo) {
      PetscCall(PipeCGTest(ksp, cg, &st, &pp, &stop));
      if (stop) break;
    }
    PetscCall(PipeCGScalars(ksp, cg, &st, &pp, &alpha, &beta, &first));
    if (ksp->reason) break;
    if (st.redo) continue; /* the pass is redone: its coefficients were not applied */
    /* the Lanczos tridiagonal, if estimates are requested: a restart (p = u) starts a new block */
    PKLanczosPushCG(cg->pk.lanczos, alpha, first ? 0.0 : beta, pp.gamma);
    PetscCall(PipeCGUpdate(ksp, cg, &st, alpha, beta, first));
  }
  PetscFunctionReturn(0);
}
