/*
   Cross-rank statistics of a solve (PKStats), collective over the KSP's communicator, at the end of KSPSolve.

   Order statistics (quantiles, medians) are exact, and no rank holds ranks x iterations: the (time, compute) pairs
   of every rank and iteration are transposed in blocks of iterations with one MPI_Alltoallv. Rank r receives the
   full column of P values of iterations [r K / P, (r + 1) K / P), i.e. about 2K values when K >= P and 2P when
   K < P, sorts each column and reduces it to NR numbers; rank 0 gathers K x NR numbers. This is exact where a
   histogram or sketch between the global min and max would be off by up to (max - min) / bins, at a cost of one
   all-to-all of 2K doubles per rank at the end of the solve.

   Everything else is a sum or a max (MPI_Reduce of K x (phases + counters) values to rank 0), a bitwise AND of the
   reductions' early flags, or point-to-point for the few selected ranks' series.
*/
#include <pipekrylov/private/pkperfimpl.h>

#define NR (8 + 2 * PK_STATS_NQ) /* per iteration: tmin tmax tmean tvar tq[NQ] cmin cmax cmean cmedian pooled[NQ] */

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

/* Nodes: -ksp_perf_node_size k, else MPI_COMM_TYPE_SHARED (node index = order of the nodes' lowest ranks) */
PetscErrorCode PKStatsLayout(MPI_Comm comm, PKPerfCtx *c)
{
  PetscMPIInt rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (c->node_size > 0) {
    c->node   = rank / c->node_size;
    c->nnodes = (size + c->node_size - 1) / c->node_size;
    c->ppn    = PetscMin(c->node_size, size);
  } else {
    MPI_Comm    sh;
    PetscMPIInt shrank, shsize, leader, idx = 0, nn, mx;

    PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &sh));
    PetscCallMPI(MPI_Comm_rank(sh, &shrank));
    PetscCallMPI(MPI_Comm_size(sh, &shsize));
    leader = shrank == 0;
    PetscCallMPI(MPI_Exscan(&leader, &idx, 1, MPI_INT, MPI_SUM, comm));
    if (!rank) idx = 0; /* MPI_Exscan leaves rank 0's result undefined */
    PetscCallMPI(MPI_Bcast(&idx, 1, MPI_INT, 0, sh));
    PetscCallMPI(MPI_Allreduce(&leader, &nn, 1, MPI_INT, MPI_SUM, comm));
    PetscCallMPI(MPI_Allreduce(&shsize, &mx, 1, MPI_INT, MPI_MAX, comm));
    PetscCallMPI(MPI_Comm_free(&sh));
    c->node   = idx;
    c->nnodes = nn;
    c->ppn    = mx;
  }
  PetscCall(PetscCommGetNewTag(comm, &c->tag));
  c->layout_done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Level q of sorted x[0..n): linear interpolation between order statistics (numpy's default) */
static PetscReal PKQuantile(const PetscReal *x, PetscInt n, PetscReal q)
{
  PetscReal h  = q * (PetscReal)(n - 1);
  PetscInt  lo = (PetscInt)PetscFloorReal(h);

  if (lo >= n - 1) return x[n - 1];
  if (lo < 0) return x[0];
  return x[lo] + (h - (PetscReal)lo) * (x[lo + 1] - x[lo]);
}

/* The NR results of one iteration from the P (time, compute) pairs of its column */
static PetscErrorCode PKStatsColumn(PetscInt P, PetscReal *t, PetscReal *cp, PetscReal *res)
{
  PetscReal s = 0, v = 0;

  PetscFunctionBegin;
  PetscCall(PetscSortReal(P, t));
  PetscCall(PetscSortReal(P, cp));
  for (PetscInt i = 0; i < P; i++) s += t[i];
  s /= P;
  for (PetscInt i = 0; i < P; i++) v += (t[i] - s) * (t[i] - s);
  res[0] = t[0];
  res[1] = t[P - 1];
  res[2] = s;
  res[3] = v / P;
  for (PetscInt j = 0; j < PK_STATS_NQ; j++) res[4 + j] = PKQuantile(t, P, (PetscReal)j / (PK_STATS_NQ - 1));
  s = 0;
  for (PetscInt i = 0; i < P; i++) s += cp[i];
  res[4 + PK_STATS_NQ]     = cp[0];
  res[5 + PK_STATS_NQ]     = cp[P - 1];
  res[6 + PK_STATS_NQ]     = s / P;
  res[7 + PK_STATS_NQ]     = PKQuantile(cp, P, 0.5);
  for (PetscInt j = 0; j < PK_STATS_NQ; j++) res[8 + PK_STATS_NQ + j] = PKQuantile(t, P, (j + 0.5) / PK_STATS_NQ);
  PetscFunctionReturn(0);
}

/* Per-iteration order statistics by the transpose described above; results into S on rank 0 */
static PetscErrorCode PKStatsOrder(MPI_Comm comm, PKStats *S, PetscInt K, const PetscReal *t, const PetscReal *cp)
{
  PetscMPIInt rank, size, *scnt, *sdsp, *rcnt, *rdsp;
  PetscInt    mine, lo0;
  PetscReal  *send, *recv, *res, *all = NULL, *col;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
#define LO(q) ((PetscInt)(((PetscInt64)K * (q)) / size))
  lo0  = LO(rank);
  mine = LO(rank + 1) - lo0;
  PetscCall(PetscMalloc4(size, &scnt, size, &sdsp, size, &rcnt, size, &rdsp));
  PetscCall(PetscMalloc3(2 * K, &send, 2 * mine * size + 1, &recv, NR * mine + 1, &res));
  for (PetscInt k = 0; k < K; k++) {
    send[2 * k]     = t[k];
    send[2 * k + 1] = cp[k];
  }
  for (PetscMPIInt q = 0; q < size; q++) {
    scnt[q] = (PetscMPIInt)(2 * (LO(q + 1) - LO(q)));
    sdsp[q] = (PetscMPIInt)(2 * LO(q));
    rcnt[q] = (PetscMPIInt)(2 * mine);
    rdsp[q] = (PetscMPIInt)(2 * mine * q);
  }
  PetscCallMPI(MPI_Alltoallv(send, scnt, sdsp, MPIU_REAL, recv, rcnt, rdsp, MPIU_REAL, comm));
  PetscCall(PetscMalloc1(2 * size, &col));
  for (PetscInt j = 0; j < mine; j++) {
    for (PetscMPIInt q = 0; q < size; q++) {
      col[q]        = recv[2 * mine * q + 2 * j];
      col[size + q] = recv[2 * mine * q + 2 * j + 1];
    }
    PetscCall(PKStatsColumn(size, col, col + size, res + NR * j));
  }
  PetscCall(PetscFree(col));
  for (PetscMPIInt q = 0; q < size; q++) {
    rcnt[q] = (PetscMPIInt)(NR * (LO(q + 1) - LO(q)));
    rdsp[q] = (PetscMPIInt)(NR * LO(q));
  }
#undef LO
  if (!rank) PetscCall(PetscMalloc1(NR * K, &all));
  PetscCallMPI(MPI_Gatherv(res, (PetscMPIInt)(NR * mine), MPIU_REAL, all, rcnt, rdsp, MPIU_REAL, 0, comm));
  if (!rank) {
    PetscCall(PetscMalloc4(K, &S->tmin, K, &S->tmax, K, &S->tmean, K, &S->tvar));
    PetscCall(PetscMalloc1(K * PK_STATS_NQ, &S->tq));
    PetscCall(PetscMalloc4(K, &S->cmin, K, &S->cmax, K, &S->cmean, K, &S->cmedian));
    PetscCall(PetscMalloc1(K * PK_STATS_NQ, &S->pooled));
    for (PetscInt k = 0; k < K; k++) {
      const PetscReal *r = all + NR * k;
      S->tmin[k]         = r[0];
      S->tmax[k]         = r[1];
      S->tmean[k]        = r[2];
      S->tvar[k]         = r[3];
      PetscCall(PetscArraycpy(S->tq + k * PK_STATS_NQ, r + 4, PK_STATS_NQ));
      S->cmin[k]    = r[4 + PK_STATS_NQ];
      S->cmax[k]    = r[5 + PK_STATS_NQ];
      S->cmean[k]   = r[6 + PK_STATS_NQ];
      S->cmedian[k] = r[7 + PK_STATS_NQ];
      PetscCall(PetscArraycpy(S->pooled + k * PK_STATS_NQ, r + 8 + PK_STATS_NQ, PK_STATS_NQ));
    }
    S->npooled = K * PK_STATS_NQ;
    PetscCall(PetscSortReal(S->npooled, S->pooled));
    PetscCall(PetscFree(all));
  }
  PetscCall(PetscFree3(send, recv, res));
  PetscCall(PetscFree4(scnt, sdsp, rcnt, rdsp));
  PetscFunctionReturn(0);
}

/* Reductions: per row (and set-up, finish) how many, early on every rank (AND of the masks), MPI_Test calls */
static PetscErrorCode PKStatsReductions(MPI_Comm comm, PKPerfCtx *c, PKStats *S)
{
  PetscInt            K = c->n;
  PetscMPIInt         rank;
  unsigned long long *mask, *gmask = NULL;
  int                *cnt, *gcnt = NULL; /* [2][K+2]: reductions, MPI_Test calls */

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc2(K + 2, &mask, 2 * (K + 2), &cnt));
  for (PetscInt k = 0; k < K + 2; k++) {
    const PKRow *row = k < K ? &c->rows[k] : (k == K ? &c->setup_red : &c->finish_red);
    mask[k]          = row->red_mask;
    cnt[k]           = row->red_n;
    cnt[K + 2 + k]   = row->red_tests;
  }
  if (!rank) PetscCall(PetscMalloc2(K + 2, &gmask, 2 * (K + 2), &gcnt));
  PetscCallMPI(MPI_Reduce(mask, gmask, (PetscMPIInt)(K + 2), MPI_UNSIGNED_LONG_LONG, MPI_BAND, 0, comm));
  PetscCallMPI(MPI_Reduce(cnt, gcnt, (PetscMPIInt)(K + 2), MPI_INT, MPI_MAX, 0, comm));
  PetscCallMPI(MPI_Reduce(cnt + K + 2, gcnt ? gcnt + K + 2 : NULL, (PetscMPIInt)(K + 2), MPI_INT, MPI_SUM, 0, comm));
  if (!rank) {
    PetscCall(PetscMalloc2(K, &S->itred, K, &S->itearly));
    for (PetscInt k = 0; k < K + 2; k++) {
      int                n  = gcnt[k];
      unsigned long long m  = n >= 64 ? gmask[k] : gmask[k] & ((1ULL << n) - 1);
      int                ne = __builtin_popcountll(m);
      if (k < K) {
        S->itred[k]   = n;
        S->itearly[k] = ne;
      }
      S->nreductions += n;
      S->nearly += ne;
      S->ntests += gcnt[K + 2 + k];
    }
    PetscCall(PetscFree2(gmask, gcnt));
  }
  PetscCall(PetscFree2(mask, cnt));
  PetscFunctionReturn(0);
}

/* Series of rank 0, the fastest and the slowest rank (total iteration time), and another rank on the slowest's
   node (else the fastest's, else rank 0's), for the KS tests between ranks and within a node */
static PetscErrorCode PKStatsSelect(MPI_Comm comm, PKPerfCtx *c, PKStats *S, const PetscReal *t)
{
  PetscInt    K = c->n, nsel = 0;
  PetscMPIInt rank, size, cand[4], cnode[4], in3[3], comp[3], self = -1;
  struct {
    double v;
    int    r;
  } in[2], out[2];
  PetscReal total = K ? c->rows[K - 1].t1 - c->trow0 : 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  in[0].v = total;
  in[1].v = -total;
  in[0].r = in[1].r = rank;
  PetscCallMPI(MPI_Allreduce(in, out, 2, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  cand[0] = 0;
  cand[1] = out[1].r;
  cand[2] = out[0].r;
  for (int j = 0; j < 3; j++) in3[j] = rank == cand[j] ? (PetscMPIInt)c->node : -1;
  PetscCallMPI(MPI_Allreduce(in3, cnode, 3, MPI_INT, MPI_MAX, comm));
  /* comp[j]: the lowest other rank on the node of cand[2 - j] */
  for (int j = 0; j < 3; j++) in3[j] = (c->node == cnode[2 - j] && rank != cand[0] && rank != cand[1] && rank != cand[2]) ? rank : size;
  PetscCallMPI(MPI_Allreduce(in3, comp, 3, MPI_INT, MPI_MIN, comm));
  cand[3] = -1;
  for (int j = 0; j < 3 && cand[3] < 0; j++)
    if (comp[j] < size) {
      cand[3]  = comp[j];
      cnode[3] = cnode[2 - j];
    }
  for (int j = 0; j < 4; j++) {
    PetscBool dup = (PetscBool)(cand[j] < 0);
    for (PetscInt i = 0; i < nsel; i++) dup = (PetscBool)(dup || cand[j] == cand[i]);
    if (dup) continue;
    cand[nsel]  = cand[j];
    cnode[nsel] = cnode[j];
    if (cand[j] == rank) self = (PetscMPIInt)nsel;
    nsel++;
  }
  S->nsel = nsel;
  if (rank) {
    if (self > 0 && K) PetscCallMPI(MPI_Send(t, (PetscMPIInt)K, MPIU_REAL, 0, c->tag, comm));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc3(nsel, &S->sel, nsel, &S->sel_node, nsel * K, &S->series));
  for (PetscInt j = 0; j < nsel; j++) {
    S->sel[j]      = cand[j];
    S->sel_node[j] = cnode[j];
    if (!K) continue;
    if (cand[j] == 0) PetscCall(PetscArraycpy(S->series + j * K, t, K));
    else PetscCallMPI(MPI_Recv(S->series + j * K, (PetscMPIInt)K, MPIU_REAL, cand[j], c->tag, comm, MPI_STATUS_IGNORE));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKStatsCompute(MPI_Comm comm, PKPerfCtx *c)
{
  PKStats    *S = &c->stats;
  PetscInt    K = c->n, np = c->nctr, nc = PK_PHASE_N + np;
  PetscMPIInt rank, size;
  PetscReal   loc[6], glob[6], *t, *cp, *v, *vsum = NULL, *vmax = NULL;
  PetscLogDouble last = K ? c->rows[K - 1].t1 : c->trow0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PKStatsDestroy(S));
  loc[0] = c->tend - c->tbegin;
  loc[1] = c->trow0 - c->tbegin;
  loc[2] = c->tend - last;
  loc[3] = -c->realbegin;
  loc[4] = (PetscReal)K;
  loc[5] = -(PetscReal)K;
  PetscCallMPI(MPI_Allreduce(loc, glob, 6, MPIU_REAL, MPI_MAX, comm));
  PetscCheck(glob[4] == -glob[5], comm, PETSC_ERR_PLIB, "Recorder: the ranks recorded different iteration counts (%g to %g)", (double)-glob[5], (double)glob[4]);
  c->t_enter     = c->realbegin + glob[3];
  S->solve       = c->solve;
  S->nits        = K;
  S->nranks      = size;
  S->nnodes      = c->nnodes;
  S->ppn         = c->ppn;
  S->solve_time  = glob[0];
  S->setup_time  = glob[1];
  S->finish_time = glob[2];
  S->npapi       = np;
  S->papi_names  = np ? PKPapiNames() : NULL;
  PetscCall(PKStatsReductions(comm, c, S));

  /* local series: iteration time, compute, and phases + counter differences per row */
  PetscCall(PetscMalloc3(K + 1, &t, K + 1, &cp, K * nc + 1, &v));
  for (PetscInt k = 0; k < K; k++) {
    const PKRow *row = &c->rows[k];
    t[k]             = row->t1 - (k ? c->rows[k - 1].t1 : c->trow0);
    cp[k]            = row->ph[PK_PHASE_SPMV] + row->ph[PK_PHASE_PC] + row->ph[PK_PHASE_VEC];
    for (int j = 0; j < PK_PHASE_N; j++) v[k * nc + j] = row->ph[j];
    for (int j = 0; j < np; j++) v[k * nc + PK_PHASE_N + j] = (PetscReal)(c->ctr[k * np + j] - (k ? c->ctr[(k - 1) * np + j] : c->ctr_row0[j]));
  }
  if (K) {
    if (!rank) PetscCall(PetscMalloc2(K * nc, &vsum, K * nc, &vmax));
    PetscCallMPI(MPI_Reduce(v, vsum, (PetscMPIInt)(K * nc), MPIU_REAL, MPI_SUM, 0, comm));
    PetscCallMPI(MPI_Reduce(v, vmax, (PetscMPIInt)(K * nc), MPIU_REAL, MPI_MAX, 0, comm));
    if (!rank) {
      PetscCall(PetscMalloc2(K * PK_PHASE_N, &S->phase_mean, K * PK_PHASE_N, &S->phase_max));
      if (np) PetscCall(PetscMalloc2(K * np, &S->papi_mean, K * np, &S->papi_max));
      for (PetscInt k = 0; k < K; k++) {
        for (int j = 0; j < PK_PHASE_N; j++) {
          S->phase_mean[k * PK_PHASE_N + j] = vsum[k * nc + j] / size;
          S->phase_max[k * PK_PHASE_N + j]  = vmax[k * nc + j];
        }
        for (int j = 0; j < np; j++) {
          S->papi_mean[k * np + j] = vsum[k * nc + PK_PHASE_N + j] / size;
          S->papi_max[k * np + j]  = vmax[k * nc + PK_PHASE_N + j];
        }
      }
      PetscCall(PetscFree2(vsum, vmax));
    }
    PetscCall(PKStatsOrder(comm, S, K, t, cp));
  }
  PetscCall(PKStatsSelect(comm, c, S, t));
  PetscCall(PetscFree3(t, cp, v));
  PetscFunctionReturn(0);
}
