/*
   PETSc's event hooks, the way into every KSPSolve of an unmodified application. PetscLogPLB/PetscLogPLE are called
   at the begin and end of every logged event while they are set; ours handle KSP_Solve (the KSP is the first
   object) and then call the hooks that were there before, so -log_view keeps working.

   KSP_Solve begin: the KSP's context (options read once, with its prefix), rows ready, the clock started last so
   that our own work is outside the recorded time. KSP_Solve end: the clock stopped first, then rows closed,
   statistics, trace, report.

   PETSc's own types do not mark phases, so while one of their solves is recorded the hooks also split its time:
   MatMult (outside PCApply) is spmv, the VecScatterEnd inside it halo, PCApply pc, the wait of a split reduction
   (VecDotEnd after PetscCommSplitReductionBegin) or the reduction of VecXxxEnd reduce, and the work between
   PetscCommSplitReductionBegin and that wait overlap. The rest, including the allreduce inside a blocking VecDot
   or VecNorm (PETSc does not log it apart), is vec. Rows end at the KSPMonitor calls.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <petsc/private/kspimpl.h>
#include <petsc/private/matimpl.h>
#include <petsc/private/pcimpl.h>
#include <petsc/private/vecimpl.h>
#include <petsc/private/logimpl.h>

typedef PetscErrorCode (*PKLogHook)(PetscLogEvent, int, PetscObject, PetscObject, PetscObject, PetscObject);

static PKLogHook  pk_prev_plb, pk_prev_ple;
static PetscBool  pk_hooks    = PETSC_FALSE;
static PKPerfCtx *pk_hook_top = NULL; /* innermost recorded solve of a PETSc type */

/* ---------------------------------------------------------------------------------------------------------- */
/* Phases of PETSc's types from their events */

static inline void PKPerfEventBegin(PKPerfCtx *c, PetscLogEvent e)
{
  PKRec rec = &c->rec;

  if (c->open_event < 0) {
    PKPhase ph;
    if (e == MAT_Mult) ph = PK_PHASE_SPMV;
    else if (e == PC_Apply) ph = PK_PHASE_PC;
    else if (e == VEC_ReduceEnd || e == VEC_ReduceCommunication) ph = PK_PHASE_REDUCE;
    else return;
    c->open_event = e;
    c->open_depth = 1;
    if (ph == PK_PHASE_REDUCE) PKRecPhase(rec, ph);
    else PKRecApply(rec, ph);
  } else if (e == c->open_event) c->open_depth++;
  else if (e == VEC_ScatterEnd && c->open_event == MAT_Mult && c->open_depth == 1 && !c->in_halo) {
    c->in_halo = PETSC_TRUE;
    PKRecPhase(rec, PK_PHASE_HALO);
  }
}

static inline void PKPerfEventEnd(PKPerfCtx *c, PetscLogEvent e)
{
  PKRec rec = &c->rec;

  if (c->open_event < 0) {
    if (e == VEC_ReduceBegin) PKRecOverlapBegin(rec); /* the MPI_Iallreduce of a split reduction is posted */
  } else if (e == c->open_event) {
    if (--c->open_depth) return;
    if (e == VEC_ReduceEnd) rec->hot.overlap = PETSC_FALSE;
    c->open_event = -1;
    PKRecPhase(rec, PK_PHASE_VEC);
  } else if (e == VEC_ScatterEnd && c->in_halo) {
    c->in_halo = PETSC_FALSE;
    PKRecPhase(rec, PK_PHASE_SPMV);
  }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The per-KSP context */

static PetscErrorCode PKPerfCtxDestroy(void *p)
{
  PKPerfCtx *c = (PKPerfCtx *)p;

  PetscFunctionBegin;
  if (pk_hook_top == c) pk_hook_top = (PKPerfCtx *)c->hook_prev; /* destroyed inside its solve, after an error */
  PetscCall(PKRecFree(c));
  PetscCall(PKStatsDestroy(&c->stats));
  PetscCall(PKReportFree(c));
  PetscCall(PetscFree(c->rank_node));
  PetscCall(PetscFree(c->quiet_pooled));
  PetscCall(PetscViewerDestroy(&c->viewer));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(0);
}

PetscErrorCode PKPerfCtxGet(KSP ksp, PetscBool create, PKPerfCtx **ctx)
{
  PetscContainer cont;
  PKPerfCtx     *c;

  PetscFunctionBegin;
  *ctx = NULL;
  PetscCall(PetscObjectQuery((PetscObject)ksp, "PKPerf", (PetscObject *)&cont));
  if (cont) {
    PetscCall(PetscContainerGetPointer(cont, (void **)ctx));
    PetscFunctionReturn(0);
  }
  if (!create) PetscFunctionReturn(0);
  PetscCall(PetscNew(&c));
  c->rec.priv   = c;
  c->code_on    = -1;
  c->open_event = -1;
  PetscCall(PetscStrcpy(c->papi_events, "default"));
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)ksp), &cont));
  PetscCall(PetscContainerSetPointer(cont, c));
  PetscCall(PetscContainerSetUserDestroy(cont, PKPerfCtxDestroy));
  PetscCall(PetscObjectCompose((PetscObject)ksp, "PKPerf", (PetscObject)cont));
  PetscCall(PetscContainerDestroy(&cont));
  *ctx = c;
  PetscFunctionReturn(0);
}

/* Read once, at the first solve, so that the KSP's options prefix is final */
static PetscErrorCode PKPerfReadOptions(KSP ksp, PKPerfCtx *c)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)ksp);
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscOptionsBegin(comm, prefix, "KSP performance monitor (pipekrylov)", "KSP");
  PetscCall(PetscOptionsBool("-ksp_perf_monitor", "Record per-iteration per-rank times and statistics (-ksp_perf_trace and -ksp_perfmodel_view turn it on too)", "KSPPerfMonitorSet", c->opt_monitor, &c->opt_monitor, NULL));
  PetscCall(PetscOptionsString("-ksp_perf_trace", "Write the per-iteration per-rank trace to this CSV file (MPI-IO; appends solve after solve)", "KSPPerfMonitorSet", c->trace, c->trace, sizeof(c->trace), &c->opt_trace));
  PetscCall(PetscOptionsName("-ksp_perfmodel_view", "Print the performance report at the end of each solve: -ksp_perfmodel_view [viewer]", "KSPPerfMonitorSet", &c->opt_report));
  PetscCall(PetscOptionsString("-ksp_perf_papi_events", "PAPI events recorded per iteration: comma list, default, or none", "KSPPerfMonitorSet", c->papi_events, c->papi_events, sizeof(c->papi_events), NULL));
  PetscCall(PetscOptionsString("-ksp_perfmodel_machine", "Machine profile for the model (from bin/pipekrylov-calibrate); default: the embedded profile", "KSPPerfMonitorSet", c->machine_path, c->machine_path, sizeof(c->machine_path), NULL));
  PetscCall(PetscOptionsInt("-ksp_perf_node_size", "Treat every k consecutive ranks as one node (0: nodes from MPI_COMM_TYPE_SHARED)", "KSPPerfMonitorSet", c->node_size, &c->node_size, NULL));
  PetscCall(PKNoiseReadOptions(ksp, c, PetscOptionsObject));
  PetscOptionsEnd();
  PetscCheck(!c->opt_trace || c->trace[0], comm, PETSC_ERR_ARG_WRONG, "-%sksp_perf_trace needs a file name", prefix ? prefix : "");
  PetscCheck(c->node_size >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sksp_perf_node_size must be positive (or 0 for MPI_COMM_TYPE_SHARED), not %" PetscInt_FMT, prefix ? prefix : "", c->node_size);
  if (c->opt_report) PetscCall(PetscOptionsGetViewer(comm, ((PetscObject)ksp)->options, prefix, "-ksp_perfmodel_view", &c->viewer, &c->format, NULL));
  c->options_read = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static inline PetscBool PKPerfIsOn(PKPerfCtx *c)
{
  if (c->noise.on) return PETSC_TRUE; /* the noise is injected through the recorder's marks */
  if (c->code_on >= 0) return (PetscBool)(c->code_on == 1);
  return (PetscBool)(c->opt_monitor || c->opt_trace || c->opt_report);
}

/* The monitor's settings for -ksp_view (pipekrylov's types call this from their view; after the first solve,
   when the options have been read) */
PetscErrorCode PKPerfView(KSP ksp, PetscViewer viewer)
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  PetscCall(PKPerfCtxGet(ksp, PETSC_FALSE, &c));
  if (!c || !c->options_read || !PKPerfIsOn(c)) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  performance monitor: on%s%s%s, PAPI events %s%s%s\n", c->opt_trace ? ", trace " : "", c->opt_trace ? c->trace : "", c->opt_report ? ", report (-ksp_perfmodel_view)" : "", c->papi_events, c->machine_path[0] ? ", machine profile " : "", c->machine_path));
  PetscCall(PKNoiseView(ksp, c, viewer));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The monitor: rows begin at iteration 0; for PETSc's types each later call ends a row */

static PetscErrorCode PKPerfMonitor(KSP ksp, PetscInt its, PetscReal rnorm, void *ctx)
{
  PKPerfCtx *c = (PKPerfCtx *)ctx;
  (void)ksp;
  (void)rnorm;

  PetscFunctionBegin;
  if (!c->active) PetscFunctionReturn(0);
  if (!c->rows_started && its == 0) PetscCall(PKRecRowsStart(c));
  else if (c->builtin) PetscCall(PKRecIterEnd_Private(&c->rec, its));
  PetscFunctionReturn(0);
}

/* Once per solve (an application may have cancelled the monitors since) */
static PetscErrorCode PKPerfAttachMonitor(KSP ksp, PKPerfCtx *c)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < ksp->numbermonitors; i++)
    if (ksp->monitor[i] == PKPerfMonitor && ksp->monitorcontext[i] == (void *)c) PetscFunctionReturn(0);
  if (ksp->numbermonitors >= MAXKSPMONITORS) {
    PetscCall(PetscInfo(ksp, "No room for the perf monitor (%d monitors already): rows only at the end of the solve\n", MAXKSPMONITORS));
    PetscFunctionReturn(0);
  }
  PetscCall(KSPMonitorSet(ksp, PKPerfMonitor, c, NULL));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* KSP_Solve begin and end */

static PetscErrorCode PKPerfSolveBegin(KSP ksp, PKPerfCtx **out)
{
  PKPerfCtx *c;
  MPI_Comm   comm = PetscObjectComm((PetscObject)ksp);
  PetscErrorCode (*ours)(KSP, PetscInt *);

  PetscFunctionBegin;
  *out = NULL;
  PetscCall(PKPerfCtxGet(ksp, PETSC_TRUE, &c));
  if (!c->options_read) PetscCall(PKPerfReadOptions(ksp, c));
  if (c->active) { /* a solve of this KSP that ended in an error: forget it */
    if (pk_hook_top == c) pk_hook_top = (PKPerfCtx *)c->hook_prev;
    c->active = PETSC_FALSE;
  }
  if (!PKPerfIsOn(c)) PetscFunctionReturn(0);
  if (!c->layout_done) {
    PetscCall(PKStatsLayout(comm, c));
    PetscCall(PKPapiSetUp(comm, c->papi_events));
  }
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetChunks_C", &ours));
  c->builtin = ours ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(PKPerfAttachMonitor(ksp, c));
  PetscCall(PKRecSolveBegin(ksp, c));
  PetscCall(PKNoiseSolveBegin(ksp, c));
  c->active = PETSC_TRUE;
  if (c->builtin) {
    c->hook_prev = pk_hook_top;
    pk_hook_top  = c;
  }
  *out = c;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPerfSolveEnd(KSP ksp, PKPerfCtx *c)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)ksp);

  PetscFunctionBegin;
  c->active = PETSC_FALSE;
  if (c->builtin) pk_hook_top = (PKPerfCtx *)c->hook_prev;
  PetscCall(PKRecSolveEnd(ksp, c));
  PetscCall(PKStatsCompute(comm, c));
  PetscCall(PKNoiseSolveEnd(ksp, c));
  if (c->opt_trace && !c->trace_failed) PetscCall(PKTraceWrite(comm, c));
  if (c->viewer) {
    PetscCall(PKPerfReport(ksp, &c->stats));
    /* rank 0 evaluates the models alone: the other ranks must not start the next solve meanwhile, or its time
       would include waiting for rank 0 */
    PetscCallMPI(MPI_Barrier(comm));
  }
  c->solve++;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPerfPLB(PetscLogEvent e, int t, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  PKPerfCtx *c = NULL;

  PetscFunctionBegin;
  if (e == KSP_Solve) {
    if (o1 && o1->classid == KSP_CLASSID) PetscCall(PKPerfSolveBegin((KSP)o1, &c));
  } else if (pk_hook_top) PKPerfEventBegin(pk_hook_top, e);
  if (pk_prev_plb) PetscCall((*pk_prev_plb)(e, t, o1, o2, o3, o4));
  if (c) PKRecClockStart(c);
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPerfPLE(PetscLogEvent e, int t, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  PKPerfCtx *c = NULL;

  PetscFunctionBegin;
  if (e == KSP_Solve) {
    PetscLogDouble now;
    PetscCall(PetscTime(&now));
    if (o1 && o1->classid == KSP_CLASSID) PetscCall(PKPerfCtxGet((KSP)o1, PETSC_FALSE, &c));
    if (c && c->active) {
      c->tend   = now;
      c->cpuend = PKRecCPUTime();
    }
    else c = NULL;
  } else if (pk_hook_top) PKPerfEventEnd(pk_hook_top, e);
  if (pk_prev_ple) PetscCall((*pk_prev_ple)(e, t, o1, o2, o3, o4));
  if (c) PetscCall(PKPerfSolveEnd((KSP)o1, c));
  PetscFunctionReturn(0);
}

/*
   Chain in front of the hooks already there (-log_view's default logging, or -log_trace ...). When none are, ours
   go in alone: the PetscLogEventBegin/End macros call PetscLogPLB/PLE whenever they are set, so PETSc's default
   logging need not be on, and its bookkeeping on every event (about 1% of a pcg iteration here) is not paid.
   An application that turns default logging on itself after this (PetscLogDefaultBegin) replaces our hooks;
   KSPPerfMonitorSet() puts them back in front.
*/
/* Events the hooks need; with no other logging on, every other event's logging is switched off while the hooks
   are in: each logged event would otherwise call them (and push PETSc's event stack) for nothing, about 1% of a
   pcg iteration. They are switched back on when the hooks are removed. */
static PetscLogEvent *pk_quiet = NULL;
static PetscInt       pk_nquiet = 0;

static PetscBool PKPerfNeeded(PetscLogEvent e)
{
  return (PetscBool)(e == KSP_Solve || e == MAT_Mult || e == PC_Apply || e == VEC_ScatterEnd || e == VEC_ReduceBegin || e == VEC_ReduceEnd || e == VEC_ReduceCommunication);
}

static PetscErrorCode PKPerfQuietEvents(void)
{
  PetscStageLog    sl;
  PetscInt         n;

  PetscFunctionBegin;
  PetscCall(PetscLogGetStageLog(&sl));
  n = sl->eventLog->numEvents;
  PetscCall(PetscMalloc1(n, &pk_quiet));
  for (PetscLogEvent e = 0; e < n; e++) {
    PetscBool active = PETSC_FALSE;
    for (int s = 0; s < sl->numStages && !active; s++) active = sl->stageInfo[s].eventLog->eventInfo[e].active;
    if (active && !PKPerfNeeded(e)) {
      PetscCall(PetscLogEventSetActiveAll(e, PETSC_FALSE));
      pk_quiet[pk_nquiet++] = e;
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKPerfHooksInstall(void)
{
  PetscFunctionBegin;
  if (pk_hooks && PetscLogPLB == PKPerfPLB && PetscLogPLE == PKPerfPLE) PetscFunctionReturn(0);
  pk_prev_plb = PetscLogPLB == PKPerfPLB ? pk_prev_plb : PetscLogPLB;
  pk_prev_ple = PetscLogPLE == PKPerfPLE ? pk_prev_ple : PetscLogPLE;
  if (!pk_prev_plb && !pk_prev_ple && !pk_quiet) PetscCall(PKPerfQuietEvents());
  PetscLogPLB = PKPerfPLB;
  PetscLogPLE = PKPerfPLE;
  pk_hooks    = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode PKPerfHooksRemove(void)
{
  PetscFunctionBegin;
  if (!pk_hooks) PetscFunctionReturn(0);
  if (PetscLogPLB == PKPerfPLB) PetscLogPLB = pk_prev_plb;
  if (PetscLogPLE == PKPerfPLE) PetscLogPLE = pk_prev_ple;
  pk_hooks    = PETSC_FALSE;
  pk_hook_top = NULL;
  for (PetscInt i = 0; i < pk_nquiet; i++) PetscCall(PetscLogEventSetActiveAll(pk_quiet[i], PETSC_TRUE));
  PetscCall(PetscFree(pk_quiet));
  pk_nquiet = 0;
  PetscFunctionReturn(0);
}
