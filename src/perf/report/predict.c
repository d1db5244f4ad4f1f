/*
   The model before the solve: the time per iteration of each of a list of solver types on this KSP's operator and
   preconditioner, on this machine, before any iteration has run (what -ksp_type autocg chooses from). The inputs a
   report takes from a recorded solve are measured here on the spot, briefly, on every rank (the slowest rank's
   counts): the local SpMV (the operator's diagonal and off-diagonal blocks, no halo), the whole MatMult (the
   difference is the halo wait it exposes), one preconditioner application and one vector stream (VecAXPY / 3: the
   vector work where the profile has not each type's calibrated, PKModelVecWork); the
   halo from the operator's scatter and the ranks' nodes; the reductions, their overlap and the progress calls from
   the machine profile (docs/models.md). The synchronization gap from the same samples, as a report takes it from a
   solve's iterations: each sample of the local compute (SpMV, PC, stream) is an iteration's compute on that rank.
   What a solve would measure and this does not: the ranks' arrival, and the fraction of reductions that complete
   early (the polled-progress model).
*/
#include "report.h"
#include <petsc/private/kspimpl.h>
#include <petsc/private/pcimpl.h>

/* The whole MatMult: the smaller of two timed applications after one untimed one, started together */
#define PK_PREDICT_REPEATS 3
/* The local compute (SpMV, PC, stream): PK_PREDICT_SAMPLES timed after one untimed, the median kept, each sample one
   iteration's compute for the synchronization gap (its median over samples needs a few: 11 put it at the 6th) */
#define PK_PREDICT_SAMPLES 11

/* times on this rank: t[] of one local SpMV (no halo), one MatMult, one PC application and one vector stream (the
   median of the samples; the MatMult the smaller of its repeats), c[] the compute (SpMV + PC + stream's AXPY) of
   each sample */
static PetscErrorCode PKPredictTimes(KSP ksp, Mat A, PetscBool pc_ok, PetscReal t[4], PetscReal c[PK_PREDICT_SAMPLES])
{
  PetscReal       s[3][PK_PREDICT_SAMPLES];
  Vec             x, y, xl = NULL, yl = NULL, lv = NULL;
  Mat             Ad = NULL, Ao = NULL;
  const PetscInt *colmap;
  PetscBool       mpiaij, seqaij;
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  for (int k = 0; k < 4; k++) t[k] = PETSC_MAX_REAL;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  if (mpiaij) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &colmap));
    PetscCall(MatCreateVecs(Ad, &xl, &yl));
    PetscCall(MatCreateVecs(Ao, &lv, NULL));
    PetscCall(VecSet(xl, 1.0));
    PetscCall(VecSet(lv, 1.0));
  }
  for (int r = 0; r <= PK_PREDICT_SAMPLES; r++) { /* r = 0: untimed */
    PetscLogDouble ts, tp, ta;
    /* the local compute: the diagonal block, then the off-diagonal one on the ghost values, as MatMult does */
    PetscCall(PetscTime(&t0));
    if (mpiaij) {
      PetscCall(MatMult(Ad, xl, yl));
      PetscCall(MatMultAdd(Ao, lv, yl, yl));
    } else if (seqaij) PetscCall(MatMult(A, x, y));
    PetscCall(PetscTime(&t1));
    ts = t1 - t0;
    /* the whole product, started together on every rank */
    if (r < PK_PREDICT_REPEATS || !(mpiaij || seqaij)) {
      PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)ksp)));
      PetscCall(PetscTime(&t0));
      PetscCall(MatMult(A, x, y));
      PetscCall(PetscTime(&t1));
      if (r) t[1] = PetscMin(t[1], (PetscReal)(t1 - t0));
      if (!(mpiaij || seqaij)) ts = t1 - t0; /* another matrix type: its product as a whole, halo included */
    }
    PetscCall(PetscTime(&t0));
    if (pc_ok) PetscCall(PCApply(ksp->pc, y, x));
    PetscCall(PetscTime(&t1));
    tp = t1 - t0;
    PetscCall(VecSet(x, 1.0));
    PetscCall(PetscTime(&t0));
    PetscCall(VecAXPY(y, 0.5, x));
    PetscCall(PetscTime(&t1));
    ta = t1 - t0;
    if (r) {
      s[0][r - 1] = (PetscReal)ts;
      s[1][r - 1] = (PetscReal)tp;
      s[2][r - 1] = (PetscReal)ta / 3; /* AXPY: read x and y, write y */
      c[r - 1]    = (PetscReal)(ts + tp + ta);
    }
  }
  for (int k = 0; k < 3; k++) {
    PetscCall(PetscSortReal(PK_PREDICT_SAMPLES, s[k]));
    t[k == 0 ? 0 : k + 1] = PKQuantileSorted(PK_PREDICT_SAMPLES, s[k], 0.5);
  }
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&yl));
  PetscCall(VecDestroy(&lv));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

/* The synchronization gap per iteration from every rank's compute samples c[] (as a report's from its iterations,
   000 5.8): gap[0] = median_k(max_p c_pk) - median_pk(c_pk), the blocking rule; gap[1] the first quartile's, the
   non-blocking one. The same on every rank. */
static PetscErrorCode PKPredictGap(MPI_Comm comm, const PetscReal c[PK_PREDICT_SAMPLES], PetscReal gap[2])
{
  PetscMPIInt size, rank;
  PetscReal  *all = NULL, cmax[PK_PREDICT_SAMPLES], cmed[PK_PREDICT_SAMPLES], *col = NULL;

  PetscFunctionBegin;
  gap[0] = gap[1] = 0;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (size == 1) PetscFunctionReturn(0);
  if (rank == 0) PetscCall(PetscMalloc2((size_t)size * PK_PREDICT_SAMPLES, &all, size, &col));
  PetscCallMPI(MPI_Gather(c, PK_PREDICT_SAMPLES, MPIU_REAL, all, PK_PREDICT_SAMPLES, MPIU_REAL, 0, comm));
  if (rank == 0) {
    for (PetscInt k = 0; k < PK_PREDICT_SAMPLES; k++) { /* sample k over the ranks: its largest and its median */
      for (PetscMPIInt q = 0; q < size; q++) col[q] = all[(size_t)q * PK_PREDICT_SAMPLES + k];
      PetscCall(PetscSortReal(size, col));
      cmax[k] = col[size - 1];
      cmed[k] = PKQuantileSorted(size, col, 0.5);
    }
    PetscCall(PKModelSyncPenalty(PK_PREDICT_SAMPLES, cmax, PK_PREDICT_SAMPLES, cmed, PETSC_FALSE, &gap[0]));
    PetscCall(PKModelSyncPenalty(PK_PREDICT_SAMPLES, cmax, PK_PREDICT_SAMPLES, cmed, PETSC_TRUE, &gap[1]));
    PetscCall(PetscFree2(all, col));
  }
  PetscCallMPI(MPI_Bcast(gap, 2, MPIU_REAL, 0, comm));
  PetscFunctionReturn(0);
}

/*
   PKReportPredict - per-iteration times the model predicts for n solver configurations (cfg[]) on this KSP's
   operator and preconditioner (set up here), on the machine of `model` (its profile, loaded if need be). The inputs
   and the predictions go to *p, the same on every rank. Collective.
*/
PetscErrorCode PKReportPredict(KSP ksp, PKModelCtx *model, PKReportCtx *rep, PetscInt n, const PKSolverConfig cfg[], PKPrediction *p)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt     size, rank, nnodes, *rank_node = NULL, *dst = NULL, ppn = 0;
  PetscInt        nmsg = 0;
  PetscReal       t[4], tsum[4], tmax[4], c[PK_PREDICT_SAMPLES], *bytes = NULL;
  PKLocality     *loc   = NULL;
  PetscBool       known = PETSC_FALSE;
  Mat             A;
  PKMachineParams eff;
  PKMachineGaps   gaps;
  PKSolveInput    in;
  PKCommCost      mine, slowest;

  PetscFunctionBegin;
  PetscCheck(n >= 0 && n <= PK_PREDICT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " configurations to predict: at most %d", n, PK_PREDICT_MAX);
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PKReportLoadMachine(comm, model));
  PetscCall(PKMachineEffective(&model->machine, &eff, &gaps));
  PetscCall(PetscStrncpy(p->origin, model->machine.origin, sizeof(p->origin)));
  /* the ranks' nodes: ranks per node of the fullest node */
  PetscCall(PKCommGetNodes(comm, PETSC_DETERMINE, &nnodes, &rank_node));
  PetscCall(PKNodesGetSizes(size, nnodes, rank_node, NULL, &ppn));
  p->P     = size;
  p->nodes = nnodes;
  p->ppn   = ppn;
  /* the times, on the slowest rank */
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(PCSetUp(ksp->pc));
  {
    /* a preconditioner that failed to set up is not applied here: the solve reports DIVERGED_PC_FAILED itself */
    PCFailedReason why;
    PetscBool      ok;
    PetscCall(PKPCGetFailedReasonRank(ksp->pc, &why));
    ok = (PetscBool)(why == PC_NOERROR);
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, comm));
    PetscCall(PKPredictTimes(ksp, A, ok, t, c));
  }
  /* the compute as a report takes it from a solve, the mean over the ranks (their spread is the gap); the whole
     MatMult the slowest rank's (its excess over the local SpMV is the halo's exposed wait) */
  PetscCallMPI(MPI_Allreduce(t, tsum, 4, MPIU_REAL, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(t, tmax, 4, MPIU_REAL, MPI_MAX, comm));
  p->t_spmv   = tsum[0] / size;
  p->t_matmul = tmax[1];
  p->t_pc     = tsum[2] / size;
  p->t_stream = tsum[3] / size;
  PetscCall(PKPredictGap(comm, c, p->sync));
  /* the halo */
  PetscCall(PetscMemzero(&slowest, sizeof(slowest)));
  if (size > 1) {
    PetscCall(PKReportHaloMessages(ksp, rep, rank_node, &known, &nmsg, &dst, &bytes, &loc));
    if (known) {
      PKHaloPattern pat;
      PetscCall(PetscMemzero(&pat, sizeof(pat)));
      pat.n         = nmsg;
      pat.bytes     = bytes;
      pat.loc       = loc;
      pat.ppn       = ppn;
      pat.pipelined = PETSC_TRUE;
      PetscCall(PKReportHaloSlowest(comm, &eff, &pat, NULL, &mine, &slowest));
    }
    PetscCall(PetscFree3(dst, bytes, loc));
  }
  PetscCall(PetscFree(rank_node));
  p->halo       = slowest.total;
  p->halo_known = (PetscBool)(size == 1 || known);
  /* the model's input, as a report builds it from a solve (sec_analytic.c), of the first configuration; each
     configuration then as that report's what-if for another type */
  PetscCall(PetscMemzero(&in, sizeof(in)));
  in.K            = 100;
  in.layout.P     = size;
  in.layout.nodes = nnodes;
  in.layout.ppn   = ppn;
  in.t_spmv       = p->t_spmv;
  in.t_pc         = p->t_pc;
  in.t_init       = -1;
  in.t_arrival    = -1; /* before any solve: nothing measured */
  in.halo         = slowest;
  in.halo_theta   = PKModelHaloHiddenShare(slowest.total, PetscMax(0, p->t_matmul - p->t_spmv), p->t_spmv);
  in.sync[0]      = p->sync[0];
  in.sync[1]      = p->sync[1];
  in.theta        = -1;
  in.t_test       = eff.test_time[nnodes > 1 ? PK_OFF_NODE : PK_ON_NODE];
  in.t_post       = eff.post_time[nnodes > 1 ? PK_OFF_NODE : PK_ON_NODE];
  in.t_poll       = PKModelPollTime(&eff, &in.layout);
  in.tests_red    = -1;
  {
    PetscInt N;
    PetscCall(MatGetSize(A, &N, NULL));
    in.rows = (PetscReal)N / size; /* the mean rank's, as a report's */
  }
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp->pc, &in.pc_diagonal, PCJACOBI, PCNONE, ""));
  PetscCall(PKReportRanksPerCore(comm, &in.ranks_per_core));
  in.t_cpu = -1;
  for (PetscInt i = 0; i < n; i++) {
    PKModelResult res;
    if (i == 0) { /* the first type's vector work as calibrated on this machine where the profile has it, else its
                     streams at the stream timed here (one AXPY: no fused pass, no dot) */
      PetscReal cal = PKModelVecWork(&eff, cfg[0].kind, in.pc_diagonal, in.rows);
      in.solver     = cfg[0];
      in.t_vec      = cal > 0 ? cal : p->t_stream * PKSolverStreams(&cfg[0]);
    }
    PetscCall(PKModelWhatIfSolver(&eff, &in, &cfg[i], &res));
    p->per_iteration[i] = res.per_iteration;
    p->init[i]          = res.t[PK_TERM_INIT];
  }
  p->n = n;
  PetscFunctionReturn(0);
}
