/*
   The AMG hierarchy a PCHYPRE/BoomerAMG preconditioner actually uses, as the per-level inputs of the AMG solve-cycle
   model of 002 section IV (PKAMGLevel, PKModelAMGCycle in pkmodel.h). src/perf/report/amg_hierarchy.c.

   Not exported from the shared library (not public API); tests/amg.c links the static archive build/libpipekrylov.a.
*/
#ifndef PKAMG_H
#define PKAMG_H

#include <petscpc.h>
#include <pipekrylov/private/pkmodel.h>

/*
   PKAMGHierarchyFromPC - the levels of the BoomerAMG hierarchy a set-up PCHYPRE holds, for PKModelAMGCycle().

   Collective on the PC's communicator (every rank must call it; all ranks get the same answer).

   Input Parameters:
+  pc        - the preconditioner
.  maxlevels - the capacity of lev[] (at most PK_AMG_MAXLEVELS is useful)
-  whylen    - the size of why[]

   Output Parameters:
+  lev   - per level i = 0 (finest) .. L-1 (coarsest): C = global rows of A_i; s = average nonzeros per row of A_i;
           shat = average nonzeros per row of the interpolation P_i (level i+1 -> i; 0 on the coarsest); p, phat = the
           maximum over processes of the messages sent in one matvec with A_i, P_i; n, nhat = the maximum over
           processes of the doubles sent in it; t = 0 (the model then uses the machine's flop_time)
.  L     - the number of levels (0 when not found)
.  found - PETSC_TRUE when lev[] was filled
-  why   - when not found, the reason (not hypre, not boomeramg, not set up, more levels than maxlevels, ...);
           "" when found. May be NULL.

   Notes:
   The levels are read from a copy of the PC's set-up (BoomerAMG's set-up is deterministic), never from the PC
   itself, whose hierarchy stays untouched: see the comment at the top of amg_hierarchy.c. The answer is kept on
   the PC and read again only when its preconditioning matrix changed.

   Level: developer

.seealso: PKModelAMGCycle(), PCHYPRE
*/
/* hypre's relaxation of one kind (down, up, coarse), as the PC's view names it: sweeps, and whether a sweep goes
   forward and backward (symmetric) or is a direct solve */
typedef struct {
  PetscInt  sweeps;
  PetscBool symmetric, direct;
} PKAMGRelax;

/* The levels of a BoomerAMG hierarchy as PETSc matrices: A[0] the PC's preconditioning matrix, A[i] level i's
   operator, P[i] the interpolation from level i+1 to level i (i < L-1); the smoother of each kind */
typedef struct {
  PetscInt   L;
  Mat       *A, *P;
  PKAMGRelax down, up, coarse;
} PKAMGLevels;

/*
   PKAMGLevelsCreate - the levels of a set-up PCHYPRE of type boomeramg, read from a copy of its set-up (the
   application's PC is not touched: see amg_hierarchy.c). Collective. PKAMGLevelsDestroy frees them.

   Level: developer
*/
PETSC_INTERN PetscErrorCode PKAMGLevelsCreate(PC, PKAMGLevels *);
PETSC_INTERN PetscErrorCode PKAMGLevelsDestroy(PKAMGLevels *);

PETSC_INTERN PetscErrorCode PKAMGHierarchyFromPC(PC pc, PetscInt maxlevels, PKAMGLevel lev[], PetscInt *L, PetscBool *found, char why[], size_t whylen);

#endif
