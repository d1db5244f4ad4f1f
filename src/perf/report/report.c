/*
   The end-of-solve report of -ksp_perfmodel_view [viewer], printed on rank 0 through a PETSc viewer:
   measured KSPSolve time and phases; the analytic model's total and every term (seconds, per cent, source, status);
   the stochastic model's predictions with the bounds and the KS tests between ranks; the gap of each model to the
   measurement; the measured overlap; what would help most, ranked by predicted time (the other solvers, full
   overlap); what-if predictions for larger rank counts; the AMG cycle model for hypre BoomerAMG; where every
   machine parameter came from.

   Formats: the default fits a 100-column terminal; ::ascii_info is a short summary; ::ascii_info_detail adds the
   whole machine profile and the AMG levels; ::ascii_csv prints "section,name,value,unit,status" lines for scripts.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <pipekrylov/private/pkprofile.h>

#define PK_RULE "  ----------------------------------------------------------------------------------------------\n"

static PetscReal PKPct(PetscReal a, PetscReal b)
{
  return b > 0 ? 100.0 * a / b : 0.0;
}

/* Relative gap of a prediction to the measurement, in per cent (positive: the model predicts more time) */
static PetscReal PKGap(PetscReal model, PetscReal measured)
{
  return measured > 0 ? 100.0 * (model - measured) / measured : 0.0;
}

typedef struct {
  char      what[96];
  PetscReal t;
} PKAdvice;

static int PKAdviceCmp(const void *a, const void *b)
{
  PetscReal x = ((const PKAdvice *)a)->t, y = ((const PKAdvice *)b)->t;
  return x < y ? -1 : x > y;
}

/* Ranked list of changes with a predicted time: other solvers, full overlap */
static PetscInt PKReportAdvice(const PKReportData *d, PKAdvice adv[], PetscInt nmax)
{
  PetscInt n = 0;

  for (PetscInt i = 0; i < d->wi_nsolver && n < nmax; i++) {
    if (d->wi_iters_differ[i]) continue; /* another method family: its iteration count is not this run's */
    PetscSNPrintf(adv[n].what, sizeof(adv[n].what), "-ksp_type %s", PKSolverKindNames[d->wi_kind[i]]);
    adv[n++].t = d->wi_solver[i].total;
  }
  if (d->have_chunks_full && n < nmax) {
    PetscSNPrintf(adv[n].what, sizeof(adv[n].what), "full overlap of the reductions (more -ksp_pipe_chunks)");
    adv[n++].t = d->chunks_full.total;
  }
  if (d->have_place && n < nmax) {
    PetscSNPrintf(adv[n].what, sizeof(adv[n].what), "%s", d->place_what);
    adv[n++].t = PetscMax(0, d->model.total - d->nspmv * d->place_saving);
  }
  qsort(adv, (size_t)n, sizeof(PKAdvice), PKAdviceCmp);
  return n;
}

/* The term of the model that costs most (communication and penalties, not the measured compute) */
static PetscInt PKLargestOverhead(const PKModelResult *r)
{
  PetscInt best = -1;

  for (PetscInt t = PK_TERM_HALO_POSTAL; t < PK_TERM_N; t++)
    if (r->t[t] > 0 && (best < 0 || r->t[t] > r->t[best])) best = t;
  return best;
}

/* One plain-language hint per term of the model (every term has one: the report prints it under "largest
   overhead"; at most 96 characters, the report's lines are at most 100 columns) */
static const char *PKHint(const PKReportData *d, PetscInt term)
{
  switch (term) {
  case PK_TERM_SPMV:
    return "the SpMV's own compute: more ranks for this problem, or a matrix format with less memory traffic";
  case PK_TERM_PC:
    return "the preconditioner's own compute: a cheaper one, if the iteration count allows";
  case PK_TERM_VEC:
    return "vector work: pipekrylov's types fuse their vector operations into fewer passes over memory";
  case PK_TERM_ALLR_COMM:
  case PK_TERM_ALLR_LOCAL:
  case PK_TERM_ALLR_HOPS:
  case PK_TERM_ALLR_CONGESTION:
    return d->in.theta >= 0 ? "overlap the reductions better (more -ksp_pipe_chunks) or use pipe2cg" : "a pipelined solver (pipecg, pipe2cg, pgmres) hides the reductions";
  case PK_TERM_SYNC:
    return "ranks wait for the slowest: non-blocking solvers (nbpcg, pipecg, pipe2cg) synchronize less";
  case PK_TERM_HALO_MAXRATE:
  case PK_TERM_HALO_CONTENTION:
  case PK_TERM_HALO_QUEUE:
  case PK_TERM_HALO_POSTAL:
  case PK_TERM_HALO_HOPS:
  case PK_TERM_HALO_CONGESTION:
    return "fewer off-node neighbours (node-aware process placement) or more rows per rank";
  case PK_TERM_HALO_PIPELINE:
  case PK_TERM_HALO_OVERLAP:
  case PK_TERM_OVERLAP:
    return "a credit: time the solver already hides behind other work";
  case PK_TERM_INIT:
    return "it is paid once per solve and matters only for short solves";
  case PK_TERM_OVERSUB:
    return "at most one rank per core (fewer ranks, or more cores): ranks sharing a core take turns";
  default:
    return "see the analytic model above";
  }
}

static PetscErrorCode PKReportCSV(PetscViewer v, const PKStats *S, const PKReportData *d)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "section,name,value,unit,status\n"));
  PetscCall(PetscViewerASCIIPrintf(v, "machine,profile,%s,,%s\n", d->machine_is_default ? "embedded default" : "file", d->machine_is_default ? "no profile for this host: run pipekrylov-calibrate" : "profile"));
  if (d->onnode_default[0]) PetscCall(PetscViewerASCIIPrintf(v, "machine,onnode_communication,embedded default,,not in the profile\n"));
  PetscCall(PetscViewerASCIIPrintf(v, "run,type,%s,,%s\nrun,solve,%" PetscInt_FMT ",,\nrun,ranks,%d,,\nrun,nodes,%" PetscInt_FMT ",,\nrun,iterations,%" PetscInt_FMT ",,\n", d->type, d->ours ? "pipekrylov" : "petsc", S->solve, S->nranks, S->nnodes, S->nits));
  if (d->have_halo) /* the operator's actual scatter, one SpMV: sums over ranks, and the most one rank posts */
    PetscCall(PetscViewerASCIIPrintf(v, "halo,onnode_msgs_total,%.0f,messages,measured\nhalo,offnode_msgs_total,%.0f,messages,measured\nhalo,onnode_bytes_total,%.0f,bytes,measured\nhalo,offnode_bytes_total,%.0f,bytes,measured\nhalo,max_msgs_per_rank,%" PetscInt_FMT ",messages,measured\n", (double)d->halo_total_msgs[PK_ON_NODE], (double)d->halo_total_msgs[PK_OFF_NODE], (double)d->halo_total_bytes[PK_ON_NODE], (double)d->halo_total_bytes[PK_OFF_NODE], d->halo_max_posted));
  PetscCall(PetscViewerASCIIPrintf(v, "measured,ksp_solve,%.9e,s,measured\nmeasured,setup,%.9e,s,measured\nmeasured,finish,%.9e,s,measured\n", (double)d->measured, (double)S->setup_time, (double)S->finish_time));
  for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, "measured,phase.%s,%.9e,s,measured\n", PKPhaseNames[j], (double)d->phase[j]));
  /* time by activity, work done inside the overlap windows included (its MPI_Test calls under "overlap"): what the
     windows were filled with (bin/pipekrylov-plot --figure overlap draws it) */
  for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, "measured,work.%s,%.9e,s,measured\n", PKPhaseNames[j], (double)d->work[j]));
  /* the part of it done inside the windows, measured at the marks (their sum is the time charged to the windows, set-up
     and finish included) */
  for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, "measured,window.%s,%.9e,s,measured\n", PKPhaseNames[j], (double)d->win[j]));
  PetscCall(PetscViewerASCIIPrintf(v, "measured,reductions.nonblocking,%" PetscInt_FMT ",,measured\nmeasured,reductions.early,%" PetscInt_FMT ",,measured\n", S->nreductions, S->nearly));
  if (d->config.kind != PK_SOLVER_UNKNOWN) {
    for (int t = 0; t < PK_TERM_N; t++) PetscCall(PetscViewerASCIIPrintf(v, "analytic,%s,%.9e,s,%s\n", PKTermInfos[t].name, (double)d->model.t[t], PKTermStatusNames[d->model.status[t]]));
    PetscCall(PetscViewerASCIIPrintf(v, "analytic,total,%.9e,s,modelled\nanalytic,gap,%.4f,%%,\n", (double)d->model.total, (double)PKGap(d->model.total, d->measured)));
    for (PetscInt i = 0; i < d->wi_nsolver; i++) {
      if (d->wi_iters_differ[i]) PetscCall(PetscViewerASCIIPrintf(v, "whatif.solver_per_iteration,%s,%.9e,s,iterations differ\n", PKSolverKindNames[d->wi_kind[i]], (double)d->wi_solver[i].per_iteration));
      else PetscCall(PetscViewerASCIIPrintf(v, "whatif.solver,%s,%.9e,s,modelled\n", PKSolverKindNames[d->wi_kind[i]], (double)d->wi_solver[i].total));
    }
    if (d->wi_ranks_refused) PetscCall(PetscViewerASCIIPrintf(v, "whatif.ranks,refused,,,no off-node parameters in the profile\n"));
    else
      for (int w = 0; w < PK_WHATIF_RANKS; w++) PetscCall(PetscViewerASCIIPrintf(v, "whatif.ranks,%" PetscInt_FMT ",%.9e,s,modelled\n", d->wi_P[w], (double)d->wi_ranks[w].total));
  }
  if (d->have_stoch) {
    PetscCall(PetscViewerASCIIPrintf(v, "stochastic,ET,%.9e,s,modelled\nstochastic,ETprime,%.9e,s,modelled\nstochastic,EThat,%.9e,s,modelled\nstochastic,ETprimehat,%.9e,s,modelled\n", (double)d->stoch.ET, (double)d->stoch.ETp, (double)d->stoch.EThat, (double)d->stoch.ETphat));
    PetscCall(PetscViewerASCIIPrintf(v, "stochastic,sim_ET,%.9e,s,modelled\nstochastic,sim_ETprime,%.9e,s,modelled\nstochastic,cramer,%.9e,s,bound\nstochastic,bertsimas,%.9e,s,bound\nstochastic,measured_iterations,%.9e,s,measured\n", (double)d->stoch.sim_ET, (double)d->stoch.sim_ETp, (double)d->stoch.cramer, (double)d->stoch.bertsimas, (double)d->rows_time));
  }
  PetscCall(PKReportNoiseCSV(v, S, d));
  if (d->have_amg) PetscCall(PetscViewerASCIIPrintf(v, "amg,cycle,%.9e,s,modelled\namg,pc_apply,%.9e,s,measured\n", (double)d->amg.total, (double)d->amg_measured));
  /* last: a reader tells a complete report from one cut short (a full disk, a copy interrupted) */
  PetscCall(PetscViewerASCIIPrintf(v, "end,report,1,,complete\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKReportMachineLines(PetscViewer v, PKPerfCtx *c, const PKReportData *d, PetscBool detail)
{
  const PKMachine *m = &c->model.machine;

  PetscFunctionBegin;
  {
    /* the origin can be long (the default says where it was measured): wrap it at 96 columns */
    const char *s = m->origin;
    size_t      len = strlen(s), first = 1;
    while (len) {
      size_t n = len;
      if (n > (first ? 78 : 92)) {
        n = first ? 78 : 92;
        while (n > 20 && s[n] != ' ') n--;
      }
      PetscCall(PetscViewerASCIIPrintf(v, "%s%.*s\n", first ? "  machine profile: " : "    ", (int)n, s));
      s += n;
      len -= n;
      while (len && *s == ' ') s++, len--;
      first = 0;
    }
  }
  if (d->onnode_default[0]) PetscCall(PetscViewerASCIIPrintf(v, "    NO ON-NODE COMMUNICATION PARAMETERS IN THE PROFILE (calibrated on one rank?): the embedded default's used:\n      %s\n", d->onnode_default));
  if (d->offnode_substituted) PetscCall(PetscViewerASCIIPrintf(v, "    no off-node parameters in the profile: on-node values used for off-node messages\n"));
  else if (d->offnode_filled[0]) PetscCall(PetscViewerASCIIPrintf(v, "    not in the profile, the on-node value used off node: %s\n", d->offnode_filled));
  PetscCall(PetscViewerASCIIPrintf(v, "    topology unknown (hops penalty 0); no congestion counters (congestion penalty not measured)\n"));
  if (detail) {
    PetscCall(PKMachineView(m, v));
  } else {
    /* the parameters this report used most, with their provenance */
    static const char *keys[] = {"alpha_on_short", "beta_on_short", "alpha_off_short", "beta_off_short", "Rb_off", "RN", "gamma", "delta", "allreduce_alpha_on", "allreduce_alpha_off", "mem_bw", NULL};
    for (PetscInt k = 0; keys[k]; k++) {
      PetscInt      i;
      const char   *key;
      PetscReal     val;
      PKParamSource src;
      if (PKMachineFieldIndex(keys[k], &i) || i < 0) continue;
      PetscCall(PKMachineGetField(m, i, &key, &val, &src));
      PetscCall(PetscViewerASCIIPrintf(v, "    %-22s %-12.4g %-8s [%s]\n", key, (double)val, PKMachineFields[i].unit, PKMachineSourceName(src)));
    }
    PetscCall(PetscViewerASCIIPrintf(v, "    (-ksp_perfmodel_view ::ascii_info_detail lists every parameter)\n"));
  }
  PetscFunctionReturn(0);
}

/* The report of the solve that just ended, to -ksp_perfmodel_view's viewer; c is the KSP's perf context (the monitor
   calls it with its own: the report never looks the context up) */
PetscErrorCode PKPerfReport(KSP ksp, PKPerfCtx *c)
{
  const PKStats     *S   = &c->mon.stats;
  PetscViewer        v   = c->report.viewer;
  PetscViewerFormat  fmt = c->report.format;
  PetscBool          iascii;
  PetscMPIInt        rank;
  PKReportData      *d;
  KSPConvergedReason reason;
  PKAdvice           adv[PK_WHATIF_SOLVERS + 2];
  PetscInt           nadv, big, nfam;
  PetscBool          model;
  char               nnz[32] = "unknown";

  PetscFunctionBegin;
  if (!v) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &iascii));
  PetscCheck(iascii, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "-ksp_perfmodel_view supports ASCII viewers (stdout, ascii:file, with ::ascii_info, ::ascii_info_detail or ::ascii_csv)");
  PetscCall(PetscNew(&d));
  PetscCall(PKReportGather(ksp, c, S, d));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  model = (PetscBool)(d->config.kind != PK_SOLVER_UNKNOWN);
  if (rank) goto done; /* everything below prints on rank 0 only, where the per-iteration statistics are */
  PetscCall(PetscViewerPushFormat(v, fmt));
  if (fmt == PETSC_VIEWER_ASCII_CSV) {
    PetscCall(PKReportCSV(v, S, d));
    PetscCall(PetscViewerPopFormat(v));
    goto done;
  }
  PetscCall(PetscViewerASCIIPrintf(v, "pipekrylov performance report: KSP %s (%s), solve %" PetscInt_FMT "\n", d->type, d->ours ? "pipekrylov" : "PETSc", S->solve));
  if (d->machine_is_default) {
    char host[256], path[PETSC_MAX_PATH_LEN], cmd[PETSC_MAX_PATH_LEN + 64];
    PetscCall(PKMachineHostName(host, sizeof(host)));
    PetscCall(PKMachineCachePath(path, sizeof(path), NULL, 0));
    PetscCall(PKCalibrateCommand(S->ppn, cmd, sizeof(cmd)));
    /* the host name (node and processor) is as long as the processor's name: it goes on a line of its own, so
       that the fixed text stays within 100 columns whatever the machine */
    PetscCall(PetscViewerASCIIPrintf(v, "  NO MACHINE PROFILE FOR THIS HOST: the model uses the embedded default, measured on another\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "  machine. Make this host's profile (about 20 s, or 3 s with -quick; reports then use it):\n    %s\n", cmd));
    PetscCall(PetscViewerASCIIPrintf(v, "  (profiles are per host and processor; this one is %s)\n", host));
    if (!path[0]) PetscCall(PetscViewerASCIIPrintf(v, "  (neither XDG_CACHE_HOME nor HOME is set: write it with -o file and use -ksp_perfmodel_machine file)\n"));
  }
  if (d->nnz_global < 0) PetscCall(PetscViewerASCIIPrintf(v, "  the operator is matrix-free: its nonzeros and halo are unknown, so are the terms built on them\n"));
  if (d->nnz_global >= 0) PetscCall(PetscSNPrintf(nnz, sizeof(nnz), "%" PetscInt_FMT, d->nnz_global));
  PetscCall(PetscViewerASCIIPrintf(v, "  %" PetscInt_FMT " rows, %s nonzeros; %d ranks on %" PetscInt_FMT " node(s), up to %" PetscInt_FMT " per node; %" PetscInt_FMT " iterations, %s\n", d->nrows_global, nnz, S->nranks, S->nnodes, S->ppn, S->nits, KSPConvergedReasons[reason]));
  if (PKPapiUnavailable()[0]) PetscCall(PetscViewerASCIIPrintf(v, "  no PAPI counters on this machine: %.60s (-ksp_view lists them)\n", PKPapiUnavailableReason()));
  PetscCall(PetscViewerASCIIPrintf(v, "  measured KSPSolve %.4e s (slowest rank): set-up %.2e s,\n    iterations %.4e s, finish %.2e s\n", (double)d->measured, (double)S->setup_time, (double)d->rows_time, (double)S->finish_time));
  {
    PetscReal tot = 0;
    for (int j = 0; j < PK_PHASE_N; j++) tot += d->phase[j];
    PetscCall(PetscViewerASCIIPrintf(v, "    phases (mean over ranks):"));
    for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, " %s %.0f%%", PKPhaseNames[j], (double)PKPct(d->phase[j], tot)));
    PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    if (d->phase[PK_PHASE_OVERLAP] > 0) { /* the overlap window hides what was done in it: show that too */
      tot = 0;
      for (int j = 0; j < PK_PHASE_N; j++) tot += d->work[j];
      PetscCall(PetscViewerASCIIPrintf(v, "    by activity, in overlap too:"));
      for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, " %s %.0f%%", j == PK_PHASE_OVERLAP ? "MPI-calls" : PKPhaseNames[j], (double)PKPct(d->work[j], tot)));
      PetscCall(PetscViewerASCIIPrintf(v, "\n"));
      tot = 0;
      for (int j = 0; j < PK_PHASE_N; j++) tot += d->win[j];
      PetscCall(PetscViewerASCIIPrintf(v, "    inside the overlap windows:"));
      for (int j = 0; j < PK_PHASE_N; j++)
        if (j != PK_PHASE_REDUCE) PetscCall(PetscViewerASCIIPrintf(v, " %s %.0f%%", j == PK_PHASE_OVERLAP ? "MPI-calls" : PKPhaseNames[j], (double)PKPct(d->win[j], tot)));
      PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    }
  }
  if (S->nreductions) PetscCall(PetscViewerASCIIPrintf(v, "    measured overlap: %" PetscInt_FMT " of %" PetscInt_FMT " reductions complete before their wait (%.0f%%), %" PetscInt_FMT " MPI_Test calls\n", S->nearly, S->nreductions, (double)PKPct(S->nearly, S->nreductions), S->ntests));
  else if (model && d->in.theta < 0 && (d->config.kind == PK_SOLVER_PETSC_GROPPCG || d->config.kind == PK_SOLVER_PETSC_PIPECG || d->config.kind == PK_SOLVER_PETSC_PGMRES)) PetscCall(PetscViewerASCIIPrintf(v, "    overlap of PETSc's split reductions is not measured (no MPI_Test accounting): assumed none\n"));
  PetscCall(PKReportNoiseView(v, fmt, S, d));
  if (!model) {
    PetscCall(PetscViewerASCIIPrintf(v, "  no analytic model for KSP type %s: measured times only\n", d->type));
    PetscCall(PetscViewerPopFormat(v));
    goto done;
  }
  if (fmt == PETSC_VIEWER_ASCII_INFO) { /* short form */
    big = PKLargestOverhead(&d->model);
    PetscCall(PetscViewerASCIIPrintf(v, "  analytic model %.4e s (gap %+.1f%%)", (double)d->model.total, (double)PKGap(d->model.total, d->measured)));
    if (d->have_stoch) PetscCall(PetscViewerASCIIPrintf(v, "; stochastic E[T] %.4e s, E[T'] %.4e s (iterations)", (double)d->stoch.ET, (double)d->stoch.ETp));
    PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    if (big >= 0) PetscCall(PetscViewerASCIIPrintf(v, "  largest overhead: %s, %.1f%% of the model\n", PKTermInfos[big].label, (double)PKPct(d->model.t[big], d->model.total)));
    nadv = PKReportAdvice(d, adv, PK_WHATIF_SOLVERS + 2);
    if (nadv && adv[0].t < d->model.total) PetscCall(PetscViewerASCIIPrintf(v, "  best change: %s, predicted %.4e s (%.2fx)\n", adv[0].what, (double)adv[0].t, (double)(d->model.total / adv[0].t)));
    PetscCall(PetscViewerPopFormat(v));
    goto done;
  }

  /* the analytic model, term by term */
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  PetscCall(PetscViewerASCIIPrintf(v, "  analytic model (%-7s pattern)                     seconds        %%  source         status\n", PKSolverKindNames[d->config.kind]));
  for (int t = 0; t < PK_TERM_N; t++) {
    if (d->model.status[t] == PK_TERM_NOT_APPLICABLE && d->model.t[t] == 0) continue;
    PetscCall(PetscViewerASCIIPrintf(v, "    %-45s %9.2e %6.1f%% %-14s %s\n", PKTermInfos[t].label, (double)d->model.t[t], (double)PKPct(d->model.t[t], d->model.total), PKTermInfos[t].source, PKTermStatusNames[d->model.status[t]]));
  }
  PetscCall(PetscViewerASCIIPrintf(v, "    %-45s %9.2e %6.1f%%\n", "total", (double)d->model.total, 100.0));
  PetscCall(PetscViewerASCIIPrintf(v, "    gap to the measured KSPSolve: %+.1f%% (model %.4e s, measured %.4e s)\n", (double)PKGap(d->model.total, d->measured), (double)d->model.total, (double)d->measured));
  PetscCall(PetscViewerASCIIPrintf(v, "    per iteration: SpMV %.2e s x %.3g, PC %.2e s x %.3g, vector work %.2e s%s\n", (double)d->in.t_spmv, (double)(S->nits ? (PetscReal)d->nspmv / S->nits : 0), (double)d->in.t_pc, (double)(S->nits ? (PetscReal)d->npc / S->nits : 0), (double)d->in.t_vec, d->vec_modelled ? " (modelled)" : ""));
  if (d->vec_modelled) PetscCall(PetscViewerASCIIPrintf(v, "    (PETSc's vector time includes its allreduces: modelled from its streams at the SpMV bandwidth)\n"));
  if (d->config.pc_fused) {
    PC          pc;
    const char *pctype;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PetscObjectGetType((PetscObject)pc, &pctype));
    PetscCall(PetscViewerASCIIPrintf(v, "    the %s preconditioner is applied inside the fused vector pass: its cost is in the vector work;\n      only the %" PetscInt_FMT " applications outside it are charged as PC%s\n", pctype, d->npc, d->pc_time_modelled ? " (other solvers' PCApply modelled as vector streams)" : ""));
  }
  if (d->have_halo && S->nranks > 1)
    PetscCall(PetscViewerASCIIPrintf(v, "    halo per SpMV, slowest rank: %.0f on-node + %.0f off-node messages, %.0f + %.0f bytes\n      (average rank %.1f + %.1f messages; all ranks %.0f + %.0f messages, %.0f + %.0f bytes;\n      at most %" PetscInt_FMT " messages posted by one rank)\n", (double)d->halo_msgs[1][PK_ON_NODE], (double)d->halo_msgs[1][PK_OFF_NODE], (double)d->halo_bytes[1][PK_ON_NODE], (double)d->halo_bytes[1][PK_OFF_NODE], (double)d->halo_msgs[0][PK_ON_NODE], (double)d->halo_msgs[0][PK_OFF_NODE], (double)d->halo_total_msgs[PK_ON_NODE], (double)d->halo_total_msgs[PK_OFF_NODE], (double)d->halo_total_bytes[PK_ON_NODE], (double)d->halo_total_bytes[PK_OFF_NODE], d->halo_max_posted));
  else if (!d->have_halo) PetscCall(PetscViewerASCIIPrintf(v, "    halo: %s\n", d->halo_why));
  if (d->have_halo && d->in.halo.total > 0) PetscCall(PetscViewerASCIIPrintf(v, "    halo exchange per SpMV: modelled %.2e s, measured wait %.2e s (the longest); the rest\n      is hidden behind the SpMV's own rows, %.0f%% of its compute (halo.overlap)\n", (double)d->in.halo.total, (double)d->halo_wait, 100.0 * (double)d->in.halo_theta));
  {
    PKSolverShape shape;
    PetscCall(PKSolverShapeGet(&d->config, 1, &shape));
    PetscCall(PetscViewerASCIIPrintf(v, "    synchronization gap %.2e s per iteration = %s_k(max_p C_pk) - median_pk(C_pk) (000 5.8)\n", (double)(shape.nonblocking ? d->sync_raw[1] : d->sync_raw[0]), shape.nonblocking ? "Q1" : "median"));
    if (d->vec_modelled) PetscCall(PetscViewerASCIIPrintf(v, "      (C = SpMV + PC time: PETSc's vector phase holds its allreduce waits)\n"));
  }
  if (d->in.theta >= 0) PetscCall(PetscViewerASCIIPrintf(v, "    overlap theta %.2f (the fraction of reductions complete before their wait)\n", (double)d->in.theta));
  if (d->in.ranks_per_core > 1) PetscCall(PetscViewerASCIIPrintf(v, "    %.3g ranks share each core: every iteration's compute runs %.3g times on a core\n", (double)d->in.ranks_per_core, (double)d->in.ranks_per_core));

  /* the stochastic model */
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  if (d->have_stoch) {
    const PKStochResult *r = &d->stoch;
    PetscCall(PetscViewerASCIIPrintf(v, "  stochastic model (001): iteration times over ranks; P_eff = %g%s\n", (double)r->Peff, r->Peff < S->nranks ? " (the ranks of a node move together)" : ""));
    PetscCall(PetscViewerASCIIPrintf(v, "    bulk Johnson SU fit (gamma, delta, xi, lambda) = (%.3g, %.3g, %.3e, %.3e)\n      one-sample KS D %.3f, 5%% critical value %.3f: fit %s\n", (double)r->bulk.gamma, (double)r->bulk.delta, (double)r->bulk.xi, (double)r->bulk.lambda, (double)r->ks_D, (double)r->ks_crit, r->bulk_rejected ? "rejected" : "accepted"));
    if (r->bulk_rejected) PetscCall(PetscViewerASCIIPrintf(v, "    (E[T], E[T'] below from the sample's own distribution; the what-if from a normal law)\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "    E[T]  stationary, synchronised every iteration (eq 3)      %10.3e s   gap %+6.1f%%\n", (double)r->ET, (double)PKGap(r->ET, d->rows_time)));
    PetscCall(PetscViewerASCIIPrintf(v, "    E[T'] stationary, not synchronised (eq 6)                  %10.3e s   gap %+6.1f%%\n", (double)r->ETp, (double)PKGap(r->ETp, d->rows_time)));
    PetscCall(PetscViewerASCIIPrintf(v, "    E^[T]  non-stationary, uniform per iteration (eqs 7, 11)   %10.3e s   gap %+6.1f%%\n", (double)r->EThat, (double)PKGap(r->EThat, d->rows_time)));
    PetscCall(PetscViewerASCIIPrintf(v, "    E^[T'] non-stationary (eq 8)                               %10.3e s   gap %+6.1f%%\n", (double)r->ETphat, (double)PKGap(r->ETphat, d->rows_time)));
    if (r->sim_rejected) PetscCall(PetscViewerASCIIPrintf(v, "    simulation from JSU fits of a_k, s_k (section 6): not done, a KS test rejects those fits\n"));
    else PetscCall(PetscViewerASCIIPrintf(v, "    simulated from JSU fits of a_k, s_k (section 6): E[T] %.3e +- %.1e s, E[T'] %.3e s\n", (double)r->sim_ET, (double)r->sim_ET_sd, (double)r->sim_ETp));
    PetscCall(PetscViewerASCIIPrintf(v, "    upper bounds of E[T]: Cramer (eq 9) %.3e s, Bertsimas (eq 10) %.3e s\n", (double)r->cramer, (double)r->bertsimas));
    PetscCall(PetscViewerASCIIPrintf(v, "    measured iterations (KSPSolve minus set-up and finish)        %.3e s\n", (double)d->rows_time));
    for (PetscInt p = 0; p < d->nks; p++)
      PetscCall(PetscViewerASCIIPrintf(v, "    KS ranks %d, %d%s: D %.3f, 5%% critical %.3f: %s; correlation %.2f\n", d->ks_a[p], d->ks_b[p], d->ks_same_node[p] ? " (one node)" : "", (double)d->ks_D[p], (double)d->ks_crit[p], d->ks_D[p] > d->ks_crit[p] ? "distributions differ" : "same distribution", (double)d->ks_corr[p]));
  } else PetscCall(PetscViewerASCIIPrintf(v, "  stochastic model: too few iterations (%" PetscInt_FMT ") to fit\n", S->nits));

  /* AMG */
  if (d->have_amg) {
    PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
    PetscCall(PetscViewerASCIIPrintf(v, "  AMG cycle model (002 IV), hypre BoomerAMG, %" PetscInt_FMT " levels: %.3e s per cycle\n    measured PC application %.3e s (gap %+.1f%%)\n", d->amg_L, (double)d->amg.total, (double)d->amg_measured, (double)PKGap(d->amg.total, d->amg_measured)));
    PetscCall(PetscViewerASCIIPrintf(v, "    compute %.2e s, communication %.2e s\n    penalties: distance %.2e s, bandwidth %.2e s, contention %.2e s\n", (double)d->amg.comp, (double)d->amg.comm, (double)d->amg.distance, (double)d->amg.bandwidth, (double)d->amg.contention));
    PetscCall(PetscViewerASCIIPrintf(v, "    t_i = %s\n", d->amg_lev[0].t > 0 ? "amg_flop_time: measured on a BoomerAMG hierarchy by pipekrylov-calibrate" : "flop_time of an SpMV (the profile has no amg_flop_time: recalibrate)"));
    if (fmt == PETSC_VIEWER_ASCII_INFO_DETAIL)
      for (PetscInt l = 0; l < d->amg_L; l++) {
        PetscCall(PetscViewerASCIIPrintf(v, "    level %2" PetscInt_FMT ": %10.0f rows, %5.1f nnz/row, %4.0f msgs, %8.0f doubles sent: %.3e s\n", l, (double)d->amg_lev[l].C, (double)d->amg_lev[l].s, (double)d->amg_lev[l].p, (double)d->amg_lev[l].n, (double)d->amg.level[l]));
        PetscCall(PetscViewerASCIIPrintf(v, "      smoother %.2e + %.2e s, restriction %.2e + %.2e s, interpolation %.2e + %.2e s (compute + comm)\n", (double)d->amg.smooth_comp[l], (double)d->amg.smooth_comm[l], (double)d->amg.restrict_comp[l], (double)d->amg.restrict_comm[l], (double)d->amg.interp_comp[l], (double)d->amg.interp_comm[l]));
      }
  } else if (d->amg_why[0] && fmt == PETSC_VIEWER_ASCII_INFO_DETAIL) PetscCall(PetscViewerASCIIPrintf(v, "  AMG cycle model: %s\n", d->amg_why));

  /* what would help */
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  big = PKLargestOverhead(&d->model);
  if (big >= 0) PetscCall(PetscViewerASCIIPrintf(v, "  largest overhead: %s, %.1f%% of the model:\n    %s\n", PKTermInfos[big].label, (double)PKPct(d->model.t[big], d->model.total), PKHint(d, big)));
  nadv = PKReportAdvice(d, adv, PK_WHATIF_SOLVERS + 2);
  PetscCall(PetscViewerASCIIPrintf(v, "  predicted KSPSolve time of each change (same iterations; ranked):\n"));
  /* the same count holds in exact arithmetic; the pipelined CG recurrences' rounding can delay convergence on
     ill-conditioned problems (docs/pipelined-accuracy.md): say so where such a solver is compared */
  if (PKSolverItersComparable(d->config.kind, PK_SOLVER_PCG)) PetscCall(PetscViewerASCIIPrintf(v, "    (within the CG family; pipecg and pipe2cg without their recompute can need more iterations on\n    ill-conditioned problems: 20%% more on the unpreconditioned variable-coefficient test problem)\n"));
  nfam = 0;
  for (PetscInt i = 0; i < d->wi_nsolver; i++) nfam += d->wi_iters_differ[i];
  for (PetscInt i = 0; i < nadv; i++) {
    /* a ratio >= 1 either way: "1.15x slower" for a change predicted at 1.15 times this run's model; one that
       prints as 1.00x has no direction: "same time" */
    PetscBool faster = (PetscBool)(adv[i].t < d->model.total);
    PetscReal ratio  = faster ? d->model.total / adv[i].t : adv[i].t / d->model.total;
    char      rs[32];
    PetscBool same;
    PetscCall(PetscSNPrintf(rs, sizeof(rs), "%5.2f", (double)ratio));
    PetscCall(PetscStrcmp(rs, " 1.00", &same));
    PetscCall(PetscViewerASCIIPrintf(v, "    %2" PetscInt_FMT ". %-55s %10.3e s  %sx %s\n", i + 1, adv[i].what, (double)adv[i].t, rs, same ? "same time" : faster ? "faster" : "slower"));
  }
  if (d->have_place) {
    PetscCall(PetscViewerASCIIPrintf(v, "    node-aware layout:\n      %s\n", d->place_cmd));
    if (d->place_saving <= 0) PetscCall(PetscViewerASCIIPrintf(v, "      (the slowest rank keeps as many off-node messages, so the model predicts no time saved here; the\n      cut is in the traffic all ranks put on the network, which congests it at scale: 000 6.2)\n"));
  }
  if (nfam) {
    PKSolverShape shape;
    PetscCall(PKSolverShapeGet(&d->config, 1, &shape));
    PetscCall(PetscViewerASCIIPrintf(v, "  the other method family (%s): iterations differ, not ranked;\n    time per iteration, and the total only if it took this run's %" PetscInt_FMT " iterations (it will not):\n", PKSolverItersComparable(d->config.kind, PK_SOLVER_PCG) ? "GMRES: minimal residual, restarted" : "CG: needs an SPD operator and preconditioner", S->nits));
    for (PetscInt i = 0; i < d->wi_nsolver; i++)
      if (d->wi_iters_differ[i]) PetscCall(PetscViewerASCIIPrintf(v, "        -ksp_type %-12s %10.3e s per iteration (%.3e s at %" PetscInt_FMT ")\n", PKSolverKindNames[d->wi_kind[i]], (double)d->wi_solver[i].per_iteration, (double)d->wi_solver[i].total, S->nits));
  }
  if (d->wi_ranks_refused) {
    /* larger runs cross nodes: no prediction from on-node values standing in for off-node ones */
    PetscCall(PetscViewerASCIIPrintf(v, "  what-if larger runs: not predicted. Larger runs send messages between nodes, and the machine\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "    profile has no off-node parameters\n      (alpha_off_*, beta_off_* of the %s protocols).\n", d->offnode_missing));
    PetscCall(PetscViewerASCIIPrintf(v, "    Measure them where the runs will be, 2 nodes x 2 ranks: on a real cluster\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "      mpiexec -n 4 --map-by ppr:2:node pipekrylov-calibrate -o cluster.profile\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "    or on emulated nodes of this machine (as root):\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "      bin/pipekrylov-cluster up 2\n      bin/pipekrylov-cluster run 4 2 bin/pipekrylov-calibrate -o cluster.profile\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "    then -ksp_perfmodel_machine cluster.profile\n"));
  } else {
  PetscCall(PetscViewerASCIIPrintf(v, "  what-if larger runs (weak scaling: same rows per rank and ranks per node):\n"));
  if (d->wi_halo_how) PetscCall(PetscViewerASCIIPrintf(v, "    halo exchange: %s\n", d->wi_halo_how));
  PetscCall(PetscViewerASCIIPrintf(v, "    %10s %14s %14s %14s\n", "ranks", "analytic (s)", "E[T] (s)", "E[T'] (s)"));
  PetscCall(PetscViewerASCIIPrintf(v, "    %10d %14.3e %14.3e %14.3e   (this run, modelled)\n", S->nranks, (double)d->model.total, d->have_stoch ? (double)d->stoch.ET : 0.0, d->have_stoch ? (double)d->stoch.ETp : 0.0));
  for (int w = 0; w < PK_WHATIF_RANKS; w++) PetscCall(PetscViewerASCIIPrintf(v, "    %10" PetscInt_FMT " %14.3e %14.3e %14.3e\n", d->wi_P[w], (double)d->wi_ranks[w].total, (double)d->wi_ET[w], (double)d->wi_ETp[w]));
  }

  /* provenance */
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  PetscCall(PKReportMachineLines(v, c, d, (PetscBool)(fmt == PETSC_VIEWER_ASCII_INFO_DETAIL)));
  PetscCall(PetscViewerPopFormat(v));
done:
  PetscCall(PetscFree(d->noise_inj));
  PetscCall(PetscFree(d));
  PetscFunctionReturn(0);
}
