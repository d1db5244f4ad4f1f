/*
   Section "noise and slow ranks" of the report: two parts that look at ranks one by one.

   Injected noise (-ksp_perf_noise, src/perf/monitor/noise.c): the detour time per rank as the injector counted it,
   the measured slowdown against the noise-free reference (the last quiet solve of this KSP, else of the same type and
   size in the process, else the analytic model with the injected time taken out of its measured compute), and the
   stochastic model's a-priori slowdown (models/stochastic_noise.c) from the noise parameters and the reference's
   per-iteration distribution: E[T] for blocking solvers, E[T'] for non-blocking ones (the slowest rank's sum over
   this solve's K iterations, so it depends on K and on the number of noisy ranks). The error is predicted / measured
   - 1.

   Slow ranks (models/slowranks.c): every rank summarises its own busy times per iteration (its time less its halo
   and reduction waits, also those inside an overlap window; for PETSc's types their blocking VecDot and VecNorm are
   reduction waits); the reference rank's sorted
   sample (K numbers) is broadcast and every rank computes its one-sided KS D+ against it; only O(K + ranks) numbers
   reach rank 0. Limitation: in the pipelined solvers a rank also waits for a slow neighbour inside its polled overlap
   window (MPI_Test between chunks of the SpMV counts as work there), so that wait is busy time and a slow rank can go
   unnamed; the blocking solvers (PETSc's included) wait in phases the analysis excludes. Nodes
   all of whose ranks are slow are named too.
*/
#include "report.h"

enum {
  PK_NG_WALL = PK_SLOW_NSUM,
  PK_NG_N,
  PK_NG_HERE,
  PK_NG
}; /* per-rank numbers gathered: the summary, then these */

/* Rank 0: the predicted slowdown from the reference's sample (quiet_m, quiet_x) and its time per iteration: the time
   the detours add, as the model has it (its noisy minus its quiet expectation per iteration), over the measured
   noise-free iteration. Not the ratio of the two expectations: the quiet one draws every rank's iteration
   independently from the pooled sample, where the ranks' slow iterations come together, and can exceed the measured
   iteration twofold (16 simulated ranks: 222-288 us against 136-138), which shrank the ratio. */
static PetscErrorCode PKSecNoisePredict(PKSecNoise *n, PetscMPIInt size, PetscInt K)
{
  PetscFunctionBegin;
  PetscCall(PKNoiseSlowdownModel(n->quiet_m, n->quiet_x, n->d, n->f, (PetscReal)n->ranks_on, (PetscReal)(size - n->ranks_on), K, n->nonblocking, &n->Eq, &n->En));
  n->pred = n->Eq > 0 && n->ref_per_it > 0 ? 1 + (n->En - n->Eq) / n->ref_per_it : 0; /* 0: no prediction */
  PetscFunctionReturn(0);
}

/* Rank 0: the injected noise, per rank (all: the gathered PK_NG numbers of every rank), and the predicted slowdown */
static PetscErrorCode PKSecNoiseInjected(const PKSolveRecord *rec, PetscMPIInt size, const PetscReal all[], PKSecNoise *n)
{
  const PKStats *S = rec->stats;

  PetscFunctionBegin;
  n->have_noise = PETSC_TRUE;
  n->d          = rec->noise_duration;
  n->f          = rec->noise_freq;
  n->inj_min    = PETSC_MAX_REAL;
  PetscCall(PetscMalloc1(size, &n->inj));
  for (PetscMPIInt r = 0; r < size; r++) {
    n->inj[r] = all[PK_NG * r + PK_NG_WALL];
    n->injected += n->inj[r];
    n->n += (PetscInt)all[PK_NG * r + PK_NG_N];
    n->ranks_on += (PetscInt)all[PK_NG * r + PK_NG_HERE];
    n->inj_min = PetscMin(n->inj_min, n->inj[r]);
    n->inj_max = PetscMax(n->inj_max, n->inj[r]);
  }
  n->ref_per_it = rec->quiet_per_it;
  n->quiet_m    = rec->quiet_m;
  n->quiet_x    = rec->quiet_x;
  n->ref        = rec->quiet_src;
  if (n->ref_per_it > 0 && S->nits > 0) {
    n->meas = (S->solve_time / S->nits) / n->ref_per_it;
    if (!n->quiet_m) { /* the reference's sample is on its rank 0 only: use its mean as a point mass */
      n->quiet_m = 1;
      n->quiet_x = &n->ref_per_it;
    }
    PetscCall(PKSecNoisePredict(n, size, S->nits));
  }
  PetscFunctionReturn(0);
}

/* Rank 0: the slow ranks from every rank's summary (all) and D+ against the reference rank, their nodes, and the
   nodes all of whose ranks are slow (when there is more than one node) */
static PetscErrorCode PKSecNoiseSlowRanks(const PKSolveRecord *rec, PetscMPIInt size, const PetscReal all[], const PetscReal Dp[], PetscInt K, PetscInt Kref, PetscMPIInt refrank, PKSecNoise *n)
{
  const PKStats *S = rec->stats;
  PetscReal     *mean, *var;
  PetscBool     *slow;

  PetscFunctionBegin;
  n->have_slow = PETSC_TRUE;
  PetscCall(PetscMalloc3(size, &mean, size, &var, size, &slow));
  for (PetscMPIInt r = 0; r < size; r++) {
    mean[r] = all[PK_NG * r + PK_SLOW_MEAN];
    var[r]  = all[PK_NG * r + PK_SLOW_VAR];
  }
  PetscCall(PKSlowRanksFind(size, K, Kref, refrank, Dp, mean, var, n->nonblocking, &n->slow, slow));
  for (PetscInt i = 0; i < n->slow.n; i++) n->slow_node[i] = rec->rank_node ? rec->rank_node[n->slow.rank[i]] : 0;
  if (rec->rank_node && S->nnodes > 1) {
    for (PetscInt nd = 0; nd < S->nnodes && n->nslow_nodes < PK_SLOW_MAX; nd++) {
      PetscInt nr = 0, ns = 0;
      for (PetscMPIInt r = 0; r < size; r++)
        if (rec->rank_node[r] == nd) {
          nr++;
          if (slow[r]) ns++;
        }
      if (nr && ns == nr) n->slow_node_all[n->nslow_nodes++] = nd;
    }
  }
  PetscCall(PetscFree3(mean, var, slow));
  PetscFunctionReturn(0);
}

/* Collective: every rank's summary and D+ against the reference rank to rank 0, which finds the noise and the slow ranks */
PetscErrorCode PKSecNoiseGather(KSP ksp, const PKSolveRecord *rec, const PKSecRun *run, PKSecNoise *n)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt rank, size, refrank = 0;
  PetscReal   loc[PK_NG], *all = NULL, *Dp = NULL, D = 0, *bk, *work, *refx;
  PetscInt    K = rec->nbusy, Kref;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(n, sizeof(*n)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* per rank: the sorted busy times and their summary */
  PetscCall(PetscMalloc2(PetscMax(K, 1), &bk, PetscMax(K, 1), &work));
  if (K) PetscCall(PetscArraycpy(bk, rec->busy, K));
  PetscCall(PKSlowRankSummary(K, bk, work, loc));
  loc[PK_NG_WALL] = rec->noise_wall;
  loc[PK_NG_N]    = (PetscReal)rec->noise_n;
  loc[PK_NG_HERE] = rec->noise_here ? 1 : 0;
  n->nranks       = size;
  if (!rank) PetscCall(PetscMalloc2(PK_NG * size, &all, size, &Dp));
  PetscCallMPI(MPI_Gather(loc, PK_NG, MPIU_REAL, all, PK_NG, MPIU_REAL, 0, comm));
  if (!rank) {
    PetscReal *med;
    PetscCall(PetscMalloc1(size, &med));
    for (PetscMPIInt r = 0; r < size; r++) med[r] = all[PK_NG * r + PK_SLOW_MEDIAN];
    PetscCall(PKSlowReference(size, med, &refrank));
    PetscCall(PetscFree(med));
  }
  PetscCallMPI(MPI_Bcast(&refrank, 1, MPI_INT, 0, comm));
  /* the reference's sample to every rank (K numbers), and every rank's D+ against it to rank 0 */
  Kref = K;
  PetscCallMPI(MPI_Bcast(&Kref, 1, MPIU_INT, refrank, comm));
  PetscCall(PetscMalloc1(PetscMax(Kref, 1), &refx));
  if (rank == refrank) PetscCall(PetscArraycpy(refx, bk, K));
  PetscCallMPI(MPI_Bcast(refx, (PetscMPIInt)Kref, MPIU_REAL, refrank, comm));
  PetscCall(PKKSOneSidedScaled(K, bk, Kref, refx, 1 + PK_SLOW_REL, &D));
  PetscCall(PetscFree(refx));
  PetscCall(PetscFree2(bk, work));
  PetscCallMPI(MPI_Gather(&D, 1, MPIU_REAL, Dp, 1, MPIU_REAL, 0, comm));
  if (!rank) {
    if (run->model) {
      PKSolverShape shape;
      PetscCall(PKSolverShapeGet(&run->config, 1, &shape));
      n->nonblocking = (PetscBool)shape.nonblocking;
    }
    if (rec->noise_active) PetscCall(PKSecNoiseInjected(rec, size, all, n));
    if (size > 1 && K >= 4) PetscCall(PKSecNoiseSlowRanks(rec, size, all, Dp, K, Kref, refrank, n));
  }
  PetscCall(PetscFree2(all, Dp));
  PetscFunctionReturn(0);
}

/* Rank 0, after the analytic model: with no noise-free solve before, the model is the reference (its compute terms
   are measured in this noisy run: the mean injected time per rank is taken out of them) */
PetscErrorCode PKSecNoiseModel(const PKStats *S, const PKSecRun *run, const PKSecAnalytic *a, PKSecNoise *n)
{
  PetscReal q;

  PetscFunctionBegin;
  if (!n->have_noise || n->ref_per_it > 0 || S->nits <= 0 || !run->model) PetscFunctionReturn(0);
  q = a->model.total - n->injected / S->nranks;
  if (q <= 0) PetscFunctionReturn(0);
  n->ref_per_it = q / S->nits;
  n->ref        = "the analytic model, injected time taken out of its measured compute";
  n->meas       = (S->solve_time / S->nits) / n->ref_per_it;
  n->quiet_m    = 1;
  n->quiet_x    = &n->ref_per_it;
  PetscCall(PKSecNoisePredict(n, S->nranks, S->nits));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecNoiseView(PetscViewer v, PetscViewerFormat fmt, const PKStats *S, const PKSecNoise *n)
{
  const PKSlowRanks *sr = &n->slow;

  PetscFunctionBegin;
  if (n->have_noise) {
    PetscCall(PetscViewerASCIIPrintf(v, "  noise injection: %.0f us detours at %.0f Hz on %" PetscInt_FMT " of %d ranks: %" PetscInt_FMT " detours, %.3e s\n", (double)(n->d * 1e6), (double)n->f, n->ranks_on, S->nranks, n->n, (double)n->injected));
    if (fmt != PETSC_VIEWER_ASCII_INFO) {
      PetscCall(PetscViewerASCIIPrintf(v, "    injected per rank (injector's clock):"));
      if (S->nranks <= 8) {
        for (PetscMPIInt r = 0; r < S->nranks; r++) PetscCall(PetscViewerASCIIPrintf(v, " %d: %.2e s%s", r, (double)n->inj[r], r + 1 < S->nranks ? "," : ""));
      } else PetscCall(PetscViewerASCIIPrintf(v, " min %.2e s, mean %.2e s, max %.2e s", (double)n->inj_min, (double)(n->injected / S->nranks), (double)n->inj_max));
      PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    }
    if (n->ref_per_it > 0) {
      PetscCall(PetscViewerASCIIPrintf(v, "    measured slowdown  %.3f: %.3e s per iteration, noise-free %.3e s\n      (%s)\n", (double)n->meas, (double)(S->nits ? S->solve_time / S->nits : 0), (double)n->ref_per_it, n->ref));
      PetscCall(PetscViewerASCIIPrintf(v, "    predicted slowdown %.3f (%s, 001 with compound-Poisson detours), error %+.1f%%\n", (double)n->pred, n->nonblocking ? "E[T'], non-blocking" : "E[T], blocking", (double)(n->meas > 0 ? 100.0 * (n->pred / n->meas - 1) : 0)));
    } else PetscCall(PetscViewerASCIIPrintf(v, "    slowdown: no noise-free reference (no quiet solve before this one, no analytic model)\n"));
  }
  if (n->have_slow) {
    if (!sr->nfound) {
      if (fmt != PETSC_VIEWER_ASCII_INFO) PetscCall(PetscViewerASCIIPrintf(v, "  slow ranks: none (no rank's busy time per iteration significantly >5%% above the reference rank's)\n"));
    } else {
      PetscCall(PetscViewerASCIIPrintf(v, "  slow ranks: %" PetscInt_FMT " (mean busy time per iteration, waits excluded; the others %.3e s):\n", sr->nfound, (double)sr->rest_mean));
      for (PetscInt i = 0; i < sr->n; i++) {
        PetscCall(PetscViewerASCIIPrintf(v, "    rank %d (node %" PetscInt_FMT "): %.3e s (%+.0f%%; %.0f%% of its iterations >5%% slower), costs %.3e s\n", sr->rank[i], n->slow_node[i], (double)sr->mean[i], (double)(sr->rest_mean > 0 ? 100.0 * (sr->mean[i] / sr->rest_mean - 1) : 0), (double)(100.0 * sr->D[i]),
                                         (double)sr->cost[i]));
        if (fmt != PETSC_VIEWER_ASCII_INFO) PetscCall(PetscViewerASCIIPrintf(v, "      (%s per iteration %.3e s with it, %.3e s without)\n", n->nonblocking ? "slowest median" : "expected max over ranks", (double)sr->Ewith, (double)sr->Ewithout[i]));
      }
      for (PetscInt i = 0; i < n->nslow_nodes; i++) PetscCall(PetscViewerASCIIPrintf(v, "    node %" PetscInt_FMT ": all its ranks are slow\n", n->slow_node_all[i]));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecNoiseCSV(PetscViewer v, const PKSecNoise *n)
{
  PetscFunctionBegin;
  if (n->have_noise) {
    PetscCall(PetscViewerASCIIPrintf(v, "noise,duration,%.9e,s,set\nnoise,frequency,%.9e,Hz,set\nnoise,ranks,%" PetscInt_FMT ",,set\nnoise,detours,%" PetscInt_FMT ",,measured\n", (double)n->d, (double)n->f, n->ranks_on, n->n));
    PetscCall(PetscViewerASCIIPrintf(v, "noise,injected_s,%.9e,s,measured\n", (double)n->injected));
    for (PetscMPIInt r = 0; r < n->nranks; r++) PetscCall(PetscViewerASCIIPrintf(v, "noise,injected_s.%d,%.9e,s,measured\n", r, (double)n->inj[r]));
    if (n->ref_per_it > 0) {
      PetscCall(PetscViewerASCIIPrintf(v, "noise,reference_per_iteration,%.9e,s,%s\n", (double)n->ref_per_it, n->quiet_x == &n->ref_per_it && strstr(n->ref, "model") ? "modelled" : "measured"));
      PetscCall(PetscViewerASCIIPrintf(v, "noise,slowdown_measured,%.6f,,measured\nnoise,slowdown_predicted,%.6f,,%s\n", (double)n->meas, (double)n->pred, n->nonblocking ? "ETprime" : "ET"));
      /* the model's expected times per iteration behind the prediction (the slowest rank's, from the reference's sample) */
      PetscCall(PetscViewerASCIIPrintf(v, "noise,model_quiet_per_iteration,%.9e,s,%s\nnoise,model_noisy_per_iteration,%.9e,s,%s\n", (double)n->Eq, n->nonblocking ? "ETprime" : "ET", (double)n->En, n->nonblocking ? "ETprime" : "ET"));
    }
  }
  if (n->have_slow)
    for (PetscInt i = 0; i < n->slow.n; i++) PetscCall(PetscViewerASCIIPrintf(v, "slowrank,%d,%.9e,s,node %" PetscInt_FMT "\n", n->slow.rank[i], (double)n->slow.cost[i], n->slow_node[i]));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecNoiseFree(PKSecNoise *n)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(n->inj));
  PetscFunctionReturn(0);
}
