/*
   pipekrylov: pipelined Krylov solvers for PETSc, with per-iteration instrumentation and performance models.

   Public interface. An application either loads the plugin at run time (-dll_append /path/libpipekrylov.so, which
   calls PetscDLLibraryRegister_pipekrylov()) or links the library and calls PipeKrylovInitializePackage() after
   PetscInitialize(). Both register the KSP types below; nothing else in the application changes.
*/
#ifndef PIPEKRYLOV_H
#define PIPEKRYLOV_H

#include <petscksp.h>

#define PIPEKRYLOV_VERSION_MAJOR 0
#define PIPEKRYLOV_VERSION_MINOR 1
#define PIPEKRYLOV_VERSION_PATCH 0

/* The six solvers, as KSPType names */
#define KSPPKPCG     "pcg"     /* Hestenes-Stiefel PCG, two blocking reductions per iteration */
#define KSPPKSAPCG   "sapcg"   /* single-reduction PCG (Chronopoulos-Gear) */
#define KSPPKNBPCG   "nbpcg"   /* non-blocking PCG (Gropp): two reductions, overlapped with PCApply and MatMult */
#define KSPPKPIPECG  "pipecg"  /* pipelined CG (Ghysels-Vanroose); replaces PETSc's pipecg */
#define KSPPKPIPE2CG "pipe2cg" /* two iterations per reduction (Eller-Gropp), with residual replacement */
#define KSPPKPGMRES  "pgmres"  /* pipelined GMRES(m) (Ghysels et al.); replaces PETSc's pgmres */
#define KSPAUTOCG    "autocg"  /* the CG type the performance model predicts fastest, then the one measured fastest */
/* PETSc's own types that ours replace stay reachable under these names */
#define KSPPETSCPIPECG "petsc_pipecg"
#define KSPPETSCPGMRES "petsc_pgmres"

PETSC_EXTERN PetscErrorCode PipeKrylovInitializePackage(void);
PETSC_EXTERN PetscErrorCode PipeKrylovFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_pipekrylov(void);
PETSC_EXTERN PetscErrorCode PipeKrylovGetVersion(char[], size_t);

/* Solver settings (the same as the options; each is ignored by types it does not apply to) */
PETSC_EXTERN PetscErrorCode KSPPipeSetChunks(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPPipeGetChunks(KSP, PetscInt *);
PETSC_EXTERN PetscErrorCode KSPPipeGetOverlapStats(KSP, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode KSPPipeIsPipeKrylov(KSP, PetscBool *);
PETSC_EXTERN PetscErrorCode KSPPipeCGSetReplacement(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPPipeCGSetRecompute(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPPipe2CGSetReplacement(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPPipe2CGSetRecompute(KSP, PetscBool);

/* Developer level: the chunked SpMV the solvers use, bit-for-bit equal to MatMult */
PETSC_EXTERN PetscErrorCode MatMultPipeChunked(Mat, Vec, Vec, PetscInt, PetscBool *);

/* The logging monitor (also turned on by -ksp_perf_monitor, -ksp_perf_trace <file>, -ksp_perfmodel_view) */

/* The phases an iteration's time is split into (their times add up to the iteration's wall time) */
typedef enum {
  PK_PHASE_SPMV,    /* local sparse matrix-vector product (without halo wait) */
  PK_PHASE_PC,      /* preconditioner application */
  PK_PHASE_VEC,     /* vector updates, local dot products, scalar work */
  PK_PHASE_HALO,    /* waiting for the halo exchange of an SpMV */
  PK_PHASE_REDUCE,  /* waiting for a global reduction (blocking, or the wait of a non-blocking one) */
  PK_PHASE_OVERLAP, /* any work done while a non-blocking reduction is outstanding (including MPI_Test) */
  PK_PHASE_N
} PKPhase;

/*
   PKStats: cross-rank statistics of one solve, as reduced by the recorder at the end of KSPSolve: O(iterations) numbers on
   rank 0, never ranks x iterations. This is what the models and the report read.

   The per-iteration statistics over ranks are exact (src/perf/monitor/stats.c: the ranks x iterations records are
   transposed in blocks of iterations with one MPI_Alltoallv, so each rank sorts the full columns of the iterations
   it owns and holds O(iterations + ranks) values; rank 0 gathers only the results). Quantiles interpolate linearly between
   order statistics (numpy's default): level q of P values x_(0) <= ... <= x_(P-1) is x_(h) at h = q (P - 1).
   Variances are population variances (divided by P).

   Scalars are valid on every rank; the arrays only on rank 0 of the KSP's communicator (NULL elsewhere).
*/
#define PK_STATS_NQ 33 /* quantile levels 0, 1/32, ..., 1 of each iteration's time over ranks */

typedef struct _n_PKStats {
  PetscInt    solve;       /* index of the solve for this KSP (0, 1, ...) */
  PetscInt    nits;        /* K: rows (= KSPGetIterationNumber) */
  PetscMPIInt nranks;      /* P */
  PetscInt    nnodes;      /* nodes (MPI_COMM_TYPE_SHARED, or -ksp_perf_node_size) */
  PetscInt    ppn;         /* ranks per node (the largest node) */
  PetscReal   solve_time;  /* KSPSolve wall time, max over ranks (s) */
  PetscReal   setup_time;  /* time in KSPSolve before the first iteration row, max over ranks */
  PetscReal   finish_time; /* time in KSPSolve after the last iteration row, max over ranks */
  PetscReal   arrival;     /* how long after the first rank the last one entered KSPSolve (s): the first waited that
                              long for it in the set-up (the work before the solve, not the solver's); 0 on one rank */
  /* per iteration k = 0..nits-1: its time over ranks */
  PetscReal *tmin, *tmax, *tmean, *tvar; /* [nits] */
  PetscReal *tq;                         /* [nits][PK_STATS_NQ] quantiles over ranks */
  /* per iteration and phase: mean and max over ranks */
  PetscReal *phase_mean, *phase_max; /* [nits][PK_PHASE_N] */
  /* per iteration: local compute (spmv + pc + vec) over ranks, for the synchronization penalty */
  PetscReal *cmin, *cmax, *cmean, *cmedian; /* [nits] */
  /* non-blocking reductions of the whole solve (set-up and finish included): how many, how many complete before
     their wait on every rank, MPI_Test calls (summed over ranks). Only pipekrylov's solvers report them; PETSc's
     own types give 0. */
  PetscInt nreductions, nearly, ntests;
  /* this rank's progress calls timed (every 7th MPI_Test of pipekrylov's solvers) and their time (s) */
  PetscInt  test_timed;
  PetscReal test_time;
  /* this rank's non-blocking reductions posted (MPI_Iallreduce, each timed) and the time of the posts (s) */
  PetscInt  post_timed;
  PetscReal post_time;
  PetscInt *itred, *itearly; /* [nits] the same per iteration row (rows only) */
  /* full time series of a few ranks, for the two-sample KS test: sel[j] is the rank, series[j*nits + k].
     Chosen: rank 0, the ranks with the smallest and the largest total iteration time, and another rank on the
     node of the slowest (else of the fastest, else of rank 0) when there is one. */
  PetscInt     nsel;
  PetscMPIInt *sel;
  PetscInt    *sel_node; /* node of each selected rank */
  PetscReal   *series;
  /* pooled sample of all iteration times (a quantile sketch: nits * PK_STATS_NQ points, equally weighted per
     iteration), for the bulk distribution fit: pooled[k * PK_STATS_NQ + j] is iteration k's quantile over ranks at
     level (j + 1/2) / PK_STATS_NQ, so each point stands for 1/PK_STATS_NQ of its mass. Not sorted (sort a copy). */
  PetscInt   npooled;
  PetscReal *pooled;
  /* PAPI counters per iteration (differences over the iteration): mean and max over ranks */
  PetscInt           npapi;
  const char *const *papi_names;           /* [npapi], valid as long as these stats */
  PetscReal         *papi_mean, *papi_max; /* [nits][npapi] */
  /* the last rank's entry after the first's by the ranks' clocks (CLOCK_REALTIME), unbounded: arrival is this bounded by
     the set-ups' spread, which misses a wait that falls after the set-up (s; 0 on one rank) */
  PetscReal arrival_clock;
} PKStats;

PETSC_EXTERN PetscErrorCode KSPPerfMonitorSet(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPPerfMonitorGetStats(KSP, const PKStats **);
PETSC_EXTERN PetscErrorCode KSPPerfMonitorGetTimes(KSP, PetscInt *, PetscReal *, PetscReal *, PetscReal *);
/* Noise injection (also -ksp_perf_noise <us>,<hz>[,<seed>] and -ksp_perf_noise_ranks <list>) */
PETSC_EXTERN PetscErrorCode KSPPerfNoiseSet(KSP, PetscReal, PetscReal, PetscInt);
PETSC_EXTERN PetscErrorCode KSPPerfNoiseSetRanks(KSP, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode KSPPerfNoiseGetCounts(KSP, PetscInt *, PetscReal *, PetscReal *, PetscInt *);

/* Nodes (src/topology/nodes.c): the node of every rank, and how many ranks each node runs */
PETSC_EXTERN PetscErrorCode PKCommGetNodes(MPI_Comm, PetscInt, PetscMPIInt *, PetscMPIInt *[]);
PETSC_EXTERN PetscErrorCode PKNodesGetSizes(PetscMPIInt, PetscMPIInt, const PetscMPIInt[], PetscMPIInt[], PetscMPIInt *);

/* Halo messages (src/dm): the on-node/off-node messages of one SpMV */
#include <petscdmda.h>

typedef struct {
  PetscMPIInt nranks, nnodes;
  /* this rank, per SpMV: messages it sends (and receives) to ranks of its own node and of other nodes, and bytes */
  PetscInt   send_msgs_on, send_msgs_off, recv_msgs_on, recv_msgs_off;
  PetscInt64 send_bytes_on, send_bytes_off, recv_bytes_on, recv_bytes_off;
  /* all ranks, per SpMV: sums over ranks (every message counted once, at its sender) */
  PetscInt64 msgs_on_total, msgs_off_total, bytes_on_total, bytes_off_total;
  /* the largest number of messages one rank posts at once (sends + receives), its sends, its receives */
  PetscInt   msgs_max, send_msgs_max, recv_msgs_max, send_msgs_off_max;
  PetscInt64 bytes_off_node_max;                   /* the most bytes leaving one node */
  PetscInt64 msg_bytes_off_min, msg_bytes_off_max; /* smallest and largest off-node message (0 when none) */
} PKHaloCounts;
PETSC_EXTERN PetscErrorCode PKMatGetHaloCounts(Mat, const PetscMPIInt[], PKHaloCounts *);

/* Node-aware DMDA placement (src/dm/placement.c) */
typedef struct {
  PetscInt        dim, M[3], s, dof;
  DMDAStencilType stencil;
  PetscInt        nnodes, ppn;  /* equal node sizes; ppn = 0 when nodes differ */
  PetscInt        procs[3];     /* the process grid to pass to DMDACreate (1 for directions beyond dim) */
  PetscInt        block[3];     /* ranks per node along each direction: each node owns a block of this shape */
  PetscBool       placed;       /* PETSC_FALSE: the default layout is kept (see note) */
  PetscInt        def_procs[3]; /* PETSc's default process grid (or the one given) */
  /* halo messages and bytes of one ghost update, sums over ranks: default layout (x-fastest ranks, nodes as they
     are) and placed layout */
  PetscInt64 def_msgs_on, def_msgs_off, def_bytes_on, def_bytes_off;
  PetscInt64 msgs_on, msgs_off, bytes_on, bytes_off;
  char       note[256];
} PKPlacement;
PETSC_EXTERN PetscErrorCode PKDMDADefaultProcs(PetscInt, const PetscInt[], PetscMPIInt, const PetscInt[], PetscInt[]);
PETSC_EXTERN PetscErrorCode PKDMDAPlacementCompute(PetscInt, const PetscInt[], DMDAStencilType, PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[], PKPlacement *);
PETSC_EXTERN PetscErrorCode PKDMDAPlacementRankNode(const PKPlacement *, PetscInt, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode PKDMDACommCreateNodeAware(MPI_Comm, PetscInt, const PetscInt[], DMDAStencilType, PetscInt, const PetscInt[], MPI_Comm *, PetscInt[], PKPlacement *);
PETSC_EXTERN PetscErrorCode DMDACreateNodeAware(MPI_Comm, PetscInt, DMBoundaryType, DMBoundaryType, DMBoundaryType, DMDAStencilType, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, DM *);

#endif
