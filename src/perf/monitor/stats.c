/*
   Cross-rank statistics of a solve (PKStats), collective over the KSP's communicator, at the end of KSPSolve.

   Everything per iteration is exact, order statistics (quantiles, medians) included, and no rank holds ranks x
   iterations: each rank's record of each iteration (time, compute, phases, counters, reductions) is transposed in
   blocks of iterations with one MPI_Alltoallv. Rank r receives the full column of P records of iterations
   [r C / P, (r + 1) C / P) (C = iterations + 2: set-up and finish ride along for their reductions), i.e. about
   C R values when C >= P and P R when C < P (R values per record), sorts each column and reduces it to NRES
   numbers; rank 0 gathers C x NRES numbers. Exact, where a histogram or sketch between the global min and max
   would be off by up to (max - min) / bins, for the price of one all-to-all of C R doubles per rank.

   The whole reduction is one MPI_Iallreduce (MAXLOC: times, iteration counts, fastest and slowest rank) completed
   together with one MPI_Ialltoallv, then one MPI_Igatherv completed after up to three messages (the selected
   ranks' series) to rank 0: two synchronisations at the end of each recorded solve, since each one costs. Built for
   SimGrid's simulator (PK_SMPI) the three are blocking collectives (PK_STATS_BLOCKING, below).
*/
#include <pipekrylov/private/pkmonitor.h>

#define NR (8 + 2 * PK_STATS_NQ) /* per iteration: tmin tmax tmean tvar tq[NQ] cmin cmax cmean cmedian pooled[NQ] */
/* a record: t, compute, phases, counters, then reductions (count, MPI_Test calls, early mask as two 32-bit halves) */
#define NREC(np) (2 + PK_PHASE_N + (np) + 4)
/* results per column: NR, phases mean and max, counters mean and max, reductions (count, early everywhere, tests) */
#define NRES(np) (NR + 2 * PK_PHASE_N + 2 * (np) + 3)

PetscErrorCode PKStatsDestroy(PKStats *S)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(S->tmin, S->tmax, S->tmean, S->tvar));
  PetscCall(PetscFree(S->tq));
  PetscCall(PetscFree2(S->phase_mean, S->phase_max));
  PetscCall(PetscFree4(S->cmin, S->cmax, S->cmean, S->cmedian));
  PetscCall(PetscFree2(S->itred, S->itearly));
  PetscCall(PetscFree3(S->sel, S->sel_node, S->series));
  PetscCall(PetscFree(S->pooled));
  PetscCall(PetscFree2(S->papi_mean, S->papi_max));
  PetscCall(PetscMemzero(S, sizeof(*S)));
  PetscFunctionReturn(0);
}

/* Nodes: -ksp_perf_node_size k (k consecutive ranks of PETSC_COMM_WORLD form a node: a communicator whose ranks were
   reordered, e.g. for a node-aware DMDA, keeps each process on its node), else MPI_COMM_TYPE_SHARED; node index =
   order of the nodes' lowest ranks in comm */
PetscErrorCode PKStatsLayout(MPI_Comm comm, PKMonitorCtx *c)
{
  PetscMPIInt rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* every rank's node, once (PKCommGetNodes: O(P) per rank), so that the selection of ranks needs no communication
     later; the ranks of the fullest node */
  {
    PetscMPIInt nn, ppn;
    PetscCall(PKCommGetNodes(comm, c->node_size, &nn, &c->rank_node));
    PetscCall(PKNodesGetSizes(size, nn, c->rank_node, NULL, &ppn));
    c->ppn    = ppn;
    c->node   = c->rank_node[rank];
    c->nnodes = nn;
  }
  PetscCall(PetscCommGetNewTag(comm, &c->tag));
  c->layout_done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
   The NRES results of one column from its P records (record q at recv + q * stride); t, cp: work [P].
   Results: the NR order statistics, phase means [PK_PHASE_N], phase maxima, counter means [np], counter maxima,
   then the reductions: how many (max over ranks), how many early on every rank, MPI_Test calls (sum).
*/
static PetscErrorCode PKStatsColumn(PetscInt P, PetscInt np, const PetscReal *recv, PetscInt stride, PetscReal *t, PetscReal *cp, PetscReal *res)
{
  const PetscInt     nv = PK_PHASE_N + np, red = 2 + nv; /* values averaged and maximised; offset of reductions */
  PetscReal          s = 0, v = 0, *mean = res + NR, *max = res + NR + PK_PHASE_N, nred = 0, tests = 0;
  unsigned long long mask = ~0ULL;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < nv; i++) {
    PetscReal *mi = i < PK_PHASE_N ? &mean[i] : &res[NR + 2 * PK_PHASE_N + i - PK_PHASE_N];
    PetscReal *ma = i < PK_PHASE_N ? &max[i] : &res[NR + 2 * PK_PHASE_N + np + i - PK_PHASE_N];
    *mi           = 0;
    *ma           = -PETSC_MAX_REAL;
    for (PetscInt q = 0; q < P; q++) {
      *mi += recv[q * stride + 2 + i];
      *ma = PetscMax(*ma, recv[q * stride + 2 + i]);
    }
    *mi /= P;
  }
  for (PetscInt q = 0; q < P; q++) {
    const PetscReal *x = recv + q * stride;
    t[q]               = x[0];
    cp[q]              = x[1];
    nred               = PetscMax(nred, x[red]);
    tests += x[red + 1];
    mask &= (unsigned long long)x[red + 2] | ((unsigned long long)x[red + 3] << 32);
  }
  res[NRES(np) - 3] = nred;
  res[NRES(np) - 2] = PKEarlyCount(mask, nred);
  res[NRES(np) - 1] = tests;
  PetscCall(PetscSortReal(P, t));
  PetscCall(PetscSortReal(P, cp));
  for (PetscInt i = 0; i < P; i++) s += t[i];
  s /= P;
  for (PetscInt i = 0; i < P; i++) v += (t[i] - s) * (t[i] - s);
  res[0] = t[0];
  res[1] = t[P - 1];
  res[2] = s;
  res[3] = v / P;
  for (PetscInt j = 0; j < PK_STATS_NQ; j++) res[4 + j] = PKQuantileSorted(P, t, (PetscReal)j / (PK_STATS_NQ - 1));
  s = 0;
  for (PetscInt i = 0; i < P; i++) s += cp[i];
  res[4 + PK_STATS_NQ] = cp[0];
  res[5 + PK_STATS_NQ] = cp[P - 1];
  res[6 + PK_STATS_NQ] = s / P;
  res[7 + PK_STATS_NQ] = PKQuantileSorted(P, cp, 0.5);
  for (PetscInt j = 0; j < PK_STATS_NQ; j++) res[8 + PK_STATS_NQ + j] = PKQuantileSorted(P, t, (j + 0.5) / PK_STATS_NQ);
  PetscFunctionReturn(0);
}

/* This rank's record of column k: a row, or (k = K, K + 1) the reductions of set-up and finish */
static void PKStatsRecord(PKMonitorCtx *c, PetscInt k, PetscReal *x)
{
  const PetscInt K = c->n, np = c->nctr;
  const PKRow   *row;

  for (PetscInt i = 0; i < NREC(np); i++) x[i] = 0;
  if (k < K) {
    row  = &c->rows[k];
    x[0] = row->t1 - PKRowStart(c, k);
    x[1] = row->ph[PK_PHASE_SPMV] + row->ph[PK_PHASE_PC] + row->ph[PK_PHASE_VEC];
    for (int j = 0; j < PK_PHASE_N; j++) x[2 + j] = row->ph[j];
    for (PetscInt j = 0; j < np; j++) x[2 + PK_PHASE_N + j] = (PetscReal)PKRowCounter(c, k, j);
  } else row = k == K ? &c->setup_red : &c->finish_red;
  x[2 + PK_PHASE_N + np]     = row->red_n;
  x[2 + PK_PHASE_N + np + 1] = row->red_tests;
  x[2 + PK_PHASE_N + np + 2] = (PetscReal)(row->red_mask & 0xffffffffULL);
  x[2 + PK_PHASE_N + np + 3] = (PetscReal)(row->red_mask >> 32);
}

/* The transpose under way: records out, columns in, results to rank 0 */
typedef struct {
  PetscInt    C, nrec, nres, mine;
  PetscMPIInt rank, size, *scnt, *sdsp, *rcnt, *rdsp;
  PetscReal  *send, *recv, *res, *all, *work;
  MPI_Request req;
} PKStatsT;

/* First column of rank q's block */
static inline PetscInt PKStatsLo(const PKStatsT *T, PetscMPIInt q)
{
  return (PetscInt)(((PetscInt64)T->C * q) / T->size);
}
#define LO(q) PKStatsLo(T, q)

/* Under SimGrid's simulator (PK_SMPI) the two synchronisations are blocking collectives: its non-blocking ones post
   every message at once (an MPI_Iallreduce sends P - 1 per rank), P^2 concurrent flows whose sharing its network
   model solves at every event: 30 of the 43 s of wall time of a 5-iteration solve at 128 simulated ranks, against
   its structured blocking algorithms. Natively the all-to-all carries the allreduce (one synchronisation for both). */
#if defined(PK_SMPI)
  #define PK_STATS_BLOCKING 1
#else
  #define PK_STATS_BLOCKING 0
#endif

/* Post the all-to-all of the records */
static PetscErrorCode PKStatsTransposeBegin(MPI_Comm comm, PKMonitorCtx *c, PKStatsT *T)
{
  const PetscInt K = c->n;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(T, sizeof(*T)));
  PetscCallMPI(MPI_Comm_rank(comm, &T->rank));
  PetscCallMPI(MPI_Comm_size(comm, &T->size));
  T->C    = K + 2;
  T->nrec = NREC(c->nctr);
  T->nres = NRES(c->nctr);
  T->mine = LO(T->rank + 1) - LO(T->rank);
  PetscCheck((PetscInt64)T->C * T->nres < PETSC_MPI_INT_MAX && (PetscInt64)(T->C / T->size + 1) * T->size * T->nrec < PETSC_MPI_INT_MAX, comm, PETSC_ERR_SUP, "Too many iterations (%" PetscInt_FMT ") for the monitor's statistics", K);
  PetscCall(PetscMalloc4(T->size, &T->scnt, T->size, &T->sdsp, T->size, &T->rcnt, T->size, &T->rdsp));
  PetscCall(PetscMalloc4(T->C * T->nrec, &T->send, T->mine * T->size * T->nrec + 1, &T->recv, T->mine * T->nres + 1, &T->res, 2 * T->size, &T->work));
  for (PetscInt k = 0; k < T->C; k++) PKStatsRecord(c, k, T->send + k * T->nrec);
  for (PetscMPIInt q = 0; q < T->size; q++) {
    T->scnt[q] = (PetscMPIInt)(T->nrec * (LO(q + 1) - LO(q)));
    T->sdsp[q] = (PetscMPIInt)(T->nrec * LO(q));
    T->rcnt[q] = (PetscMPIInt)(T->nrec * T->mine);
    T->rdsp[q] = (PetscMPIInt)(T->nrec * T->mine * q);
  }
  T->req = MPI_REQUEST_NULL;
  if (PK_STATS_BLOCKING) PetscCallMPI(MPI_Alltoallv(T->send, T->scnt, T->sdsp, MPIU_REAL, T->recv, T->rcnt, T->rdsp, MPIU_REAL, comm));
  else PetscCallMPI(MPI_Ialltoallv(T->send, T->scnt, T->sdsp, MPIU_REAL, T->recv, T->rcnt, T->rdsp, MPIU_REAL, comm, &T->req));
  PetscFunctionReturn(0);
}

/* The records are in (T->req completed): reduce this rank's columns and post their gather to rank 0 */
static PetscErrorCode PKStatsTransposeReduce(MPI_Comm comm, PetscInt np, PKStatsT *T)
{
  PetscFunctionBegin;
  /* column j of this rank's block, as recorded by rank q, is at recv + (q mine + j) nrec */
  for (PetscInt j = 0; j < T->mine; j++) PetscCall(PKStatsColumn(T->size, np, T->recv + j * T->nrec, T->mine * T->nrec, T->work, T->work + T->size, T->res + j * T->nres));
  for (PetscMPIInt q = 0; q < T->size; q++) {
    T->rcnt[q] = (PetscMPIInt)(T->nres * (LO(q + 1) - LO(q)));
    T->rdsp[q] = (PetscMPIInt)(T->nres * LO(q));
  }
  if (!T->rank) PetscCall(PetscMalloc1(T->C * T->nres, &T->all));
  T->req = MPI_REQUEST_NULL;
  if (PK_STATS_BLOCKING) PetscCallMPI(MPI_Gatherv(T->res, (PetscMPIInt)(T->nres * T->mine), MPIU_REAL, T->all, T->rcnt, T->rdsp, MPIU_REAL, 0, comm));
  else PetscCallMPI(MPI_Igatherv(T->res, (PetscMPIInt)(T->nres * T->mine), MPIU_REAL, T->all, T->rcnt, T->rdsp, MPIU_REAL, 0, comm, &T->req));
  PetscFunctionReturn(0);
}

#undef LO

/* Complete the gather; rank 0 unpacks the results into S */
static PetscErrorCode PKStatsTransposeEnd(PKStatsT *T, PetscInt np, PKStats *S)
{
  const PetscInt K = T->C - 2, nres = T->nres;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Wait(&T->req, MPI_STATUS_IGNORE));
  PetscCall(PetscFree4(T->send, T->recv, T->res, T->work));
  PetscCall(PetscFree4(T->scnt, T->sdsp, T->rcnt, T->rdsp));
  if (T->rank) PetscFunctionReturn(0);
  if (K) {
    PetscCall(PetscMalloc4(K, &S->tmin, K, &S->tmax, K, &S->tmean, K, &S->tvar));
    PetscCall(PetscMalloc1(K * PK_STATS_NQ, &S->tq));
    PetscCall(PetscMalloc4(K, &S->cmin, K, &S->cmax, K, &S->cmean, K, &S->cmedian));
    PetscCall(PetscMalloc1(K * PK_STATS_NQ, &S->pooled));
    PetscCall(PetscMalloc2(K * PK_PHASE_N, &S->phase_mean, K * PK_PHASE_N, &S->phase_max));
    PetscCall(PetscMalloc2(K, &S->itred, K, &S->itearly));
    if (np) PetscCall(PetscMalloc2(K * np, &S->papi_mean, K * np, &S->papi_max));
    S->npooled = K * PK_STATS_NQ;
  }
  for (PetscInt k = 0; k < T->C; k++) {
    const PetscReal *r = T->all + k * nres;
    S->nreductions += (PetscInt)r[nres - 3];
    S->nearly += (PetscInt)r[nres - 2];
    S->ntests += (PetscInt)r[nres - 1];
    if (k >= K) continue;
    S->tmin[k]  = r[0];
    S->tmax[k]  = r[1];
    S->tmean[k] = r[2];
    S->tvar[k]  = r[3];
    PetscCall(PetscArraycpy(S->tq + k * PK_STATS_NQ, r + 4, PK_STATS_NQ));
    S->cmin[k]    = r[4 + PK_STATS_NQ];
    S->cmax[k]    = r[5 + PK_STATS_NQ];
    S->cmean[k]   = r[6 + PK_STATS_NQ];
    S->cmedian[k] = r[7 + PK_STATS_NQ];
    PetscCall(PetscArraycpy(S->pooled + k * PK_STATS_NQ, r + 8 + PK_STATS_NQ, PK_STATS_NQ));
    PetscCall(PetscArraycpy(S->phase_mean + k * PK_PHASE_N, r + NR, PK_PHASE_N));
    PetscCall(PetscArraycpy(S->phase_max + k * PK_PHASE_N, r + NR + PK_PHASE_N, PK_PHASE_N));
    if (np) {
      PetscCall(PetscArraycpy(S->papi_mean + k * np, r + NR + 2 * PK_PHASE_N, np));
      PetscCall(PetscArraycpy(S->papi_max + k * np, r + NR + 2 * PK_PHASE_N + np, np));
    }
    S->itred[k]   = (PetscInt)r[nres - 3];
    S->itearly[k] = (PetscInt)r[nres - 2];
  }
  PetscCall(PetscFree(T->all));
  PetscFunctionReturn(0);
}

/*
   Series of rank 0, the fastest and the slowest rank (total iteration time; MAXLOC picks the lowest rank of a tie),
   and another rank on the slowest's node (else the fastest's, else rank 0's), for the KS tests between ranks and
   within a node. The choice is made alike on every rank from the node table; the series go to rank 0.
*/
static PetscErrorCode PKStatsSelect(MPI_Comm comm, PKMonitorCtx *c, PKStats *S, PetscMPIInt fastest, PetscMPIInt slowest)
{
  const PetscInt K = c->n;
  PetscMPIInt    rank, size, cand[4] = {0, fastest, slowest, -1};
  PetscInt       nsel = 0;
  PetscReal     *t;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (int j = 2; j >= 0 && cand[3] < 0; j--)
    for (PetscMPIInt r = 0; r < size && cand[3] < 0; r++)
      if (c->rank_node[r] == c->rank_node[cand[j]] && r != cand[0] && r != cand[1] && r != cand[2]) cand[3] = r;
  for (int j = 0; j < 4; j++) {
    PetscBool dup = (PetscBool)(cand[j] < 0);
    for (PetscInt i = 0; i < nsel; i++) dup = (PetscBool)(dup || cand[j] == cand[i]);
    if (!dup) cand[nsel++] = cand[j];
  }
  S->nsel = nsel;
  PetscCall(PetscMalloc1(K + 1, &t));
  for (PetscInt k = 0; k < K; k++) t[k] = c->rows[k].t1 - PKRowStart(c, k);
  if (rank) {
    for (PetscInt j = 1; j < nsel; j++)
      if (cand[j] == rank && K) PetscCallMPI(MPI_Send(t, (PetscMPIInt)K, MPIU_REAL, 0, c->tag, comm));
  } else {
    PetscCall(PetscMalloc3(nsel, &S->sel, nsel, &S->sel_node, nsel * K, &S->series));
    for (PetscInt j = 0; j < nsel; j++) {
      S->sel[j]      = cand[j];
      S->sel_node[j] = c->rank_node[cand[j]];
      if (!K) continue;
      if (!cand[j]) PetscCall(PetscArraycpy(S->series + j * K, t, K));
      else PetscCallMPI(MPI_Recv(S->series + j * K, (PetscMPIInt)K, MPIU_REAL, cand[j], c->tag, comm, MPI_STATUS_IGNORE));
    }
  }
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

PetscErrorCode PKStatsCompute(MPI_Comm comm, PKMonitorCtx *c)
{
  PKStats       *S = &c->stats;
  const PetscInt K = c->n;
  PetscMPIInt    rank, size;
  PetscLogDouble last = PKRowStart(c, K);
  struct {
    double v;
    int    r;
  } in[10], out[10];
  MPI_Request req[2];
  PKStatsT    T;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PKStatsDestroy(S));
  in[0].v = c->tend - c->tbegin;
  in[1].v = c->trow0 - c->tbegin;
  in[2].v = c->tend - last;
  in[3].v = -c->realbegin;
  in[4].v = (double)K;
  in[5].v = -(double)K;
  in[6].v = last - c->trow0;      /* total iteration time: the slowest rank */
  in[7].v = c->trow0 - last;      /* the fastest */
  in[8].v = c->tbegin - c->trow0; /* the shortest set-up: the last rank to enter waits for nobody in it */
  in[9].v = c->realbegin;         /* the last entry */
  for (int i = 0; i < 10; i++) in[i].r = rank;
  /* two synchronisations: the allreduce travels with the all-to-all, the selected series with the gather */
  req[0] = MPI_REQUEST_NULL;
  if (PK_STATS_BLOCKING) PetscCallMPI(MPI_Allreduce(in, out, 10, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  else PetscCallMPI(MPI_Iallreduce(in, out, 10, MPI_DOUBLE_INT, MPI_MAXLOC, comm, &req[0]));
  PetscCall(PKStatsTransposeBegin(comm, c, &T));
  req[1] = T.req;
  PetscCallMPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  PetscCheck(out[4].v == -out[5].v, comm, PETSC_ERR_PLIB, "Recorder: the ranks recorded different iteration counts (%g to %g)", -out[5].v, out[4].v);
  c->t_enter     = c->realbegin + out[3].v;
  S->solve       = c->solve;
  S->nits        = K;
  S->nranks      = size;
  S->nnodes      = c->nnodes;
  S->ppn         = c->ppn;
  S->solve_time  = out[0].v;
  S->setup_time  = out[1].v;
  S->finish_time = out[2].v;
  /* the arrival: the last entry minus the first by the clock, bounded by the longest set-up minus the shortest (the
     first rank's wait for the last; clock-free, but it also holds set-up imbalance), so that clocks that disagree
     across nodes cannot make it larger than what the set-ups show */
  S->arrival       = size > 1 ? PetscMax(0, PetscMin(out[9].v + out[3].v, out[1].v + out[8].v)) : 0;
  S->arrival_clock = size > 1 ? PetscMax(0, out[9].v + out[3].v) : 0;
  S->test_timed    = c->rec.hot.test_timed;
  S->test_time     = (PetscReal)c->rec.hot.test_time;
  S->post_timed    = c->rec.hot.post_timed;
  S->post_time     = (PetscReal)c->rec.hot.post_time;
  S->npapi         = c->nctr;
  S->papi_names    = c->nctr ? c->papi_names : NULL;
  PetscCall(PKStatsTransposeReduce(comm, c->nctr, &T));
  PetscCall(PKStatsSelect(comm, c, S, out[7].r, out[6].r));
  PetscCall(PKStatsTransposeEnd(&T, c->nctr, S));
  PetscFunctionReturn(0);
}
