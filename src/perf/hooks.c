/*
   PETSc's event hooks, the way into every KSPSolve of an unmodified application. The begin and end of every logged
   event reach us through pklog.h (the one file that knows how a PETSc version delivers them: petsclog318.c for
   3.18's PetscLogPLB/PetscLogPLE); ours handle KSP_Solve (the KSP is the first object), and the hooks that were
   there before are still called, so -log_view keeps working.

   KSP_Solve begin: the KSP's context (options read once, with its prefix), rows ready, the clock started last so
   that our own work is outside the recorded time. KSP_Solve end: the clock stopped first, then rows closed,
   statistics, trace, report.

   PETSc's own types do not mark phases, so while one of their solves is recorded the hooks also split its time:
   MatMult (outside PCApply) is spmv, the VecScatterEnd inside it halo, PCApply pc, the wait of a split reduction
   (VecDotEnd after PetscCommSplitReductionBegin) or the reduction of VecXxxEnd reduce, and the work between
   PetscCommSplitReductionBegin and that wait overlap. A blocking VecDot, VecNorm, VecMDot ... is reduce as a whole:
   PETSc does not log its MPI_Allreduce apart from its local sum, which is the smaller part on several ranks (the
   report prices it back into the vector work: models/measured.c). The rest is vec. Rows end at the KSPMonitor
   calls.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <pipekrylov/private/pkprofile.h>
#include <petsc/private/kspimpl.h>
#include <petsc/private/matimpl.h>
#include <petsc/private/pcimpl.h>
#include <petsc/private/vecimpl.h>
#include <pipekrylov/private/pklog.h>

static PKPerfCtx *pk_hook_top = NULL; /* innermost recorded solve of a PETSc type */

/* ---------------------------------------------------------------------------------------------------------- */
/* Phases of PETSc's types from their events */

/* The blocking reductions of PETSc's types (local work and an MPI_Allreduce that PETSc does not log apart): reduce at
   the top level; inside an SpMV or a PC application (a phase of its own) the noise injector's arrival clock stands
   still in them (noise.c) */
static inline PetscBool PKPerfBlockingReduction(PetscLogEvent e)
{
  return (PetscBool)(e == VEC_Dot || e == VEC_Norm || e == VEC_MDot || e == VEC_TDot || e == VEC_MTDot || e == VEC_DotNorm2);
}

/* A blocking reduction inside an SpMV or a PC application, whose phase it stays in */
static inline PetscBool PKPerfBlockingInApply(const PKPerfCtx *c, PetscLogEvent e)
{
  return (PetscBool)((c->mon.open_event == MAT_Mult || c->mon.open_event == PC_Apply) && PKPerfBlockingReduction(e));
}

static inline void PKPerfEventBegin(PKPerfCtx *c, PetscLogEvent e)
{
  PKRec rec = &c->mon.rec;

  if (PetscUnlikely(c->mon.noise.active && c->mon.noise.here) && PKPerfBlockingInApply(c, e)) PKNoiseBlockingBegin(&c->mon);
  if (c->mon.open_event < 0) {
    PKPhase ph;
    if (e == MAT_Mult) ph = PK_PHASE_SPMV;
    else if (e == PC_Apply) ph = PK_PHASE_PC;
    else if (e == VEC_ReduceEnd || e == VEC_ReduceCommunication || PKPerfBlockingReduction(e)) ph = PK_PHASE_REDUCE;
    else return;
    c->mon.open_event = e;
    c->mon.open_depth = 1;
    if (ph == PK_PHASE_REDUCE) PKRecPhase(rec, ph);
    else PKRecApply(rec, ph);
  } else if (e == c->mon.open_event) c->mon.open_depth++;
  else if (e == VEC_ScatterEnd && c->mon.open_event == MAT_Mult && c->mon.open_depth == 1 && !c->mon.in_halo) {
    c->mon.in_halo = PETSC_TRUE;
    PKRecPhase(rec, PK_PHASE_HALO);
  }
}

static inline void PKPerfEventEnd(PKPerfCtx *c, PetscLogEvent e)
{
  PKRec rec = &c->mon.rec;

  if (PetscUnlikely(c->mon.noise.active && c->mon.noise.here) && PKPerfBlockingInApply(c, e)) PKNoiseBlockingEnd(&c->mon);
  if (c->mon.open_event < 0) {
    if (e == VEC_ReduceBegin) PKRecOverlapBegin(rec); /* the MPI_Iallreduce of a split reduction is posted */
  } else if (e == c->mon.open_event) {
    if (--c->mon.open_depth) return;
    if (e == VEC_ReduceEnd) rec->hot.overlap = PETSC_FALSE;
    c->mon.open_event = -1;
    PKRecPhase(rec, PK_PHASE_VEC);
  } else if (e == VEC_ScatterEnd && c->mon.in_halo) {
    c->mon.in_halo = PETSC_FALSE;
    PKRecPhase(rec, PK_PHASE_SPMV);
  }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The per-KSP context */

/* The contexts whose summary is still to be printed: at their KSP's destruction, or at PetscFinalize for those alive
   then. PetscFinalize destroys the objects given to PetscObjectRegisterDestroy() first of all (before -log_view),
   while the viewers are valid: a container whose destroy prints them is one. */
static PKPerfCtx *pk_summary_list       = NULL;
static PetscBool  pk_summary_registered = PETSC_FALSE;

static PetscErrorCode PKSummaryUnlist(PKPerfCtx *c)
{
  PKPerfCtx **p = &pk_summary_list;

  while (*p && *p != c) p = (PKPerfCtx **)&(*p)->summary_next;
  if (*p) *p = (PKPerfCtx *)c->summary_next;
  c->summary_next   = NULL;
  c->summary.listed = PETSC_FALSE;
  return 0;
}

static PetscErrorCode PKSummaryPrintAll(void *unused)
{
  PetscFunctionBegin;
  (void)unused;
  while (pk_summary_list) {
    PKPerfCtx *c = pk_summary_list;

    PetscCall(PKSummaryUnlist(c));
    PetscCall(PKSummaryView(&c->summary));
  }
  pk_summary_registered = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKSummaryList(PKPerfCtx *c)
{
  PetscFunctionBegin;
  if (!pk_summary_registered) {
    PetscContainer atfinal;

    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &atfinal));
    PetscCall(PetscContainerSetUserDestroy(atfinal, PKSummaryPrintAll));
    PetscCall(PetscObjectRegisterDestroy((PetscObject)atfinal));
    pk_summary_registered = PETSC_TRUE;
  }
  c->summary_next   = pk_summary_list;
  pk_summary_list   = c;
  c->summary.listed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPerfCtxDestroy(void *p)
{
  PKPerfCtx *c = (PKPerfCtx *)p;

  PetscFunctionBegin;
  PetscCall(PKSummaryUnlist(c));
  PetscCall(PKSummaryView(&c->summary)); /* rank 0 writes; nothing communicates */
  PetscCall(PKSummaryFree(&c->summary));
  if (pk_hook_top == c) pk_hook_top = (PKPerfCtx *)c->mon.hook_prev; /* destroyed inside its solve, after an error */
  PetscCall(PKRecFree(&c->mon));
  PetscCall(PKStatsDestroy(&c->mon.stats));
  PetscCall(PKReportFree(&c->report));
  PetscCall(PKModelFree(&c->model));
  PetscCall(PetscFree(c->mon.rank_node));
  PetscCall(PetscFree(c->mon.quiet_pooled));
  PetscCall(PetscViewerDestroy(&c->report.viewer));
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
  c->mon.rec.priv           = &c->mon;
  c->mon.rec.rowend         = PKRecRowEnd;
  c->mon.rec.detour         = PKNoiseDetour_Private; /* noise injection: the marks call it once noise_next is due */
  c->mon.rec.hot.noise_next = PK_NOISE_OFF;
  c->mon.code_on            = -1;
  c->mon.open_event         = -1;
  PetscCall(PetscStrcpy(c->mon.papi_events, "default"));
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)ksp), &cont));
  PetscCall(PetscContainerSetPointer(cont, c));
  PetscCall(PetscContainerSetUserDestroy(cont, PKPerfCtxDestroy));
  PetscCall(PetscObjectCompose((PetscObject)ksp, "PKPerf", (PetscObject)cont));
  PetscCall(PetscContainerDestroy(&cont));
  *ctx = c;
  PetscFunctionReturn(0);
}

/* The observer's getrec (perf.c registers it with the core): our types' recorder, NULL for PETSc's types */
PetscErrorCode PKPerfGetRec(KSP ksp, PKRec *rec)
{
  PKPerfCtx *pc;

  PetscFunctionBegin;
  *rec = NULL;
  PetscCall(PKPerfCtxGet(ksp, PETSC_FALSE, &pc));
  if (pc && pc->mon.active && !pc->mon.builtin) *rec = &pc->mon.rec;
  PetscFunctionReturn(0);
}

/* The monitor's options, inside an options block (the KSP's own, at KSPSetFromOptions, or one of ours) */
static PetscErrorCode PKPerfOptionItems(KSP ksp, PetscOptionItems *PetscOptionsObject, PKPerfCtx *c)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsBool("-ksp_perf_monitor", "Record per-iteration per-rank times and statistics (-ksp_perf_trace and -ksp_perfmodel_view turn it on too)", "KSPPerfMonitorSet", c->mon.opt_monitor, &c->mon.opt_monitor, NULL));
  PetscCall(PetscOptionsString("-ksp_perf_trace", "Write the per-iteration per-rank trace to this CSV file (MPI-IO; appends solve after solve)", "KSPPerfMonitorSet", c->mon.trace, c->mon.trace, sizeof(c->mon.trace), &c->mon.opt_trace));
  PetscCall(PetscOptionsName("-ksp_perfmodel_view", "Print the performance report at the end of each solve: -ksp_perfmodel_view [viewer]", "KSPPerfMonitorSet", &c->mon.opt_report));
  PetscCall(PetscOptionsName("-ksp_perfmodel_summary", "Print one summary over all solves when the KSP is destroyed or at PetscFinalize, with the report of solve 1, 2, 4, ...: -ksp_perfmodel_summary [viewer]", "KSPPerfMonitorSet", &c->mon.opt_summary));
  PetscCall(PetscOptionsString("-ksp_perf_papi_events", "PAPI events recorded per iteration: comma list, default, or none", "KSPPerfMonitorSet", c->mon.papi_events, c->mon.papi_events, sizeof(c->mon.papi_events), NULL));
  PetscCall(PetscOptionsString("-ksp_perfmodel_machine", "Machine profile for the model (from bin/pipekrylov-calibrate); default: this host's profile in $XDG_CACHE_HOME/pipekrylov, else the embedded one", "KSPPerfMonitorSet", c->model.machine_path,
                               c->model.machine_path, sizeof(c->model.machine_path), NULL));
  PetscCall(PetscOptionsString("-ksp_perfmodel_topology", "The cluster's switch tree for the model's hops, contention and placement: a Slurm topology.conf", "KSPPerfMonitorSet", c->model.topology_path, c->model.topology_path, sizeof(c->model.topology_path), NULL));
  PetscCall(PetscOptionsString("-ksp_perfmodel_netcounters", "Root of the network port counters the report reads around each solve, in sysfs's layout (%h: the node's name)", "KSPPerfMonitorSet", c->mon.net_root, c->mon.net_root, sizeof(c->mon.net_root), NULL));
  PetscCall(PetscOptionsInt("-ksp_perf_node_size", "Treat every k consecutive ranks as one node (0: nodes from MPI_COMM_TYPE_SHARED)", "KSPPerfMonitorSet", c->mon.node_size, &c->mon.node_size, NULL));
  PetscCall(PKNoiseReadOptions(ksp, &c->mon, PetscOptionsObject));
  PetscFunctionReturn(0);
}

/* A report option's viewer: the value checked before anything is created; a file opened there (per rank below
   PETSC_COMM_WORLD, once per name, checked as docs/security.md says), standard output here */
static PetscErrorCode PKPerfOpenViewer(KSP ksp, const char option[], PetscViewer *viewer, PetscViewerFormat *format, char spec[], size_t speclen)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)ksp);
  const char *prefix;
  PetscBool   iascii, opened;

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PKReportViewerOpen(ksp, option, viewer, format, spec, speclen, &opened));
  if (!opened) PetscCall(PKOptionsCreateViewer(comm, ((PetscObject)ksp)->options, prefix, option, viewer, format, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)*viewer, PETSCVIEWERASCII, &iascii));
  PetscCheck(iascii, comm, PETSC_ERR_SUP, "-%s%s supports " PK_REPORT_VIEWERS ", not %s", prefix ? prefix : "", option + 1, ((PetscObject)*viewer)->type_name);
  PetscCheck(*format == PETSC_VIEWER_DEFAULT || *format == PETSC_VIEWER_ASCII_INFO || *format == PETSC_VIEWER_ASCII_INFO_DETAIL || *format == PETSC_VIEWER_ASCII_CSV, comm, PETSC_ERR_SUP, "-%s%s supports the formats ascii_info, ascii_info_detail and ascii_csv, not %s", prefix ? prefix : "", option + 1, PetscViewerFormats[*format]);
  PetscFunctionReturn(0);
}

/* The options that switch collective work on must be on at every rank of the KSP or at none. Options are per
   process: a prefix that differs between ranks (DOLFINx names each LinearProblem's KSP after a Python id(), and an
   option left by an earlier problem can match a later one on one rank only) would leave the ranks in different
   collectives, a hang. What is on at some ranks only is turned off everywhere, with a warning that names it. */
static PetscErrorCode PKPerfAgree(KSP ksp, PKPerfCtx *c)
{
  enum {
    NAGREE = 7
  };
  MPI_Comm    comm         = PetscObjectComm((PetscObject)ksp);
  const char *name[NAGREE] = {"ksp_perf_monitor", "ksp_perf_trace", "ksp_perfmodel_view", "ksp_perfmodel_summary", "ksp_perf_noise", "ksp_perfmodel_machine", "ksp_perfmodel_topology"};
  PetscBool  *flag[5]      = {&c->mon.opt_monitor, &c->mon.opt_trace, &c->mon.opt_report, &c->mon.opt_summary, &c->mon.noise.on};
  char       *path[2]      = {c->model.machine_path, c->model.topology_path};
  int         on[2 * NAGREE], any[2 * NAGREE];
  const char *prefix;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) PetscFunctionReturn(0);
  for (int i = 0; i < NAGREE; i++) {
    on[i]          = i < 5 ? (int)*flag[i] : (int)(path[i - 5][0] != 0);
    on[NAGREE + i] = !on[i];
  }
  PetscCallMPI(MPI_Allreduce(on, any, 2 * NAGREE, MPI_INT, MPI_MAX, comm));
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  for (int i = 0; i < NAGREE; i++) {
    if (!any[i] || !any[NAGREE + i]) continue; /* the same at every rank */
    if (i < 5) *flag[i] = PETSC_FALSE;
    else path[i - 5][0] = 0;
    PetscCall(PetscPrintf(comm, "WARNING: -%s%s is set at some ranks of the KSP and not at others (an options prefix that differs between ranks?): ignored at all\n", prefix ? prefix : "", name[i]));
  }
  PetscFunctionReturn(0);
}

/* What can fail later is checked now, before any solve, where errors keep their own code: inside the event hooks
   of PETSc 3.18 every error turns into "error code 1". The profile is read even without -ksp_perfmodel_view, so
   that a wrong path never goes unnoticed; with the report, this host's cached profile too (a broken one is an
   error, not replaced by the default). */
static PetscErrorCode PKPerfCheckOptions(KSP ksp, PKPerfCtx *c)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)ksp);
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(PKPerfAgree(ksp, c));
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCheck(!c->mon.opt_trace || c->mon.trace[0], comm, PETSC_ERR_ARG_WRONG, "-%sksp_perf_trace needs a file name", prefix ? prefix : "");
  PetscCheck(c->mon.node_size >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sksp_perf_node_size must be positive (or 0 for MPI_COMM_TYPE_SHARED), not %" PetscInt_FMT, prefix ? prefix : "", c->mon.node_size);
  PetscCall(PKNoiseCheckOptions(ksp, &c->mon));
  PetscCall(PKTraceCheck(comm, &c->mon)); /* a file already open on other processes: refused now, with a message */
  PetscCall(PKPapiCheckList(comm, prefix, c->mon.papi_events, sizeof(c->mon.papi_events)));
  if (c->mon.opt_report) PetscCall(PKPerfOpenViewer(ksp, "-ksp_perfmodel_view", &c->report.viewer, &c->report.format, c->report.spec, sizeof(c->report.spec)));
  else PetscCall(PetscViewerDestroy(&c->report.viewer));
  if (c->mon.opt_summary) PetscCall(PKPerfOpenViewer(ksp, "-ksp_perfmodel_summary", &c->summary.viewer, &c->summary.format, c->summary.spec, sizeof(c->summary.spec)));
  else if (!c->summary.nsolves) PetscCall(PetscViewerDestroy(&c->summary.viewer)); /* one that has solves is printed */
  c->mon.net_on = (PetscBool)(c->mon.opt_report || c->mon.opt_summary);            /* the counters feed the report's congestion penalty only */
  if (c->model.machine_path[0] || c->mon.net_on) PetscCall(PKReportLoadMachine(comm, &c->model));
  PetscCall(PKReportLoadTopology(comm, &c->model)); /* a wrong file is an error now, with or without the report */
  PetscFunctionReturn(0);
}

/* At the first solve of a KSP whose options were never read (no KSPSetFromOptions): the prefix is final then */
static PetscErrorCode PKPerfReadOptions(KSP ksp, PKPerfCtx *c)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)ksp);
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscOptionsBegin(comm, prefix, "KSP performance monitor (pipekrylov)", "KSP");
  PetscCall(PKPerfOptionItems(ksp, PetscOptionsObject, c));
  PetscOptionsEnd();
  PetscCall(PKPerfCheckOptions(ksp, c));
  c->mon.options_read = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* KSPSetFromOptions of any KSP: the options are read, listed by -help, and checked, with the KSP's own */
static PetscErrorCode PKPerfOptionsHandler(PetscObject obj, PetscOptionItems *PetscOptionsObject, void *unused)
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  (void)unused;
  PetscCall(PKPerfCtxGet((KSP)obj, PETSC_TRUE, &c));
  PetscCall(PKPerfOptionItems((KSP)obj, PetscOptionsObject, c));
  PetscCall(PKPerfCheckOptions((KSP)obj, c));
  c->mon.options_read = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The handler above for a KSP, once: every new KSP gets it through the logging interface's object-creation hook
   (pklog.h); one of ours created before the hooks were in gets it from PKPerfInstallIfRequested() */
PetscErrorCode PKPerfAddHandler(KSP ksp)
{
  PetscObject o = (PetscObject)ksp;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < o->noptionhandler; i++)
    if (o->optionhandler[i] == PKPerfOptionsHandler) PetscFunctionReturn(0);
  PetscCall(PetscObjectAddOptionsHandler(o, PKPerfOptionsHandler, NULL, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPerfCreated(PetscObject o)
{
  PetscFunctionBegin;
  if (o->classid == KSP_CLASSID) PetscCall(PKPerfAddHandler((KSP)o));
  PetscFunctionReturn(0);
}

static inline PetscBool PKPerfIsOn(PKPerfCtx *c)
{
  if (c->mon.noise.on) return PETSC_TRUE; /* the noise is injected through the recorder's marks */
  if (c->mon.code_on >= 0) return (PetscBool)(c->mon.code_on == 1);
  return (PetscBool)(c->mon.opt_monitor || c->mon.opt_trace || c->mon.opt_report || c->mon.opt_summary);
}

/* The monitor's settings for -ksp_view (pipekrylov's types call this from their view; after the first solve,
   when the options have been read) */
PetscErrorCode PKPerfView(KSP ksp, PetscViewer viewer)
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  {
    PetscContainer cont;
    PKTypeChoice  *choice;
    PetscCall(PetscObjectQuery((PetscObject)ksp, "PKTypeChoice", (PetscObject *)&cont));
    if (cont) {
      PetscCall(PetscContainerGetPointer(cont, (void **)&choice));
      PetscCall(PKReportTypeChoiceView(viewer, choice));
    }
  }
  PetscCall(PKPerfCtxGet(ksp, PETSC_FALSE, &c));
  if (!c || !c->mon.options_read || !PKPerfIsOn(c)) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  performance monitor: on%s%s%s%s, PAPI events %s%s%s\n", c->mon.opt_trace ? ", trace " : "", c->mon.opt_trace ? c->mon.trace : "", c->mon.opt_report ? ", report (-ksp_perfmodel_view)" : "", c->mon.opt_summary ? ", summary (-ksp_perfmodel_summary)" : "",
                                   c->mon.papi_events, c->model.machine_path[0] ? ", machine profile " : "", c->model.machine_path));
  if (PKPapiUnavailable()[0]) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  PAPI: the default events are not recorded on this machine: %s\n", PKPapiUnavailable()));
    PetscCall(PetscViewerASCIIPrintf(viewer, "    the kernel's software events, where they exist, are left out (a system call every iteration); to ask:\n"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "    -%sksp_perf_papi_events %s\n", ((PetscObject)ksp)->prefix ? ((PetscObject)ksp)->prefix : "", PKPapiSoftwareEvents()));
  }
  PetscCall(PKNoiseView(ksp, &c->mon, viewer));
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
  if (!c->mon.active) PetscFunctionReturn(0);
  if (!c->mon.rows_started && its == 0) PetscCall(PKRecRowsStart(&c->mon));
  else if (c->mon.builtin) PetscCall(PKRecRowEnd(&c->mon.rec, its));
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
  if (!c->mon.options_read) PetscCall(PKPerfReadOptions(ksp, c));
  if (c->mon.active) { /* a solve of this KSP that ended in an error: forget it */
    if (pk_hook_top == c) pk_hook_top = (PKPerfCtx *)c->mon.hook_prev;
    c->mon.active = PETSC_FALSE;
  }
  if (!PKPerfIsOn(c)) PetscFunctionReturn(0);
  if (!c->mon.layout_done) {
    const char *prefix;

    PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
    PetscCall(PKStatsLayout(comm, &c->mon));
    PetscCall(PKPapiSetUp(comm, prefix, c->mon.papi_events));
    PetscCall(PKPapiAgree(comm, prefix, &c->mon.papi_n, c->mon.papi_col, c->mon.papi_names));
  }
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetChunks_C", &ours));
  c->mon.builtin = ours ? PETSC_FALSE : PETSC_TRUE;
  if (c->mon.net_on && c->mon.net_state == PK_NET_UNSET) PetscCall(PKNetWatchSetUp(comm, &c->mon));
  PetscCall(PKPerfAttachMonitor(ksp, c));
  /* the counters feed a report only: read around the solves that get one (with the summary alone, those numbered
     1, 2, 4, ...), since a reading opens files */
  c->net_this_solve = (PetscBool)(c->report.viewer || (c->summary.viewer && PKSummaryRendersNext(&c->summary)));
  if (c->net_this_solve) PetscCall(PKNetWatchBegin(&c->mon)); /* before the clock starts */
  PetscCall(PKRecSolveBegin(ksp, &c->mon));
  PetscCall(PKNoiseSolveBegin(ksp, &c->mon));
  c->mon.active = PETSC_TRUE;
  if (c->mon.builtin) {
    c->mon.hook_prev = pk_hook_top;
    pk_hook_top      = c;
  }
  *out = c;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPerfSolveEnd(KSP ksp, PKPerfCtx *c)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)ksp);

  PetscFunctionBegin;
  c->mon.active = PETSC_FALSE;
  if (c->mon.builtin) pk_hook_top = (PKPerfCtx *)c->mon.hook_prev;
  PetscCall(PKRecSolveEnd(ksp, &c->mon));
  if (c->net_this_solve) PetscCall(PKNetWatchEnd(&c->mon));
  PetscCall(PKStatsCompute(comm, &c->mon));
  PetscCall(PKNoiseSolveEnd(ksp, &c->mon));
  if (c->mon.opt_trace && !c->mon.trace_failed) PetscCall(PKTraceWrite(comm, &c->mon));
  if (c->report.viewer || c->summary.viewer) { /* the monitor's record of the solve to the report: the one way between them */
    PKSolveRecord rec;
    PetscInt      rendered = c->summary.report_solve;

    PetscCall(PKMonitorRecord(ksp, &c->mon, &rec));
    if (c->report.viewer) PetscCall(PKPerfReport(ksp, &rec, &c->model, &c->report));
    if (c->summary.viewer) {
      PetscCall(PKSummaryAdd(ksp, &rec, &c->model, &c->report, &c->summary));
      if (!c->summary.listed) PetscCall(PKSummaryList(c));
    }
    /* rank 0 evaluates the models alone: the other ranks must not start the next solve meanwhile, or its time
       would include waiting for rank 0 */
    if (c->report.viewer || c->summary.report_solve != rendered) PetscCallMPI(MPI_Barrier(comm));
  }
  c->mon.solve++;
  PetscFunctionReturn(0);
}

/* The monitor's side of the event stream (pklog.h): before and after the hooks chained behind ours */
static PetscErrorCode PKPerfBegin(PetscLogEvent e, PetscObject o1, void **after)
{
  PKPerfCtx *c = NULL;

  PetscFunctionBegin;
  if (e == KSP_Solve) {
    if (o1 && o1->classid == KSP_CLASSID) PetscCall(PKPerfSolveBegin((KSP)o1, &c));
  } else if (pk_hook_top) PKPerfEventBegin(pk_hook_top, e);
  *after = c;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPerfBeginAfter(void *after, PetscObject o1)
{
  (void)o1;
  PKRecClockStart(&((PKPerfCtx *)after)->mon); /* the clock starts last: our own work is outside the solve's time */
  return 0;
}

static PetscErrorCode PKPerfEnd(PetscLogEvent e, PetscObject o1, void **after)
{
  PKPerfCtx *c = NULL;

  PetscFunctionBegin;
  if (e == KSP_Solve) {
    /* the CPU time (a system call, where the kernel may switch process) before the solve's clock stops, so that a
       switch there falls inside the recorded solve as it does inside PETSc's KSP_Solve event (see PKRecClockStart) */
    PetscLogDouble now, cpu = PKRecCPUTime();
    PetscCall(PetscTime(&now));
    if (o1 && o1->classid == KSP_CLASSID) PetscCall(PKPerfCtxGet((KSP)o1, PETSC_FALSE, &c));
    if (c && c->mon.active) {
      c->mon.tend   = now;
      c->mon.cpuend = cpu;
    } else c = NULL;
  } else if (pk_hook_top) PKPerfEventEnd(pk_hook_top, e);
  *after = c;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPerfEndAfter(void *after, PetscObject o1)
{
  PetscFunctionBegin;
  PetscCall(PKPerfSolveEnd((KSP)o1, (PKPerfCtx *)after));
  PetscFunctionReturn(0);
}

/* Events the hooks need; with no other logging on, the PETSc-version file (pklog.h) switches every other event's
   logging off while the hooks are in: each logged event would otherwise call them (and push PETSc's event stack)
   for nothing, about 1% of a pcg iteration. They are switched back on when the hooks are removed. */
static PetscBool PKPerfNeeded(PetscLogEvent e)
{
  return (PetscBool)(e == KSP_Solve || e == MAT_Mult || e == PC_Apply || e == VEC_ScatterEnd || e == VEC_ReduceBegin || e == VEC_ReduceEnd || e == VEC_ReduceCommunication || PKPerfBlockingReduction(e));
}

PetscErrorCode PKPerfHooksInstall(void)
{
  static const PKLogHooks hooks = {PKPerfBegin, PKPerfBeginAfter, PKPerfEnd, PKPerfEndAfter, PKPerfNeeded, PKPerfCreated};

  PetscFunctionBegin;
  PetscCall(PKLogHooksInstall(&hooks));
  PetscFunctionReturn(0);
}

PetscErrorCode PKPerfHooksRemove(void)
{
  PetscBool was;

  PetscFunctionBegin;
  PetscCall(PKLogHooksRemove(&was));
  if (was) pk_hook_top = NULL;
  PetscFunctionReturn(0);
}
