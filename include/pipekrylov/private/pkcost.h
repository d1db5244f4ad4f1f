/*
   What one iteration of a solver costs, as the solver itself describes it: the counts the performance model needs.

   Every pipekrylov KSP composes "KSPPipeGetCost_C", PetscErrorCode (*)(KSP, PKSolverCost *), which fills this
   struct from the solver's live settings (restart length, replacement period) and from its last solve
   (replacements actually done). It works on a bare typed KSP, before any set-up or solve (KSPCreate, KSPSetType,
   query), so the report asks "what would solver B cost" by creating a throwaway KSP of type B. PETSc's own types
   have no such function: the model keeps a table for them (PKSolverConfigDefault in pkmodel.h).

   No KSP, no MPI here: the models (src/perf/models) include this header too.
*/
#ifndef PKCOST_H
#define PKCOST_H

#include <petscsys.h>

typedef struct {
  const char *pattern;      /* the model's name for the reduction pattern (PKSolverKindNames: "pcg" ... "pgmres") */
  PetscInt    its;          /* iterations per modelled cycle: 1 (CG family), 2 (pipe2cg), restart m (GMRES family) */
  PetscInt    nred;         /* global reductions per cycle */
  PetscInt    nvals;        /* values reduced per cycle (all reductions together) */
  PetscBool   nonblocking;  /* the cycle's reductions are non-blocking, overlapped with work */
  PetscReal   nspmv, npc;   /* operator and preconditioner applications per cycle, replacements not included */
  PetscReal   streams;      /* vector streams (one read or write of one vector) per cycle */
  PetscReal   init_spmv, init_pc; /* start-up before the first iteration */
  PetscInt    init_nvals;   /* values of the start-up's exposed reduction (0: none) */
  PetscReal   init_streams; /* vector streams of the start-up */
  PetscInt    restart;      /* GMRES family: the restart length m; 0 for the CG family */
  PetscInt    replace;      /* residual replacement period in force (at most this many iterations apart); 0: off */
  PetscReal   replace_spmv, replace_pc; /* applications per residual replacement */
  PetscInt    nreplaced;    /* residual replacements done in the last solve (0 before the first) */
  PetscReal   ovl_extra_spmv; /* SpMVs added to the overlap window of each non-blocking reduction beyond the pattern's
                                 (pipecg's recompute of w = A u: 1; pipe2cg's of w and q: 2); already counted in nspmv */
  PetscBool   pc_unfused;     /* a diagonal preconditioner goes through PCApply although the pattern could apply it
                                 inside its fused vector pass (pipecg with the recompute) */
  PetscReal   ovl_extra_pc;   /* PC applications added to that overlap window beyond the pattern's (pipe2cg's
                                 recompute of p = M w: 1); already counted in npc */
} PKSolverCost;


#endif
