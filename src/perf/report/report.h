/*
   The report's sections (-ksp_perfmodel_view), private to src/perf/report. Each section is one file with its data,
   its gather (collective where it says so, on the KSP's communicator), its model evaluation on rank 0 where it has
   one, its text view and its CSV rows. PKPerfReport (report.c) runs them in order:

     sec_net.c       the network: the switch tree (-ksp_perfmodel_topology), the sockets, the port counters
     sec_run.c       run and machine: the solver, the operator, the measured times and phases; the machine profile
                     with what it lacks filled in, and where every parameter came from
     sec_halo.c      the halo exchange: the operator's messages per SpMV on and off node, the slowest rank's
                     modelled exchange, the measured wait; a node-aware layout that would cut off-node bytes
     sec_noise.c     injected noise (the measured and the predicted slowdown) and slow ranks
     sec_analytic.c  the analytic model: its inputs from the measurements (models/measured.c), every term
     sec_stoch.c     the stochastic model: KS tests between ranks, the JSU fits, E[T], E[T'], bounds
     sec_amg.c       the AMG cycle model for hypre BoomerAMG
     sec_advice.c    what would help: the largest overhead, the ranked changes (other solvers, full overlap, the
                     node-aware layout), the other method family, what-if larger runs

   A new term of the model is printed by the section of its model (sec_analytic.c for the analytic model's terms:
   PKTermInfos in models/model_solvers.c names it, its status says where its value came from) and tested by a unit
   test of the model (tests/model_unit.c) and the report's golden skeletons (tests/suites/57-skeleton.sh).
*/
#ifndef PK_REPORT_PRIVATE_H
#define PK_REPORT_PRIVATE_H

#include <pipekrylov/private/pkreport.h>
#include <pipekrylov/private/pkprofile.h>

#define PK_RULE "  ----------------------------------------------------------------------------------------------\n"

static inline PetscReal PKPct(PetscReal a, PetscReal b)
{
  return b > 0 ? 100.0 * a / b : 0.0;
}

/* Relative gap of a prediction to the measurement, in per cent (positive: the model predicts more time) */
static inline PetscReal PKGap(PetscReal model, PetscReal measured)
{
  return measured > 0 ? 100.0 * (model - measured) / measured : 0.0;
}

/* run and machine (sec_run.c) */
typedef struct {
  KSPType            type;
  PetscBool          ours; /* one of pipekrylov's types */
  KSPConvergedReason reason;
  PKSolverConfig     config;                            /* as the solver describes itself; PETSc's types: the model's table */
  PetscBool          model;                             /* the analytic model knows this type */
  PetscReal          measured;                          /* KSPSolve, slowest rank */
  PetscReal          rows_time;                         /* the iterations' elapsed time: KSPSolve less set-up and finish */
  PetscReal          work[PK_PHASE_N], win[PK_PHASE_N]; /* time by activity and inside overlap windows, mean over ranks */
  PetscReal          phase[PK_PHASE_N];                 /* the rows' phase totals, mean over ranks */
  PetscInt           nspmv, npc;                        /* applications per solve */
  /* the first SpMV's and PC application's time, mean over ranks (0: one only); what it took beyond the others, the
     least over ranks (its set-up); the ranks' arrival as waited for (PKStats' arrival, or the spread over the ranks
     of that excess where it is more) */
  PetscReal           first[2], once[2], arrival;
  PetscInt            nrows_global, nnz_global; /* nnz < 0: matrix-free */
  PetscReal           rows_local, rows_sum, nnz_sum;
  PetscBool           pc_diagonal, pc_is_jacobi;
  PetscReal           ranks_per_core, t_cpu;
  PetscReal           theta_counts; /* the fraction of reductions complete before their wait; < 0: none measured */
  PetscInt            tests_timed;  /* progress calls (MPI_Test) timed in this run, on all ranks (every 7th made) */
  PetscReal           t_test_timed; /* their mean time (s); < 0: none timed */
  PetscReal           t_test;       /* the same for the model; < 0: fewer than PK_TESTS_TIMED_MIN timed */
  PetscInt            posts_timed;  /* non-blocking reductions posted (each timed), on all ranks */
  PetscReal           t_post;       /* one post's mean time (s), for the model too; < 0: none posted */
  const char         *papi_unavailable, *papi_reason;
  const PKTypeChoice *choice; /* -ksp_type autocg chose this type (src/perf/autocg.c), or NULL */
  /* the machine */
  const PKMachine *machine;
  PetscBool        machine_is_default; /* no -ksp_perfmodel_machine and no profile of this host in the cache */
  PKMachineParams  eff;                /* the profile with unavailable values filled in */
  PetscBool        offnode_substituted;
  char             offnode_missing[256]; /* the protocols whose off-node alpha/beta the profile does not have */
  char             offnode_filled[512];  /* other off-node fields it does not have (on-node values used) */
  char             onnode_default[512];  /* on-node communication fields it does not have (embedded default used) */
} PKSecRun;

/* the network: switch tree, sockets, counters (sec_net.c) */
typedef struct {
  PetscBool       have_tree;
  PKTopo          topo; /* the model context's */
  const char     *tree_file;
  PetscBool       slurm;                             /* the tree is Slurm's (the tasks' SLURM_TOPOLOGY_ADDR), not a file's */
  const PetscInt *where;                             /* [P] each rank's node in the tree (< 0: not listed); the report context's */
  PetscInt        nmissing;                          /* ranks whose node the tree does not list */
  const char     *missing;                           /* one such node */
  PetscReal       allr_links;                        /* the allreduce's off-node rounds: mean of each round's farthest pair's hops */
  PetscInt        allr_rounds;                       /* rounds priced (all their nodes in the tree) */
  PetscBool       have_sockets;                      /* a node with two sockets or more */
  const PetscInt *package;                           /* [P] each rank's socket (< 0: bound to several), or NULL */
  PetscInt        nread, nstall;                     /* nodes whose counters were read; of them with a stall counter */
  PetscInt        nport;                             /* readers that found no port */
  PetscReal       sum[PK_NETCTR_N];                  /* the counters over the solve, summed over the nodes read */
  char            port[64];                          /* rank 0's port */
  char            why[2 * PETSC_MAX_PATH_LEN + 128]; /* why no stall counter (rank 0's reason) */
  PKNetState      net;                               /* for the model: the allreduce's hops (switches), stalls per byte, stall time */
} PKSecNet;

/* the halo exchange (sec_halo.c) */
typedef struct {
  PetscBool  have;                                /* known (one rank: none at all) */
  char       why[128];                            /* why not */
  PKCommCost cost;                                /* the slowest rank's modelled exchange per SpMV */
  PetscReal  msgs[2][PK_NLOC], bytes[2][PK_NLOC]; /* [0] average rank, [1] slowest rank */
  PetscReal  avg_total;
  PetscReal  total_msgs[PK_NLOC], total_bytes[PK_NLOC]; /* sums over ranks, one SpMV */
  PetscInt   max_posted;                                /* most messages one rank sends per SpMV */
  PetscReal  wait;                                      /* measured wait for the ghost values per SpMV, the rank that waited longest */
  /* a node-aware layout of the operator's DMDA (src/dm) that would cut off-node bytes: its saving per SpMV on the
     slowest rank (model), off-node bytes per SpMV of this run and of the placement, and the commands */
  /* on the switch tree (-ksp_perfmodel_topology): hops of the off-node messages (links, pktopo.h), messages with a
     node not in the tree, the busiest switch-to-switch link direction and its bytes per SpMV (004's l) */
  PetscBool have_tree;
  PetscReal hops_avg;
  PetscInt  hops_max, n_unrouted;
  char      busiest[96];
  PetscReal busiest_bytes;
  PetscBool have_place;
  PetscReal place_saving, place_bytes_off[2];
  char      place_what[160], place_cmd[320];
  /* a topology-aware layout (the node-aware blocks ordered on the switch tree, src/dm/topoplace.c) that would cut
     the busiest switch-to-switch link's bytes: its saving per SpMV (the node-aware layout's, if this run does not
     have it, and the contention term's), the busiest link's bytes now and placed, the commands */
  PetscBool have_tplace;
  PetscReal tplace_saving, tplace_l[2], tplace_link[2];
  char      tplace_what[160], tplace_cmd[640];
} PKSecHalo;

/* the analytic model (sec_analytic.c) */
typedef struct {
  PKSolveInput  in; /* what it was fed */
  PKModelResult model;
  PetscReal     sync_raw[2];      /* synchronization gap per iteration: median, first quartile */
  PetscBool     vec_modelled;     /* PETSc blocking type: its reductions' local sums priced per vector stream */
  PetscBool     pc_time_modelled; /* the PC was fused and too rarely applied outside: t_pc from vector streams */
} PKSecAnalytic;

/* the stochastic model (sec_stoch.c) */
typedef struct {
  PetscBool     have;
  PKStochResult r;
  PetscReal     ks_D[3], ks_crit[3], ks_corr[3]; /* pairs: fastest-slowest, slowest-same node, rank 0-slowest */
  PetscMPIInt   ks_a[3], ks_b[3];
  PetscBool     ks_same_node[3];
  PetscInt      nks;
} PKSecStoch;

/* injected noise and slow ranks (sec_noise.c) */
typedef struct {
  PetscBool        have_noise;
  PetscMPIInt      nranks;
  PetscBool        nonblocking; /* E[T'] (non-blocking solver) rather than E[T] */
  PetscReal        d, f;        /* detour length (s) and rate (Hz) */
  PetscInt         ranks_on;    /* ranks that inject */
  PetscInt         n;           /* detours, all ranks */
  PetscReal        injected;    /* time in detours, sum over ranks (injector's clock) */
  PetscReal        inj_min, inj_max;
  PetscReal       *inj;        /* [P] per rank (rank 0) */
  PetscReal        ref_per_it; /* noise-free time per iteration: a quiet solve before, or the model */
  const char      *ref;        /* where it comes from */
  PetscInt         quiet_m;    /* noise-free sample for the prediction */
  const PetscReal *quiet_x;
  PetscReal        meas, pred, Eq, En; /* slowdowns; E per iteration without and with */
  /* slow ranks: busy time per iteration (compute, no waits) per rank */
  PetscBool   have_slow;
  PKSlowRanks slow;
  PetscInt    slow_node[PK_SLOW_MAX];
  PetscInt    slow_node_all[PK_SLOW_MAX], nslow_nodes; /* nodes all of whose ranks are slow */
} PKSecNoise;

/* the AMG cycle model (sec_amg.c) */
typedef struct {
  PetscBool   have;
  char        why[128];
  PetscInt    L;
  PKAMGLevel  lev[PK_AMG_MAXLEVELS];
  PKAMGResult r;
  PetscReal   measured; /* time per PC application */
} PKSecAMG;

#define PK_TESTS_TIMED_MIN 16 /* progress calls timed (every 7th: about 128 made) before their timed cost is used */

/* what would help (sec_advice.c) */
#define PK_WHATIF_RANKS   4
#define PK_WHATIF_SOLVERS (PK_SOLVER_NOURS + 2) /* pipekrylov's six, PETSc's cg and gmres */
typedef struct {
  PKSolverConfig config[PK_WHATIF_SOLVERS]; /* ours as each describes itself (a throwaway KSP of its type) */
  PKSolverKind   kind[PK_WHATIF_SOLVERS];
  PKModelResult  solver[PK_WHATIF_SOLVERS];
  PetscBool      iters_differ[PK_WHATIF_SOLVERS]; /* other method family: its iteration count is not this run's */
  PetscInt       nsolver;
  PKModelResult  full; /* the same solve with full overlap (theta = 1) */
  PetscBool      have_full;
  PetscBool      ranks_refused; /* no what-if for larger runs: no off-node parameters */
  const char    *halo_how;      /* how the what-if for larger runs models their halo exchange */
  PetscInt       P[PK_WHATIF_RANKS];
  PKModelResult  ranks[PK_WHATIF_RANKS];
  PetscReal      ET[PK_WHATIF_RANKS], ETp[PK_WHATIF_RANKS];
} PKSecAdvice;

/* The report of one solve: its sections, in the order they are gathered */
typedef struct {
  PKSecRun      run;
  PKSecNet      net;
  PKSecHalo     halo;
  PKSecNoise    noise;
  PKSecAnalytic analytic;
  PKSecStoch    stoch;
  PKSecAMG      amg;
  PKSecAdvice   advice;
} PKReportData;

PETSC_INTERN PetscErrorCode PKSecRunGather(KSP, const PKSolveRecord *, PKModelCtx *, PKSecRun *);
PETSC_INTERN PetscErrorCode PKSecRunView(PetscViewer, PetscViewerFormat, const PKSolveRecord *, const PKSecRun *);
PETSC_INTERN PetscErrorCode PKSecRunCSV(PetscViewer, const PKSolveRecord *, const PKSecRun *);
PETSC_INTERN PetscErrorCode PKSecMeasuredCSV(PetscViewer, const PKSolveRecord *, const PKSecRun *);
PETSC_INTERN PetscErrorCode PKSecMachineView(PetscViewer, PetscViewerFormat, const PKSecRun *);

PETSC_INTERN PetscErrorCode PKSecNetGather(KSP, const PKSolveRecord *, const PKSecRun *, PKModelCtx *, PKReportCtx *, PKSecNet *);
PETSC_INTERN PetscErrorCode PKSecNetView(PetscViewer, const PKStats *, const PKSecRun *, const PKSecNet *);
PETSC_INTERN PetscErrorCode PKSecNetCSV(PetscViewer, const PKSecNet *);

PETSC_INTERN PetscErrorCode PKSecHaloGather(KSP, const PKSolveRecord *, const PKSecRun *, const PKSecNet *, PKReportCtx *, PKSecHalo *);
PETSC_INTERN PetscErrorCode PKSecHaloPlacement(KSP, const PKSolveRecord *, const PKSecRun *, const PKSolveInput *, PKSecHalo *);
PETSC_INTERN PetscErrorCode PKSecHaloTopoPlacement(KSP, const PKSolveRecord *, const PKSecRun *, const PKSecNet *, PKSecHalo *);
PETSC_INTERN PetscErrorCode PKSecHaloAtP(KSP, const PKStats *, const PKSecRun *, const PKSolveInput *, PetscInt, PKCommCost *, const char **);
PETSC_INTERN PetscErrorCode PKSecHaloView(PetscViewer, const PKStats *, const PKSecHalo *, const PKSolveInput *);
PETSC_INTERN PetscErrorCode PKSecHaloCSV(PetscViewer, const PKSecHalo *);

PETSC_INTERN PetscErrorCode PKSecNoiseGather(KSP, const PKSolveRecord *, const PKSecRun *, PKSecNoise *);
PETSC_INTERN PetscErrorCode PKSecNoiseModel(const PKStats *, const PKSecRun *, const PKSecAnalytic *, PKSecNoise *);
PETSC_INTERN PetscErrorCode PKSecNoiseView(PetscViewer, PetscViewerFormat, const PKStats *, const PKSecNoise *);
PETSC_INTERN PetscErrorCode PKSecNoiseCSV(PetscViewer, const PKSecNoise *);
PETSC_INTERN PetscErrorCode PKSecNoiseFree(PKSecNoise *);

PETSC_INTERN PetscErrorCode PKSecAnalyticModel(const PKSolveRecord *, const PKSecRun *, const PKSecNet *, const PKSecHalo *, PKSecAnalytic *);
PETSC_INTERN PetscErrorCode PKSecAnalyticView(PetscViewer, KSP, const PKStats *, const PKSecRun *, const PKSecNet *, const PKSecHalo *, const PKSecAnalytic *);
PETSC_INTERN PetscErrorCode PKSecAnalyticViewShort(PetscViewer, const PKSecRun *, const PKSecAnalytic *, const PKSecStoch *);
PETSC_INTERN PetscErrorCode PKSecAnalyticCSV(PetscViewer, const PKSecRun *, const PKSecAnalytic *);

PETSC_INTERN PetscErrorCode PKSecStochModel(const PKStats *, PKSecStoch *);
PETSC_INTERN PetscErrorCode PKSecStochView(PetscViewer, const PKStats *, const PKSecRun *, const PKSecStoch *);
PETSC_INTERN PetscErrorCode PKSecStochCSV(PetscViewer, const PKSecRun *, const PKSecStoch *);

PETSC_INTERN PetscErrorCode PKSecAMGGather(KSP, PKSecAMG *);
PETSC_INTERN PetscErrorCode PKSecAMGModel(const PKStats *, const PKSecRun *, const PKSecAnalytic *, PKSecAMG *);
PETSC_INTERN PetscErrorCode PKSecAMGView(PetscViewer, PetscViewerFormat, const PKSecAMG *);
PETSC_INTERN PetscErrorCode PKSecAMGCSV(PetscViewer, const PKSecAMG *);

PETSC_INTERN PetscErrorCode PKSecAdviceModel(KSP, const PKStats *, const PKSecRun *, const PKSecHalo *, const PKSecAnalytic *, const PKSecStoch *, PKSecAdvice *);
PETSC_INTERN PetscErrorCode PKSecAdviceView(PetscViewer, const PKStats *, const PKSecRun *, const PKSecHalo *, const PKSecAnalytic *, const PKSecStoch *, const PKSecAdvice *);
PETSC_INTERN PetscErrorCode PKSecAdviceViewShort(PetscViewer, const PKSecRun *, const PKSecHalo *, const PKSecAnalytic *, const PKSecAdvice *);
PETSC_INTERN PetscErrorCode PKSecAdviceCSV(PetscViewer, const PKSecAdvice *);

#endif
