/*
   Section "analytic model" of the report (000 section 5, 004): its inputs from what the run measured
   (models/measured.c: the per-application SpMV and PC times, the vector time, the share of the SpMV that hid its
   halo exchange), the synchronization gap from the per-iteration compute times, the overlap from the reductions
   complete before their wait; the model evaluated on rank 0 and printed term by term with its source and status.
*/
#include "report.h"
#include <petsc/private/kspimpl.h>

/* The synchronization gap per iteration, by the blocking rule (median) and the non-blocking one (first quartile), from
   the compute per iteration (SpMV, PC and vector phases: PETSc's blocking reductions are reduce, src/perf/hooks.c) */
static PetscErrorCode PKSecAnalyticSync(const PKStats *S, PetscReal raw[2])
{
  PetscInt K = S->nits;

  PetscFunctionBegin;
  raw[0] = raw[1] = 0;
  if (K <= 0) PetscFunctionReturn(0);
  PetscCall(PKModelSyncPenalty(K, S->cmax, K, S->cmedian, PETSC_FALSE, &raw[0]));
  PetscCall(PKModelSyncPenalty(K, S->cmax, K, S->cmedian, PETSC_TRUE, &raw[1]));
  PetscFunctionReturn(0);
}

/* The progress calls: what one MPI_Test costs (as this run timed every 7th call, else the profile's at the run's
   locality: a call between pieces of a solve's work costs more than back to back) and how long a polled
   reduction takes (the profile's per-round values, times the rounds), the calls per non-blocking reduction this run
   made; their time is
   taken out of the measured compute it was charged to (the activities inside the overlap windows, in proportion),
   so that the tests term carries it alone and the other solvers' what-ifs get their own */
static PetscErrorCode PKSecAnalyticProgress(const PKStats *S, const PKSecRun *run, const PKSecHalo *halo, PKMeasuredTimes *t, PKSolveInput *in)
{
  const PKLocality loc    = S->nnodes > 1 ? PK_OFF_NODE : PK_ON_NODE;
  const PKLayout   layout = {PetscMax(1, S->nranks), PetscMax(1, S->nnodes), PetscMax(1, S->ppn)};
  PetscReal        tests, win = 0;

  PetscFunctionBegin;
  in->t_test    = run->t_test > 0 ? run->t_test : run->eff.test_time[loc];  /* as timed in this run, else the profile's */
  in->t_post    = run->t_post >= 0 ? run->t_post : run->eff.post_time[loc]; /* the same for posting a reduction */
  in->t_poll    = PKModelPollTime(&run->eff, &layout);
  in->tests_red = -1;
  in->t_recv    = run->eff.recv_time[loc]; /* the profile's, unless this run polled (below) */
  if (!(S->nreductions > 0) || !(S->nranks > 1) || !(in->t_test > 0)) PetscFunctionReturn(0);
  in->tests_red = (PetscReal)S->ntests / S->nranks / S->nreductions; /* ntests is summed over the ranks */
  tests         = (PetscReal)S->ntests / S->nranks * in->t_test;     /* per rank, over the solve */
  if (halo->have) {                                                  /* what receiving a message cost in this run's calls (it polled; the halo's messages known) */
    PetscReal r = PKModelRecvFromTests(&in->solver, &layout, PKCommCostMessages(&halo->cost), S->nits, (PetscReal)S->ntests / S->nranks, in->t_test, run->eff.test_idle[loc]);
    if (r > 0) in->t_recv = r;
  }
  win = run->win[PK_PHASE_SPMV] + run->win[PK_PHASE_PC] + run->win[PK_PHASE_VEC];
  if (!(win > 0) || !(tests > 0)) PetscFunctionReturn(0);
  /* never below a tenth of what was measured: a test cost calibrated elsewhere may exceed what this run spent */
  if (run->nspmv > 0) t->t_spmv = PetscMax(0.1 * t->t_spmv, t->t_spmv - tests * run->win[PK_PHASE_SPMV] / win / run->nspmv);
  if (run->npc > 0) t->t_pc = PetscMax(0.1 * t->t_pc, t->t_pc - tests * run->win[PK_PHASE_PC] / win / run->npc);
  if (S->nits > 0) t->t_vec = PetscMax(0.1 * t->t_vec, t->t_vec - tests * run->win[PK_PHASE_VEC] / win / S->nits);
  PetscFunctionReturn(0);
}

/* Rank 0: the model's inputs from the measurements, and the model */
PetscErrorCode PKSecAnalyticModel(const PKSolveRecord *rec, const PKSecRun *run, const PKSecNet *net, const PKSecHalo *halo, PKSecAnalytic *a)
{
  const PKStats  *S  = rec->stats;
  PKSolveInput   *in = &a->in;
  PKMeasured      m;
  PKMeasuredTimes t;
  PKSolverShape   sh;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(a, sizeof(*a)));
  in->solver       = run->config;
  in->K            = S->nits;
  in->layout.P     = S->nranks;
  in->layout.nodes = S->nnodes;
  in->layout.ppn   = S->ppn;
  in->rows         = run->rows_sum / S->nranks; /* the mean rank's, as work[] */
  in->pc_diagonal  = run->pc_diagonal;
  /* measured times per application, the vector time per iteration */
  PetscCall(PetscMemzero(&m, sizeof(m)));
  PetscCall(PKSolverShapeGet(&run->config, 0, &sh));
  m.K      = S->nits;
  m.nspmv  = run->nspmv;
  m.npc    = run->npc;
  m.nranks = S->nranks;
  /* PETSc's blocking VecDot and VecNorm hold their MPI_Allreduce, which PETSc does not log apart: the hooks charge
     them to the reduce phase whole, and their local sums are priced back into cg's and gmres' vector work: what the
     reduce phase held beyond the modelled MPI (the cycle's allreduces and the synchronization gap), between their
     streams at the vector phase's rate and at the profile's memory bandwidth */
  m.streams     = PKSolverStreams(&run->config);
  m.red_streams = PKSolverReduceStreams(&run->config);
  PetscCall(PKSecAnalyticSync(S, a->sync_raw));
  if (m.red_streams > 0 && S->nranks > 1 && S->nits > 0) {
    const PKLayout layout = {S->nranks, S->nnodes, S->ppn};
    PetscCall(PKModelBlockingMPI(&run->eff, &run->config, &layout, &net->net, S->nits, a->sync_raw[0], &m.red_mpi));
    m.red_mem = run->eff.mem_bw > 0 ? S->nits * m.red_streams * in->rows * sizeof(PetscScalar) / run->eff.mem_bw : 0;
    m.red_cal = PetscMax(0, S->nits * PKModelVecWork(&run->eff, run->config.kind, in->pc_diagonal, in->rows) - run->work[PK_PHASE_VEC]);
  }
  m.pc_fused      = run->config.pc_fused;
  m.pc_is_jacobi  = run->pc_is_jacobi;
  m.init_pc       = sh.init_pc;
  m.pc_per_cycle  = sh.npc;
  m.its_per_cycle = sh.its;
  for (int j = 0; j < PK_PHASE_N; j++) m.work[j] = run->work[j];
  m.first[0] = run->first[0];
  m.first[1] = run->first[1];
  PetscCall(PKModelTimesFromMeasured(&m, &t));
  PetscCall(PKSecAnalyticProgress(S, run, halo, &t, in));
  in->t_spmv          = t.t_spmv;
  in->t_pc            = t.t_pc;
  in->t_vec           = t.t_vec;
  a->vec_modelled     = t.vec_modelled;
  a->pc_time_modelled = t.pc_modelled;
  in->t_init          = -1; /* modelled from the solver's start-up shape */
  in->t_once          = run->once[0] + run->once[1];
  in->at_max_it       = (PetscBool)(run->reason == KSP_DIVERGED_ITS);
  in->t_arrival       = run->arrival;
  in->net             = net->net; /* the allreduces' hops and the counters' congestion (sec_net.c) */
  in->ranks_per_core  = run->ranks_per_core;
  in->t_cpu           = run->t_cpu;
  in->theta           = run->theta_counts;
  /* the halo: the slowest rank's exchange, and how much of it the SpMV's own rows hid (the rest was waited for) */
  in->halo       = halo->cost;
  in->halo_theta = halo->have ? PKModelHaloHiddenShare(in->halo.total, halo->wait, in->t_spmv) : 0;
  in->sync[0]    = S->nits > 0 ? a->sync_raw[0] : -1; /* -1: no iteration, no gap measured */
  in->sync[1]    = S->nits > 0 ? a->sync_raw[1] : -1;
  PetscCall(PKModelSolve(&run->eff, in, &a->model));
  if (in->halo_theta > 0) a->model.status[PK_TERM_HALO_OVERLAP] = PK_TERM_MEASURED; /* from the measured halo wait */
  PetscFunctionReturn(0);
}

/* The analytic model, term by term, with the halo's lines */
PetscErrorCode PKSecAnalyticView(PetscViewer v, KSP ksp, const PKStats *S, const PKSecRun *run, const PKSecNet *net, const PKSecHalo *halo, const PKSecAnalytic *a)
{
  const PKSolveInput  *in = &a->in;
  const PKModelResult *m  = &a->model;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  PetscCall(PetscViewerASCIIPrintf(v, "  analytic model (%-7s pattern)                     seconds        %%  source         status\n", PKSolverKindNames[run->config.kind]));
  for (int t = 0; t < PK_TERM_N; t++) {
    /* every term, those that do not arise here with the reason */
    if (m->status[t] == PK_TERM_NOT_APPLICABLE && m->t[t] == 0) {
      PetscCall(PetscViewerASCIIPrintf(v, "    %-45s %9s %7s %-14s n/a: %s\n", PKTermInfos[t].label, "-", "", PKTermInfos[t].source, m->na_why[t] ? m->na_why[t] : "-"));
      continue;
    }
    PetscCall(PetscViewerASCIIPrintf(v, "    %-45s %9.2e %6.1f%% %-14s %s\n", PKTermInfos[t].label, (double)m->t[t], (double)PKPct(m->t[t], m->total), PKTermInfos[t].source, PKTermStatusNames[m->status[t]]));
  }
  PetscCall(PetscViewerASCIIPrintf(v, "    %-45s %9.2e %6.1f%%\n", "total", (double)m->total, 100.0));
  PetscCall(PetscViewerASCIIPrintf(v, "    gap to the measured KSPSolve: %+.1f%% (model %.4e s, measured %.4e s)\n", (double)PKGap(m->total, run->measured), (double)m->total, (double)run->measured));
  PetscCall(PetscViewerASCIIPrintf(v, "    per iteration: SpMV %.2e s x %.3g, PC %.2e s x %.3g, vector work %.2e s%s\n", (double)in->t_spmv, (double)(S->nits ? (PetscReal)run->nspmv / S->nits : 0), (double)in->t_pc, (double)(S->nits ? (PetscReal)run->npc / S->nits : 0),
                                   (double)in->t_vec, a->vec_modelled ? " (modelled)" : ""));
  if (in->t_once > 0.01 * m->total)
    PetscCall(PetscViewerASCIIPrintf(v, "    (the first SpMV and PC took %.2e s and %.2e s more than the others: their set-up, in the\n      start-up%s)\n", (double)run->once[0], (double)run->once[1], run->pc_is_jacobi ? "; jacobi finds its diagonal in its first application" : ""));
  if (a->vec_modelled)
    PetscCall(PetscViewerASCIIPrintf(v, "    (PETSc logs a VecDot or VecNorm with its allreduce, measured as reduce: their local sums,\n      %.3g of the %.3g vector streams, are the reduce time beyond the modelled allreduces and\n      synchronization gap, at least their streams at the rest's time per stream, at most at the\n      profile's memory bandwidth)\n",
                                     (double)PKSolverReduceStreams(&run->config), (double)PKSolverStreams(&run->config)));
  if (run->config.pc_fused) {
    PC          pc;
    const char *pctype;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PetscObjectGetType((PetscObject)pc, &pctype));
    PetscCall(PetscViewerASCIIPrintf(v, "    the %s preconditioner is applied inside the fused vector pass: its cost is in the\n      vector work; only the %" PetscInt_FMT " applications outside it are charged as PC%s\n", pctype, run->npc, a->pc_time_modelled ? "\n      (other solvers' PCApply modelled as vector streams)" : ""));
  }
  PetscCall(PKSecHaloView(v, S, halo, in));
  PetscCall(PKSecNetView(v, S, run, net));
  {
    PKSolverShape shape;
    PetscReal     f = 0;
    PetscInt      rule;
    PetscBool     q1;
    PetscCall(PKSolverShapeGet(&run->config, 1, &shape));
    PetscCall(PKSolverSyncRule(&run->config, &shape, &rule)); /* the rule the model charged */
    q1 = (PetscBool)(rule == 1);
    PetscCall(PetscViewerASCIIPrintf(v, "    synchronization gap %.2e s per iteration = %s_k(max_p C_pk) - median_pk(C_pk) (000 5.8)\n", (double)(q1 ? a->sync_raw[1] : a->sync_raw[0]), q1 ? "Q1" : "median"));
    if (shape.nonblocking && !q1) PetscCall(PetscViewerASCIIPrintf(v, "      (the median's rule: a reduction whose window holds no SpMV meets it)\n"));
    if (shape.nonblocking && in->layout.P > 1) PetscCall(PKModelSyncHaloShare(&in->halo, in->layout.P, &f));
    if (f > 0) /* whatever this run's gap: the line's presence depends on the halo and the profile alone */
      PetscCall(PetscViewerASCIIPrintf(v, "    its halo's sends wait for late neighbours (above sync_limit): %.2e s an iteration (%.2f of the median\n      rule's %.2e s) that the reductions' overlap does not hide\n", (double)(f * PetscMax(0, a->sync_raw[0])), (double)f, (double)PetscMax(0, a->sync_raw[0])));
  }
  if (in->theta >= 0) PetscCall(PetscViewerASCIIPrintf(v, "    overlap theta %.2f (the fraction of reductions complete before their wait)\n", (double)in->theta));
  if (in->ranks_per_core > 1) PetscCall(PetscViewerASCIIPrintf(v, "    %.3g ranks share each core: every iteration's compute runs %.3g times on a core\n", (double)in->ranks_per_core, (double)in->ranks_per_core));
  PetscFunctionReturn(0);
}

/* ::ascii_info: the model's total and gap, and the stochastic model's E[T], E[T'] */
PetscErrorCode PKSecAnalyticViewShort(PetscViewer v, const PKSecRun *run, const PKSecAnalytic *a, const PKSecStoch *st)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "  analytic model %.4e s (gap %+.1f%%)", (double)a->model.total, (double)PKGap(a->model.total, run->measured)));
  if (st->have) PetscCall(PetscViewerASCIIPrintf(v, "; stochastic E[T] %.4e s, E[T'] %.4e s (iterations)", (double)st->r.ET, (double)st->r.ETp));
  PetscCall(PetscViewerASCIIPrintf(v, "\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecAnalyticCSV(PetscViewer v, const PKSecRun *run, const PKSecAnalytic *a)
{
  PetscFunctionBegin;
  for (int t = 0; t < PK_TERM_N; t++) PetscCall(PetscViewerASCIIPrintf(v, "analytic,%s,%.9e,s,%s\n", PKTermInfos[t].name, (double)a->model.t[t], PKTermStatusNames[a->model.status[t]]));
  PetscCall(PetscViewerASCIIPrintf(v, "analytic,total,%.9e,s,modelled\nanalytic,gap,%.4f,%%,\n", (double)a->model.total, (double)PKGap(a->model.total, run->measured)));
  PetscFunctionReturn(0);
}
