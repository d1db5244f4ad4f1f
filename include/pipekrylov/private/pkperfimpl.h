/*
   The perf package: the logging monitor that records every KSPSolve, the trace, and the end-of-solve report.

   How a solve is recorded (src/perf/monitor unless said otherwise):
     perf.c      registration; installs PETSc's event hooks (PetscLogPLB/PLE, chained) when a perf option is present
     hooks.c     the hooks: KSP_Solve begin/end of any KSP, and for PETSc's own types the MatMult, PCApply, halo and
                 reduction events that split their iterations into phases; the per-KSP context and its options
     recorder.c  the rows: one per iteration per rank, closed by PKRecIterEnd (our types) or the monitor (PETSc's)
     papi.c      the PAPI event set, read once per row
     stats.c     cross-rank statistics (PKStats) at the end of the solve
     trace.c     the CSV trace, written with MPI-IO
     report.c    (src/perf/report) PKPerfReport: what -ksp_perfmodel_view prints
     monitor.c   the public interface (KSPPerfMonitorSet ...)
     noise.c     noise injection (-ksp_perf_noise, KSPPerfNoiseSet ...): detours served from the recorder's marks
*/
#ifndef PKPERFIMPL_H
#define PKPERFIMPL_H

#include <pipekrylov.h>
#include <pipekrylov/private/pkcore.h>
#include <pipekrylov/private/pkstats.h>
#include <pipekrylov/private/pkmodel.h>
#include <pipekrylov/private/pknoise.h>
#include <pipekrylov/private/pkcompat.h>

#define PK_QUIET_HIST 5 /* noise-free solves whose median time per iteration is a noisy solve's reference */

PETSC_INTERN PetscErrorCode PKPerfInitializePackage(void);
PETSC_INTERN PetscErrorCode PKPerfFinalizePackage(void);

#define PK_PAPI_MAX 8 /* PAPI events per run, at most */

/* One row: one iteration on this rank */
typedef struct {
  PetscLogDouble     t1;             /* end of the iteration (PetscTime); it began at the previous row's t1 */
  PetscLogDouble     ph[PK_PHASE_N]; /* phase times; they add up to t1 - (previous t1) */
  PetscLogDouble     wait;           /* halo and reduction waits by activity, inside overlap windows too */
  unsigned long long red_mask;       /* PKRecHot.red_mask */
  int                red_n, red_tests;
} PKRow;

/* What the monitor keeps for one KSP (src/perf/monitor): settings, placement, the rows of the solve under way and
   their statistics. The recorder, PAPI, statistics and trace functions see only this part. */
typedef struct {
  struct _p_PKRec rec; /* rec.priv points back here (the start of the PKPerfCtx too) */
  /* settings: options read once, at the first solve, with the KSP's prefix; code_on from KSPPerfMonitorSet */
  PetscBool         options_read;
  PetscInt          code_on; /* -1 not set from code, 0 off, 1 on */
  PetscBool         opt_monitor, opt_trace, opt_report;
  char              trace[PETSC_MAX_PATH_LEN];
  PetscBool         trace_failed; /* an unwritable trace was reported once; no more attempts */
  PetscInt64        trace_serial; /* this context's number among those that wrote traces in this process (trace.c) */
  char              papi_events[256];
  PetscInt          node_size; /* -ksp_perf_node_size, 0: MPI_COMM_TYPE_SHARED */
  /* placement, found at the first recorded solve */
  PetscBool   layout_done;
  PetscInt    node, nnodes, ppn;
  PetscMPIInt tag;        /* for the selected ranks' series */
  PetscMPIInt *rank_node; /* [P] node of every rank of the KSP's communicator */
  /* the solve under way */
  PetscBool      active;  /* recording */
  PetscBool      builtin; /* a PETSc type: phases from PETSc's events, rows from the monitor */
  PetscBool      rows_started; /* the monitor saw iteration 0: rows begin here, before it was set-up */
  PetscInt       solve, nits_prev;
  PetscLogDouble tbegin, trow0, tend; /* PetscTime at KSPSolve begin, start of the first row, KSPSolve end */
  PetscLogDouble cpubegin, cpuend;    /* process CPU time at KSPSolve begin and end (the model's core sharing) */
  double         realbegin;           /* CLOCK_REALTIME at tbegin: comparable between ranks on a node */
  PetscInt       n, nalloc;
  PKRow         *rows;
  int            nctr;                /* PAPI counters */
  long long     *ctr;                 /* [nalloc][nctr] cumulative readings at each row's end */
  long long      ctr_row0[PK_PAPI_MAX], ctr_end[PK_PAPI_MAX];
  PKRow          setup_red, finish_red; /* reductions before the first and after the last row */
  PetscLogDouble wait_mark;             /* rec.hot.work[halo] + work[reduce] at the end of the last row */
  /* PETSc's types: the tracked event open at depth 0 (-1 none), its nesting, and whether in its halo wait */
  PetscLogEvent open_event;
  int           open_depth;
  PetscBool     in_halo;
  void         *hook_prev; /* the enclosing recorded PETSc-type solve (nested solves) */
  /* noise injection (noise.c) and the last noise-free solve of this KSP, the reference of its slowdown */
  PKNoise    noise;
  PetscBool  quiet_have;
  PetscReal  quiet_per_it;  /* KSPSolve time per iteration, slowest rank: the median of the last noise-free solves */
  PetscReal  quiet_hist[PK_QUIET_HIST]; /* the last noise-free solves' times per iteration (a ring) */
  PetscInt   quiet_nhist;   /* noise-free solves seen (the ring holds the last PK_QUIET_HIST) */
  PetscInt   quiet_npooled; /* its pooled per-iteration sample (rank 0 only; 0 elsewhere) */
  PetscReal *quiet_pooled;
  /* results of the last solve */
  PetscLogDouble t_enter; /* this rank's KSPSolve begin after the earliest rank's (system clock) */
  PKStats        stats;
} PKMonitorCtx;

/* What the model needs beyond the run (src/perf/models): the machine profile (-ksp_perfmodel_machine, else this
   host's cached one, else the embedded default), loaded at KSPSetFromOptions or the first report */
typedef struct {
  char      machine_path[PETSC_MAX_PATH_LEN];
  PetscBool machine_loaded;
  PetscBool machine_from_host; /* loaded without a path (host cache or default): a path given later replaces it */
  PKMachine machine;
} PKModelCtx;

/* The report (src/perf/report, -ksp_perfmodel_view): where it prints, and what it built to read the halo */
typedef struct {
  PetscViewer       viewer; /* -ksp_perfmodel_view */
  PetscViewerFormat format;
  char              spec[PETSC_MAX_PATH_LEN + 32]; /* the file, mode and format it was opened for ("": standard output) */
  PKSpMV            spmv; /* chunked-SpMV structure of a PETSc type's operator, for its halo (report_data.c) */
  Mat               mat;  /* the operator it was built for */
} PKReportCtx;

/* Everything the perf package keeps for one KSP: composed with it (PetscContainer "PKPerf"), destroyed with it */
typedef struct {
  PKMonitorCtx mon; /* first: a recorder's priv is both */
  PKModelCtx   model;
  PKReportCtx  report;
} PKPerfCtx;

/* Row k begins where row k - 1 ended (row 0: at trow0); k = n gives the end of the rows */
static inline PetscLogDouble PKRowStart(const PKMonitorCtx *c, PetscInt k)
{
  return k ? c->rows[k - 1].t1 : c->trow0;
}

/* Increase of counter j over row k */
static inline long long PKRowCounter(const PKMonitorCtx *c, PetscInt k, PetscInt j)
{
  return c->ctr[k * c->nctr + j] - (k ? c->ctr[(k - 1) * c->nctr + j] : c->ctr_row0[j]);
}

/* How many of n reductions a mask marks early (bits beyond the 64th are never early) */
static inline int PKEarlyCount(unsigned long long mask, PetscReal n)
{
  return __builtin_popcountll(n >= 64 ? mask : mask & ((1ULL << (int)n) - 1));
}

PETSC_INTERN PetscErrorCode PKPerfHooksInstall(void);
PETSC_INTERN PetscErrorCode PKPerfHooksRemove(void);
PETSC_INTERN PetscErrorCode PKPerfCtxGet(KSP, PetscBool, PKPerfCtx **);
PETSC_INTERN PetscErrorCode PKPerfGetRec(KSP, PKRec *);
PETSC_INTERN PetscErrorCode PKPerfView(KSP, PetscViewer);
PETSC_INTERN PetscErrorCode PKPerfInstallIfRequested(KSP);

PETSC_INTERN PetscErrorCode PKRecRowEnd(PKRec, PetscInt);
PETSC_INTERN PetscErrorCode PKRecSolveBegin(KSP, PKMonitorCtx *);
PETSC_INTERN void           PKRecClockStart(PKMonitorCtx *);
PETSC_INTERN PetscLogDouble PKRecCPUTime(void);
PETSC_INTERN PetscErrorCode PKRecRowsStart(PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKRecSolveEnd(KSP, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKRecFree(PKMonitorCtx *);

PETSC_INTERN PetscErrorCode PKPapiSetUp(MPI_Comm, const char[], const char[]);
PETSC_INTERN PetscErrorCode PKPapiCheckList(MPI_Comm, const char[], char[], size_t);
PETSC_INTERN int            PKPapiCount(void);
PETSC_INTERN const char *const *PKPapiNames(void);
PETSC_INTERN const char        *PKPapiUnavailable(void);
PETSC_INTERN const char        *PKPapiUnavailableReason(void);
PETSC_INTERN const char        *PKPapiSoftwareEvents(void);
PETSC_INTERN void           PKPapiRead(long long *);
PETSC_INTERN PetscErrorCode PKPapiFinalize(void);

PETSC_INTERN PetscErrorCode PKStatsLayout(MPI_Comm, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKStatsCompute(MPI_Comm, PKMonitorCtx *);

PETSC_INTERN PetscErrorCode PKTraceWrite(MPI_Comm, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKTraceCheck(MPI_Comm, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKTraceFinalize(void);

/* What the report knows about one solve: gathered collectively (report_data.c), models evaluated on rank 0 */
#define PK_WHATIF_RANKS 4
typedef struct {
  /* the run */
  KSPType        type;
  PetscBool      ours;        /* one of pipekrylov's types */
  PKSolverConfig config;
  PKSolveInput   in;          /* what the analytic model was fed */
  PetscReal      measured;    /* KSPSolve, slowest rank */
  PetscReal      rows_time;   /* sum over iterations of the slowest rank's iteration time */
  PetscInt       nspmv, npc;  /* applications per solve */
  PetscReal      work[PK_PHASE_N]; /* mean over ranks of the time by activity, whole solve */
  PetscReal      win[PK_PHASE_N];  /* the part of it inside the overlap windows of non-blocking reductions */
  PetscReal      phase[PK_PHASE_N]; /* mean over ranks of the rows' phase totals */
  PetscBool      vec_modelled; /* PETSc type: vector time from the streams and memory bandwidth */
  PetscBool      pc_diagonal;  /* the PC is jacobi or none (pipecg, pipe2cg can apply it inside the fused pass) */
  PetscBool      pc_time_modelled; /* the PC was fused and too rarely applied outside: t_pc from vector streams */
  PetscInt       nrows_global, nnz_global;
  /* halo of the slowest and of the average rank */
  PetscBool      have_halo;
  /* a node-aware layout of the operator's DMDA (src/dm) that would cut off-node bytes: its saving per SpMV on the
     slowest rank (model), off-node bytes per SpMV of this run and of the placement, and the commands */
  PetscBool      have_place;
  PetscReal      place_saving, place_bytes_off[2];
  char           place_what[160], place_cmd[320];
  char           halo_why[128];
  PetscReal      halo_msgs[2][PK_NLOC], halo_bytes[2][PK_NLOC]; /* [0] average, [1] slowest rank */
  PetscReal      halo_avg_total;
  PetscReal      halo_total_msgs[PK_NLOC], halo_total_bytes[PK_NLOC]; /* sums over ranks, one SpMV */
  PetscInt       halo_max_posted;                                    /* most messages one rank sends per SpMV */
  /* machine */
  PKMachineParams eff;        /* the profile with unavailable off-node values replaced (see notes) */
  PetscBool       offnode_substituted;
  char            offnode_missing[256]; /* the protocols whose off-node alpha/beta the profile does not have */
  PetscReal       halo_wait;            /* measured wait for the ghost values per SpMV, the rank that waited longest */
  char            offnode_filled[512];  /* other off-node fields the profile does not have (on-node values used) */
  char            onnode_default[512];  /* on-node communication fields the profile does not have (embedded default used) */
  PetscBool       wi_ranks_refused;     /* no what-if for larger runs: no off-node parameters */
  const char     *wi_halo_how;          /* how the what-if for larger runs models their halo exchange */
  PetscBool       machine_is_default; /* no -ksp_perfmodel_machine and no profile of this host in the cache */
  /* analytic model */
  PKModelResult  model;
  PetscReal      sync_raw[2];
  PetscReal      theta_counts;
  /* what-if */
#define PK_WHATIF_SOLVERS (PK_SOLVER_NOURS + 2) /* pipekrylov's six, PETSc's cg and gmres */
  PKSolverConfig wi_config[PK_WHATIF_SOLVERS]; /* ours as each describes itself (a throwaway KSP of its type), PETSc's from the table */
  PKSolverKind   wi_kind[PK_WHATIF_SOLVERS];
  PKModelResult  wi_solver[PK_WHATIF_SOLVERS];
  PetscBool      wi_iters_differ[PK_WHATIF_SOLVERS]; /* other method family: its iteration count is not this run's */
  PetscInt       wi_nsolver;
  PetscInt       wi_P[PK_WHATIF_RANKS];
  PKModelResult  wi_ranks[PK_WHATIF_RANKS];
  PetscReal      wi_ET[PK_WHATIF_RANKS], wi_ETp[PK_WHATIF_RANKS];
  PKModelResult  chunks_full; /* the same solve with full overlap (theta = 1) */
  PetscBool      have_chunks_full;
  /* stochastic model */
  PetscBool      have_stoch;
  PKStochResult  stoch;
  PetscReal      ks_D[3], ks_crit[3], ks_corr[3]; /* pairs: fastest-slowest, slowest-same node, rank 0-slowest */
  PetscMPIInt    ks_a[3], ks_b[3];
  PetscBool      ks_same_node[3];
  PetscInt       nks;
  /* AMG */
  PetscBool      have_amg;
  char           amg_why[128];
  PetscInt       amg_L;
  PKAMGLevel     amg_lev[PK_AMG_MAXLEVELS];
  PKAMGResult    amg;
  PetscReal      amg_measured; /* measured time per PC application */
  /* noise injection (report_noise.c) */
  PetscBool      have_noise;
  PetscReal      noise_d, noise_f;    /* detour length (s) and rate (Hz) */
  PetscInt       noise_ranks_on;      /* ranks that inject */
  PetscInt       noise_n;             /* detours, all ranks */
  PetscReal      noise_injected;      /* time in detours, sum over ranks (injector's clock) */
  PetscReal      noise_inj_min, noise_inj_max;
  PetscReal     *noise_inj;           /* [P] per rank (rank 0), freed with the report */
  PetscReal      noise_ref_per_it;    /* noise-free time per iteration: a quiet solve before, or the model */
  const char    *noise_ref;           /* where it comes from */
  PetscInt       noise_quiet_m;       /* noise-free sample for the prediction (NULL: a point mass at ref) */
  const PetscReal *noise_quiet_x;
  PetscReal      noise_meas, noise_pred, noise_Eq, noise_En; /* slowdowns; E per iteration without and with */
  PetscBool      noise_nonblocking;
  /* slow ranks (report_noise.c): busy time per iteration (compute, no waits) per rank */
  PetscBool      have_slow;
  PetscInt       nslow, nslow_found;
  PetscMPIInt    slow_rank[8];
  PetscInt       slow_node[8];
  PetscReal      slow_mean[8], slow_D[8], slow_cost[8]; /* mean busy time, one-sided KS D+, cost */
  PetscReal      rest_mean, rest_sd, slow_Ewith, slow_Ewithout[8];
  PetscInt       slow_node_all[8], nslow_nodes; /* nodes all of whose ranks are slow */
} PKReportData;

PETSC_INTERN PetscErrorCode PKReportGather(KSP, PKPerfCtx *, const PKStats *, PKReportData *);
PETSC_INTERN PetscErrorCode PKReportNoiseGather(KSP, PKPerfCtx *, const PKStats *, PKReportData *);
PETSC_INTERN PetscErrorCode PKReportNoiseModel(const PKStats *, PKReportData *);
PETSC_INTERN PetscErrorCode PKReportNoiseView(PetscViewer, PetscViewerFormat, const PKStats *, const PKReportData *);
PETSC_INTERN PetscErrorCode PKReportNoiseCSV(PetscViewer, const PKStats *, const PKReportData *);

/* Noise injection (src/perf/monitor/noise.c) */
#define PK_NOISE_OFF PETSC_MAX_REAL
PETSC_INTERN void           PKNoiseDetour_Private(PKRec, PetscLogDouble); /* the recorder's detour (rec.detour) */
PETSC_INTERN void           PKNoiseBlockingBegin(PKMonitorCtx *); /* PETSc's types: a blocking reduction (hooks.c) */
PETSC_INTERN void           PKNoiseBlockingEnd(PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNoiseReadOptions(KSP, PKMonitorCtx *, PetscOptionItems *);
PETSC_INTERN PetscErrorCode PKNoiseCheckOptions(KSP, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNoiseSolveBegin(KSP, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNoiseSolveEnd(KSP, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNoiseView(KSP, PKMonitorCtx *, PetscViewer);
PETSC_INTERN PetscErrorCode PKNoiseQuietReference(KSP, PKMonitorCtx *, PetscReal *, PetscInt *, const PetscReal **, const char **);
PETSC_INTERN PetscErrorCode PKNoiseFinalize(void);

PETSC_INTERN PetscErrorCode PKReportFree(PKPerfCtx *);
PETSC_INTERN PetscErrorCode PKReportLoadMachine(MPI_Comm, PKModelCtx *);
/* collective pieces of the report that the examples modelling other libraries (examples/hypre_pcg.c) share */
PETSC_INTERN PetscErrorCode PKReportRanksPerCore(MPI_Comm, PetscReal *);
PETSC_INTERN PetscErrorCode PKReportHaloSlowest(MPI_Comm, const PKMachineParams *, const PKHaloPattern *, PKCommCost *, PKCommCost *);

/* -ksp_perfmodel_view's value checked before anything is created, and a file opened (report_viewer.c) */
PETSC_INTERN PetscErrorCode PKReportViewerOpen(KSP, PKReportCtx *, PetscBool *);
/* The end-of-solve report for -ksp_perfmodel_view (report.c), to the viewer of the context it is given */
PETSC_INTERN PetscErrorCode PKPerfReport(KSP, PKPerfCtx *);

#endif
