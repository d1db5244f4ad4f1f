/*
   The recompute policy of pipecg and pipe2cg (the rules and their measurements: pkcgimpl.h and
   docs/pipelined-accuracy.md, "The policy"). Scalars only: it reads the norms the iteration's one reduction brings
   anyway and the gaps its probes put into that reduction, so it adds no synchronisation and no vector work.
*/
#include <pipekrylov/private/pkcgimpl.h>

static PetscErrorCode PKRecomputeSwitch(KSP, PKRecompute *, PetscInt, PetscBool, PKRecomputeWhy);

/* At the start of a solve: the user's choice in force, the counts of the last solve cleared */
PetscErrorCode PKRecomputeStart(KSP ksp, PKRecompute *rc)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetSize(ksp->vec_rhs, &n));
  rc->nrows     = (PetscReal)n;
  rc->on        = (PetscBool)(rc->user == 1);
  rc->why       = rc->user == 1 ? PK_RC_FORCED : PK_RC_OFF_START;
  rc->predicted = 0.0;
  rc->final     = PETSC_FALSE;
  rc->npasses = rc->non = rc->noff = 0;
  rc->at_on = rc->at_off = -1;
  rc->reason[0][0] = rc->reason[1][0] = 0;
  /* without a norm nothing stops the solve before max_it, so max_it is the predicted count: a run that long on a
     small problem goes on far past the attainable accuracy, where the recurred auxiliary vectors are rounding
     alone and make x drift without bound; recomputed, x stays where cg keeps it */
  if (rc->user < 0 && ksp->normtype == KSP_NORM_NONE && ksp->max_it >= PK_RC_LANCZOS * rc->nrows) {
    PetscCall(PetscSNPrintf(rc->reason[0], sizeof(rc->reason[0]), "recompute on from the start: no norm, so %" PetscInt_FMT " iterations (max_it), %.2f x the %.0f unknowns (at least %g: the rounding of the recurrences would make x drift)", ksp->max_it,
                            (double)(ksp->max_it / rc->nrows), (double)rc->nrows, (double)PK_RC_LANCZOS));
    PetscCall(PKRecomputeSwitch(ksp, rc, 0, PETSC_TRUE, PK_RC_LANCZOS_REGIME));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PKRecomputeSwitch(KSP ksp, PKRecompute *rc, PetscInt i, PetscBool on, PKRecomputeWhy why)
{
  PetscFunctionBegin;
  rc->on = on;
  if (on) {
    rc->why   = why;
    rc->at_on = i;
    rc->non++;
  } else {
    rc->at_off = i;
    rc->noff++;
  }
  PetscCall(PetscInfo(ksp, "%s\n", rc->reason[on ? 0 : 1]));
  PetscFunctionReturn(0);
}

/* After iteration i was tested with the norm dp (dp0 at iteration 0, ttol the tolerance in that norm): the predicted
   iteration count, and the recompute switched on or off by it (*changed). The prediction extrapolates the average
   rate of decrease so far; CG speeds up as it goes, so it over- rather than underestimates. It is judged from the
   first iteration although the first predictions are crude: the delay is seeded early, the later the switch the
   more iterations (docs/pipelined-accuracy.md), and a prediction that falls below half the threshold later
   switches it off again. With no norm (KSP_NORM_NONE) or no tolerance nothing is
   judged. */
PetscErrorCode PKRecomputeJudge(KSP ksp, PKRecompute *rc, PetscInt i, PetscReal dp0, PetscReal dp, PetscReal ttol, PetscBool *changed)
{
  const PetscReal lim = PK_RC_LANCZOS * rc->nrows;
  PetscReal       rate, left, total;

  PetscFunctionBegin;
  *changed = PETSC_FALSE;
  if (rc->user >= 0 || rc->final || i < PK_RC_FIRST || !(dp0 > 0) || !(ttol > 0) || !(dp > ttol)) PetscFunctionReturn(0);
  rate = dp < dp0 ? PetscLogReal(dp0 / dp) / i : 0.0;
  left = (PetscReal)(ksp->max_it - i);
  if (rate > 0) left = PetscMin(left, PetscLogReal(dp / ttol) / rate);
  total         = i + left;
  rc->predicted = total;
  if (!rc->on && total >= lim && left >= lim / 8) {
    PetscCall(PetscSNPrintf(rc->reason[0], sizeof(rc->reason[0]), "recompute on from iteration %" PetscInt_FMT ": %.0f iterations predicted to the tolerance, %.2f x the %.0f unknowns (at least %g: the rounding of the recurrences would delay convergence)", i, (double)total, (double)(total / rc->nrows),
                            (double)rc->nrows, (double)PK_RC_LANCZOS));
    PetscCall(PKRecomputeSwitch(ksp, rc, i, PETSC_TRUE, PK_RC_LANCZOS_REGIME));
    *changed = PETSC_TRUE;
  } else if (rc->on && rc->why == PK_RC_LANCZOS_REGIME && total < lim / 2) {
    PetscCall(PetscSNPrintf(rc->reason[1], sizeof(rc->reason[1]), "recompute off from iteration %" PetscInt_FMT ": %.0f iterations predicted to the tolerance, %.2f x the unknowns (below %g: too few for the rounding to delay convergence)", i, (double)total, (double)(total / rc->nrows), (double)(PK_RC_LANCZOS / 2)));
    PetscCall(PKRecomputeSwitch(ksp, rc, i, PETSC_FALSE, PK_RC_LANCZOS_REGIME));
    *changed = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* pipe2cg: the measured gap (gaptol x the tolerance) forced its nforced-th residual replacement at iteration i,
   after a window of L iterations (the norm dp, dp0 at iteration 0, ttol the tolerance). The replacements still to
   come are predicted: a window's gap grows like L^p (p = power, measured 2-5) times the residual it starts from, so
   a window that starts from a residual F times smaller can be F^(1/p) times longer; with the average rate of
   decrease so far, each window is exp(rate L / p) times the one before, until they cover the iterations predicted
   to remain. If the replacements done and predicted exceed PK_RC_MAX_REPLACE, or those predicted cost more
   operator applications (replace_cost each) than recomputing for the iterations that remain (recompute_cost per
   iteration), the recompute takes over now (the replacement asked for is still made: it removes the gap the
   recurrences have built up so far). */
PetscErrorCode PKRecomputeGap(KSP ksp, PKRecompute *rc, PetscInt i, PetscInt nforced, PetscInt L, PetscReal power, PetscReal replace_cost, PetscReal recompute_cost, PetscReal dp0, PetscReal dp, PetscReal ttol)
{
  PetscReal rate, left, w = (PetscReal)PetscMax(L, 1), covered = 0.0;
  PetscInt  more = 0;

  PetscFunctionBegin;
  if (rc->user >= 0 || rc->on || i <= 0) PetscFunctionReturn(0);
  rate = dp > 0 && dp < dp0 ? PetscLogReal(dp0 / dp) / i : 0.0;
  left = (PetscReal)(ksp->max_it - i);
  if (rate > 0 && dp > ttol && ttol > 0) left = PetscMin(left, PetscLogReal(dp / ttol) / rate);
  while (covered < left && nforced + more <= PK_RC_MAX_REPLACE) {
    w = rate > 0 ? w * PetscExpReal(PetscMin(rate * w / power, 50.0)) : w;
    covered += w;
    more++;
  }
  /* accuracy: too many replacements; cost: the replacements to come dearer than recomputing to the end */
  if (nforced + more <= PK_RC_MAX_REPLACE && more * replace_cost <= left * recompute_cost) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(rc->reason[0], sizeof(rc->reason[0]), "recompute on from iteration %" PetscInt_FMT ": the measured gap between recursive and true residual forced replacement %" PetscInt_FMT " after %" PetscInt_FMT " iterations, %" PetscInt_FMT "%s more predicted in the %.0f iterations to the tolerance (each replacement injects the gap into the recurrences)", i, nforced, L, more, nforced + more > PK_RC_MAX_REPLACE ? " or" : "", (double)left));
  PetscCall(PKRecomputeSwitch(ksp, rc, i, PETSC_TRUE, PK_RC_GAP));
  PetscFunctionReturn(0);
}

/* pipecg: a convergence claim was refuted by the true residual at iteration i while recomputing (PKCGCheckClaim): the
   recomputing recurrences have reached their attainable accuracy at the tolerance; off for the rest of the solve,
   the measured gap and its replacements take over */
PetscErrorCode PKRecomputeRefuted(KSP ksp, PKRecompute *rc, PetscInt i)
{
  PetscFunctionBegin;
  if (rc->user >= 0 || !rc->on) PetscFunctionReturn(0);
  rc->final = PETSC_TRUE;
  PetscCall(PetscSNPrintf(rc->reason[1], sizeof(rc->reason[1]), "recompute off from iteration %" PetscInt_FMT ": a convergence claim refuted by the true residual (the attainable accuracy of the recurrences reached), residual replacement takes over", i));
  PetscCall(PKRecomputeSwitch(ksp, rc, i, PETSC_FALSE, rc->why));
  PetscFunctionReturn(0);
}

/* -ksp_view: the setting and what the last solve did; what: the vectors recomputed, opt: the option's name */
PetscErrorCode PKRecomputeView(const PKRecompute *rc, PetscViewer viewer, PetscInt its, const char *what, const char *opt)
{
  PetscFunctionBegin;
  if (rc->user >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  recompute policy: %s recomputed in the overlap of every pass: %s (%s)\n", what, rc->user ? "forced on" : "forced off", opt));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "  recompute policy: %s recomputed in the overlap window when the solve is predicted to take at least %g x the unknowns in iterations, or (pipe2cg) the measured gap would force more than %d replacements; else recurred (%s 0|1 forces)\n", what, (double)PK_RC_LANCZOS, PK_RC_MAX_REPLACE, opt));
  if (its > 0 || rc->npasses) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " passes recomputed in %" PetscInt_FMT " iterations, switched on %" PetscInt_FMT " and off %" PetscInt_FMT " times by the policy%s%s%s%s\n", rc->npasses, its, rc->non, rc->noff, rc->reason[0][0] ? "; " : "", rc->reason[0], rc->reason[1][0] ? "; " : "", rc->reason[1]));
  }
  PetscFunctionReturn(0);
}
