/*
   What -ksp_perfmodel_view needs from the run, gathered collectively at the end of the solve, and the models
   evaluated on rank 0 (src/perf/model_*.c, stochastic.c). The counts come from the run itself: ranks and nodes
   from the monitor's layout, the halo messages of every rank from the operator's actual scatter (classified on or
   off node), reductions from the solver's type, per-application SpMV and PC times and vector time from the
   recorder, the synchronization gap from the per-iteration compute times, the overlap from the reductions that
   completed before their wait. Parameters come from the machine profile (-ksp_perfmodel_machine) or the embedded
   default.
*/
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pipekrylov/private/pkperfimpl.h>
#include <pipekrylov/private/pkprofile.h>
#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkamg.h>
#include <petsc/private/kspimpl.h>
#include <petscsf.h>
#include <sched.h>
#include <unistd.h>

/* The profile of this KSP (loaded once), with what it lacks filled in: a profile measured on one node has no
   off-node parameters; a run with off-node messages then uses the on-node ones and the report says so. */
static PetscErrorCode PKReportMachine(KSP ksp, PKPerfCtx *c, PKReportData *d)
{
  PKMachine *m = &c->machine;
  PetscInt   i, j;

  PetscFunctionBegin;
  if (!c->machine_loaded) {
    if (c->machine_path[0]) PetscCall(PKMachineLoad(PetscObjectComm((PetscObject)ksp), c->machine_path, m));
    else PetscCall(PKMachineDefault(m));
    c->machine_loaded = PETSC_TRUE;
  }
  d->eff = m->p;
  for (int k = 0; k < PK_NPROTO; k++) {
    PetscCall(PKMachineFieldIndexOf(m, &m->p.alpha[PK_OFF_NODE][k], &i));
    PetscCall(PKMachineFieldIndexOf(m, &m->p.beta[PK_OFF_NODE][k], &j));
    if (m->src[i] == PK_SRC_NONE || m->src[j] == PK_SRC_NONE) {
      d->eff.alpha[PK_OFF_NODE][k] = m->p.alpha[PK_ON_NODE][k];
      d->eff.beta[PK_OFF_NODE][k]  = m->p.beta[PK_ON_NODE][k];
      d->offnode_substituted       = PETSC_TRUE;
    }
  }
#define PK_FILL_OFF(field) \
  do { \
    PetscCall(PKMachineFieldIndexOf(m, &m->p.field[PK_OFF_NODE], &i)); \
    if (m->src[i] == PK_SRC_NONE) d->eff.field[PK_OFF_NODE] = m->p.field[PK_ON_NODE]; \
  } while (0)
  PK_FILL_OFF(eager_limit);
  PK_FILL_OFF(rendezvous_limit);
  PK_FILL_OFF(Rb);
  PK_FILL_OFF(allreduce_alpha);
  PK_FILL_OFF(allreduce_beta);
#undef PK_FILL_OFF
  PetscCall(PKMachineFieldIndexOf(m, &m->p.RN, &i));
  if (m->src[i] == PK_SRC_NONE || d->eff.RN <= 0) d->eff.RN = PETSC_MAX_REAL; /* no node injection cap known */
  PetscFunctionReturn(0);
}

/* The operator's chunked-SpMV structure: the solver's own for our types, one built for the report otherwise */
static PetscErrorCode PKReportSpMV(KSP ksp, PKPerfCtx *c, PetscBool ours, PKSpMV *s)
{
  Mat A;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  if (ours && ((KSP_PK *)ksp->data)->spmv) {
    *s = ((KSP_PK *)ksp->data)->spmv;
    PetscFunctionReturn(0);
  }
  if (c->report_mat != A) {
    PKSpMV old = (PKSpMV)c->report_spmv;
    PetscCall(PKSpMVDestroy(&old));
    PetscCall(PKSpMVCreate(A, &old));
    c->report_spmv = old;
    c->report_mat  = A;
  }
  *s = (PKSpMV)c->report_spmv;
  PetscFunctionReturn(0);
}

/* Every rank models its own halo exchange from the messages it sends; the slowest rank's terms go to the model */
static PetscErrorCode PKReportHalo(KSP ksp, PKPerfCtx *c, PetscBool ours, PKReportData *d)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt     rank, size;
  PKSpMV          s  = NULL;
  VecScatter      sf = NULL;
  PetscInt        nir = 0, n = 0, flag, gflag;
  const PetscInt *ioff = NULL, *iloc;
  const PetscMPIInt *iranks = NULL;
  PetscReal      *bytes = NULL;
  PKLocality     *loc   = NULL;
  PKHaloPattern   pat;
  PKNetState      net;
  PKCommCost      mine;
  PetscReal       sums[1 + 2 * PK_NLOC], gsums[1 + 2 * PK_NLOC];
  struct {
    double v;
    int    r;
  } in, out;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMemzero(&d->in.halo, sizeof(d->in.halo)));
  if (size == 1) {
    d->have_halo = PETSC_TRUE; /* no halo at all */
    PetscFunctionReturn(0);
  }
  PetscCall(PKReportSpMV(ksp, c, ours, &s));
  PetscCall(PKSpMVGetHalo(s, &sf));
  flag = sf ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&flag, &gflag, 1, MPIU_INT, MPI_MIN, comm));
  if (!gflag) {
    PetscCall(PetscSNPrintf(d->halo_why, sizeof(d->halo_why), "the operator is not MPIAIJ: its halo is not known"));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscSFSetUp(sf));
  PetscCall(PetscSFGetLeafRanks(sf, &nir, &iranks, &ioff, &iloc)); /* the ranks this rank sends to */
  PetscCall(PetscMalloc2(nir, &bytes, nir, &loc));
  for (PetscInt i = 0; i < nir; i++) {
    if (iranks[i] == rank) continue;
    bytes[n] = (PetscReal)(ioff[i + 1] - ioff[i]) * sizeof(PetscScalar);
    loc[n++] = c->rank_node[iranks[i]] == c->rank_node[rank] ? PK_ON_NODE : PK_OFF_NODE;
  }
  pat.n         = n;
  pat.bytes     = bytes;
  pat.loc       = loc;
  pat.ppn       = c->ppn;
  pat.ppn_off   = 0;
  pat.pipelined = PETSC_TRUE;
  PKNetStateUnknown(&net);
  PetscCall(PKModelHalo(&d->eff, &pat, &net, &mine));
  PetscCall(PetscFree2(bytes, loc));
  /* the slowest rank's terms and message counts; the average rank's counts */
  in.v = (double)mine.total;
  in.r = rank;
  PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  d->in.halo = mine;
  PetscCallMPI(MPI_Bcast(&d->in.halo, sizeof(PKCommCost), MPI_BYTE, out.r, comm));
  sums[0] = mine.total;
  for (int l = 0; l < PK_NLOC; l++) {
    sums[1 + l]           = 0;
    sums[1 + PK_NLOC + l] = mine.bytes[l];
    for (int p = 0; p < PK_NPROTO; p++) sums[1 + l] += mine.nmsg[l][p];
  }
  PetscCallMPI(MPI_Allreduce(sums, gsums, 1 + 2 * PK_NLOC, MPIU_REAL, MPIU_SUM, comm));
  d->halo_avg_total = gsums[0] / size;
  for (int l = 0; l < PK_NLOC; l++) {
    d->halo_msgs[0][l]  = gsums[1 + l] / size;
    d->halo_bytes[0][l] = gsums[1 + PK_NLOC + l] / size;
    d->halo_msgs[1][l]  = 0;
    for (int p = 0; p < PK_NPROTO; p++) d->halo_msgs[1][l] += d->in.halo.nmsg[l][p];
    d->halo_bytes[1][l] = d->in.halo.bytes[l];
  }
  d->have_halo = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The report's own operator structure, with the perf context */
PetscErrorCode PKReportFree(PKPerfCtx *c)
{
  PKSpMV s = (PKSpMV)c->report_spmv;

  PetscFunctionBegin;
  PetscCall(PKSpMVDestroy(&s));
  c->report_spmv = NULL;
  c->report_mat  = NULL;
  PetscFunctionReturn(0);
}

/* Ranks per core on the busiest host: ranks of this host (MPI_COMM_TYPE_SHARED, whatever -ksp_perf_node_size
   says: this is about real cores) over the cores this process may run on */
static PetscErrorCode PKReportRanksPerCore(MPI_Comm comm, PetscReal *rpc)
{
  MPI_Comm    host;
  PetscMPIInt nhost;
  PetscReal   mine, cores = 0;
  cpu_set_t   set;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  PetscCallMPI(MPI_Comm_size(host, &nhost));
  PetscCallMPI(MPI_Comm_free(&host));
  if (!sched_getaffinity(0, sizeof(set), &set)) cores = CPU_COUNT(&set);
  if (cores <= 0) cores = (PetscReal)sysconf(_SC_NPROCESSORS_ONLN);
  mine = cores > 0 ? nhost / cores : 1;
  PetscCallMPI(MPI_Allreduce(&mine, rpc, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscFunctionReturn(0);
}

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

/* Two-sample KS between selected ranks (rank 0 only: the series live there): the fastest against the slowest,
   the slowest against another rank of its node (do the ranks of a node move together?), rank 0 against the slowest */
static PetscErrorCode PKReportKS(const PKStats *S, PKReportData *d)
{
  PetscInt  K = S->nits, fast = 0, slow = 0, same = -1;
  PetscReal tot[16];

  PetscFunctionBegin;
  d->nks = 0;
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
      PetscInt a = pairs[p][0], b = pairs[p][1], dup = 0;
      if (a < 0 || b < 0 || S->sel[a] == S->sel[b]) continue;
      for (PetscInt q = 0; q < d->nks; q++)
        if ((d->ks_a[q] == S->sel[a] && d->ks_b[q] == S->sel[b]) || (d->ks_a[q] == S->sel[b] && d->ks_b[q] == S->sel[a])) dup = 1;
      if (dup) continue;
      PetscCall(PKKSTwoSample(K, S->series + a * K, K, S->series + b * K, &d->ks_D[d->nks]));
      d->ks_crit[d->nks]      = PKKSCritical(0.05, K, K);
      d->ks_corr[d->nks]      = PKCorrelation(K, S->series + a * K, S->series + b * K);
      d->ks_a[d->nks]         = S->sel[a];
      d->ks_b[d->nks]         = S->sel[b];
      d->ks_same_node[d->nks] = (PetscBool)(S->sel_node[a] == S->sel_node[b]);
      d->nks++;
    }
  }
  PetscFunctionReturn(0);
}

/* The models, on rank 0 */
static PetscErrorCode PKReportModels(const PKStats *S, PKReportData *d)
{
  PetscInt K = S->nits, nonblocking;
  PKSolverShape shape;

  PetscFunctionBegin;
  PetscCall(PKSolverShapeGet(&d->config, 1, &shape));
  nonblocking = shape.nonblocking;
  if (K > 0 && d->vec_modelled) {
    /* PETSc's types: their vector phase holds the waits of the blocking allreduces inside VecDot/VecNorm, which
       would count as compute imbalance; use the SpMV and PC phases alone (max and mean over ranks per iteration) */
    PetscReal *cmx, *cmd;
    PetscCall(PetscMalloc2(K, &cmx, K, &cmd));
    for (PetscInt k = 0; k < K; k++) {
      cmx[k] = S->phase_max[k * PK_PHASE_N + PK_PHASE_SPMV] + S->phase_max[k * PK_PHASE_N + PK_PHASE_PC];
      cmd[k] = S->phase_mean[k * PK_PHASE_N + PK_PHASE_SPMV] + S->phase_mean[k * PK_PHASE_N + PK_PHASE_PC];
    }
    PetscCall(PKModelSyncPenalty(K, cmx, K, cmd, PETSC_FALSE, &d->sync_raw[0]));
    PetscCall(PKModelSyncPenalty(K, cmx, K, cmd, PETSC_TRUE, &d->sync_raw[1]));
    PetscCall(PetscFree2(cmx, cmd));
    d->in.sync[0] = d->sync_raw[0];
    d->in.sync[1] = d->sync_raw[1];
  } else if (K > 0) {
    PetscCall(PKModelSyncPenalty(K, S->cmax, K, S->cmedian, PETSC_FALSE, &d->sync_raw[0]));
    PetscCall(PKModelSyncPenalty(K, S->cmax, K, S->cmedian, PETSC_TRUE, &d->sync_raw[1]));
    d->in.sync[0] = d->sync_raw[0];
    d->in.sync[1] = d->sync_raw[1];
  } else d->in.sync[0] = d->in.sync[1] = -1;
  PetscCall(PKModelSolve(&d->eff, &d->in, &d->model));
  /* the other solvers on the same problem: the CG family only for a CG-type run (they need SPD) */
  d->wi_nsolver = 0;
  for (int k = 0; k < PK_SOLVER_NOURS; k++) {
    PKSolverConfig cfg;
    PetscBool      cgrun = (PetscBool)(d->config.kind != PK_SOLVER_PGMRES && d->config.kind != PK_SOLVER_PETSC_GMRES && d->config.kind != PK_SOLVER_PETSC_PGMRES);
    if ((PKSolverKind)k == d->config.kind) continue;
    if (!cgrun && k != PK_SOLVER_PGMRES) continue;
    PKSolverConfigDefault((PKSolverKind)k, &cfg);
    if (k == PK_SOLVER_PGMRES && d->config.restart > 0) cfg.restart = d->config.restart;
    PetscCall(PKModelWhatIfSolver(&d->eff, &d->in, &cfg, &d->wi_solver[d->wi_nsolver]));
    d->wi_kind[d->wi_nsolver++] = (PKSolverKind)k;
  }
  if (nonblocking && d->in.theta >= 0 && d->in.theta < 0.95) {
    PKSolveInput full = d->in;
    full.theta        = 1.0;
    PetscCall(PKModelSolve(&d->eff, &full, &d->chunks_full));
    d->have_chunks_full = PETSC_TRUE;
  }
  /* the stochastic model of 001 from the per-iteration times over ranks */
  PetscCall(PKReportKS(S, d));
  if (K >= 4 && S->npooled >= 16) {
    PKStochInput si;
    PetscBool    together = PETSC_FALSE;
    for (PetscInt p = 0; p < d->nks; p++)
      if (d->ks_same_node[p] && d->ks_corr[p] > 0.5) together = PETSC_TRUE;
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
    PetscCall(PKStochasticModel(&si, &d->stoch));
    d->have_stoch = PETSC_TRUE;
  }
  for (int w = 0; w < PK_WHATIF_RANKS; w++) {
    PetscInt P = S->nranks;
    for (int j = 0; j <= w; j++) P *= 4;
    d->wi_P[w] = P;
    PetscCall(PKModelWhatIfRanks(&d->eff, &d->in, P, NULL, &d->wi_ranks[w]));
    d->wi_ET[w] = d->wi_ETp[w] = -1;
    if (d->have_stoch) PetscCall(PKStochasticWhatIf(&d->stoch, K, d->stoch.Peff * P / S->nranks, &d->wi_ET[w], &d->wi_ETp[w]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKReportGather(KSP ksp, PKPerfCtx *c, const PKStats *S, PKReportData *d)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt    rank, size;
  PetscErrorCode (*ours)(KSP, PetscInt *);
  PetscErrorCode (*restart)(KSP, PetscInt *);
  PKRecHot      *h = &c->rec.hot;
  PetscReal      w[PK_PHASE_N], wsum[PK_PHASE_N];
  Mat            A;
  MatInfo        info;
  PetscInt       K = S->nits, nloc;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(d, sizeof(*d)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(KSPGetType(ksp, &d->type));
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetChunks_C", &ours));
  d->ours = ours ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PKSolverKindFromType(d->type, &d->config.kind));
  PKSolverConfigDefault(d->config.kind, &d->config);
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPGMRESGetRestart_C", &restart));
  if (restart) PetscCall((*restart)(ksp, &d->config.restart));
  if (d->config.kind == PK_SOLVER_PETSC_CG) d->config.norm_separate = (PetscBool)(ksp->normtype == KSP_NORM_PRECONDITIONED || ksp->normtype == KSP_NORM_UNPRECONDITIONED);
  PetscCall(PKReportMachine(ksp, c, d));
  /* the operator */
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetSize(A, &d->nrows_global, NULL));
  PetscCall(MatGetLocalSize(A, &nloc, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  d->nnz_global = (PetscInt)info.nz_used;
  /* measured: per-application costs from the time by activity, averaged over ranks */
  for (int j = 0; j < PK_PHASE_N; j++) w[j] = h->work[j];
  PetscCallMPI(MPI_Allreduce(w, wsum, PK_PHASE_N, MPIU_REAL, MPIU_SUM, comm));
  for (int j = 0; j < PK_PHASE_N; j++) d->work[j] = wsum[j] / size;
  d->nspmv    = h->nspmv;
  d->npc      = h->npc;
  d->measured = S->solve_time;
  PetscCall(PKReportNoiseGather(ksp, c, S, d)); /* collective: noise and slow ranks, for every type */
  if (d->config.kind == PK_SOLVER_UNKNOWN) PetscFunctionReturn(0); /* no model for this type: measured part only */
  d->in.solver = d->config;
  d->in.K      = K;
  d->in.layout.P     = S->nranks;
  d->in.layout.nodes = S->nnodes;
  d->in.layout.ppn   = S->ppn;
  d->in.t_spmv       = d->nspmv ? d->work[PK_PHASE_SPMV] / d->nspmv : 0;
  d->in.t_pc         = d->npc ? d->work[PK_PHASE_PC] / d->npc : 0;
  if (d->ours || size == 1) d->in.t_vec = K ? d->work[PK_PHASE_VEC] / K : 0;
  else {
    /* PETSc's VecDot/VecNorm include their MPI_Allreduce (not logged apart): model the vector work from the
       vector streams of the solver and the profile's memory bandwidth instead of double counting */
    /* ... at the bandwidth the SpMV reached in this very run (same cache regime; STREAM is out of cache):
       the SpMV moves 12 bytes per nonzero (value and column) and 20 per row (row pointer, x and y) */
    MatInfo   linfo;
    PetscReal b[2], gb[2];
    PetscCall(MatGetInfo(A, MAT_LOCAL, &linfo));
    b[0] = (PetscReal)nloc;
    b[1] = (PetscReal)linfo.nz_used;
    PetscCallMPI(MPI_Allreduce(b, gb, 2, MPIU_REAL, MPIU_SUM, comm));
    if (d->in.t_spmv > 0 && gb[1] > 0) d->in.t_vec = d->in.t_spmv * PKSolverStreams(&d->config) * sizeof(PetscScalar) * gb[0] / (12.0 * gb[1] + 20.0 * gb[0]);
    else d->in.t_vec = PKSolverStreams(&d->config) * b[0] * sizeof(PetscScalar) / d->eff.mem_bw;
    d->vec_modelled = PETSC_TRUE;
  }
  d->in.t_init     = -1; /* modelled from the solver's start-up shape */
  d->in.halo_theta = 0;  /* 000's model: the halo is not hidden behind the SpMV */
  PKNetStateUnknown(&d->in.net);
  PetscCall(PKReportRanksPerCore(comm, &d->in.ranks_per_core));
  {
    PetscReal cpu = (PetscReal)(c->cpuend - c->cpubegin), gcpu;
    PetscCallMPI(MPI_Allreduce(&cpu, &gcpu, 1, MPIU_REAL, MPIU_SUM, comm));
    d->in.t_cpu = gcpu / size;
  }
  d->theta_counts = S->nreductions ? PKModelThetaFromCounts(S->nearly, S->nreductions) : -1;
  d->in.theta     = d->theta_counts;
  PetscCall(PKReportHalo(ksp, c, d->ours, d));
  /* AMG: the cycle model of 002 when the preconditioner is hypre BoomerAMG */
  PetscCall(PKAMGHierarchyFromPC(ksp->pc, PK_AMG_MAXLEVELS, d->amg_lev, &d->amg_L, &d->have_amg, d->amg_why, sizeof(d->amg_why)));
  if (!rank) {
    /* the iterations' elapsed time: the sum of per-iteration maxima would overstate it when the slowest rank
       changes from iteration to iteration */
    d->rows_time = PetscMax(0, S->solve_time - S->setup_time - S->finish_time);
    for (PetscInt k = 0; k < K; k++) {
      for (int j = 0; j < PK_PHASE_N; j++) d->phase[j] += S->phase_mean[k * PK_PHASE_N + j];
    }
    PetscCall(PKReportModels(S, d));
    PetscCall(PKReportNoiseModel(S, d));
    if (d->have_amg) {
      PKAMGInput ai;
      PetscCall(PetscMemzero(&ai, sizeof(ai)));
      ai.L             = d->amg_L;
      ai.lev           = d->amg_lev;
      ai.P             = S->nranks;
      ai.offnode       = (PetscBool)(S->nnodes > 1);
      ai.msgs_per_link = -1;
      PetscCall(PKModelAMGCycle(&d->eff, &ai, &d->amg));
      d->amg_measured = d->in.t_pc;
    }
  }
  PetscFunctionReturn(0);
}
