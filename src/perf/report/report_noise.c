/*
   Two parts of the report (-ksp_perfmodel_view) that look at ranks one by one:

   Noise injection (src/perf/monitor/noise.c): the injected detour time per rank as the injector counted it, the measured slowdown
   against the noise-free reference (the last quiet solve of this KSP, else of the same type and size in the process,
   else the analytic model with the injected time taken out of its measured compute), and the stochastic model's
   a-priori slowdown (src/perf/models/stochastic_noise.c) from the noise parameters and the reference's per-iteration distribution:
   E[T] for blocking solvers, E[T'] for non-blocking ones. The error is predicted / measured - 1.

   Slow ranks: every rank's busy time per iteration (its time minus its halo and reduction waits, also those inside
   an overlap window; for PETSc's types SpMV and PC only, their vector phase holds the allreduce waits), its median and spread (1.4826 MAD:
   robust to the spikes of a descheduled rank) gathered on rank 0 (O(ranks) numbers, once per report). The
   reference is the lower median of the ranks' medians. A rank is slow when its median is more than 5% above it and
   a sign test says so: more than K/2 + 2 sqrt(K) of its K iterations (4 standard deviations of the count under
   "not slower") are more than 5% above the reference. The z of its median is printed beside.
   Limitation: in the pipelined solvers a rank also waits for a slow neighbour inside its polled overlap window
   (MPI_Test between chunks of the SpMV counts as work there), so that wait is busy time and a slow rank can go
   unnamed; the blocking solvers (and PETSc's types, from SpMV and PC) wait in phases the analysis excludes. Its cost: K times the drop of the expected maximum over ranks per
   iteration (blocking solvers; independent normals per rank, PKEMaxNormalGroups) or of the slowest mean
   (non-blocking solvers) when it behaved like the others. Nodes all of whose ranks are slow are named too.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <petsc/private/kspimpl.h>

#define PK_SLOW_Z   4.0
#define PK_SLOW_REL 0.05
#define PK_NG       7 /* per-rank numbers gathered */

PetscErrorCode PKReportNoiseGather(KSP ksp, PKPerfCtx *pc, const PKStats *S, PKReportData *d)
{
  PKMonitorCtx *c    = &pc->mon; /* the rows, the noise counters and the placement of the solve */
  MPI_Comm      comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt   rank, size;
  PetscReal     loc[PK_NG] = {0}, *all = NULL, *above = NULL, m = 0, q = 0, ref = 0, nabove = 0, *bk, *dev;
  PetscInt      K = c->n;
  PKSolverShape shape;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* robust per-rank location and spread (a loaded machine deschedules ranks: spikes): the median and 1.4826 MAD,
     sent as a "mean" and a "variance" of a normal; the variance of a median of K is about (pi/2) sd^2 / K */
  PetscCall(PetscMalloc2(PetscMax(K, 1), &bk, PetscMax(K, 1), &dev));
  for (PetscInt k = 0; k < K; k++) {
    const PetscLogDouble *ph  = c->rows[k].ph;
    PetscReal             row = 0;
    for (int j = 0; j < PK_PHASE_N; j++) row += ph[j];
    bk[k] = c->builtin ? ph[PK_PHASE_SPMV] + ph[PK_PHASE_PC] : row - c->rows[k].wait;
  }
  if (K > 0) {
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
  if (!rank) PetscCall(PetscMalloc2(PK_NG * size, &all, size, &above));
  PetscCallMPI(MPI_Gather(loc, PK_NG, MPIU_REAL, all, PK_NG, MPIU_REAL, 0, comm));
  /* the sign test: how many of each rank's iterations are 5% above the reference (the lower median of the ranks'
     medians); about half at most if the rank is not slower */
  if (!rank) {
    PetscReal *sorted;
    PetscCall(PetscMalloc1(size, &sorted));
    for (PetscMPIInt r = 0; r < size; r++) sorted[r] = all[PK_NG * r];
    PetscCall(PetscSortReal(size, sorted));
    ref = sorted[(size - 1) / 2];
    PetscCall(PetscFree(sorted));
  }
  PetscCallMPI(MPI_Bcast(&ref, 1, MPIU_REAL, 0, comm));
  for (PetscInt k = 0; k < K; k++)
    if (bk[k] > (1 + PK_SLOW_REL) * ref) nabove++;
  PetscCall(PetscFree2(bk, dev));
  PetscCallMPI(MPI_Gather(&nabove, 1, MPIU_REAL, above, 1, MPIU_REAL, 0, comm));
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
      PetscCall(PKNoiseSlowdownModel(d->noise_quiet_m, d->noise_quiet_x, d->noise_d, d->noise_f, (PetscReal)d->noise_ranks_on, (PetscReal)(size - d->noise_ranks_on), d->noise_nonblocking, &d->noise_Eq, &d->noise_En));
      d->noise_pred = d->noise_Eq > 0 ? d->noise_En / d->noise_Eq : 0;
    }
  }
  /* slow ranks */
  if (size > 1 && K >= 4) {
    PetscReal  sm, sv;
    PetscReal *z;
    PetscBool *slow;
    PetscInt  *order, nok = 0;

    d->have_slow = PETSC_TRUE;
    PetscCall(PetscMalloc3(size, &z, size, &slow, size, &order));
    /* the reference: the lower median of the ranks' medians and of their variances (robust to many slow ranks) */
    {
      PetscReal *sorted;
      PetscCall(PetscMalloc1(size, &sorted));
      for (PetscMPIInt r = 0; r < size; r++) sorted[r] = all[PK_NG * r + 1];
      PetscCall(PetscSortReal(size, sorted));
      sv = sorted[(size - 1) / 2];
      PetscCall(PetscFree(sorted));
    }
    sm = ref;
    for (PetscMPIInt r = 0; r < size; r++) {
      PetscReal mr = all[PK_NG * r], vr = all[PK_NG * r + 1], se;
      se       = PetscSqrtReal(0.5 * PETSC_PI * (vr + sv) / K);
      z[r]     = se > 0 ? (mr - sm) / se : (mr > sm ? PETSC_MAX_REAL : 0);
      /* significantly slower: more than half of its iterations 5% above the reference, by 4 standard deviations
         of the binomial count (sign test) */
      slow[r]  = (PetscBool)(mr > (1 + PK_SLOW_REL) * sm && above[r] > 0.5 * K + 2.0 * PetscSqrtReal((PetscReal)K));
      order[r] = r;
      if (slow[r]) d->nslow_found++;
    }
    /* the slowest first (by z), at most 8 named */
    for (PetscInt i = 1; i < size; i++)
      for (PetscInt j = i; j > 0 && z[order[j]] > z[order[j - 1]]; j--) {
        PetscInt t   = order[j];
        order[j]     = order[j - 1];
        order[j - 1] = t;
      }
    /* the ranks that are not slow: one group */
    {
      PetscReal rm = 0, rm2 = 0, rv = 0;
      for (PetscMPIInt r = 0; r < size; r++)
        if (!slow[r]) {
          rm += all[PK_NG * r];
          rm2 += all[PK_NG * r] * all[PK_NG * r];
          rv += all[PK_NG * r + 1];
          nok++;
        }
      d->rest_mean = nok ? rm / nok : 0;
      d->rest_sd   = nok ? PetscSqrtReal(rv / nok + PetscMax(0, rm2 / nok - d->rest_mean * d->rest_mean)) : 0;
    }
    d->nslow = PetscMin(d->nslow_found, 8);
    if (d->nslow && nok) {
      PetscReal mu[9], sd[9], cnt[9];
      /* group 0: the others (the slow ranks beyond the eighth among them: they are not named) */
      mu[0]  = d->rest_mean;
      sd[0]  = d->rest_sd;
      cnt[0] = (PetscReal)(size - d->nslow);
      for (PetscInt i = 0; i < d->nslow; i++) {
        PetscMPIInt r   = (PetscMPIInt)order[i];
        d->slow_rank[i] = r;
        d->slow_node[i] = c->rank_node ? c->rank_node[r] : 0;
        d->slow_mean[i] = all[PK_NG * r];
        d->slow_z[i]    = z[r];
        mu[i + 1]       = all[PK_NG * r];
        sd[i + 1]       = PetscSqrtReal(all[PK_NG * r + 1]);
        cnt[i + 1]      = 1;
      }
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
    PetscCall(PetscFree3(z, slow, order));
  }
  PetscCall(PetscFree2(all, above));
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
  PetscCall(PKNoiseSlowdownModel(1, &d->noise_ref_per_it, d->noise_d, d->noise_f, (PetscReal)d->noise_ranks_on, (PetscReal)(S->nranks - d->noise_ranks_on), d->noise_nonblocking, &d->noise_Eq, &d->noise_En));
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
      if (fmt != PETSC_VIEWER_ASCII_INFO) PetscCall(PetscViewerASCIIPrintf(v, "  slow ranks: none (no rank's median busy time per iteration significantly 5%% above the others')\n"));
    } else {
      PetscCall(PetscViewerASCIIPrintf(v, "  slow ranks: %" PetscInt_FMT " (median busy time per iteration, waits excluded; the others %.3e s):\n", d->nslow_found, (double)d->rest_mean));
      for (PetscInt i = 0; i < d->nslow; i++) {
        PetscCall(PetscViewerASCIIPrintf(v, "    rank %d (node %" PetscInt_FMT "): %.3e s (%+.0f%%, z %.1f), costs %.3e s of the solve\n", d->slow_rank[i], d->slow_node[i], (double)d->slow_mean[i], (double)(100.0 * (d->slow_mean[i] / d->rest_mean - 1)), (double)PetscMin(d->slow_z[i], 999.9), (double)d->slow_cost[i]));
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
