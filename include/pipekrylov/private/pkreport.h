/*
   The report (src/perf/report, -ksp_perfmodel_view): what the package needs of it. The report is a sequence of
   sections (src/perf/report/report.h); it reads the solve's record (pkrecord.h) and the models (pkmodel.h), never
   the monitor (tests/layers.sh).
*/
#ifndef PKREPORT_H
#define PKREPORT_H

#include <pipekrylov.h>
#include <pipekrylov/private/pkcore.h>
#include <pipekrylov/private/pkrecord.h>
#include <pipekrylov/private/pkmodel.h>
#include <pipekrylov/private/pkcompat.h>
#include <pipekrylov/private/pktopo.h>

/* What the model needs beyond the run (src/perf/models): the machine profile (-ksp_perfmodel_machine, else this
   host's cached one, else the embedded default), loaded at KSPSetFromOptions or the first report */
typedef struct {
  char      machine_path[PETSC_MAX_PATH_LEN];
  PetscBool machine_loaded;
  PetscBool machine_from_host; /* loaded without a path (host cache or default): a path given later replaces it */
  PKMachine machine;
  char      topology_path[PETSC_MAX_PATH_LEN]; /* -ksp_perfmodel_topology: the cluster's topology.conf */
  PKTopo    topo;                              /* its switch tree, read once; without a file, Slurm's (below) */
  PetscBool topo_slurm;                        /* the tree came from the tasks' SLURM_TOPOLOGY_ADDR */
  PetscBool topo_tried;                        /* the tree was looked for (a file, else Slurm) */
  char      slurm_node[PK_TOPO_MAX_NAME + 1];  /* with topo_slurm: this rank's node, as Slurm names it */
} PKModelCtx;

/* The report (src/perf/report, -ksp_perfmodel_view): where it prints, and what it built to read the halo */
typedef struct {
  PetscViewer       viewer; /* -ksp_perfmodel_view */
  PetscViewerFormat format;
  char              spec[PETSC_MAX_PATH_LEN + 32]; /* the file, mode and format it was opened for ("": standard output) */
  PKSpMV            spmv;                          /* chunked-SpMV structure of a PETSc type's operator, for its halo (sec_halo.c) */
  Mat               mat;                           /* the operator it was built for */
  /* where the KSP's ranks are, found at its first report (sec_net.c) */
  PetscInt *where;                               /* [P] each rank's node in the switch tree (< 0: not listed) */
  PetscInt  nmissing;                            /* ranks whose node the tree does not list */
  char      missing[MPI_MAX_PROCESSOR_NAME + 1]; /* one such node */
  PetscInt *package;                             /* [P] each rank's socket (< 0: bound to several) */
  PetscInt  npackages;                           /* sockets of the largest node */
} PKReportCtx;

/* The end-of-solve report to rep's viewer, from the record of the solve that just ended (report.c); collective */
PETSC_INTERN PetscErrorCode PKPerfReport(KSP, const PKSolveRecord *, PKModelCtx *, PKReportCtx *);
/* The model's machine profile, loaded once (sec_run.c); collective */
PETSC_INTERN PetscErrorCode PKReportLoadMachine(MPI_Comm, PKModelCtx *);
/* The switch tree of -ksp_perfmodel_topology, read once (sec_net.c); collective. And the model context's end. */
PETSC_INTERN PetscErrorCode PKReportLoadTopology(MPI_Comm, PKModelCtx *);
PETSC_INTERN PetscErrorCode PKModelFree(PKModelCtx *);
/* -ksp_perfmodel_view's viewer when it names a file (report_viewer.c) */
#define PK_REPORT_VIEWERS "ASCII viewers (standard output: no value, ascii:stdout or ascii:stderr; a file: ascii:<file>; the formats ::ascii_info, ::ascii_info_detail, ::ascii_csv, or ascii:<file>:ascii_csv)"
PETSC_INTERN PetscErrorCode PKReportViewerOpen(KSP, const char[], PetscViewer *, PetscViewerFormat *, char[], size_t, PetscBool *);
/* What the report built for a KSP (its operator's structure), with the KSP's perf context */
PETSC_INTERN PetscErrorCode PKReportFree(PKReportCtx *);
/* -ksp_perfmodel_summary (summary.c): one summary over all the solves of a KSP, printed when it is destroyed or at
   PetscFinalize: the measured totals of every solve and the full report of the last solve numbered a power of two */
#define PK_SUMMARY_MAX_KEPT 65536 /* solves whose times are kept for the medians; later ones count in the totals */
typedef struct {
  PetscViewer       viewer; /* -ksp_perfmodel_summary */
  PetscViewerFormat format;
  char              spec[PETSC_MAX_PATH_LEN + 32]; /* as PKReportCtx's */
  char              title[320];                    /* the KSP's prefix, type, PC, ranks and nodes (last solve) */
  PetscInt          nsolves, nconverged, nits;
  PetscReal         time, setup;       /* s, sums of the solves' KSPSolve time and its set-up (max over ranks) */
  PetscReal         phase[PK_PHASE_N]; /* s, sums over all iterations of each phase's mean over ranks (rank 0) */
  PetscInt          nkept, nalloc;     /* rank 0: each kept solve's iterations and time */
  PetscInt         *its;
  PetscReal        *solve_time;
  char             *report; /* rank 0: the rendered report of solve report_solve (malloc'd) */
  size_t            report_len;
  PetscInt          report_solve;
  PetscBool         printed, listed; /* listed: for PetscFinalize (the package's hooks.c) */
} PKSummary;
PETSC_INTERN PetscErrorCode PKSummaryAdd(KSP, const PKSolveRecord *, PKModelCtx *, PKReportCtx *, PKSummary *);
PETSC_INTERN PetscErrorCode PKSummaryView(PKSummary *);
/* Whether the next solve's report will be rendered (its number a power of two) */
static inline PetscBool PKSummaryRendersNext(const PKSummary *s)
{
  PetscInt n = s->nsolves + 1;
  return (PetscBool)((n & (n - 1)) == 0);
}
PETSC_INTERN PetscErrorCode PKSummaryFree(PKSummary *);
/* The model before a solve (predict.c): per-iteration times of solver configurations on a KSP's operator and
   preconditioner, from a few timed applications, the operator's halo and the profile; collective */
#define PK_PREDICT_MAX 8
typedef struct {
  PetscInt  n;
  PetscReal per_iteration[PK_PREDICT_MAX]; /* s, the model's time per iteration of each configuration */
  PetscReal init[PK_PREDICT_MAX];          /* s, its start-up */
  PetscReal t_spmv, t_pc;                  /* s, mean over the ranks: local SpMV (no halo), PC application */
  PetscReal t_matmul;                      /* s, slowest rank: one MatMult, halo included */
  PetscReal t_stream;                      /* s, mean over the ranks: one vector read or written (VecAXPY / 3) */
  PetscReal sync[2];                       /* s, synchronization gap per iteration: median and first-quartile rules */
  PetscReal halo;                          /* s, the slowest rank's modelled halo exchange */
  PetscBool halo_known;                    /* the operator's scatter was read (MPIAIJ, or one rank) */
  PetscInt  P, nodes, ppn;
  char      origin[PETSC_MAX_PATH_LEN]; /* the machine profile's */
} PKPrediction;
PETSC_INTERN PetscErrorCode PKReportPredict(KSP, PKModelCtx *, PKReportCtx *, PetscInt, const PKSolverConfig[], PKPrediction *);
/* What -ksp_type autocg chose for a KSP and why: the package level (src/perf/autocg.c) keeps it composed with the
   KSP (PetscContainer "PKTypeChoice", which outlives the type it became); the report prints it (sec_run.c) */
typedef struct {
  PetscInt     n;                        /* candidate types */
  char         type[PK_PREDICT_MAX][32]; /* their names */
  PKPrediction pred;                     /* the model's prediction for each */
  PetscReal    measured[PK_PREDICT_MAX]; /* s per iteration measured, mean over the solves run with it; < 0: none */
  PetscInt     nsolves[PK_PREDICT_MAX];  /* solves run with it */
  PetscInt     current;                  /* the type in use */
  PetscReal    margin;                   /* -ksp_autocg_explore */
  PetscBool    explore;                  /* -ksp_autocg_switch */
  char         why[256];                 /* why the type in use was chosen */
  /* the solve in progress (its monitor): the time of its first and last iteration, their numbers */
  PetscLogDouble t_first, t_last;
  PetscInt       it_first, it_last;
  /* the application's own pre- and post-solve hooks, called from ours */
  PetscErrorCode (*presolve)(KSP, Vec, Vec, void *);
  void *prectx;
  PetscErrorCode (*postsolve)(KSP, Vec, Vec, void *);
  void *postctx;
} PKTypeChoice;
PETSC_INTERN PetscErrorCode PKReportTypeChoiceView(PetscViewer, const PKTypeChoice *);
/* the model's description of a KSP's solver (ours: its own counts; PETSc's: the model's table for `type`) */
PETSC_INTERN PetscErrorCode PKReportSolverConfig(KSP, const char type[], PKSolverConfig *);
/* the messages this rank sends in one halo exchange of a KSP's operator (sec_halo.c); collective */
PETSC_INTERN PetscErrorCode PKReportHaloMessages(KSP, PKReportCtx *, const PetscMPIInt rank_node[], PetscBool *, PetscInt *, PetscMPIInt **, PetscReal **, PKLocality **);
/* collective pieces of the report that the examples modelling other libraries (examples/hypre_pcg.c) share */
PETSC_INTERN PetscErrorCode PKReportRanksPerCore(MPI_Comm, PetscReal *);
PETSC_INTERN PetscErrorCode PKReportHaloSlowest(MPI_Comm, const PKMachineParams *, const PKHaloPattern *, const PKNetState *, PKCommCost *, PKCommCost *);

#endif
