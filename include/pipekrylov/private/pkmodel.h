/*
   The performance models as plain functions of their inputs: no MPI, no KSP. The end-of-solve report (src/perf)
   fills the input structs from the run (PKStats, the operator's scatter, the machine profile) and prints the
   result structs term by term.

   Sources (full citations in docs/bibliography.md; where docs/algorithms.md and a paper disagree, the paper wins):
     000  Eller, Hoefler, Gropp, ICS'19, section 5: postal model per protocol and locality, allreduce, halo exchange
          and PCG-family models, max-rate, hops, congestion, synchronization (5.8) and overlap (5.9) penalties.
     004  Bienz, Gropp, Olson, EuroMPI'18, sections 3-4: node-aware max-rate, queue search gamma n^2, contention
          delta l with l = 2 h^3 b ppn.
     002  Gahvari et al., section IV: AMG solve-cycle model per level with distance, bandwidth, contention penalties.
     001  (Morgan et al.) sections 2-7: stochastic models (eqs 3, 6-11), Johnson SU fits, simulation, KS test, bounds.

   Units everywhere: seconds, bytes (the AMG model counts doubles, as 002 does). Nothing here is exported from
   the shared library (not public API); tests/model_unit.c links the static archive build/libpipekrylov.a.

   Choices made where the papers leave a gap (each is tested in tests/model_unit.c):
   - Protocol: short if bytes <= eager_limit, rendezvous if bytes > rendezvous_limit, eager otherwise (pkmachine.h).
   - Max-rate (004 eq 2): R_b is 1/beta of the message's protocol and locality, so that with ppn R_b <= R_N the
     max-rate cost equals the postal cost; the penalty term is the difference. On-node messages are not injected
     into the network (004 section 3): postal only.
   - Allreduce (000 5.3): ceil(log2 ppn) on-node + ceil(log2 nodes) off-node recursive-doubling rounds. A round costs
     allreduce_alpha + 8 n allreduce_beta when the profile has a calibrated allreduce_alpha (> 0) for that
     locality, else 2 postal messages of 8 n bytes (000: "a message exchange between two processes ... not
     overlapped"); plus n flops per round (flop_time). Hops (000 5.6) are added once per off-node round, to its
     first message; congestion (000 5.7) per off-node round, times the hops when known.
   - Hops: (h-1) hop_latency per message series (002's alpha(h) with h_m = 1); h = 0 means unknown: the term is 0
     and flagged PK_TERM_NO_TOPOLOGY. Contention delta l needs h as well.
   - Pipelining (000 5.9, blocking exchanges of short/eager messages): the penalty terms of the short/eager messages
     are hidden behind the postal cost of all such messages after the first; the credit is a separate (<= 0) term.
   - Overlap (000 5.9 and docs/algorithms.md §11): a non-blocking reduction with overlapped work W and whole cost C (postal
     and penalties, plus its share of the synchronization penalty). The run measures theta as the fraction of the
     reductions complete at their wait: those are hidden in full, the others cost max(0, C - theta W) as in 000;
     the hidden part theta C + (1 - theta) min(C, theta W) is the (<= 0) overlap term (PKModelOverlapHidden). 000 speaks of overlapping "the
     communication penalty term cost"; its Fig. 11 discussion (models without penalties predict full overlap)
     implies the whole communication is hideable, which is what docs/algorithms.md §11 writes, so we follow that.
   - Synchronization (000 5.8), per iteration: blocking solvers S = median_k(max_p C_pk) - median_{p,k}(C_pk);
     non-blocking solvers ("first quartile instead of the median") S = Q1_k(max_p C_pk) - median_{p,k}(C_pk):
     the quartile replaces the median of the per-iteration maxima, the typical value stays the median. That is
     the reading under which non-blocking solvers get the smaller penalty the paper motivates ("less
     synchronized"); replacing the other median would make their penalty larger. S is clamped at 0. Our trace
     has compute per iteration, not per synchronization segment, so S is charged once per iteration (not once per
     allreduce as in the paper, which had per-segment times). A non-blocking solver whose halo sends wait for a late
     receiver (above the profile's sync_limit) also waits there for its neighbours: f S_median of the gap, f the
     neighbours' share of the expected maximum (PKModelSyncHaloShare), is charged every iteration and not hidden;
     only the rest of S_Q1 joins the reductions' overlap.
   - What-if for the other solvers: same K, same per-application SpMV and PC times; vector time scaled by the
     vector streams per iteration (PKSolverStreams: unfused count, AXPY-type 3, AXPBYPCZ 4, dot 2, norm 1 stream
     per vector length) relative to the measured solver. What-if for P ranks: weak scaling (per-rank work and
     halo unchanged unless a halo for P is given), ppn unchanged, nodes = ceil(P/ppn), synchronization gap scaled
     by the expected maximum of P vs P_measured standard normals.
*/
#ifndef PKMODEL_H
#define PKMODEL_H

#include <petscsys.h>
#include <pipekrylov/private/pkmachine.h>
#include <pipekrylov/private/pkcost.h>
#include <pipekrylov/private/pkrecimpl.h> /* PK_PHASE_N: the activities of the measured times */

/* ============================================================================================================ */
/* Point-to-point costs (000 5.1-5.7, 004 3-4)                                                                  */

/* What the run knows about the network beyond the profile */
typedef struct {
  PetscReal hops;            /* network hops of an off-node message, in switches traversed (000 5.6's h with h_m = 1:
                                1 between two nodes of one leaf switch, 3 across a spine; a route of the tree,
                                pktopo.h, has one link more than it traverses switches); 0 = topology unknown */
  PetscReal stalls_per_byte; /* network stalls per byte from congestion counters (000 5.7); < 0 = not measured */
  PetscReal t_stall;         /* s per stall (000: 5 NIC cycles per 64 bytes; 0.120 ns Gemini, 0.0976 ns Aries) */
} PKNetState;

PETSC_INTERN void       PKNetStateUnknown(PKNetState *);
PETSC_INTERN PKProtocol PKModelProtocol(const PKMachineParams *, PKLocality, PetscReal bytes);
PETSC_INTERN PetscReal  PKModelSyncLimit(const PKMachineParams *, PKLocality);
PETSC_INTERN PetscReal  PKModelPostal(const PKMachineParams *, PKLocality, PetscReal bytes);
PETSC_INTERN PetscReal  PKModelMaxRate(const PKMachineParams *, PKLocality, PetscReal bytes, PetscReal ppn);
PETSC_INTERN PetscReal  PKModelQueueSearch(const PKMachineParams *, PetscReal nmsgs);
PETSC_INTERN PetscReal  PKModelContention(const PKMachineParams *, PetscReal hops, PetscReal bytes_per_proc, PetscReal ppn);
PETSC_INTERN PetscReal  PKModelHops(const PKMachineParams *, PetscReal hops);
PETSC_INTERN PetscReal  PKModelCongestion(const PKNetState *, PetscReal bytes, PetscReal ppn);
PETSC_INTERN PetscReal  PKModelCongestionHops(const PKNetState *, PetscReal bytes, PetscReal ppn, PetscReal hops);
PETSC_INTERN PetscReal  PKModelContentionLoad(const PKMachineParams *, PetscReal link_bytes);

/* Terms of one communication (a halo exchange), seconds */
typedef enum {
  PK_CT_POSTAL,     /* alpha + beta s per message, protocol and locality per message */
  PK_CT_MAXRATE,    /* max-rate minus postal for off-node messages (>= 0) */
  PK_CT_QUEUE,      /* gamma n^2, n messages of the exchange */
  PK_CT_CONTENTION, /* delta 2 h^3 b ppn (0 unless h known) */
  PK_CT_HOPS,       /* (h-1) hop_latency, once per exchange (0 unless h known) */
  PK_CT_CONGESTION, /* measured stalls (0 unless counters) */
  PK_CT_PIPELINE,   /* <= 0: penalties of short/eager messages hidden by pipelining (000 5.9) */
  PK_CT_N
} PKCommTermId;

PETSC_INTERN const char *const PKCommTermNames[];

typedef struct {
  PetscReal t[PK_CT_N];
  PetscReal total;                    /* sum of t[] */
  PetscReal nmsg[PK_NLOC][PK_NPROTO]; /* messages by locality and protocol (fractional for averages) */
  PetscReal nsync[PK_NLOC];           /* of them, messages whose sender waits for a late receiver (PKModelSyncLimit) */
  PetscReal bytes[PK_NLOC];           /* bytes sent */
  PetscBool hops_known, congestion_measured;
  PetscBool contention_counted; /* l counted on the switch tree (else 004 eq 7's estimate, or none) */
  PetscReal hops_max;           /* switches traversed by the farthest off-node message (0: unknown) */
} PKCommCost;

/* The messages one rank sends in one halo exchange (from the operator's scatter) */
typedef struct {
  PetscInt          n;
  const PetscReal  *bytes;     /* [n] */
  const PKLocality *loc;       /* [n] */
  PetscReal         ppn_off;   /* ranks of the node sending off node at once (max-rate ppn); <= 0: ppn */
  PetscInt          ppn;       /* ranks on the node */
  PetscBool         pipelined; /* blocking exchange of all messages at once: apply 000 5.9 pipelining */
  /* what the machine's topology says (all optional: zero them when unknown) */
  const PetscReal *hops;    /* [n] switches each off-node message traverses (PKNetState.hops' unit); NULL: the
                                  PKNetState's average */
  const PetscBool *xsocket; /* [n] an on-node message between the node's sockets (alpha_xs, beta_xs); NULL: none */
  PetscBool        have_l;  /* l known: the bytes of the whole exchange on the busiest switch-to-switch link */
  PetscReal        l;
} PKHaloPattern;

PETSC_INTERN PetscErrorCode PKModelHalo(const PKMachineParams *, const PKHaloPattern *, const PKNetState *, PKCommCost *);

/* A 3-D structured grid split into blocks (DMDA-like), nodes owning q0 x q1 x q2 blocks of ranks */
typedef struct {
  PetscInt  m[3];         /* grid points per rank */
  PetscInt  dof;          /* values per grid point */
  PetscInt  pgrid[3];     /* ranks per direction */
  PetscInt  qnode[3];     /* ranks per node per direction (must divide pgrid) */
  PetscInt  stencil;      /* 7: faces only; 27: 6 face, 12 edge, 8 corner messages (000 5.3) */
  PetscReal scalar_bytes; /* 8 */
  PetscBool pipelined;
} PKGrid3d;

PETSC_INTERN PetscErrorCode PKModelHaloGrid3d(const PKMachineParams *, const PKGrid3d *, const PKNetState *, PKCommCost *avg, PKCommCost *slowest);
PETSC_INTERN PetscErrorCode PKModelDimsCreate(PetscInt n, PetscInt nd, PetscInt dims[]);

/* ============================================================================================================ */
/* Allreduce (000 5.3, node-aware recursive doubling)                                                           */

typedef struct {
  PetscInt P;     /* ranks */
  PetscInt nodes; /* nodes */
  PetscInt ppn;   /* ranks per node (the largest node) */
} PKLayout;

typedef struct {
  PetscReal rounds[PK_NLOC]; /* ceil(log2 ppn), ceil(log2 nodes) */
  PetscReal comm;            /* message rounds */
  PetscReal local;           /* local reduction flops */
  PetscReal hops;            /* hop latency of the off-node rounds */
  PetscReal congestion;      /* measured stalls of the off-node rounds */
  PetscReal total;
} PKAllreduceCost;

PETSC_INTERN PetscErrorCode PKModelAllreduce(const PKMachineParams *, const PKLayout *, PetscInt nvals, const PKNetState *, PKAllreduceCost *);
/* a one-value non-blocking reduction polled back to back: the profile's poll_on/poll_off per round times the rounds */
PETSC_INTERN PetscReal PKModelPollTime(const PKMachineParams *, const PKLayout *);

/* ============================================================================================================ */
/* Solver models (000 5.3 PCG model generalised per solver; docs/algorithms.md §0-6 for the counts)              */

typedef enum {
  PK_SOLVER_PCG,
  PK_SOLVER_SAPCG,
  PK_SOLVER_NBPCG,
  PK_SOLVER_PIPECG,
  PK_SOLVER_PIPE2CG,
  PK_SOLVER_PGMRES,
  PK_SOLVER_PETSC_CG,      /* KSPCG: (p,s), (r,z) and, with the default norm, a separate VecNorm: 3 blocking */
  PK_SOLVER_PETSC_GROPPCG, /* KSPGROPPCG: the nbpcg pattern */
  PK_SOLVER_PETSC_PIPECG,  /* KSPPIPECG: the pipecg pattern */
  PK_SOLVER_PETSC_GMRES,   /* KSPGMRES/FGMRES, classical Gram-Schmidt, no refinement: 2 blocking per step */
  PK_SOLVER_PETSC_PGMRES,  /* KSPPGMRES: the pgmres pattern */
  PK_SOLVER_UNKNOWN
} PKSolverKind;

#define PK_SOLVER_NOURS 6 /* PK_SOLVER_PCG .. PK_SOLVER_PGMRES are pipekrylov's own */

PETSC_INTERN const char *const PKSolverKindNames[];
PETSC_INTERN PetscErrorCode    PKSolverKindFromType(const char type[], PKSolverKind *);

typedef struct {
  PKSolverKind kind;
  PetscInt     restart;       /* GMRES-type restart m; <= 0: 30 */
  PetscBool    norm_separate; /* PETSc cg: the norm is its own reduction (PRECONDITIONED/UNPRECONDITIONED norms) */
  PetscBool    have_cost;     /* the counts come from the solver's description (pipekrylov's types); else the table */
  PKSolverCost cost;
  PetscBool    pc_fused; /* a diagonal preconditioner (jacobi, none) is applied inside the solver's fused vector
                                 pass: the description's fuse_pc applications per cycle leave the PC term and the
                                 overlap window (w_pc_fused) and add fuse_pc_streams vector streams (pipecg: m = M w,
                                 none left per iteration; pipe2cg: c = M q, one of two per pass left) */
} PKSolverConfig;

/* The table, for PETSc's built-in types (pipekrylov's CG types have no entry: they describe themselves) */
PETSC_INTERN void PKSolverConfigDefault(PKSolverKind, PKSolverConfig *);
/* From a solver's own description (KSPPipeGetCost_C, pkcost.h): the pattern, restart and the counts of one cycle,
   which PKSolverShapeGet and PKSolverShapeReduction then use */
PETSC_INTERN PetscErrorCode PKSolverConfigFromCost(const PKSolverCost *, PKSolverConfig *);
/* Whether the solver can apply a diagonal preconditioner in its fused vector pass (its description says so) */
PETSC_INTERN PetscBool PKSolverCanFusePC(const PKSolverConfig *);

/* One modelled cycle of a solver: 1 iteration (CG family), 2 (pipe2cg), m (GMRES family, incl. its restart) */
typedef struct {
  PetscInt  its;         /* iterations per cycle */
  PetscReal nspmv, npc;  /* operator and PC applications per cycle */
  PetscReal streams;     /* vector streams per cycle */
  PetscInt  nred;        /* reductions per cycle (PKSolverShapeReduction lists them) */
  PetscBool nonblocking; /* main reductions are non-blocking (synchronization rule) */
  /* start-up before the first iteration (GMRES: none, the restart residual is part of every cycle) */
  PetscReal init_spmv, init_pc;
  PetscInt  init_nvals; /* one exposed reduction of this many values; 0: none */
  /* applications the last cycle leaves out (pkcost.h), in a solve that ends at max_it */
  PetscReal end_spmv, end_pc;
} PKSolverShape;

typedef struct {
  PetscInt  nvals; /* doubles reduced */
  PetscBool blocking;
  PetscReal w_spmv, w_pc; /* SpMV and PC applications overlapped with it */
} PKReductionSpec;

PETSC_INTERN PetscErrorCode PKSolverShapeGet(const PKSolverConfig *, PetscInt steps, PKSolverShape *);
PETSC_INTERN void           PKSolverShapeEnd(const PKSolverShape *, PetscInt K, PetscBool at_max_it, PetscReal *spmv, PetscReal *pc);
PETSC_INTERN PetscErrorCode PKSolverShapeReduction(const PKSolverConfig *, const PKSolverShape *, PetscInt i, PKReductionSpec *);
/* The non-blocking reduction (its index among those of the cycle) that meets the synchronization gap as a blocking
   one, the median's rule (nbpcg's (p, A p)), or -1: the first quartile's rule, the gap shared */
PETSC_INTERN PetscErrorCode PKSolverGapReduction(const PKSolverConfig *, const PKSolverShape *, PetscInt *);
/* The synchronization gap's rule of a cycle: 0 the median's, 1 the first quartile's (000 5.8; PKSolverGapReduction) */
PETSC_INTERN PetscErrorCode PKSolverSyncRule(const PKSolverConfig *, const PKSolverShape *, PetscInt *);
PETSC_INTERN PetscReal      PKSolverStreams(const PKSolverConfig *);
PETSC_INTERN PetscReal      PKSolverReduceStreams(const PKSolverConfig *);

/* Synchronization gap per iteration (000 5.8), see the choice above. cmax[K]: per iteration the max over ranks of
   the local compute time; c[n]: a sample of per-rank per-iteration compute times (all, or the per-iteration
   medians when that is all that was reduced) whose median is the typical compute time. */
PETSC_INTERN PetscErrorCode PKModelSyncPenalty(PetscInt K, const PetscReal cmax[], PetscInt n, const PetscReal c[], PetscBool nonblocking, PetscReal *S);
/* Achieved overlap theta in [0,1]: from the measured wait of the reductions (t_wait = max(0, t_allr - theta W)),
   or from the fraction of reductions that completed before their wait */
PETSC_INTERN PetscReal      PKModelThetaFromWait(PetscReal t_allr, PetscReal W, PetscReal t_wait);
PETSC_INTERN PetscReal      PKModelThetaFromCounts(PetscInt nearly, PetscInt nreductions);
PETSC_INTERN PetscErrorCode PKModelThetaByWindow(PetscInt n, const PetscReal W[], PetscReal theta, PetscReal th[]);
/* Hidden part of a non-blocking reduction of cost C behind work W when a fraction theta of the reductions was complete
   at its wait: theta C + (1 - theta) min(C, theta W) (see model_solvers.c) */
PETSC_INTERN PetscReal PKModelOverlapHidden(PetscReal C, PetscReal W, PetscReal theta);
/* MPI_Test calls of one non-blocking reduction of a solver that polls, with the work W overlapped with it split into
   nmax pieces: a call after each piece until the reduction is seen complete (t_poll, polled back to back), at most
   nmax; and what t_poll a measured count implies (the inverse) */
PETSC_INTERN PetscReal PKModelOverlapPolled(PetscReal C, PetscReal W, PetscReal t_poll);
PETSC_INTERN PetscReal PKModelTestsPerReduction(PetscReal t_poll, PetscReal W, PetscReal nmax, PetscReal t_test);
PETSC_INTERN PetscReal PKCommCostMessages(const PKCommCost *);
/* the share of the blocking rule's synchronization gap a halo exchange of P ranks exposes (messages whose sender
   waits for a late receiver: the slowest of a rank and its neighbours against the slowest of all; none such: 0) */
PETSC_INTERN PetscErrorCode PKModelSyncHaloShare(const PKCommCost *, PetscInt P, PetscReal *f);
PETSC_INTERN PetscReal      PKModelRecvFromTests(const PKSolverConfig *, const PKLayout *, PetscReal halo_msgs, PetscReal K, PetscReal calls, PetscReal t_test, PetscReal t_idle);
PETSC_INTERN PetscErrorCode PKModelPollFromTests(const PKSolverConfig *, PetscReal t_spmv, PetscReal t_pc, PetscReal t_test, PetscReal tests, PetscReal *t_poll);
PETSC_INTERN PetscReal      PKSolverTestsMax(const PKSolverConfig *, const PKReductionSpec *);

typedef struct {
  PKSolverConfig solver;
  PetscInt       K; /* iterations */
  PKLayout       layout;
  PetscReal      t_spmv;         /* s per SpMV application, local compute only (no halo wait) */
  PetscReal      t_pc;           /* s per PC application */
  PetscReal      t_vec;          /* s of vector work per iteration of this solver */
  PetscReal      t_init;         /* measured time before the first iteration; < 0: model it from the shape */
  PetscBool      at_max_it;      /* the solve ended at its iteration limit (KSP_DIVERGED_ITS): the pipelined types'
                                    last pass leaves out the next one's work (PKSolverShapeEnd) */
  PetscReal      t_once;         /* measured: what the first SpMV and PC applications took beyond the others (their
                                    set-up: PETSc's jacobi finds its diagonal in its first PCApply), added to a
                                    modelled start-up; every what-if keeps it (the same operator and PC) */
  PetscReal      t_arrival;      /* measured: the last rank entered the solve this long after the first (the
                                    application's work before it, not the solver's); carried as is to every what-if;
                                    < 0: not measured */
  PKCommCost     halo;           /* one halo exchange of the slowest rank (PKModelHalo); zero = none (1 rank) */
  PetscReal      halo_theta;     /* fraction of the SpMV compute that hides its halo exchange, [0,1] (000 model: 0) */
  PKNetState     net;            /* for the allreduces */
  PetscReal      sync[2];        /* synchronization gap per iteration, [0] blocking rule, [1] non-blocking; < 0: none */
  PetscReal      theta;          /* overlap of the non-blocking reductions, [0,1]; < 0: not measured (0, flagged) */
  PetscReal      ranks_per_core; /* ranks sharing one core on the busiest host (<= 1: none). The papers run one
                                    rank per core. With k ranks per core the core also runs the k - 1 others' work
                                    in every iteration: a rank that waits gives its core to them (blocking
                                    solvers: the waits absorb it), and a rank that polls with MPI_Test may give it
                                    up inside its own compute (its measured compute then already holds it). The
                                    term is k t_cpu minus the measured compute (spmv + pc + vec), at least 0 */
  PetscReal      t_cpu;          /* CPU time one rank used during the solve (mean over ranks); < 0: unknown, then
                                the term is (k - 1) times the measured compute */
  /* progress calls (docs/models.md §2.4): the MPI_Test calls between the chunks of the work overlapped
     with a non-blocking reduction, by the solvers that poll (pipekrylov's nbpcg, pipecg, pipe2cg, pgmres) */
  PetscReal t_test;          /* s per MPI_Test call (profile, at the run's locality); <= 0: not calibrated, no term */
  PetscReal t_poll;          /* s until a reduction polled back to back completes (profile, per round x rounds); <= 0: unknown */
  PetscReal tests_red;       /* MPI_Test calls per non-blocking reduction measured in this run; < 0: none measured */
  PetscReal t_post;          /* s to post one non-blocking reduction (MPI_Iallreduce: the run's, else the profile's); <= 0: no term */
  PetscReal t_recv;          /* s to receive one message inside a progress call: the run's (it polled,
                               PKModelRecvFromTests), else the profile's; <= 0: unknown. A blocking SpMV does that
                               receiving in its halo wait, a polled one in its calls (which t_test prices) */
  PetscReal halo_recv_moved; /* s of each SpMV's halo that its messages' receiving moves, in a what-if between a
                                 type that polls and one that does not: > 0, into the calls (each SpMV in a polled
                                 window hides that much more); < 0, into the halo wait (every SpMV hides that much
                                 less); 0 otherwise */
  /* what the calibrated vector work of another type (PKModelVecRatio) is looked up by: rows of the mean rank, and a
     diagonal PC (jacobi, none); rows <= 0: unknown, the vector streams are counted */
  PetscReal rows;
  PetscBool pc_diagonal;
} PKSolveInput;

typedef enum {
  PK_TERM_SPMV,            /* measured SpMV compute */
  PK_TERM_PC,              /* measured PC compute */
  PK_TERM_VEC,             /* measured vector work */
  PK_TERM_HALO_POSTAL,     /* halo exchanges: postal */
  PK_TERM_HALO_MAXRATE,    /* halo exchanges: max-rate penalty */
  PK_TERM_HALO_QUEUE,      /* halo exchanges: queue search */
  PK_TERM_HALO_CONTENTION, /* halo exchanges: contention */
  PK_TERM_HALO_HOPS,       /* halo exchanges: hops */
  PK_TERM_HALO_CONGESTION, /* halo exchanges: congestion */
  PK_TERM_HALO_PIPELINE,   /* halo exchanges: pipelining credit (<= 0) */
  PK_TERM_HALO_OVERLAP,    /* halo hidden behind the SpMV (<= 0) */
  PK_TERM_ALLR_COMM,       /* allreduces: message rounds */
  PK_TERM_ALLR_LOCAL,      /* allreduces: local reduction flops */
  PK_TERM_ALLR_HOPS,       /* allreduces: hops */
  PK_TERM_ALLR_CONGESTION, /* allreduces: congestion */
  PK_TERM_SYNC,            /* synchronization penalty */
  PK_TERM_OVERLAP,         /* reductions hidden by overlapped work (<= 0) */
  PK_TERM_TESTS,           /* MPI_Test calls between the chunks of the overlapped work */
  PK_TERM_INIT,            /* start-up before the first iteration (pipeline fill) */
  PK_TERM_OVERSUB,         /* ranks sharing a core: the others' compute while one waits (not in the papers) */
  PK_TERM_ARRIVAL,         /* measured: ranks entering the solve apart, the first waiting for the last (not the solver's) */
  PK_TERM_N
} PKTermId;

typedef enum {
  PK_TERM_MEASURED,       /* read from this run */
  PK_TERM_MODELLED,       /* computed from the profile and the run's counts */
  PK_TERM_NOT_MEASURED,   /* needs data this run does not have (congestion counters, trace): 0 */
  PK_TERM_NO_TOPOLOGY,    /* needs the network hop distance: 0 */
  PK_TERM_NOT_APPLICABLE, /* does not arise here (overlap of a blocking solver, halo on one rank or node): 0 */
  PK_TERM_TREE,           /* counted on the switch tree (-ksp_perfmodel_topology) with the profile's parameter */
  PK_TERM_COUNTERS,       /* from the network counters read around the solve, with the profile's stall_time */
  PK_TERM_NOT_CALIBRATED  /* the inputs are there, the profile lacks the parameter (hop_latency, delta, stall_time): 0 */
} PKTermStatus;

typedef struct {
  const char *name;   /* key for CSV/JSON, e.g. "halo.maxrate" */
  const char *label;  /* for the report */
  const char *source; /* paper and section */
} PKTermInfo;

PETSC_INTERN const PKTermInfo  PKTermInfos[];
PETSC_INTERN const char *const PKTermStatusNames[];

typedef struct {
  PKSolverKind kind;
  PetscInt     K, P;
  PetscReal    t[PK_TERM_N]; /* seconds over the whole solve */
  PKTermStatus status[PK_TERM_N];
  const char  *na_why[PK_TERM_N]; /* why a term with status PK_TERM_NOT_APPLICABLE does not arise here (static text) */
  PetscReal    total;             /* sum of t[] (exactly: computed as that sum) */
  PetscReal    per_iteration;     /* (total - t[PK_TERM_INIT]) / K */
  PetscReal    allreduce_one;     /* one allreduce of the solver's largest reduction */
  PetscReal    halo_one;          /* one halo exchange */
} PKModelResult;

PETSC_INTERN PetscErrorCode PKModelSolve(const PKMachineParams *, const PKSolveInput *, PKModelResult *);
PETSC_INTERN PetscErrorCode PKModelBlockingMPI(const PKMachineParams *, const PKSolverConfig *, const PKLayout *, const PKNetState *, PetscInt K, PetscReal sync, PetscReal *);
/* The same problem with another solver: same K, per-application SpMV and PC times, vector time per stream. The overlap
   of the target: the run's measured theta; without one (a blocking or a PETSc run), 000's full overlap min(C, W)
   for a target that polls (nbpcg, pipecg, pipe2cg, pgmres), and for PETSc's split reductions the share the MPI
   completes with no call (PKModelAsyncShare: the profile's nbc_async, none without it). Same K only holds within
   a family: PKSolverItersComparable() says whether the target's iteration count is that of the run (CG family vs
   GMRES family: no; the caller says so rather than assume it) */
/* The ratio of the calibrated vector work per iteration of two CG types on this machine at `rows` rows per rank
   (the profile's vec_* fields, log-log interpolated between the sizes, held beyond them); 0 where either type has
   none */
PETSC_INTERN PetscReal PKModelVecRatio(const PKMachineParams *, PKSolverKind from, PKSolverKind to, PetscBool pc_diagonal, PetscReal rows);
PETSC_INTERN PetscBool PKModelVecCalibrates(PKSolverKind);
/* A CG type's calibrated vector work per iteration at `rows` rows per rank (s, the same interpolation); 0: none */
PETSC_INTERN PetscReal      PKModelVecWork(const PKMachineParams *, PKSolverKind, PetscBool pc_diagonal, PetscReal rows);
PETSC_INTERN PetscErrorCode PKModelWhatIfSolver(const PKMachineParams *, const PKSolveInput *, const PKSolverConfig *target, PKModelResult *);
PETSC_INTERN PetscBool      PKSolverItersComparable(PKSolverKind, PKSolverKind);
/* PETSc's split-reduction types (groppcg, petsc_pipecg, petsc_pgmres): an MPI_Iallreduce posted, no MPI call until its
   wait, the MPI logged apart from the vector work */
PETSC_INTERN PetscBool PKSolverSplitReductions(PKSolverKind);
/* the share of a solver's non-blocking reductions its MPI completes with no call (profile nbc_async; PETSc's split
   reductions only) */
PETSC_INTERN PetscReal      PKModelAsyncShare(const PKMachineParams *, PKSolverKind);
PETSC_INTERN PetscErrorCode PKModelWhatIfRanks(const PKMachineParams *, const PKSolveInput *, PetscInt P, const PKCommCost *halo_at_P, PKModelResult *);

/* ============================================================================================================ */
/* AMG solve cycle (002 IV)                                                                                     */

#define PK_AMG_MAXLEVELS 40

typedef struct {
  PetscReal C;       /* unknowns on the level (global) */
  PetscReal s, shat; /* average nonzeros per row of A_i and of the interpolation P_i (level i+1 -> i) */
  PetscReal p, phat; /* max messages sent by a process: A_i, P_i */
  PetscReal n, nhat; /* max doubles sent by a process: A_i, P_i */
  PetscReal t;       /* s per flop on this level; <= 0: machine flop_time */
  PetscReal smooth;  /* flops per nonzero of A_i for smoothing and the residual in one cycle; <= 0: 6 (002: one
                           sweep down, the residual, one sweep up, 2 flops each); a symmetric smoother (forward and
                           backward) sweeps twice: 10; a direct solve on the coarsest level: 2 (its solve) */
} PKAMGLevel;

typedef struct {
  PetscInt          L;
  const PKAMGLevel *lev;
  PetscReal         P;             /* cores */
  PetscBool         offnode;       /* messages leave the node (profile alpha/beta of that locality) */
  PetscReal         alpha, beta;   /* s per message, s per double; <= 0: profile, protocol of the mean message */
  PetscReal         h, hm;         /* hops: partition diameter and minimum; h <= 0: unknown, no distance term */
  PetscReal         gamma_hop;     /* s per hop; <= 0: machine hop_latency */
  PetscReal         bw_ratio;      /* B_max / B; <= 0: no bandwidth penalty (1) */
  PetscReal         msgs_per_link; /* m / l; < 0: unknown, no contention term */
  PetscReal         t_mult;        /* OpenMP/SMT multiplier on t_i (002 Table I); <= 0: 1 */
} PKAMGInput;

typedef struct {
  PetscInt  L;
  PetscReal smooth_comp[PK_AMG_MAXLEVELS], smooth_comm[PK_AMG_MAXLEVELS];
  PetscReal restrict_comp[PK_AMG_MAXLEVELS], restrict_comm[PK_AMG_MAXLEVELS];
  PetscReal interp_comp[PK_AMG_MAXLEVELS], interp_comm[PK_AMG_MAXLEVELS];
  PetscReal level[PK_AMG_MAXLEVELS]; /* T_solve^i */
  /* the cycle split by kind; comp + comm + distance + bandwidth + contention = total */
  PetscReal comp, comm, distance, bandwidth, contention;
  PetscReal total;
} PKAMGResult;

/* the profile's calibrated time per model flop of a BoomerAMG cycle on every level, where it has one (model_amg.c) */
PETSC_INTERN PetscBool PKAMGLevelsFlopTime(const PKMachine *, PetscInt L, PKAMGLevel lev[]);

PETSC_INTERN PetscErrorCode PKModelAMGCycle(const PKMachineParams *, const PKAMGInput *, PKAMGResult *);
/* Calibration: the one t_i (s per model flop) with which the cycle model equals a measured cycle time */
PETSC_INTERN PetscErrorCode PKModelAMGFlopTime(const PKMachineParams *, const PKAMGInput *, PetscReal measured, PetscReal *t);

/* ============================================================================================================ */
/* Distributions: normal, Johnson SU (docs/algorithms.md §10: scipy's johnsonsu(a, b, loc, scale) is PKJSU)    */

typedef struct {
  PetscReal gamma, delta, xi, lambda;
} PKJSU;

PETSC_INTERN PetscReal PKNormalCdf(PetscReal);
PETSC_INTERN PetscReal PKNormalLogCdf(PetscReal);
PETSC_INTERN PetscReal PKNormalQuantile(PetscReal);
PETSC_INTERN PetscReal PKJSUPdf(const PKJSU *, PetscReal);
PETSC_INTERN PetscReal PKJSUCdf(const PKJSU *, PetscReal);
PETSC_INTERN PetscReal PKJSUQuantile(const PKJSU *, PetscReal);
PETSC_INTERN PetscReal PKJSUMean(const PKJSU *);
PETSC_INTERN PetscReal PKJSUVariance(const PKJSU *);

typedef struct {
  PKJSU     start;     /* the Slifker-Shapiro estimate (or the fallback start) */
  PetscBool start_su;  /* Slifker-Shapiro said SU (mn/p^2 > 1); else the start is a near-normal SU */
  PetscReal nll_start; /* profile NLL at the start */
  PetscReal nll;       /* at the optimum */
  PetscInt  its;       /* Nelder-Mead iterations */
  PetscBool ok;        /* PETSC_FALSE: too few points or no spread: no fit */
} PKJSUFitInfo;

PETSC_INTERN PetscReal      PKQuantileSorted(PetscInt n, const PetscReal sorted[], PetscReal p);
PETSC_INTERN PetscReal      PKMedian(PetscInt n, PetscReal x[]); /* sorts x */
PETSC_INTERN PetscErrorCode PKJSUSlifkerShapiro(PetscInt n, const PetscReal sorted[], PetscReal z, PKJSU *, PetscBool *su);
PETSC_INTERN PetscErrorCode PKJSUProfileNLL(PetscInt n, const PetscReal x[], PetscReal xi, PetscReal lambda, PetscReal *nll, PKJSU *);
PETSC_INTERN PetscErrorCode PKJSUFit(PetscInt n, const PetscReal x[], PKJSU *, PKJSUFitInfo *);
PETSC_INTERN PetscErrorCode PKNormalSample(PetscRandom, PetscInt n, PetscReal z[]);
PETSC_INTERN PetscErrorCode PKJSUSample(const PKJSU *, PetscRandom, PetscInt n, PetscReal x[]);

/* ============================================================================================================ */
/* Expected maxima and bounds (001 eqs 3, 9, 10; docs/algorithms.md §9)                                         */

PETSC_INTERN PetscReal      PKEMaxUniform(PetscReal a, PetscReal s, PetscReal P);
PETSC_INTERN PetscReal      PKEMaxNormalBlom(PetscReal mu, PetscReal sigma, PetscReal P);
PETSC_INTERN PetscErrorCode PKEMaxTransform(PetscReal (*g)(PetscReal z, void *), void *, PetscReal P, PetscReal *);
PETSC_INTERN PetscErrorCode PKEMaxNormal(PetscReal mu, PetscReal sigma, PetscReal P, PetscReal *);
PETSC_INTERN PetscErrorCode PKEMaxJSU(const PKJSU *, PetscReal P, PetscReal *);
PETSC_INTERN PetscErrorCode PKEMaxQuantile(PetscReal (*Q)(PetscReal p, void *), void *, PetscReal P, PetscReal *);
PETSC_INTERN PetscReal      PKBoundCramer(PetscReal mu, PetscReal sigma, PetscReal N);
PETSC_INTERN PetscReal      PKBoundBertsimas(PetscReal mu, PetscReal sigma, PetscReal N);
/* E[max of independent normals]: ng groups, group i has cnt[i] ranks with mean mu[i] and deviation sd[i]
   (src/perf/models/stochastic_noise.c) */
PETSC_INTERN PetscErrorCode PKEMaxNormalGroups(PetscInt ng, const PetscReal mu[], const PetscReal sd[], const PetscReal cnt[], PetscReal *e);

/* The slowdown that noise of rate f and length d causes (src/perf/models/stochastic_noise.c, injected noise:
   -ksp_perf_noise): x[0..m) a sample of the noise-free per-iteration time; Pn ranks with noise, Pq without; K
   iterations. Each noisy rank's iteration time is x plus d times a Poisson(f x) count. Blocking solvers (E[T]):
   E[max over ranks] per iteration with and without noise (K does not matter); non-blocking solvers (E[T']):
   E[max over ranks of the rank's sum over K iterations] / K with and without noise. Equiet, Enoisy: per iteration. */
PETSC_INTERN PetscErrorCode PKNoiseSlowdownModel(PetscInt m, const PetscReal x[], PetscReal d, PetscReal f, PetscReal Pn, PetscReal Pq, PetscInt K, PetscBool nonblocking, PetscReal *Equiet, PetscReal *Enoisy);

/* ============================================================================================================ */
/* Stochastic runtime models (001 sections 2, 4-7)                                                              */

typedef struct {
  PetscInt         K;    /* iterations */
  PetscInt         P;    /* ranks */
  PetscReal        Peff; /* independent variables per iteration; 001 section 4 uses P/64 when the ranks of a
                               node move together; <= 0: P */
  PetscInt         npooled;
  const PetscReal *pooled; /* bulk sample of per-rank iteration times */
  const PetscReal *tmin;   /* [K] per iteration min over ranks: uniform a_k (eq 11, the uniform MLE) */
  const PetscReal *tmax;   /* [K] per iteration max over ranks: s_k = tmax - tmin */
  PetscInt         nsim;   /* simulated runs of section 6 (averaged); <= 0: 8 */
  unsigned long    seed;   /* PetscRandom seed of the simulation */
} PKStochInput;

typedef struct {
  PetscReal    mean, sd; /* of the bulk sample */
  PKJSU        bulk;     /* JSU fit of the bulk sample */
  PKJSUFitInfo bulk_info;
  PetscReal    ks_D, ks_crit;   /* one-sample KS of the bulk vs its fit, critical value at 5% */
  PetscBool    bulk_rejected;   /* the KS test rejects the JSU fit at 5%: ET and ETp come from the empirical
                                     distribution of the sample (ET_emp, ETp_emp), the what-if from a normal */
  PetscReal    ET_emp, ETp_emp; /* eqs 3 and 6 with the sample's own (empirical) distribution */
  PetscBool    sim_rejected;    /* a KS test rejects the fit of the a_k or of the s_k: no simulation */
  PetscReal    ET;              /* eq 3: K E[max of Peff] under the bulk JSU */
  PetscReal    ETp;             /* eq 6: K mu (JSU mean) */
  PetscReal    EThat;           /* eq 7 with uniform F_k (eq 11): sum_k a_k + s_k Peff/(Peff+1) */
  PetscReal    ETphat;          /* eq 8: sum_k a_k + s_k/2 */
  PKJSU        fit_a, fit_s;    /* section 6: JSU fits of the a_k and the s_k */
  PKJSUFitInfo info_a, info_s;
  PetscReal    sim_ET, sim_ETp; /* section 6 simulation (eqs 12, 13), mean over nsim runs */
  PetscReal    sim_ET_sd, sim_ETp_sd;
  PetscReal    cramer, bertsimas; /* eqs 9, 10 with N = Peff, times K */
  PetscInt     K;
  PetscReal    Peff;
} PKStochResult;

PETSC_INTERN PetscErrorCode PKStochasticModel(const PKStochInput *, PKStochResult *);
PETSC_INTERN PetscErrorCode PKStochasticSimulate(const PKJSU *fa, const PKJSU *fs, PetscInt K, PetscReal Peff, PetscInt nsim, unsigned long seed, PetscReal *ET, PetscReal *ETp, PetscReal *ET_sd, PetscReal *ETp_sd);
PETSC_INTERN PetscErrorCode PKStochasticWhatIf(const PKStochResult *, PetscInt K, PetscReal Peff, PetscReal *ET, PetscReal *ETp);

/* ============================================================================================================ */
/* Kolmogorov-Smirnov (001 section 3, docs/algorithms.md §10)                                                   */

PETSC_INTERN PetscErrorCode PKKSTwoSample(PetscInt n, const PetscReal x[], PetscInt m, const PetscReal y[], PetscReal *D);
PETSC_INTERN PetscErrorCode PKKSOneSampleJSU(PetscInt n, const PetscReal x[], const PKJSU *, PetscReal *D);
PETSC_INTERN PetscReal      PKKSCoefficient(PetscReal alpha);
PETSC_INTERN PetscReal      PKKSCritical(PetscReal alpha, PetscInt n, PetscInt m);
PETSC_INTERN PetscReal      PKKSPValue(PetscReal D, PetscInt n, PetscInt m);
PETSC_INTERN PetscErrorCode PKKSOneSidedScaled(PetscInt n, const PetscReal x[], PetscInt m, const PetscReal y[], PetscReal s, PetscReal *Dp);
PETSC_INTERN PetscReal      PKKSOneSidedCritical(PetscReal alpha, PetscInt n, PetscInt m);

/* ============================================================================================================ */
/* From the run's measurements to the model's inputs (measured.c)                                              */

typedef struct {
  PetscInt    K, nspmv, npc; /* iterations, SpMV and PC applications of the solve */
  PetscMPIInt nranks;
  PetscReal   work[PK_PHASE_N];                     /* time by activity over the solve, mean over ranks */
  PetscReal   first[2];                             /* of which the first SpMV and PC application (0: not known) */
  PetscReal   streams;                              /* vector streams per iteration of the solver (PKSolverStreams) */
  PetscReal   red_streams;                          /* of which the local sums of blocking reductions logged as reduce */
  PetscReal   red_mpi, red_mem;                     /* s over the solve: their modelled MPI (allreduces, sync gap); their
                                                       streams at the memory bandwidth (0: unknown) */
  PetscReal   red_cal;                              /* s over the solve: the type's calibrated vector work (PKModelVecWork)
                                                       less the vec phase (0: not calibrated) */
  PetscBool   pc_fused, pc_is_jacobi;               /* a diagonal PC applied inside the fused vector pass; it is jacobi */
  PetscReal   init_pc, pc_per_cycle, its_per_cycle; /* the solver's shape: start-up PCs, PCs and iterations per cycle */
} PKMeasured;

typedef struct {
  PetscReal t_spmv, t_pc, t_vec; /* s per SpMV, per PC application, s of vector work per iteration */
  PetscBool vec_modelled;        /* t_vec holds local sums priced per vector stream (PETSc's blocking types, several ranks) */
  PetscBool pc_modelled;         /* t_pc from the vector streams (a fused diagonal PC) */
} PKMeasuredTimes;

PETSC_INTERN PetscErrorCode PKModelTimesFromMeasured(const PKMeasured *, PKMeasuredTimes *);
PETSC_INTERN PetscReal      PKModelHaloHiddenShare(PetscReal halo_total, PetscReal wait, PetscReal t_spmv);

/* ============================================================================================================ */
/* Slow ranks (slowranks.c)                                                                                     */

#define PK_SLOW_ALPHA 1e-4 /* level of the one-sided KS test */
#define PK_SLOW_REL   0.05 /* slower means more than 5% above the reference */
#define PK_SLOW_MAX   8    /* slow ranks named at most */
/* a rank's summary of its busy times (PKSlowRankSummary) */
enum {
  PK_SLOW_MEDIAN,
  PK_SLOW_MAD2,
  PK_SLOW_Q25,
  PK_SLOW_Q75,
  PK_SLOW_MEAN,
  PK_SLOW_VAR,
  PK_SLOW_NSUM
};

typedef struct {
  PetscInt    nfound; /* ranks found slow */
  PetscInt    n;      /* of them named, the slowest first */
  PetscMPIInt rank[PK_SLOW_MAX];
  PetscReal   mean[PK_SLOW_MAX];         /* mean busy time per iteration */
  PetscReal   D[PK_SLOW_MAX];            /* one-sided KS D+ against the reference */
  PetscReal   cost[PK_SLOW_MAX];         /* s over the solve */
  PetscReal   Ewithout[PK_SLOW_MAX];     /* expected time per iteration were it like the others */
  PetscReal   rest_mean, rest_sd, Ewith; /* the others' mean and spread; expected time per iteration as measured */
} PKSlowRanks;

PETSC_INTERN PetscErrorCode PKSlowRankSummary(PetscInt K, PetscReal busy[], PetscReal work[], PetscReal s[PK_SLOW_NSUM]);
PETSC_INTERN PetscErrorCode PKSlowReference(PetscMPIInt P, const PetscReal median[], PetscMPIInt *ref);
PETSC_INTERN PetscErrorCode PKSlowRanksFind(PetscMPIInt P, PetscInt K, PetscInt Kref, PetscMPIInt ref, const PetscReal Dp[], const PetscReal mean[], const PetscReal var[], PetscBool nonblocking, PKSlowRanks *, PetscBool isslow[]);

#endif
