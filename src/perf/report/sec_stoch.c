/*
   Section "stochastic model" of the report (001, docs/models.md §5): two-sample KS tests between selected ranks (do
   they run alike; do the ranks of a node move together?), then the model from the per-iteration times over ranks:
   the bulk Johnson SU fit, E[T] and E[T'] stationary and not, the simulation from the per-iteration fits, the
   Cramer and Bertsimas bounds. Rank 0 only: the series and the pooled sample live there.
*/
#include "report.h"
#include <math.h>

/* Pearson correlation of two series: do two ranks slow down together? */
static PetscReal PKCorrelation(PetscInt n, const PetscReal *a, const PetscReal *b)
{
  PetscReal ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;

  for (PetscInt k = 0; k < n; k++) {
    ma += a[k];
    mb += b[k];
  }
  ma /= n;
  mb /= n;
  for (PetscInt k = 0; k < n; k++) {
    sab += (a[k] - ma) * (b[k] - mb);
    saa += (a[k] - ma) * (a[k] - ma);
    sbb += (b[k] - mb) * (b[k] - mb);
  }
  return (saa > 0 && sbb > 0) ? sab / PetscSqrtReal(saa * sbb) : 0.0;
}

/* Two-sample KS between selected ranks: the fastest against the slowest, the slowest against another rank of its node
   (do the ranks of a node move together?), rank 0 against the slowest */
static PetscErrorCode PKSecStochKS(const PKStats *S, PKSecStoch *st)
{
  PetscInt  K = S->nits, fast = 0, slow = 0, same = -1;
  PetscReal tot[16];

  PetscFunctionBegin;
  st->nks = 0;
  if (S->nsel < 2 || K < 4) PetscFunctionReturn(0);
  for (PetscInt j = 0; j < S->nsel && j < 16; j++) {
    tot[j] = 0;
    for (PetscInt k = 0; k < K; k++) tot[j] += S->series[j * K + k];
    if (tot[j] < tot[fast]) fast = j;
    if (tot[j] > tot[slow]) slow = j;
  }
  for (PetscInt j = 0; j < S->nsel && j < 16; j++)
    if (j != slow && S->sel[j] != S->sel[slow] && S->sel_node[j] == S->sel_node[slow] && j != fast) same = j;
  {
    PetscInt pairs[3][2] = {
      {fast, slow},
      {slow, same},
      {0,    slow}
    };
    for (int p = 0; p < 3; p++) {
      PetscInt a = pairs[p][0], b = pairs[p][1], dup = 0, n = st->nks;
      if (a < 0 || b < 0 || S->sel[a] == S->sel[b]) continue;
      for (PetscInt q = 0; q < n; q++)
        if ((st->ks_a[q] == S->sel[a] && st->ks_b[q] == S->sel[b]) || (st->ks_a[q] == S->sel[b] && st->ks_b[q] == S->sel[a])) dup = 1;
      if (dup) continue;
      PetscCall(PKKSTwoSample(K, S->series + a * K, K, S->series + b * K, &st->ks_D[n]));
      st->ks_crit[n]      = PKKSCritical(0.05, K, K);
      st->ks_corr[n]      = PKCorrelation(K, S->series + a * K, S->series + b * K);
      st->ks_a[n]         = S->sel[a];
      st->ks_b[n]         = S->sel[b];
      st->ks_same_node[n] = (PetscBool)(S->sel_node[a] == S->sel_node[b]);
      st->nks++;
    }
  }
  PetscFunctionReturn(0);
}

/* Rank 0 */
PetscErrorCode PKSecStochModel(const PKStats *S, PKSecStoch *st)
{
  PetscInt K = S->nits;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  PetscCall(PKSecStochKS(S, st));
  if (K >= 4 && S->npooled >= 16) {
    PKStochInput si;
    PetscBool    together = PETSC_FALSE;
    for (PetscInt p = 0; p < st->nks; p++)
      if (st->ks_same_node[p] && st->ks_corr[p] > 0.5) together = PETSC_TRUE;
    PetscCall(PetscMemzero(&si, sizeof(si)));
    si.K       = K;
    si.P       = S->nranks;
    si.Peff    = together ? (PetscReal)S->nnodes : (PetscReal)S->nranks; /* 001 section 4: a node moves as one */
    si.npooled = S->npooled;
    si.pooled  = S->pooled;
    si.tmin    = S->tmin;
    si.tmax    = S->tmax;
    si.nsim    = 8;
    si.seed    = 20260101;
    PetscCall(PKStochasticModel(&si, &st->r));
    st->have = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecStochView(PetscViewer v, const PKStats *S, const PKSecRun *run, const PKSecStoch *st)
{
  const PKStochResult *r = &st->r;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  if (!st->have) {
    PetscCall(PetscViewerASCIIPrintf(v, "  stochastic model: too few iterations (%" PetscInt_FMT ") to fit\n", S->nits));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscViewerASCIIPrintf(v, "  stochastic model (001): iteration times over ranks; P_eff = %g%s\n", (double)r->Peff, r->Peff < S->nranks ? " (the ranks of a node move together)" : ""));
  PetscCall(PetscViewerASCIIPrintf(v, "    bulk Johnson SU fit (gamma, delta, xi, lambda) = (%.3g, %.3g, %.3e, %.3e)\n      one-sample KS D %.3f, 5%% critical value %.3f: fit %s\n", (double)r->bulk.gamma, (double)r->bulk.delta, (double)r->bulk.xi,
                                   (double)r->bulk.lambda, (double)r->ks_D, (double)r->ks_crit, r->bulk_rejected ? "rejected" : "accepted"));
  if (r->bulk_rejected) PetscCall(PetscViewerASCIIPrintf(v, "    (E[T], E[T'] below from the sample's own distribution; the what-if from a normal law)\n"));
  PetscCall(PetscViewerASCIIPrintf(v, "    E[T]  stationary, synchronised every iteration (eq 3)      %10.3e s   gap %+6.1f%%\n", (double)r->ET, (double)PKGap(r->ET, run->rows_time)));
  PetscCall(PetscViewerASCIIPrintf(v, "    E[T'] stationary, not synchronised (eq 6)                  %10.3e s   gap %+6.1f%%\n", (double)r->ETp, (double)PKGap(r->ETp, run->rows_time)));
  PetscCall(PetscViewerASCIIPrintf(v, "    E^[T]  non-stationary, uniform per iteration (eqs 7, 11)   %10.3e s   gap %+6.1f%%\n", (double)r->EThat, (double)PKGap(r->EThat, run->rows_time)));
  PetscCall(PetscViewerASCIIPrintf(v, "    E^[T'] non-stationary (eq 8)                               %10.3e s   gap %+6.1f%%\n", (double)r->ETphat, (double)PKGap(r->ETphat, run->rows_time)));
  if (r->sim_rejected) PetscCall(PetscViewerASCIIPrintf(v, "    simulation from JSU fits of a_k, s_k (section 6): not done, a KS test rejects those fits\n"));
  else PetscCall(PetscViewerASCIIPrintf(v, "    simulated from JSU fits of a_k, s_k (section 6): E[T] %.3e +- %.1e s, E[T'] %.3e s\n", (double)r->sim_ET, (double)r->sim_ET_sd, (double)r->sim_ETp));
  PetscCall(PetscViewerASCIIPrintf(v, "    upper bounds of E[T]: Cramer (eq 9) %.3e s, Bertsimas (eq 10) %.3e s\n", (double)r->cramer, (double)r->bertsimas));
  PetscCall(PetscViewerASCIIPrintf(v, "    measured iterations (KSPSolve minus set-up and finish)        %.3e s\n", (double)run->rows_time));
  for (PetscInt p = 0; p < st->nks; p++)
    PetscCall(PetscViewerASCIIPrintf(v, "    KS ranks %d, %d%s: D %.3f, 5%% critical %.3f: %s; correlation %.2f\n", st->ks_a[p], st->ks_b[p], st->ks_same_node[p] ? " (one node)" : "", (double)st->ks_D[p], (double)st->ks_crit[p], st->ks_D[p] > st->ks_crit[p] ? "distributions differ" : "same distribution",
                                     (double)st->ks_corr[p]));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecStochCSV(PetscViewer v, const PKSecRun *run, const PKSecStoch *st)
{
  const PKStochResult *r = &st->r;

  PetscFunctionBegin;
  if (!st->have) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(v, "stochastic,ET,%.9e,s,modelled\nstochastic,ETprime,%.9e,s,modelled\nstochastic,EThat,%.9e,s,modelled\nstochastic,ETprimehat,%.9e,s,modelled\n", (double)r->ET, (double)r->ETp, (double)r->EThat, (double)r->ETphat));
  PetscCall(PetscViewerASCIIPrintf(v, "stochastic,sim_ET,%.9e,s,modelled\nstochastic,sim_ETprime,%.9e,s,modelled\nstochastic,cramer,%.9e,s,bound\nstochastic,bertsimas,%.9e,s,bound\nstochastic,measured_iterations,%.9e,s,measured\n", (double)r->sim_ET,
                                   (double)r->sim_ETp, (double)r->cramer, (double)r->bertsimas, (double)run->rows_time));
  /* the bulk fit in full, so that bin/pipekrylov-plot draws the report's own (docs/algorithms.md §10); nan without
     one (too few points or no spread), so that every report has the same rows */
  {
    const PetscBool ok = r->bulk_info.ok;
    PetscCall(PetscViewerASCIIPrintf(v, "stochastic,bulk_gamma,%.17g,1,fit\nstochastic,bulk_delta,%.17g,1,fit\nstochastic,bulk_xi,%.17g,s,fit\nstochastic,bulk_lambda,%.17g,s,fit\nstochastic,bulk_ks_D,%.17g,1,fit\n", ok ? (double)r->bulk.gamma : NAN,
                                     ok ? (double)r->bulk.delta : NAN, ok ? (double)r->bulk.xi : NAN, ok ? (double)r->bulk.lambda : NAN, ok ? (double)r->ks_D : NAN));
  }
  PetscFunctionReturn(0);
}
