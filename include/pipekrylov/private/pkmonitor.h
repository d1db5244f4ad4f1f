/*
   The monitor (src/perf/monitor): what it records of one KSP's solves and the functions that record it.

     recorder.c  the rows: one per iteration per rank, closed by PKRecIterEnd (our types) or the monitor (PETSc's)
     papi.c      the PAPI event set, read once per row
     stats.c     cross-rank statistics (PKStats) at the end of the solve
     trace.c     the CSV trace, written with MPI-IO
     noise.c     noise injection: detours served from the recorder's marks
     record.c    what the monitor hands the report at the end of a solve (pkrecord.h)
     netcounters.c, netwatch.c   a node's network port counters, read around each solve
     petsclog318.c, petsclog320.c   PETSc's event stream (pklog.h), for the package's hooks

   The report never reads this header: it gets a PKSolveRecord (tests/layers.sh checks it).
*/
#ifndef PKMONITOR_H
#define PKMONITOR_H

#include <pipekrylov.h>
#include <pipekrylov/private/pkcore.h>
#include <pipekrylov/private/pkstats.h>
#include <pipekrylov/private/pknoise.h>
#include <pipekrylov/private/pkrecord.h>
#include <pipekrylov/private/pkcompat.h>
#include <pipekrylov/private/pknet.h>

#define PK_QUIET_HIST 5 /* noise-free solves whose median time per iteration is a noisy solve's reference */

#define PK_PAPI_MAX 8 /* PAPI events per run, at most */

/* The network counters' reader (netwatch.c) */
typedef enum {
  PK_NET_UNSET,      /* not decided yet */
  PK_NET_READER,     /* this rank reads its node's port */
  PK_NET_NOT_READER, /* another rank of the node reads it */
  PK_NET_NO_PORT     /* this rank would, but found no port */
} PKNetState_e;

/* One row: one iteration on this rank */
typedef struct {
  PetscLogDouble     t1;             /* end of the iteration (PetscTime); it began at the previous row's t1 */
  PetscLogDouble     ph[PK_PHASE_N]; /* phase times; they add up to t1 - (previous t1) */
  PetscLogDouble     wait;           /* halo and reduction waits by activity, inside overlap windows too */
  unsigned long long red_mask;       /* PKRecHot.red_mask */
  int                red_n, red_tests;
} PKRow;

/* What the monitor keeps for one KSP: settings, placement, the rows of the solve under way and their statistics.
   The recorder, PAPI, statistics and trace functions see only this part. */
typedef struct {
  struct _p_PKRec rec; /* rec.priv points back here (the start of the PKPerfCtx too) */
  /* settings: options read once, at the first solve, with the KSP's prefix; code_on from KSPPerfMonitorSet */
  PetscBool  options_read;
  PetscInt   code_on; /* -1 not set from code, 0 off, 1 on */
  PetscBool  opt_monitor, opt_trace, opt_report, opt_summary;
  char       trace[PETSC_MAX_PATH_LEN];
  PetscBool  trace_failed; /* an unwritable trace was reported once; no more attempts */
  PetscInt64 trace_serial; /* this context's number among those that wrote traces in this process (trace.c) */
  char       papi_events[256];
  PetscInt   node_size; /* -ksp_perf_node_size, 0: MPI_COMM_TYPE_SHARED */
  /* placement, found at the first recorded solve */
  PetscBool    layout_done;
  PetscInt     node, nnodes, ppn;
  PetscMPIInt  tag;                     /* for the selected ranks' series */
  PetscMPIInt *rank_node;               /* [P] node of every rank of the KSP's communicator */
  int          papi_n;                  /* the PAPI events this KSP records, agreed by its ranks (PKPapiAgree) */
  int          papi_col[PK_PAPI_MAX];   /* their columns in the process's event set */
  const char  *papi_names[PK_PAPI_MAX]; /* and their names */
  /* the solve under way */
  PetscBool      active;       /* recording */
  PetscBool      builtin;      /* a PETSc type: phases from PETSc's events, rows from the monitor */
  PetscBool      rows_started; /* the monitor saw iteration 0: rows begin here, before it was set-up */
  PetscInt       solve, nits_prev;
  PetscLogDouble tbegin, trow0, tend; /* PetscTime at KSPSolve begin, start of the first row, KSPSolve end */
  PetscLogDouble cpubegin, cpuend;    /* process CPU time at KSPSolve begin and end (the model's core sharing) */
  double         realbegin;           /* CLOCK_REALTIME at tbegin: comparable between ranks on a node */
  PetscInt       n, nalloc;
  PKRow         *rows;
  int            nctr; /* PAPI counters */
  long long     *ctr;  /* [nalloc][nctr] cumulative readings at each row's end */
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
  PetscReal  quiet_per_it;              /* KSPSolve time per iteration, slowest rank: the median of the last noise-free solves */
  PetscReal  quiet_hist[PK_QUIET_HIST]; /* the last noise-free solves' times per iteration (a ring) */
  PetscInt   quiet_nhist;               /* noise-free solves seen (the ring holds the last PK_QUIET_HIST) */
  PetscInt   quiet_npooled;             /* its pooled per-iteration sample (rank 0 only; 0 elsewhere) */
  PetscReal *quiet_pooled;
  /* results of the last solve */
  PetscLogDouble t_enter; /* this rank's KSPSolve begin after the earliest rank's (system clock) */
  PKStats        stats;
  PetscReal     *busy;  /* this rank's busy time per iteration, for the record (record.c) */
  PetscInt       nbusy; /* its length allocated */
  /* network counters around each solve (netwatch.c): on with the report; one reader per node */
  PetscBool     net_on;
  char          net_root[PETSC_MAX_PATH_LEN];          /* -ksp_perfmodel_netcounters ("": /sys) */
  char          net_root_expanded[PETSC_MAX_PATH_LEN]; /* with %h replaced (the reader only) */
  PKNetState_e  net_state;
  PKNetPort     net_port;
  char          net_missing[2 * PETSC_MAX_PATH_LEN + 128]; /* the reader found no port: what it looked for */
  PKNetCounters net_before, net_delta;
  PetscBool     net_have; /* net_delta is this solve's */
} PKMonitorCtx;

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
PETSC_INTERN PetscErrorCode PKPapiAgree(MPI_Comm, const char[], int *, int[], const char *[]);
PETSC_INTERN const char    *PKPapiUnavailable(void);
PETSC_INTERN const char    *PKPapiUnavailableReason(void);
PETSC_INTERN const char    *PKPapiSoftwareEvents(void);
PETSC_INTERN void           PKPapiRead(int, const int[], long long *);
PETSC_INTERN PetscErrorCode PKPapiFinalize(void);

PETSC_INTERN PetscErrorCode PKStatsLayout(MPI_Comm, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKStatsCompute(MPI_Comm, PKMonitorCtx *);

PETSC_INTERN PetscErrorCode PKTraceWrite(MPI_Comm, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKTraceCheck(MPI_Comm, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKTraceFinalize(void);

/* Noise injection (noise.c) */
#define PK_NOISE_OFF PETSC_MAX_REAL
PETSC_INTERN void           PKNoiseDetour_Private(PKRec, PetscLogDouble); /* the recorder's detour (rec.detour) */
PETSC_INTERN void           PKNoiseBlockingBegin(PKMonitorCtx *);         /* PETSc's types: a blocking reduction (hooks.c) */
PETSC_INTERN void           PKNoiseBlockingEnd(PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNoiseReadOptions(KSP, PKMonitorCtx *, PetscOptionItems *);
PETSC_INTERN PetscErrorCode PKNoiseCheckOptions(KSP, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNoiseCheckValues(MPI_Comm, const char *, PetscReal, PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode PKNoiseSetHere(KSP, PKNoise *);
PETSC_INTERN PetscErrorCode PKNoiseSolveBegin(KSP, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNoiseSolveEnd(KSP, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNoiseView(KSP, PKMonitorCtx *, PetscViewer);
PETSC_INTERN PetscErrorCode PKNoiseQuietReference(KSP, PKMonitorCtx *, PetscReal *, PetscInt *, const PetscReal **, const char **);
PETSC_INTERN PetscErrorCode PKNoiseFinalize(void);

/* Network counters around each solve (netwatch.c) */
PETSC_INTERN PetscErrorCode PKNetWatchSetUp(MPI_Comm, PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNetWatchBegin(PKMonitorCtx *);
PETSC_INTERN PetscErrorCode PKNetWatchEnd(PKMonitorCtx *);

/* The record of the solve that just ended, for the report (record.c): valid until the KSP's next solve */
PETSC_INTERN PetscErrorCode PKMonitorRecord(KSP, PKMonitorCtx *, PKSolveRecord *);

#endif
