/*
   Slow ranks (the report's noise section, docs/models.md): which ranks are significantly slower than a reference
   rank, and what each costs the solve. Plain functions of per-rank summaries; the report gathers those (each rank
   summarises its own busy times: nothing of size ranks x iterations is gathered).

   Every rank's busy time per iteration (its time minus its halo and reduction waits) is summarised by its median,
   1.4826 MAD, quartiles, mean and variance. The reference rank is the one whose median is the lower median of the
   ranks' medians (robust to many slow ranks). Each rank's one-sided two-sample KS statistic D+ against the
   reference's sample scaled by 1.05 (PKKSOneSidedScaled: the share of its iterations more than 5% slower than the
   reference's would be) is significant at 1e-4 (Smirnov's bound, PKKSOneSidedCritical) for a slow rank. The cost of
   a slow rank: K times the drop of the expected maximum over ranks per iteration when it behaves like the others
   (blocking solvers: independent normals per rank with the ranks' means and variances, PKEMaxNormalGroups; non-
   blocking ones: the slowest mean).
*/
#include <pipekrylov/private/pkmodel.h>

/*
   PKSlowRankSummary - one rank's summary of its busy times per iteration: busy is sorted in place; s[PK_SLOW_MEDIAN],
   s[PK_SLOW_MAD2] (the squared 1.4826 MAD), s[PK_SLOW_Q25], s[PK_SLOW_Q75], s[PK_SLOW_MEAN], s[PK_SLOW_VAR]; all 0
   for K = 0. work holds K numbers.

   Level: developer
*/
PetscErrorCode PKSlowRankSummary(PetscInt K, PetscReal busy[], PetscReal work[], PetscReal s[PK_SLOW_NSUM])
{
  PetscReal mean = 0, var = 0, m, q;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(s, PK_SLOW_NSUM));
  if (K <= 0) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < K; k++) mean += busy[k];
  mean /= K;
  for (PetscInt k = 0; k < K; k++) var += (busy[k] - mean) * (busy[k] - mean);
  var /= K;
  PetscCall(PetscSortReal(K, busy));
  m = PKQuantileSorted(K, busy, 0.5);
  for (PetscInt k = 0; k < K; k++) work[k] = PetscAbsReal(busy[k] - m);
  PetscCall(PetscSortReal(K, work));
  q                 = 1.4826 * PKQuantileSorted(K, work, 0.5);
  s[PK_SLOW_MEDIAN] = m;
  s[PK_SLOW_MAD2]   = q * q;
  s[PK_SLOW_Q25]    = PKQuantileSorted(K, busy, 0.25);
  s[PK_SLOW_Q75]    = PKQuantileSorted(K, busy, 0.75);
  s[PK_SLOW_MEAN]   = mean;
  s[PK_SLOW_VAR]    = var;
  PetscFunctionReturn(0);
}

/*
   PKSlowReference - the reference rank: the one whose median is the lower median of the P medians (the lowest rank
   of those that have it).

   Level: developer
*/
PetscErrorCode PKSlowReference(PetscMPIInt P, const PetscReal median[], PetscMPIInt *ref)
{
  PetscReal *sorted, lower;

  PetscFunctionBegin;
  PetscCheck(P >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PKSlowReference: %d ranks", P);
  PetscCall(PetscMalloc1(P, &sorted));
  PetscCall(PetscArraycpy(sorted, median, P));
  PetscCall(PetscSortReal(P, sorted));
  lower = sorted[(P - 1) / 2];
  PetscCall(PetscFree(sorted));
  *ref = 0;
  for (PetscMPIInt r = P - 1; r >= 0; r--)
    if (median[r] == lower) *ref = r;
  PetscFunctionReturn(0);
}

/*
   PKSlowRanksFind - the slow ranks among P from their D+ against the reference rank ref and its K_ref iterations,
   each rank's K iterations' mean and variance; the slowest first (by mean), at most PK_SLOW_MAX named, with their
   costs over K iterations. nonblocking: the cost is the drop of the slowest mean, else of the expected maximum.
   isslow[P] (may be NULL): every rank's verdict.

   Level: developer
*/
PetscErrorCode PKSlowRanksFind(PetscMPIInt P, PetscInt K, PetscInt Kref, PetscMPIInt ref, const PetscReal Dp[], const PetscReal mean[], const PetscReal var[], PetscBool nonblocking, PKSlowRanks *out, PetscBool isslow[])
{
  const PetscReal crit = PKKSOneSidedCritical(PK_SLOW_ALPHA, K, Kref);
  PetscBool      *slow;
  PetscInt       *order, nok = 0;
  PetscReal       rm = 0, rm2 = 0, rv = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(out, sizeof(*out)));
  PetscCall(PetscMalloc2(P, &slow, P, &order));
  for (PetscMPIInt r = 0; r < P; r++) {
    slow[r]  = (PetscBool)(r != ref && Dp[r] > crit);
    order[r] = r;
    if (slow[r]) out->nfound++;
  }
  /* the slowest first (by mean) */
  for (PetscInt i = 1; i < P; i++)
    for (PetscInt j = i; j > 0 && mean[order[j]] > mean[order[j - 1]]; j--) {
      PetscInt t   = order[j];
      order[j]     = order[j - 1];
      order[j - 1] = t;
    }
  /* the ranks that are not slow: one group (mean of their means; variance within and between them) */
  for (PetscMPIInt r = 0; r < P; r++)
    if (!slow[r]) {
      rm += mean[r];
      rm2 += mean[r] * mean[r];
      rv += var[r];
      nok++;
    }
  out->rest_mean = nok ? rm / nok : 0;
  out->rest_sd   = nok ? PetscSqrtReal(rv / nok + PetscMax(0, rm2 / nok - out->rest_mean * out->rest_mean)) : 0;
  if (out->nfound && nok) {
    PetscReal mu[PK_SLOW_MAX + 1], sd[PK_SLOW_MAX + 1], cnt[PK_SLOW_MAX + 1];

    /* group 0: the others (the slow ranks beyond the eighth among them: they are not named) */
    mu[0] = out->rest_mean;
    sd[0] = out->rest_sd;
    for (PetscInt i = 0; i < P && out->n < PK_SLOW_MAX; i++) {
      PetscMPIInt r = (PetscMPIInt)order[i];
      PetscInt    s = out->n;
      if (!slow[r]) continue;
      out->rank[s] = r;
      out->mean[s] = mean[r];
      out->D[s]    = Dp[r];
      mu[s + 1]    = mean[r];
      sd[s + 1]    = PetscSqrtReal(var[r]);
      cnt[s + 1]   = 1;
      out->n++;
    }
    cnt[0] = (PetscReal)(P - out->n);
    if (nonblocking) {
      out->Ewith = mu[0];
      for (PetscInt i = 1; i <= out->n; i++) out->Ewith = PetscMax(out->Ewith, mu[i]);
    } else PetscCall(PKEMaxNormalGroups(out->n + 1, mu, sd, cnt, &out->Ewith));
    for (PetscInt i = 0; i < out->n; i++) {
      PetscReal c1 = cnt[i + 1];
      cnt[i + 1]   = 0;
      cnt[0] += 1;
      if (nonblocking) {
        out->Ewithout[i] = mu[0];
        for (PetscInt j = 1; j <= out->n; j++)
          if (cnt[j] > 0) out->Ewithout[i] = PetscMax(out->Ewithout[i], mu[j]);
      } else PetscCall(PKEMaxNormalGroups(out->n + 1, mu, sd, cnt, &out->Ewithout[i]));
      cnt[0] -= 1;
      cnt[i + 1]   = c1;
      out->cost[i] = K * PetscMax(0, out->Ewith - out->Ewithout[i]);
    }
  }
  if (isslow) PetscCall(PetscArraycpy(isslow, slow, P));
  PetscCall(PetscFree2(slow, order));
  PetscFunctionReturn(0);
}
