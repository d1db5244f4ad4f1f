/*
   What one iteration of a solver costs, as the solver itself describes it: the counts the performance model needs.

   Every pipekrylov KSP composes "KSPPipeGetCost_C", PetscErrorCode (*)(KSP, PKSolverCost *), which fills this
   struct from the solver's live settings (norm type, restart length, replacement period, recompute) and from its
   last solve (replacements and gap measurements actually done, whether a diagonal preconditioner went into the
   fused vector pass). It works on a bare typed KSP, before any set-up or solve (KSPCreate, KSPSetType, query), so
   the report asks "what would solver B cost" by creating a throwaway KSP of type B.

   The model (src/perf/models/model_solvers.c) uses these counts as they are for the CG family; it keeps a table
   only for PETSc's own types, which describe nothing. The GMRES family is the exception in shape, not in source:
   a cycle's counts depend on how many steps it reaches before the solve converges, so a GMRES-family solver
   describes its pattern and restart length, and the model builds the cycle of k steps from the pattern (p(1)
   pipelined GMRES for pgmres, the same pattern as PETSc's pgmres).

   No KSP, no MPI here: the models (src/perf/models) include this header too.
*/
#ifndef PKCOST_H
#define PKCOST_H

#include <petscsys.h>

#define PK_COST_MAXRED 2 /* reductions per cycle a CG-family solver can describe (pcg, nbpcg: 2) */

/* One global reduction of a cycle */
typedef struct {
  PetscInt  nvals;        /* values it reduces */
  PetscBool blocking;     /* MPI_Allreduce; else a non-blocking reduction in flight during the work below */
  PetscReal w_spmv, w_pc; /* operator and preconditioner applications done while it is in flight */
  PetscReal w_pc_fused;   /* of w_pc, those a diagonal preconditioner applied in the fused vector pass takes out
                             of the window (the pass runs before the reduction starts) */
} PKReductionCost;

typedef struct {
  const char     *pattern; /* the model's name for the pattern (PKSolverKindNames: "pcg" ... "pgmres") */
  PetscInt        its;     /* iterations per cycle: 1 (CG family), 2 (pipe2cg), restart m (GMRES family) */
  PetscInt        nred;    /* global reductions per cycle (CG family: at most PK_COST_MAXRED, listed in red) */
  PKReductionCost red[PK_COST_MAXRED];
  PetscReal       nspmv, npc;               /* operator and preconditioner applications per cycle, replacements not included */
  PetscReal       streams;                  /* vector streams (one read or write of one vector) per cycle, as implemented: a fused
                                  kernel that reads and writes each vector once per pass counts each once */
  PetscReal       init_spmv, init_pc;       /* start-up before the first iteration */
  PetscInt        init_nvals;               /* values of the start-up's exposed reduction (0: none) */
  PetscReal       init_streams;             /* vector streams of the start-up */
  PetscReal       end_spmv, end_pc;         /* applications a solve that ends at max_it, after whole cycles, does not
                                               make of K / its cycles: the next pass's overlapped work, which it skips,
                                               less the true residual it checks at its exit when it has a norm */
  PetscInt        restart;                  /* GMRES family: the restart length m; 0 for the CG family */
  PetscInt        chunks;                   /* progress chunks (-ksp_pipe_chunks): the overlapped work is split into this many
                                               pieces with an MPI_Test between them; 1 (or 0): no MPI_Test at all */
  PetscInt        replace;                  /* residual replacement period in force (at most this many iterations apart); 0: off */
  PetscReal       replace_spmv, replace_pc; /* applications per residual replacement */
  PetscInt        nreplaced;                /* residual replacements done in the last solve (0 before the first) */
  /* a diagonal preconditioner (PCJACOBI, PCNONE) applied inside the fused vector pass instead of by PCApply */
  PetscReal fuse_pc;         /* PC applications per cycle the pass takes over (0: the solver cannot now) */
  PetscReal fuse_pc_streams; /* vector streams it adds to the pass per cycle (read the diagonal, write) */
  PetscBool fused_last;      /* the last solve did apply the preconditioner inside the pass */
  /* what the pipelined types' recompute policy and gap measurements did in the last solve (all 0 before the first
     solve and for the other types). nspmv, npc and red[0] above already include their averages per cycle over that
     solve; these are the counts behind them, for the report to print and price: a recomputed pass costs
     recompute_spmv + recompute_pc applications more (overlapped: they are in red[0]'s window), a replacement
     replace_spmv + replace_pc (exposed), a gap measurement probe_spmv (exposed) */
  PetscInt    its_last;                     /* iterations of the last solve */
  PetscInt    nrecomputed;                  /* passes that recomputed the auxiliary vectors (pipe2cg: a pass is two iterations) */
  PetscReal   recompute_spmv, recompute_pc; /* applications per recomputed pass (pipecg 1, 0; pipe2cg 2, 1) */
  PetscInt    nprobed;                      /* measurements of the gap between recursive and true residual */
  PetscReal   probe_spmv;                   /* applications per measurement */
  PetscInt    recompute_on_at;              /* iteration the policy last switched the recompute on (-1: never; 0: from the start, forced) */
  const char *recompute_why;                /* the policy's last switch and its reason, as -ksp_view prints it ("" if none); owned by the KSP */
} PKSolverCost;

#endif
