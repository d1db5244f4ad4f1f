/*
   Two parts of the report (-ksp_perfmodel_view) that look at ranks one by one:

   Noise injection (src/perf/monitor/noise.c): the injected detour time per rank as the injector counted it, the measured slowdown
   against the noise-free reference (the last quiet solve of this KSP, else of the same type and size in the process,
   else the analytic model with the injected time taken out of its measured compute), and the stochastic model's
   a-priori slowdown (src/perf/models/stochastic_noise.c) from the noise parameters and the reference's per-iteration distribution:
   E[T] for blocking solvers, E[T'] for non-blocking ones (the slowest rank's sum over this solve's K iterations,
   so it depends on K and on the number of noisy ranks). The error is predicted / measured - 1.

   Slow ranks: every rank's busy time per iteration (its time minus its halo and reduction waits, also those inside
   an overlap window; for PETSc's types SpMV and PC only, their vector phase holds the allreduce waits). The
   reference rank is the one whose median is the lower median of the ranks' medians (robust to many slow ranks);
   its sorted sample (K numbers) is broadcast and every rank compares its own with it by a one-sided two-sample
   Kolmogorov-Smirnov statistic against the reference scaled by 1.05 (PKKSOneSidedScaled): D+ is the share of the
   rank's iterations that are more than 5% slower than the reference's would be. A rank is slow when D+ is
   significant at 1e-4 (Smirnov's bound, PKKSOneSidedCritical; about 0.45 for K = 45). This names a rank slowed in
   part of its iterations (detours: a daemon, injected noise) as well as one slowed in all of them, and not a rank
   descheduled a few times (its spikes move D+ by their share only). Only O(K + ranks) numbers reach rank 0.
   Limitation: in the pipelined solvers a rank also waits for a slow neighbour inside its polled overlap window
   (MPI_Test between chunks of the SpMV counts as work there), so that wait is busy time and a slow rank can go
   unnamed; the blocking solvers (and PETSc's types, from SpMV and PC) wait in phases the analysis excludes. Its
   cost: K times the drop of the expected maximum over ranks per iteration (blocking solvers; independent normals
   per rank with the ranks' means and variances, PKEMaxNormalGroups) or of the slowest mean (non-blocking solvers)
   when it behaved like the others. Nodes all of whose ranks are slow are named too.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <petsc/private/kspimpl.h>

#define PK_SLOW_ALPHA 1e-4 /* level of the one-sided KS test */
#define PK_SLOW_REL   0.05 /* slower means more than 5% above the reference */
#define PK_NG         9    /* per-rank numbers gathered */

PetscErrorCode PKReportNoiseGather(KSP ksp, PKPerfCtx *pc, const PKStats *S, PKReportData *d)
{
  PKMonitorCtx *c    = &pc->mon; /* the rows, the noise counters and the placement of the solve */
  MPI_Comm      comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt   rank, size, refrank = 0;
  PetscReal     loc[PK_NG] = {0}, *all = NULL, *Dp = NULL, m = 0, q = 0, mean = 0, var = 0, D = 0, *bk, *dev, *refx;
  PetscInt      K = c->n, Kref;
  PKSolverShape shape;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* per rank: the sorted busy times, their median and 1.4826 MAD (the reference's choice), mean and variance (the
     cost: what a slow rank's iterations really took, detours and all) */
  PetscCall(PetscMalloc2(PetscMax(K, 1), &bk, PetscMax(K, 1), &dev));
  for (PetscInt k = 0; k < K; k++) {
    const PetscLogDouble *ph  = c->rows[k].ph;
    PetscReal             row = 0;
    for (int j = 0; j < PK_PHASE_N; j++) row += ph[j];
    bk[k] = c->builtin ? ph[PK_PHASE_SPMV] + ph[PK_PHASE_PC] : row - c->rows[k].wait;
    mean += bk[k];
  }
  if (K > 0) {
    mean /= K;
    for (PetscInt k = 0; k < K; k++) var += (bk[k] - mean) * (bk[k] - mean);
    var /= K;
    PetscCall(PetscSortReal(K, bk));
    m      = PKQuantileSorted(K, bk, 0.5);
    loc[5] = PKQuantileSorted(K, bk, 0.25);
    loc[6] = PKQuantileSorted(K, bk, 0.75);
    for (PetscInt k = 0; k < K; k++) dev[k] = PetscAbsReal(bk[k] - m);
    PetscCall(PetscSortReal(K, dev));
    q = 1.4826 * PKQuantileSorted(K, dev, 0.5);
  }
  loc[0] = m;
  loc[1] = q * q;
  loc[2] = c->noise.wall;
  loc[3] = (PetscReal)c->noise.n;
  loc[4] = c->noise.here ? 1 : 0;
  loc[7] = mean;
  loc[8] = var;
  if (!rank) PetscCall(PetscMalloc2(PK_NG * size, &all, size, &Dp));
  PetscCallMPI(MPI_Gather(loc, PK_NG, MPIU_REAL, all, PK_NG, MPIU_REAL, 0, comm));
  /* the reference rank: its median is the lower median of the ranks' medians */
  if (!rank) {
    PetscReal *sorted, ref;
    PetscCall(PetscMalloc1(size, &sorted));
    for (PetscMPIInt r = 0; r < size; r++) sorted[r] = all[PK_NG * r];
    PetscCall(PetscSortReal(size, sorted));
    ref = sorted[(size - 1) / 2];
    PetscCall(PetscFree(sorted));
    for (PetscMPIInt r = size - 1; r >= 0; r--)
      if (all[PK_NG * r] == ref) refrank = r;
  }
  PetscCallMPI(MPI_Bcast(&refrank, 1, MPI_INT, 0, comm));
  /* its sample to every rank (K numbers), and every rank's D+ against it to rank 0 */
  Kref = K;
  PetscCallMPI(MPI_Bcast(&Kref, 1, MPIU_INT, refrank, comm));
  PetscCall(PetscMalloc1(PetscMax(Kref, 1), &refx));
  if (rank == refrank) PetscCall(PetscArraycpy(refx, bk, K));
  PetscCallMPI(MPI_Bcast(refx, (PetscMPIInt)Kref, MPIU_REAL, refrank, comm));
  PetscCall(PKKSOneSidedScaled(K, bk, Kref, refx, 1 + PK_SLOW_REL, &D));
  PetscCall(PetscFree(refx));
  PetscCall(PetscFree2(bk, dev));
  PetscCallMPI(MPI_Gather(&D, 1, MPIU_REAL, Dp, 1, MPIU_REAL, 0, comm));
  if (rank) PetscFunctionReturn(0);

  d->noise_nonblocking = PETSC_FALSE;
  if (d->config.kind != PK_SOLVER_UNKNOWN) {
    PetscCall(PKSolverShapeGet(&d->config, 1, &shape));
    d->noise_nonblocking = (PetscBool)shape.nonblocking;
  }
  /* noise */
  if (c->noise.active) {
    d->have_noise    = PETSC_TRUE;
    d->noise_d       = c->noise.duration;
    d->noise_f       = c->noise.freq;
    d->noise_inj_min = PETSC_MAX_REAL;
    PetscCall(PetscMalloc1(size, &d->noise_inj));
    for (PetscMPIInt r = 0; r < size; r++) {
      d->noise_inj[r] = all[PK_NG * r + 2];
      d->noise_injected += d->noise_inj[r];
      d->noise_n += (PetscInt)all[PK_NG * r + 3];
      d->noise_ranks_on += (PetscInt)all[PK_NG * r + 4];
      d->noise_inj_min = PetscMin(d->noise_inj_min, d->noise_inj[r]);
      d->noise_inj_max = PetscMax(d->noise_inj_max, d->noise_inj[r]);
    }
    PetscCall(PKNoiseQuietReference(ksp, c, &d->noise_ref_per_it, &d->noise_quiet_m, &d->noise_quiet_x, &d->noise_ref));
    if (d->noise_ref_per_it > 0 && S->nits > 0) {
      d->noise_meas = (S->solve_time / S->nits) / d->noise_ref_per_it;
      if (!d->noise_quiet_m) { /* the reference's sample is on its rank 0 only: use its mean as a point mass */
        d->noise_quiet_m = 1;
        d->noise_quiet_x = &d->noise_ref_per_it;
      }
      PetscCall(PKNoiseSlowdownModel(d->noise_quiet_m, d->noise_quiet_x, d->noise_d, d->noise_f, (PetscReal)d->noise_ranks_on, (PetscReal)(size - d->noise_ranks_on), S->nits, d->noise_nonblocking, &d->noise_Eq, &d->noise_En));
      d->noise_pred = d->noise_Eq > 0 ? d->noise_En / d->noise_Eq : 0;
    }
  }
  /* slow ranks */
  if (size > 1 && K >= 4) {
    const PetscReal crit = PKKSOneSidedCritical(PK_SLOW_ALPHA, K, Kref);
    PetscBool      *slow;
    PetscInt       *order, nok = 0;

    d->have_slow = PETSC_TRUE;
    PetscCall(PetscMalloc2(size, &slow, size, &order));
    for (PetscMPIInt r = 0; r < size; r++) {
      slow[r]  = (PetscBool)(r != refrank && Dp[r] > crit);
      order[r] = r;
      if (slow[r]) d->nslow_found++;
    }
    /* the slowest first (by mean), at most 8 named */
    for (PetscInt i = 1; i < size; i++)
      for (PetscInt j = i; j > 0 && all[PK_NG * order[j] + 7] > all[PK_NG * order[j - 1] + 7]; j--) {
        PetscInt t   = order[j];
        order[j]     = order[j - 1];
        order[j - 1] = t;
      }
    /* the ranks that are not slow: one group (mean of their means; variance within and between them) */
    {
      PetscReal rm = 0, rm2 = 0, rv = 0;
      for (PetscMPIInt r = 0; r < size; r++)
        if (!slow[r]) {
          rm += all[PK_NG * r + 7];
          rm2 += all[PK_NG * r + 7] * all[PK_NG * r + 7];
          rv += all[PK_NG * r + 8];
          nok++;
        }
      d->rest_mean = nok ? rm / nok : 0;
      d->rest_sd   = nok ? PetscSqrtReal(rv / nok + PetscMax(0, rm2 / nok - d->rest_mean * d->rest_mean)) : 0;
    }
    d->nslow = 0;
    if (d->nslow_found && nok) {
      PetscReal mu[9], sd[9], cnt[9];
      /* group 0: the others (the slow ranks beyond the eighth among them: they are not named) */
      mu[0]  = d->rest_mean;
      sd[0]  = d->rest_sd;
      for (PetscInt i = 0; i < size && d->nslow < 8; i++) {
        PetscMPIInt r = (PetscMPIInt)order[i];
        PetscInt    s = d->nslow;
        if (!slow[r]) continue;
        d->slow_rank[s] = r;
        d->slow_node[s] = c->rank_node ? c->rank_node[r] : 0;
        d->slow_mean[s] = all[PK_NG * r + 7];
        d->slow_D[s]    = Dp[r];
        mu[s + 1]       = all[PK_NG * r + 7];
        sd[s + 1]       = PetscSqrtReal(all[PK_NG * r + 8]);
        cnt[s + 1]      = 1;
        d->nslow++;
      }
      cnt[0] = (PetscReal)(size - d->nslow);
      if (d->noise_nonblocking) {
        d->slow_Ewith = mu[0];
        for (PetscInt i = 1; i <= d->nslow; i++) d->slow_Ewith = PetscMax(d->slow_Ewith, mu[i]);
      } else PetscCall(PKEMaxNormalGroups(d->nslow + 1, mu, sd, cnt, &d->slow_Ewith));
      for (PetscInt i = 0; i < d->nslow; i++) {
        PetscReal c1 = cnt[i + 1];
        cnt[i + 1]   = 0;
        cnt[0] += 1;
        if (d->noise_nonblocking) {
          d->slow_Ewithout[i] = mu[0];
          for (PetscInt j = 1; j <= d->nslow; j++)
            if (cnt[j] > 0) d->slow_Ewithout[i] = PetscMax(d->slow_Ewithout[i], mu[j]);
        } else PetscCall(PKEMaxNormalGroups(d->nslow + 1, mu, sd, cnt, &d->slow_Ewithout[i]));
        cnt[0] -= 1;
        cnt[i + 1]      = c1;
        d->slow_cost[i] = K * PetscMax(0, d->slow_Ewith - d->slow_Ewithout[i]);
      }
    }
    /* nodes all of whose ranks are slow (when there is more than one node) */
    if (c->rank_node && S->nnodes > 1) {
      for (PetscInt nd = 0; nd < S->nnodes && d->nslow_nodes < 8; nd++) {
        PetscInt nr = 0, ns = 0;
        for (PetscMPIInt r = 0; r < size; r++)
          if (c->rank_node[r] == nd) {
            nr++;
            if (slow[r]) ns++;
          }
        if (nr && ns == nr) d->slow_node_all[d->nslow_nodes++] = nd;
      }
    }
    PetscCall(PetscFree2(slow, order));
  }
  PetscCall(PetscFree2(all, Dp));
  PetscFunctionReturn(0);
}

/* Rank 0, after the models: with no noise-free solve before, the analytic model is the reference (its compute
   terms are measured in this noisy run: the mean injected time per rank is taken out of them) */
PetscErrorCode PKReportNoiseModel(const PKStats *S, PKReportData *d)
{
  PetscReal q;

  PetscFunctionBegin;
  if (!d->have_noise || d->noise_ref_per_it > 0 || S->nits <= 0 || d->config.kind == PK_SOLVER_UNKNOWN) PetscFunctionReturn(0);
  q = d->model.total - d->noise_injected / S->nranks;
  if (q <= 0) PetscFunctionReturn(0);
  d->noise_ref_per_it = q / S->nits;
  d->noise_ref        = "the analytic model, injected time taken out of its measured compute";
  d->noise_meas       = (S->solve_time / S->nits) / d->noise_ref_per_it;
  d->noise_quiet_m    = 1;
  d->noise_quiet_x    = &d->noise_ref_per_it;
  PetscCall(PKNoiseSlowdownModel(1, &d->noise_ref_per_it, d->noise_d, d->noise_f, (PetscReal)d->noise_ranks_on, (PetscReal)(S->nranks - d->noise_ranks_on), S->nits, d->noise_nonblocking, &d->noise_Eq, &d->noise_En));
  d->noise_pred = d->noise_Eq > 0 ? d->noise_En / d->noise_Eq : 0;
  PetscFunctionReturn(0);
}

PetscErrorCode PKReportNoiseView(PetscViewer v, PetscViewerFormat fmt, const PKStats *S, const PKReportData *d)
{
  PetscFunctionBegin;
  if (d->have_noise) {
    PetscCall(PetscViewerASCIIPrintf(v, "  noise injection: %.0f us detours at %.0f Hz on %" PetscInt_FMT " of %d ranks: %" PetscInt_FMT " detours, %.3e s\n", (double)(d->noise_d * 1e6), (double)d->noise_f, d->noise_ranks_on, S->nranks, d->noise_n, (double)d->noise_injected));
    if (fmt != PETSC_VIEWER_ASCII_INFO) {
      PetscCall(PetscViewerASCIIPrintf(v, "    injected per rank (injector's clock):"));
      if (S->nranks <= 8) {
        for (PetscMPIInt r = 0; r < S->nranks; r++) PetscCall(PetscViewerASCIIPrintf(v, " %d: %.2e s%s", r, (double)d->noise_inj[r], r + 1 < S->nranks ? "," : ""));
      } else PetscCall(PetscViewerASCIIPrintf(v, " min %.2e s, mean %.2e s, max %.2e s", (double)d->noise_inj_min, (double)(d->noise_injected / S->nranks), (double)d->noise_inj_max));
      PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    }
    if (d->noise_ref_per_it > 0) {
      PetscCall(PetscViewerASCIIPrintf(v, "    measured slowdown  %.3f: %.3e s per iteration, noise-free %.3e s\n      (%s)\n", (double)d->noise_meas, (double)(S->nits ? S->solve_time / S->nits : 0), (double)d->noise_ref_per_it, d->noise_ref));
      PetscCall(PetscViewerASCIIPrintf(v, "    predicted slowdown %.3f (%s, 001 with compound-Poisson detours), error %+.1f%%\n", (double)d->noise_pred, d->noise_nonblocking ? "E[T'], non-blocking" : "E[T], blocking", (double)(d->noise_meas > 0 ? 100.0 * (d->noise_pred / d->noise_meas - 1) : 0)));
    } else PetscCall(PetscViewerASCIIPrintf(v, "    slowdown: no noise-free reference (no quiet solve before this one, no analytic model)\n"));
  }
  if (d->have_slow) {
    if (!d->nslow_found) {
      if (fmt != PETSC_VIEWER_ASCII_INFO) PetscCall(PetscViewerASCIIPrintf(v, "  slow ranks: none (no rank's busy time per iteration significantly >5%% above the reference rank's)\n"));
    } else {
      PetscCall(PetscViewerASCIIPrintf(v, "  slow ranks: %" PetscInt_FMT " (mean busy time per iteration, waits excluded; the others %.3e s):\n", d->nslow_found, (double)d->rest_mean));
      for (PetscInt i = 0; i < d->nslow; i++) {
        PetscCall(PetscViewerASCIIPrintf(v, "    rank %d (node %" PetscInt_FMT "): %.3e s (%+.0f%%; %.0f%% of its iterations >5%% slower), costs %.3e s\n", d->slow_rank[i], d->slow_node[i], (double)d->slow_mean[i], (double)(d->rest_mean > 0 ? 100.0 * (d->slow_mean[i] / d->rest_mean - 1) : 0), (double)(100.0 * d->slow_D[i]), (double)d->slow_cost[i]));
        if (fmt != PETSC_VIEWER_ASCII_INFO) PetscCall(PetscViewerASCIIPrintf(v, "      (%s per iteration %.3e s with it, %.3e s without)\n", d->noise_nonblocking ? "slowest median" : "expected max over ranks", (double)d->slow_Ewith, (double)d->slow_Ewithout[i]));
      }
      for (PetscInt i = 0; i < d->nslow_nodes; i++) PetscCall(PetscViewerASCIIPrintf(v, "    node %" PetscInt_FMT ": all its ranks are slow\n", d->slow_node_all[i]));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKReportNoiseCSV(PetscViewer v, const PKStats *S, const PKReportData *d)
{
  PetscFunctionBegin;
  if (d->have_noise) {
    PetscCall(PetscViewerASCIIPrintf(v, "noise,duration,%.9e,s,set\nnoise,frequency,%.9e,Hz,set\nnoise,ranks,%" PetscInt_FMT ",,set\nnoise,detours,%" PetscInt_FMT ",,measured\n", (double)d->noise_d, (double)d->noise_f, d->noise_ranks_on, d->noise_n));
    PetscCall(PetscViewerASCIIPrintf(v, "noise,injected_s,%.9e,s,measured\n", (double)d->noise_injected));
    for (PetscMPIInt r = 0; r < S->nranks; r++) PetscCall(PetscViewerASCIIPrintf(v, "noise,injected_s.%d,%.9e,s,measured\n", r, (double)d->noise_inj[r]));
    if (d->noise_ref_per_it > 0) {
      PetscCall(PetscViewerASCIIPrintf(v, "noise,reference_per_iteration,%.9e,s,%s\n", (double)d->noise_ref_per_it, d->noise_quiet_x == &d->noise_ref_per_it && strstr(d->noise_ref, "model") ? "modelled" : "measured"));
      PetscCall(PetscViewerASCIIPrintf(v, "noise,slowdown_measured,%.6f,,measured\nnoise,slowdown_predicted,%.6f,,%s\n", (double)d->noise_meas, (double)d->noise_pred, d->noise_nonblocking ? "ETprime" : "ET"));
    }
  }
  if (d->have_slow)
    for (PetscInt i = 0; i < d->nslow; i++) PetscCall(PetscViewerASCIIPrintf(v, "slowrank,%d,%.9e,s,node %" PetscInt_FMT "\n", d->slow_rank[i], (double)d->slow_cost[i], d->slow_node[i]));
  PetscFunctionReturn(0);
}
