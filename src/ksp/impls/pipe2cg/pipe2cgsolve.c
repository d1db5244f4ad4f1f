/* pipe2cg's iteration: the scalars of a step, residual replacement and the gap it measures, the convergence tests,
   and the main loop (the algorithm is described in pipe2cgimpl.h and docs/algorithms.md §5) */
#include "pipe2cgimpl.h"

/* Scalars of a step from its mu and nu, given the previous step (NULL for step 0), with PETSc cg's breakdown tests:
   (r,z) changing sign = indefinite PC; (p,A p) = nu/rho zero or changing sign = indefinite operator.
   With o = {(z_k, r_{k-1}), (z_k, A z_{k-1}), (z_{k-1}, r_{k-1})} (may be NULL: the classical formulas), rho and
   gamma are those that make r_{k+1} = rho (r_k - gamma A z_k) + (1 - rho) r_{k-1} orthogonal to z_k and z_{k-1} as
   the vectors are, not as exact arithmetic would have them: there (z_k, r_{k-1}) = 0 and the classical
   gamma = mu/nu, rho = 1/(1 - gamma mu / (gamma_{k-1} mu_{k-1} rho_{k-1})) follow. Rounding (and the gap a
   residual replacement injects) breaks that local orthogonality; the classical formulas then let it persist and
   grow, the formulas from the products restore it at every step, at no cost: the products are among the nine
   of the pass (docs/algorithms.md §5.5). (p, A p) = mu / alpha with alpha = rho gamma (= nu/rho classically). */
static KSPConvergedReason Pipe2CGStep(const P2Step *prev, P2Step *cur, const PetscScalar *o)
{
  KSPConvergedReason r = PKCGCheckGamma(cur->mu, prev ? prev->mu : 0.0, (PetscBool)!prev);

  cur->restart = (PetscBool)!prev;
  if (r) return r; /* (r, z) = 0: the iterate is the solution; sign change: indefinite PC */
  if (cur->nu == 0.0) return KSP_DIVERGED_INDEFINITE_MAT;
  cur->gamma = cur->mu / cur->nu;
  if (!prev) cur->rho = 1.0;
  else if (o) {
    /* (r_{k+1}, z_k) = rho (mu - gamma nu) + (1 - rho) x1 = 0 and (r_{k+1}, z_{k-1}) = rho (x1 - gamma x2) + (1 - rho) m = 0 */
    const PetscScalar x1 = o[0], x2 = o[1], m = o[2], dg = m * cur->nu - x1 * x2;
    PetscScalar       dr;

    if (dg == 0.0) return KSP_DIVERGED_BREAKDOWN;
    cur->gamma = (m * cur->mu - x1 * x1) / dg;
    dr         = m + cur->gamma * x2 - x1;
    if (dr == 0.0) return KSP_DIVERGED_BREAKDOWN;
    cur->rho = m / dr;
  } else {
    const PetscScalar den = prev->gamma * prev->mu * prev->rho, t = den != 0.0 ? 1.0 - cur->gamma * cur->mu / den : 0.0;
    if (t == 0.0) return KSP_DIVERGED_BREAKDOWN;
    cur->rho = 1.0 / t;
  }
  if (PetscIsInfOrNanScalar(cur->rho) || PetscIsInfOrNanScalar(cur->gamma)) return KSP_DIVERGED_BREAKDOWN;
  cur->pap = cur->mu / (cur->rho * cur->gamma); /* mu / alpha; nu / rho in exact arithmetic */
  if (cur->pap == 0.0 || (prev && PKCGSignsDiffer(cur->pap, prev->pap))) return KSP_DIVERGED_INDEFINITE_MAT;
  return KSP_CONVERGED_ITERATING;
}

/* mu and nu of step n+1 from the nine products of indices n (N) and n-1 (O) and the coefficients of step n */
static void Pipe2CGPredict(const PetscScalar l[], PetscScalar a, PetscScalar b, PetscScalar c, P2Step *next)
{
  next->nu     = a * a * l[0] - 2.0 * a * b * l[1] + 2.0 * a * c * l[2] + b * b * l[3] - 2.0 * b * c * l[4] + c * c * l[5];
  next->mu     = a * a * l[6] - 2.0 * a * b * l[0] + 2.0 * a * c * l[7] + b * b * l[1] - 2.0 * b * c * l[2] + c * c * l[8];
  next->nu_mag = PetscAbsScalar(a * a * l[0]) + PetscAbsScalar(2.0 * a * b * l[1]) + PetscAbsScalar(2.0 * a * c * l[2]) + PetscAbsScalar(b * b * l[3]) + PetscAbsScalar(2.0 * b * c * l[4]) + PetscAbsScalar(c * c * l[5]);
  next->mu_mag = PetscAbsScalar(a * a * l[6]) + PetscAbsScalar(2.0 * a * b * l[0]) + PetscAbsScalar(2.0 * a * c * l[7]) + PetscAbsScalar(b * b * l[1]) + PetscAbsScalar(2.0 * b * c * l[2]) + PetscAbsScalar(c * c * l[8]);
}

/* A predicted mu or nu with no significant digit left: the cancellation of its terms is at the rounding level
   (the residual has reached it: a problem that converges exactly, as ex2 3x3 does after a few steps). Its sign is
   noise, not evidence of an indefinite operator or preconditioner. */
static PetscBool Pipe2CGInsignificant(const P2Step *s)
{
  const PetscReal tol = 64.0 * PETSC_MACHINE_EPSILON;
  return (PetscBool)(PetscAbsScalar(s->mu) <= tol * s->mu_mag || PetscAbsScalar(s->nu) <= tol * s->nu_mag);
}

static const char *Pipe2CGReasonWhy(KSPConvergedReason r)
{
  switch (r) {
  case KSP_CONVERGED_ATOL:
    return "(r, z) = 0";
  case KSP_DIVERGED_INDEFINITE_PC:
    return "(r, z) changes sign: indefinite preconditioner";
  case KSP_DIVERGED_INDEFINITE_MAT:
    return "(p, A p) zero or changing sign: indefinite operator";
  default:
    return "three-term recurrence breaks down (rho undefined)";
  }
}

/* Section 5.5: recompute both sets from x_O and x_N (7 MatMult + 5 PCApply, no reduction). The new r_N is built in
   the scratch g_N (stale until the overlapped work) so that the gap it removes, r_N - (b - A x_N), is measured in
   the same pass over memory: gap[0] = local ||gap||^2, gap[1] = local ||b - A x_N||^2. */
static PetscErrorCode Pipe2CGReplace(KSP ksp, KSP_PKPIPE2CG *p2, PetscScalar gap[2])
{
  KSP_PK *pk = &p2->pk;
  Vec    *O = p2->O, *N = p2->N, t;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PK_Event_Replace, ksp, 0, 0, 0));
  PetscCall(PKMatMult(ksp, pk, N[VX], N[VG]));
  {
    const PKAxpbypcz u[2] = {
      {N[VG], 1.0, ksp->vec_rhs, 0.0, NULL, -1.0}, /* g = b - A x_N */
      {N[VR], 1.0, N[VG],        0.0, NULL, -1.0}  /* r_N <- (b - A x_N) - r_N, the gap */
    };
    const PKDot d[2] = {
      {N[VR], N[VR]},
      {N[VG], N[VG]}
    };
    PetscCall(PKVecFused(pk, 2, u, 2, d, gap));
  }
  t     = N[VR]; /* the new residual takes the place of r_N; the gap vector becomes scratch */
  N[VR] = N[VG];
  N[VG] = t;
  PetscCall(PKMatMult(ksp, pk, O[VX], O[VR]));
  PetscCall(VecAYPX(O[VR], -1.0, ksp->vec_rhs));
  for (PetscInt s = 0; s < 2; s++) {
    Vec           *v    = s ? N : O;
    const PetscInt last = s ? VQ : VD;
    for (PetscInt k = VZ; k <= last; k++) {
      if (k % 2 == 0) PetscCall(PKPCApply(ksp, pk, v[k - 1], v[k])); /* z, p, c = M (r, w, q) */
      else PetscCall(PKMatMult(ksp, pk, v[k - 1], v[k]));            /* w, q, d = A (z, p, c) */
    }
  }
  PetscCall(PetscLogEventEnd(PK_Event_Replace, ksp, 0, 0, 0));
  p2->nreplace++;
  PetscFunctionReturn(0);
}

/* Measure the gap r_N - (b - A x_N) without replacing (1 MatMult, g_N as scratch): gap[0] = local ||gap||^2,
   gap[1] = local ||r_N||^2 */
static PetscErrorCode Pipe2CGProbe(KSP ksp, KSP_PKPIPE2CG *p2, PetscScalar gap[2])
{
  KSP_PK          *pk   = &p2->pk;
  Vec             *N    = p2->N;
  const PKAxpbypcz u    = {N[VG], 1.0, ksp->vec_rhs, -1.0, N[VR], -1.0}; /* g = b - r_N - A x_N */
  const PKDot      d[2] = {
         {N[VG], N[VG]},
         {N[VR], N[VR]}
  };

  PetscFunctionBegin;
  PetscCall(PKMatMult(ksp, pk, N[VX], N[VG]));
  PetscCall(PKVecFused(pk, 1, &u, 2, d, gap));
  p2->nprobe++;
  PetscFunctionReturn(0);
}

/* The local dots of a pass: lambda_0..8, then the norm of N [and of O] (section 5.3); returns their number */
static PetscInt Pipe2CGDots(KSP ksp, Vec *O, Vec *N, PKDot d[])
{
  const PKDot l[PIPE2CG_NLAMBDA] = {
    {N[VZ], N[VW]},
    {N[VZ], N[VQ]},
    {N[VZ], O[VW]},
    {N[VP], N[VQ]},
    {N[VP], O[VW]},
    {O[VZ], O[VW]},
    {N[VZ], N[VR]},
    {N[VZ], O[VR]},
    {O[VZ], O[VR]}
  };
  for (PetscInt k = 0; k < PIPE2CG_NLAMBDA; k++) d[k] = l[k];
  if (ksp->normtype == KSP_NORM_PRECONDITIONED || ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
    const PetscInt v = ksp->normtype == KSP_NORM_PRECONDITIONED ? VZ : VR;
    d[9].x           = N[v];
    d[9].y           = N[v];
    d[10].x          = O[v];
    d[10].y          = O[v];
    return 11;
  }
  return PIPE2CG_NLAMBDA; /* natural: sqrt(lambda_6) and sqrt(lambda_8); none */
}

/* Test iterate `its`; nrm2 is its norm's dot, rz its (r,z). On a claimed convergence the true residual of x decides;
   a refuted claim sets *replace. Returns with ksp->reason set when the solve must stop at this iterate. */
static PetscErrorCode Pipe2CGTest(KSP ksp, KSP_PKPIPE2CG *p2, PetscInt its, Vec x, PetscScalar nrm2, PetscScalar rz, PetscBool *replace)
{
  KSP_PK   *pk = &p2->pk;
  PetscReal dp, truenorm;

  PetscFunctionBegin;
  ksp->its  = its;
  p2->xtest = x == ksp->vec_sol ? NULL : x;
  PetscCall(PKNormFromDots(ksp, nrm2, nrm2, rz, &dp));
  PetscCall(PKConvergenceStep(ksp, dp));
  p2->xtest = NULL;
  if (its > 0) {
    PetscBool refuted = PETSC_FALSE;
    /* g_N and h_N are scratch: after a refuted claim the next pass replaces everything they feed */
    PetscCall(PKCGCheckClaim(ksp, pk, its, x, dp, p2->N[VG], p2->N[VH], &p2->nfalse, &refuted, &truenorm));
    if (refuted) {
      *replace = PETSC_TRUE;
      /* a recursive residual that far off has lost the three-term recurrence too: restart from x */
      if (truenorm > PIPE2CG_RESTART_GAP * dp) p2->restart = PETSC_TRUE;
    }
  }
  if (!ksp->reason && its >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  PetscFunctionReturn(0);
}

/* When to measure the gap r_N - (b - A x_N) and when to replace (section 5.5, and the policy in the header) */
typedef struct {
  PetscInt  lastrep;   /* iteration of the last replacement (0: the start) */
  PetscInt  nextprobe; /* measure the gap at the first pass that reaches this iteration */
  PetscReal rstart;    /* ||r|| at lastrep */
  PetscReal relgap;    /* the last gap measured, relative to ||r|| */
  PetscReal ttolr;     /* the tolerance carried over to the 2-norm of r: ||r_0|| max(rtol, atol / norm_0) */
  PetscReal dp0, ttol; /* the convergence test's norm at iteration 0 and its tolerance */
} P2Sched;

/* After the gap has been measured at iteration n, by a probe or by the replacement that removed it (v[0] = ||gap||^2,
   v[1] = ||r_N||^2): replace at the next pass or not, and when to measure next. See the header for the policy. */
static PetscErrorCode Pipe2CGSchedule(KSP ksp, KSP_PKPIPE2CG *p2, P2Sched *ps, PetscInt n, PetscBool replaced, const PetscScalar v[], PetscBool *replace)
{
  const PetscReal big = (PetscReal)PETSC_MAX_INT / 4, gap = PetscSqrtReal(PetscAbsScalar(v[0])), rn = PetscSqrtReal(PetscAbsScalar(v[1]));
  const PetscInt  L = PetscMax(n - ps->lastrep, 1);
  const PetscReal G = ps->ttolr > 0 ? gap / (p2->gapeff * ps->ttolr) : big; /* 1: the gap at the replacement threshold */
  const PetscReal R = rn > 0 ? gap / (rn * PIPE2CG_REL_GAP) : big;          /* 1: the relative gap at its limit */
  PetscReal       next;                                                     /* window length of the next measurement */

  PetscFunctionBegin;
  if (ps->ttolr > 0) p2->maxgap = PetscMax(p2->maxgap, gap / ps->ttolr);
  ps->relgap = rn > 0 ? gap / rn : 0.0;
  PKLanczosGap(p2->pk.lanczos, ps->relgap);
  if (replaced) {
    /* the new window's gap may grow as fast as this one's did (scaling it by the residual's decrease failed where
       the residual stagnates: variable coefficients, no preconditioner) */
    const PetscReal g = G;

    PetscCall(PetscInfo(ksp, "residual replacement at iteration %" PetscInt_FMT ", %" PetscInt_FMT " iterations after the previous one: gap %g x the tolerance, %g x ||r||\n", n, n - ps->lastrep, ps->ttolr > 0 ? (double)(gap / ps->ttolr) : 0.0, rn > 0 ? (double)(gap / rn) : 0.0));
    ps->lastrep   = n;
    ps->rstart    = rn;
    next          = PetscMin(g > 0 ? L * PetscPowReal(1.0 / g, 1.0 / PIPE2CG_GAP_POWER) : big, R > 0 ? L * PetscPowReal(1.0 / R, 1.0 / PIPE2CG_GAP_POWER) : big);
    ps->nextprobe = n + (PetscInt)PetscMax((PetscReal)PIPE2CG_MIN_PROBE, PetscMin(next, big));
  } else {
    const PetscReal dp   = ksp->rnorm;
    PetscReal       rate = 0.0, rem = (PetscReal)(ksp->max_it - n), end;

    /* iterations left at the average rate so far (CG speeds up: an overestimate), and the gap then */
    if (dp > 0 && ps->dp0 > dp && n > 0) rate = PetscLogReal(ps->dp0 / dp) / n;
    if (rate > 0) rem = PetscMin(rem, PetscMax(0.0, PetscLogReal(dp / ps->ttol) / rate));
    end = G * p2->gapeff * PetscPowReal((L + rem) / L, PIPE2CG_GAP_POWER - 1.0);
    PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ", %" PetscInt_FMT " iterations after the last replacement: gap %g x the tolerance, %g x ||r||; predicted %g x the tolerance after %g more iterations\n", n, L, ps->ttolr > 0 ? (double)(gap / ps->ttolr) : 0.0, rn > 0 ? (double)(gap / rn) : 0.0, (double)end, (double)rem));
    if (end < 0.5) next = L + PetscMax(rem, (PetscReal)PIPE2CG_MIN_PROBE); /* below half the tolerance up to the predicted end */
    else if (G >= 0.5 || R >= 0.5) {
      *replace = PETSC_TRUE; /* near a threshold: replace now rather than measure again */
      p2->nadaptive++;
      next = big;
    } else next = PetscMin(L * PetscPowReal(1.0 / G, 1.0 / PIPE2CG_GAP_POWER), L * PetscPowReal(1.0 / R, 1.0 / PIPE2CG_GAP_POWER));
    if (!*replace) ps->nextprobe = PetscMax(n + 2, ps->lastrep + (PetscInt)PetscMin(PetscCeilReal(next), big));
  }
  PetscFunctionReturn(0);
}

/* The work overlapped with a pass's reduction: c = M q, d = A c, g = M d, h = A g of N (the chain beyond q, which the
   next step A reads) and, while the recompute is on, first w = A z, p = M w, q = A p of N: predict-and-recompute
   as pipecg's (docs/algorithms.md §4.2, §5.5): the pass's products were taken on the recurred w, p, q (the
   prediction) and the recurrences from here on use the recomputed ones, so their rounding errors are not carried
   on. fresh: the chain is exact already (the pass replaced it). row: close iteration row n-1 after c and d (the
   first half of the overlapped work is the first iteration's, for the monitor); -1: no row. */
static PetscErrorCode Pipe2CGOverlap(KSP ksp, KSP_PKPIPE2CG *p2, PetscBool recompute, PetscBool fresh, PetscBool *c_ready, PetscInt row)
{
  KSP_PK *pk = &p2->pk;
  Vec    *N  = p2->N;

  PetscFunctionBegin;
  if (recompute && !fresh) {
    PetscCall(PKMatMult(ksp, pk, N[VZ], N[VW])); /* w = A z */
    PetscCall(PKPCApply(ksp, pk, N[VW], N[VP])); /* p = M w */
    PetscCall(PKMatMult(ksp, pk, N[VP], N[VQ])); /* q = A p */
    *c_ready = PETSC_FALSE;
    p2->rc.npasses++;
  }
  if (!*c_ready) PetscCall(PKPCApply(ksp, pk, N[VQ], N[VC]));
  PetscCall(PKMatMult(ksp, pk, N[VC], N[VD]));
  if (row >= 0) PetscCall(PKRecIterEnd(pk->rec, row));
  PetscCall(PKPCApply(ksp, pk, N[VD], N[VG]));
  PetscCall(PKMatMult(ksp, pk, N[VG], N[VH]));
  PetscFunctionReturn(0);
}

/* The main loop, pass by pass (docs/algorithms.md §5.4): each pass makes two iterations with one reduction.
     plan      what the pass does: both steps or only the last half one, a gap probe, a replacement, a redo
     steps     step A (O <- n+1) and step B (N <- n+2) in one sweep, with the local products of the new sets
     reduce    the products [and the gap] in one non-blocking reduction, overlapped with c, d, g, h of N
     test      iterates n-1 and n against the convergence test (the first that converges ends the solve)
     advance   step n from the products, step n+1 predicted from them; a step that fails is first taken for
               rounding: the next pass is a redo (recompute both chains from x, reduce again, no steps)
   The state that lives from one pass to the next is P2Loop; what one pass does is P2Pass. */
typedef struct {
  PetscInt           n;          /* index of set N, the newer iterate (set O holds n-1) */
  P2Step             sA, sB;     /* the steps of the coming pass: n -> n+1 (step A) and n+1 -> n+2 (step B) */
  KSPConvergedReason pending;    /* a breakdown predicted for step n+1, reported once iterate n+1 is tested */
  const char        *lstop;      /* step B of the coming pass ends the Lanczos tridiagonal (a null step), and why */
  PetscBool          replace;    /* the coming pass replaces the residuals (period over, gap, refuted claim) */
  PetscBool          redo;       /* the coming pass recomputes both chains and redoes the reduction, no steps */
  PetscReal          dpm2, dpm4; /* the norms of the last two even iterates: they predict the last pass */
  PetscBool          adaptive;   /* the measured gap schedules probes and replacements (else the fixed period) */
  PetscBool          diagpc;     /* c_N = M q_N is computed inside the fused sweep (a diagonal preconditioner) */
  PetscInt           nd;         /* local products of a pass: the nine lambdas and the norms */
  PKDot              d[11];
  P2Sched            ps;
} P2Loop;

typedef struct {
  PetscBool half;    /* only step A, then a small blocking test of n+1, and the solve ends */
  PetscBool probe;   /* the gap r_N - (b - A x_N) is measured (one MatMult) and rides in the reduction */
  PetscBool replace; /* the residuals are replaced after the steps (in a redo, instead of them) */
  PetscBool lazy;    /* the norms predict that the pass converges: its overlapped work waits for the verdict */
  PetscBool c_ready; /* c_N = M q_N is computed already (by the fused sweep) */
  PetscBool rc;      /* the overlap recomputes w, p, q of N: the policy's decision when the steps ran, which then
                        left the recurred ones unstored (a deferred overlap keeps to it) */
  PetscInt  nred;    /* values in the reduction: the products, and the gap and ||r_N|| with a probe or replacement */
} P2Pass;

/* The replacement schedule in force with the recompute on or off: with it the chain drifts so little that scheduled
   replacements do more harm (each injects the gap) than good, so only a refuted convergence claim replaces, unless
   the user set a period or gap tolerance; without it, the period and the gap tolerance (no tolerance, a fixed
   count: the fixed period) */
static void Pipe2CGInForce(KSP_PKPIPE2CG *p2, P2Loop *st)
{
  p2->period   = p2->rc.on && !p2->replace_set ? 0 : p2->replace;
  p2->gapeff   = p2->rc.on && !p2->gap_set ? 0.0 : p2->gaptol;
  st->adaptive = (PetscBool)(p2->period > 0 && p2->gapeff > 0 && st->ps.ttolr > 0);
}

/* After iterates n-1 and n were tested: the policy's judgement (pkcgimpl.h). Switched off, the chain is exact from z
   on (it was recomputed in the last overlap window): a new window of the replacement schedule starts at n */
static PetscErrorCode Pipe2CGJudge(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st)
{
  PetscBool changed;

  PetscFunctionBegin;
  PetscCall(PKRecomputeJudge(ksp, &p2->rc, st->n, st->ps.dp0, ksp->rnorm, st->ps.ttol, &changed));
  if (!changed) PetscFunctionReturn(0);
  Pipe2CGInForce(p2, st);
  if (p2->rc.on) st->replace = PETSC_TRUE;
  if (!p2->rc.on) {
    st->ps.lastrep   = st->n;
    st->ps.nextprobe = st->n + PIPE2CG_FIRST_PROBE;
  }
  PetscFunctionReturn(0);
}

/* The pipeline fill: index 0 and its chain up to h, iterate 0 tested, the steps of the first pass */
static PetscErrorCode Pipe2CGStart(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st)
{
  KSP_PK            *pk  = &p2->pk;
  Vec               *N   = p2->N;
  const PetscScalar *lam = pk->red.global;
  PetscScalar        l[PIPE2CG_NLAMBDA];
  P2Step             s0, s1;
  PetscBool          replace = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  st->ps.nextprobe = PETSC_MAX_INT;
  ksp->its         = 0;
  p2->nreplace = p2->nadaptive = p2->nprobe = p2->nfalse = p2->nrecover = p2->nrestart = p2->nlate = 0;
  p2->restart                                                                                      = PETSC_FALSE;
  p2->maxgap                                                                                       = 0.0;
  p2->fusedpc                                                                                      = PETSC_FALSE; /* set by the first pass that applies it */
  p2->period                                                                                       = p2->replace;
  p2->gapeff                                                                                       = p2->gaptol;
  N[VX]                                                                                            = ksp->vec_sol;
  PetscCall(PKRecomputeStart(ksp, &p2->rc));

  PetscCall(PKCGInitialResidual(ksp, pk, N[VR]));
  PetscCall(PKPCApply(ksp, pk, N[VR], N[VZ]));
#if defined(PK_HAVE_V4D)
  /* a diagonal preconditioner is applied inside the pass (c_N = M q_N), if it computes exactly what PCApply does:
     checked on z = M r */
  if (p2->fused) PetscCall(PKCGDiagonalPC(ksp, N[VG], p2->D, &st->diagpc));
  if (st->diagpc) PetscCall(PKCGDiagonalSame(p2->D, N[VR], N[VZ], &st->diagpc));
#endif
  PetscCall(PKMatMult(ksp, pk, N[VZ], N[VW]));
  PetscCall(PKPCApply(ksp, pk, N[VW], N[VP]));
  PetscCall(PKMatMult(ksp, pk, N[VP], N[VQ]));
  {
    PKDot f[6] = {
      {N[VZ], N[VW]},
      {N[VZ], N[VQ]},
      {N[VP], N[VQ]},
      {N[VZ], N[VR]},
      {N[VZ], N[VZ]},
      {N[VR], N[VR]}
    };
    PetscInt nf = 4, nrr; /* and (r,r) for the scale of the gap */
    if (ksp->normtype == KSP_NORM_PRECONDITIONED) nf = 5;
    else if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
      f[4].x = f[4].y = N[VR];
      nf              = 5;
    }
    nrr = ksp->normtype == KSP_NORM_UNPRECONDITIONED ? 4 : nf;
    if (nrr == nf) f[nf++] = (PKDot){N[VR], N[VR]};
    PetscCall(PKVecFused(pk, 0, NULL, nf, f, pk->red.local));
    PetscCall(PKReduceBegin(&pk->red, nf));
    if (ksp->max_it > 0) {
      PetscCall(PKPCApply(ksp, pk, N[VQ], N[VC]));
      PetscCall(PKMatMult(ksp, pk, N[VC], N[VD]));
      PetscCall(PKPCApply(ksp, pk, N[VD], N[VG]));
      PetscCall(PKMatMult(ksp, pk, N[VG], N[VH]));
    }
    PetscCall(PKReduceEnd(&pk->red));
    l[0] = lam[0];
    l[1] = lam[1];
    l[3] = lam[2];
    l[6] = lam[3];
    l[2] = l[4] = l[5] = l[7] = l[8] = 0.0;
    PetscCall(Pipe2CGTest(ksp, p2, 0, N[VX], ksp->normtype == KSP_NORM_PRECONDITIONED || ksp->normtype == KSP_NORM_UNPRECONDITIONED ? lam[4] : 0.0, l[6], &replace));
    if (ksp->reason) PetscFunctionReturn(0);
    for (PetscInt k = 0; k < 4; k++) KSPCheckDot(ksp, lam[k]);
    /* the gap r - (b - A x) is judged against the tolerance, carried over to the 2-norm of r */
    st->ps.rstart = PetscSqrtReal(PetscAbsScalar(lam[nrr]));
    st->ps.dp0    = ksp->rnorm;
    st->ps.ttol   = PetscMax(ksp->rtol * st->ps.dp0, ksp->abstol);
    st->ps.ttolr  = st->ps.rstart * (st->ps.dp0 > 0 ? st->ps.ttol / st->ps.dp0 : ksp->rtol);
    Pipe2CGInForce(p2, st);
    if (st->adaptive) {
      /* the gap threatens a looser tolerance later: where the growth law puts it as close as at 16 for 1e-10 */
      st->ps.nextprobe = (PetscInt)PetscMin((PetscReal)p2->period, PetscMax((PetscReal)PIPE2CG_MIN_PROBE, PIPE2CG_FIRST_PROBE * PetscPowReal(st->ps.ttolr / st->ps.rstart / 1e-10, 1.0 / PIPE2CG_GAP_POWER)));
    }
  }
  s0.mu = l[6];
  s0.nu = l[0];
  if ((ksp->reason = Pipe2CGStep(NULL, &s0, NULL))) {
    ksp->its = 1; /* where cg reports it */
    PetscCall(PetscInfo(ksp, "stopping at iteration 0: %s\n", Pipe2CGReasonWhy(ksp->reason)));
    PetscFunctionReturn(0);
  }
  Pipe2CGPredict(l, 1.0, s0.gamma, 0.0, &s1); /* c = 1 - rho_0 = 0: O is never read in the first step A */
  {
    const PetscScalar o1[3] = {l[6] - s0.gamma * l[0], l[0] - s0.gamma * l[1], l[6]}; /* as in Pipe2CGAdvance, with rho_0 = 1 */

    st->pending = Pipe2CGStep(&s0, &s1, o1);
  }
  st->sA = s0;
  st->sB = s1;
  st->nd = Pipe2CGDots(ksp, p2->O, N, st->d);
  PetscFunctionReturn(0);
}

/* What the coming pass does. The last half pass comes when only iterate n+1 is still wanted (max_it, or step n+1
   predicted to break down); a replacement when the period is over or something asked for one; a probe where the
   schedule puts it, unless the pass replaces or is predicted to be the last. */
static void Pipe2CGPlan(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st, P2Pass *pp)
{
  const PetscBool last = (PetscBool)(st->dpm4 > 0 && st->dpm2 > 0 && st->dpm2 * (st->dpm2 / st->dpm4) <= st->ps.ttol);

  pp->half = pp->probe = pp->c_ready = PETSC_FALSE;
  pp->rc                             = p2->rc.on;
  if (!st->redo) {
    pp->half = (PetscBool)(st->pending || st->n + 1 >= ksp->max_it);
    if (!pp->half) {
      if (p2->period > 0 && st->n + 2 - st->ps.lastrep >= p2->period) st->replace = PETSC_TRUE;
      pp->probe = (PetscBool)(st->adaptive && !st->replace && !last && st->n + 2 >= st->ps.nextprobe);
    }
  }
  pp->replace = (PetscBool)(st->redo || st->replace);
  /* c, d, g, h of N are only needed if the solve goes on: when the norms so far predict convergence in this pass,
     they are computed after the reduction, and only if it does go on (same operations, same results) */
  pp->lazy = (PetscBool)(!st->redo && st->n + 2 < ksp->max_it && last);
  pp->nred = st->nd + (pp->probe || pp->replace ? 2 : 0);
}

/* Step A: O <- n+1 from N (n) and O (n-1); step B (not in the last half pass): N <- n+2 from the new O and N (n),
   with the local products of the new sets unless the pass replaces them; n advances by two */
static PetscErrorCode Pipe2CGSteps(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st, P2Pass *pp)
{
  KSP_PK           *pk = &p2->pk;
  Vec              *O = p2->O, *N = p2->N;
  const P2Step     *sA = &st->sA, *sB = &st->sB;
  const PetscScalar a = sA->rho, b = sA->rho * sA->gamma, c = 1.0 - sA->rho;
  const PetscScalar e = sB->rho, f = sB->rho * sB->gamma, g = 1.0 - sB->rho;
  const PetscInt    nd = (!pp->half && !pp->replace) ? st->nd : 0;
  PKAxpbypcz        u[14];
  PetscInt          nu = 0;

  PetscFunctionBegin;
  (void)ksp; /* only the fused kernel (PK_HAVE_V4D) needs it */
  /* the Lanczos tridiagonal, if estimates are requested: one entry per step applied (a redo applies none) */
  PKLanczosPushThreeTerm(pk->lanczos, sA->mu, sA->gamma, sA->rho, sA->restart);
  if (st->lstop) { /* step A is the last step of the Lanczos process, step B a null step */
    PKLanczosStop(pk->lanczos, st->lstop);
    st->lstop = NULL;
  }
  if (!pp->half) PKLanczosPushThreeTerm(pk->lanczos, sB->mu, sB->gamma, sB->rho, sB->restart);
  u[nu++] = (PKAxpbypcz){O[VX], a, N[VX], b, N[VZ], c};
  for (PetscInt k = VR; k <= VD; k++) u[nu++] = (PKAxpbypcz){O[k], a, N[k], -b, N[k + 2], c};
  if (!pp->half) {
    u[nu++] = (PKAxpbypcz){N[VX], e, O[VX], f, O[VZ], g};
    for (PetscInt k = VR; k <= VQ; k++) u[nu++] = (PKAxpbypcz){N[k], e, O[k], -f, O[k + 2], g};
  }
#if defined(PK_HAVE_V4D)
  if (p2->fused) {
    /* while recomputing, c = M q of the recurred q would be thrown away: not written */
    pp->c_ready = (PetscBool)(st->diagpc && !p2->rc.on && !pp->half);
    /* w, p, q of N that this pass's overlap (or its replacement) recomputes are not stored: three vector streams of
       the thirty-two less; the dots take their values. Not in a pass whose overlap waits for the verdict: a refuted
       claim there skips it, and the next pass's step A reads them (z_O and so x_N from p_N) */
    PetscCall(Pipe2CGFusedPass(ksp, O, N, (PetscBool)!pp->half, (PetscBool)(!pp->rc || pp->lazy), nd, sA, sB, pp->c_ready ? p2->D : NULL, pk->red.local));
    if (pp->c_ready) p2->fusedpc = PETSC_TRUE;
  } else
#endif
    PetscCall(PKVecFused(pk, nu, u, nd, st->d, pk->red.local));
  if (!pp->half) st->n += 2;
  PetscFunctionReturn(0);
}

/* The last half pass, after step A: iterate n+1 is tested with a small blocking reduction, and the solve ends
   there (with the breakdown predicted for step n+1 if it has not converged) */
static PetscErrorCode Pipe2CGLastHalfPass(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st)
{
  KSP_PK            *pk      = &p2->pk;
  Vec               *O       = p2->O;
  const PetscScalar *lam     = pk->red.global;
  PetscBool          replace = PETSC_FALSE;
  PKDot              h[2]    = {
                    {O[VZ], O[VR]},
                    {O[VZ], O[VZ]}
  };
  PetscInt nh = 1;

  PetscFunctionBegin;
  if (ksp->normtype == KSP_NORM_PRECONDITIONED) nh = 2;
  else if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
    h[1].x = h[1].y = O[VR];
    nh              = 2;
  }
  PetscCall(PKVecFused(pk, 0, NULL, nh, h, pk->red.local));
  PetscCall(PKReduceAllreduce(&pk->red, nh));
  KSPCheckDot(ksp, lam[0]);
  PetscCall(Pipe2CGTest(ksp, p2, st->n + 1, O[VX], nh > 1 ? lam[1] : 0.0, lam[0], &replace));
  PetscCall(PKRecIterEnd(pk->rec, st->n + 1));
  PetscCall(VecCopy(O[VX], ksp->vec_sol));
  if (ksp->reason <= 0 && st->pending) {
    ksp->reason = st->pending;
    ksp->its    = st->n + 2; /* where cg reports it */
    PetscCall(PetscInfo(ksp, "stopping after iteration %" PetscInt_FMT ": %s\n", st->n + 1, Pipe2CGReasonWhy(st->pending)));
  }
  PetscFunctionReturn(0);
}

/* The pass's reduction: the local values (a probe adds the gap and ||r_N||; a replacement recomputes both chains,
   then their products, and adds the gap it removed and the new ||r_N||), begun, overlapped with the chain beyond q
   of N unless it waits for the verdict, ended */
static PetscErrorCode Pipe2CGReduce(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st, P2Pass *pp)
{
  KSP_PK *pk = &p2->pk;

  PetscFunctionBegin;
  if (pp->probe) PetscCall(Pipe2CGProbe(ksp, p2, &pk->red.local[st->nd])); /* g_N is stale until the overlap */
  else if (pp->replace) {
    PetscScalar gap[2] = {0.0, 0.0};

    PetscCall(Pipe2CGReplace(ksp, p2, gap));
    st->nd      = Pipe2CGDots(ksp, p2->O, p2->N, st->d); /* r_N is another vector now */
    pp->c_ready = PETSC_FALSE;                           /* q_N is new */
    st->replace = PETSC_FALSE;
    PetscCall(PKVecFused(pk, 0, NULL, st->nd, st->d, pk->red.local));
    pk->red.local[st->nd]     = gap[0];
    pk->red.local[st->nd + 1] = gap[1];
  }
  PetscCall(PKReduceBegin(&pk->red, pp->nred)); /* nine products and the norms of n and n-1, for two iterations */
  /* one row per iteration: the first half of the overlapped work is n-1's */
  if (st->n < ksp->max_it && !pp->lazy) PetscCall(Pipe2CGOverlap(ksp, p2, pp->rc, pp->replace, &pp->c_ready, st->redo ? -1 : st->n - 1));
  else if (!st->redo) PetscCall(PKRecIterEnd(pk->rec, st->n - 1));
  PetscCall(PKReduceEnd(&pk->red));
  PetscFunctionReturn(0);
}

/* Both new iterates, n-1 (in O) first: the first that converges ends the solve and is returned. A refuted
   convergence claim asks for a replacement. */
static PetscErrorCode Pipe2CGTestPair(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st)
{
  KSP_PK            *pk  = &p2->pk;
  const PetscScalar *lam = pk->red.global;
  const PetscInt     n = st->n, nd = st->nd;

  PetscFunctionBegin;
  PetscCall(Pipe2CGTest(ksp, p2, n - 1, p2->O[VX], nd > 10 ? lam[10] : 0.0, lam[8], &st->replace));
  if (ksp->reason) {
    PetscCall(VecCopy(p2->O[VX], ksp->vec_sol));
    PetscFunctionReturn(0);
  }
  PetscCall(Pipe2CGTest(ksp, p2, n, p2->N[VX], nd > 9 ? lam[9] : 0.0, lam[6], &st->replace));
  PetscCall(PKRecIterEnd(pk->rec, n));
  if (ksp->reason) PetscFunctionReturn(0);
  st->dpm4 = st->dpm2;
  st->dpm2 = ksp->rnorm;
  PetscFunctionReturn(0);
}

/* After the reduction: the schedule of probes and replacements, then step n exactly (its predecessor is the step
   n-1 that was used) and step n+1 predicted, from the nine products. A step that fails is first taken for rounding:
   the next pass is a redo. After a redo (or a replacement that found drift), the fresh products decide: a real
   breakdown is reported, drift restarts the recurrence. Sets ksp->reason when the solve ends here. */
static PetscErrorCode Pipe2CGAdvance(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st, P2Pass *pp)
{
  KSP_PK            *pk  = &p2->pk;
  const PetscScalar *lam = pk->red.global;
  const PetscInt     n   = st->n;
  PetscScalar        l[PIPE2CG_NLAMBDA], on[3];
  P2Step             sn, snext;
  PetscBool          first;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < pp->nred; k++) KSPCheckDot(ksp, lam[k]);
  for (PetscInt k = 0; k < PIPE2CG_NLAMBDA; k++) l[k] = lam[k];
  if (pp->probe || pp->replace) {
    const PetscInt nforced = p2->nadaptive, L = n - st->ps.lastrep;

    PetscCall(Pipe2CGSchedule(ksp, p2, &st->ps, n, pp->replace, lam + st->nd, &st->replace));
    /* the policy: a replacement forced by the gap, unless the user set the schedule (pkcgimpl.h) */
    if (p2->nadaptive > nforced && !p2->replace_set && !p2->gap_set) {
      /* a replacement costs 7 MatMult + 5 PCApply and a probe 1 MatMult; the recompute 2 MatMult + 1 PCApply per two iterations */
      PetscCall(PKRecomputeGap(ksp, &p2->rc, n, p2->nadaptive, L, PIPE2CG_GAP_POWER, 7.0 + 5.0 + 1.0, (2.0 + 1.0) / 2.0, st->ps.dp0, ksp->rnorm, st->ps.ttol));
      Pipe2CGInForce(p2, st);
    }
  }

  sn.mu = l[6];
  sn.nu = l[0];
  on[0] = l[7]; /* (z_n, r_{n-1}), (z_n, A z_{n-1}), mu_{n-1} as the vectors are */
  on[1] = l[2];
  on[2] = l[8];
  first = (PetscBool)(pp->replace && p2->restart && !st->redo); /* rho_n = 1: x_{n+1} forgets x_{n-1} */
  if (st->redo && st->ps.relgap < PIPE2CG_DRIFT_EVIDENCE) {
    /* the recurrences had hardly drifted from b - A x: the breakdown is the operator's or the preconditioner's */
    PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": the recomputed residual differs from the recursive one by only %g relative: not drift\n", n, (double)st->ps.relgap));
    st->redo = PETSC_FALSE;
    p2->nrecover--;
    ksp->reason = Pipe2CGStep(first ? NULL : &st->sB, &sn, on);
  } else ksp->reason = st->redo ? KSP_DIVERGED_BREAKDOWN : Pipe2CGStep(first ? NULL : &st->sB, &sn, on);
  if (ksp->reason < 0 && (st->redo || (pp->replace && st->ps.relgap >= PIPE2CG_DRIFT_EVIDENCE))) {
    /* every vector is fresh: judged on the recomputed vectors alone (the scalar history is what drifted), (r,z)
       of n-1 and n, and (z, A z) of n-1 and n; if they hold, the breakdown was drift, which has spoiled the
       recurrence: restart (docs/algorithms.md §5.5) */
    if (PKCGSignsDiffer(l[6], l[8])) ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
    else if (l[0] == 0.0 || PKCGSignsDiffer(l[0], l[5])) ksp->reason = KSP_DIVERGED_INDEFINITE_MAT;
    else {
      first       = PETSC_TRUE;
      ksp->reason = Pipe2CGStep(NULL, &sn, NULL);
    }
  }
  if (!ksp->reason) {
    /* (z_{n+1}, r_n) = a (z_n, r_n) - b (M w_n, r_n) + c (z_{n-1}, r_n), (M w_n, r_n) = (w_n, z_n) (M symmetric);
       (z_{n+1}, A z_n) = a (z_n, w_n) - b (p_n, w_n) + c (z_{n-1}, w_n), (p_n, w_n) = (z_n, q_n) (A symmetric) */
    const PetscScalar a = sn.rho, b = sn.rho * sn.gamma, c = 1.0 - sn.rho;
    const PetscScalar o1[3] = {a * l[6] - b * l[0] + c * l[7], a * l[0] - b * l[1] + c * l[2], l[6]};

    Pipe2CGPredict(l, a, b, c, &snext);
    st->pending = Pipe2CGStep(&sn, &snext, o1); /* reported after n+1 is tested, as cg does */
    if (st->pending < 0 && ((pp->replace && st->ps.relgap >= PIPE2CG_DRIFT_EVIDENCE) || Pipe2CGInsignificant(&snext)) && !PetscIsInfOrNanScalar(snext.rho) && !PetscIsInfOrNanScalar(snext.gamma)) {
      /* predicted from fresh vectors, or with no significant digit left, the step n+1 fails only through the
         rounding of the prediction near the attainable accuracy. Its coefficients were not computed (the test
         failed first), and any computed from those digits would be noise: step n+1 is a null step (rho = 1,
         gamma = 0: x_{n+2} = x_{n+1}), then both chains are recomputed and the recurrence restarts at the next
         pass, where the fresh products decide */
      PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": %s predicted %s; a null step, then recomputing and restarting at the next pass\n", n + 1, Pipe2CGReasonWhy(st->pending), Pipe2CGInsignificant(&snext) ? "at the rounding level" : "from fresh vectors"));
      st->lstop   = "the recurrences reached the rounding level (a null step)"; /* after step n, a true one */
      snext.rho   = 1.0;
      snext.gamma = 0.0;
      snext.pap   = sn.pap;
      st->pending = KSP_CONVERGED_ITERATING;
      st->replace = PETSC_TRUE;
      p2->restart = PETSC_TRUE;
    }
  }
  if ((ksp->reason || st->pending) && !pp->replace && ksp->reason != KSP_CONVERGED_ATOL && st->pending != KSP_CONVERGED_ATOL) {
    PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": %s; recomputing the vector chains to rule out rounding\n", n, Pipe2CGReasonWhy(ksp->reason ? ksp->reason : st->pending)));
    p2->nrecover++;
    PKLanczosStop(pk->lanczos, "drift of the recurrences faked a breakdown");
    ksp->reason = KSP_CONVERGED_ITERATING;
    st->pending = KSP_CONVERGED_ITERATING;
    st->redo    = PETSC_TRUE; /* the steps stay those of the pass just made */
    PetscFunctionReturn(0);
  }
  st->redo = PETSC_FALSE;
  if (first) {
    p2->nrestart++;
    p2->restart = PETSC_FALSE;
  }
  if (ksp->reason) {
    ksp->its = n + 1; /* where cg reports it */
    PetscCall(PetscInfo(ksp, "stopping after iteration %" PetscInt_FMT ": %s\n", n, Pipe2CGReasonWhy(ksp->reason)));
    PetscFunctionReturn(0);
  }
  if (pp->lazy && !st->replace) { /* the prediction was wrong: the work that was not overlapped */
    PetscCall(Pipe2CGOverlap(ksp, p2, pp->rc, pp->replace, &pp->c_ready, -1));
    p2->nlate++;
  }
  st->sA = sn;
  st->sB = snext;
  PetscFunctionReturn(0);
}

/* One solve: the pipeline fill, then pass after pass until a test or a breakdown ends it */
PetscErrorCode Pipe2CGSolve(KSP ksp, KSP_PKPIPE2CG *p2)
{
  P2Loop st;

  PetscFunctionBegin;
  PetscCall(Pipe2CGStart(ksp, p2, &st));
  while (!ksp->reason) {
    P2Pass pp;

    Pipe2CGPlan(ksp, p2, &st, &pp);
    if (!st.redo) PetscCall(Pipe2CGSteps(ksp, p2, &st, &pp));
    if (pp.half) {
      PetscCall(Pipe2CGLastHalfPass(ksp, p2, &st));
      break;
    }
    PetscCall(Pipe2CGReduce(ksp, p2, &st, &pp));
    if (!st.redo) {
      PetscCall(Pipe2CGTestPair(ksp, p2, &st));
      if (ksp->reason) break;
      PetscCall(Pipe2CGJudge(ksp, p2, &st));
    }
    PetscCall(Pipe2CGAdvance(ksp, p2, &st, &pp));
  }
  PetscFunctionReturn(0);
}
