/*
   What the five CG-family solvers (pcg, sapcg, nbpcg, pipecg, pipe2cg) share beyond KSP_PK.
*/
#ifndef PKCGIMPL_H
#define PKCGIMPL_H

#include <pipekrylov/private/pkkspimpl.h>

PETSC_INTERN PetscErrorCode PKCGSetSupportedNorms(KSP);
PETSC_INTERN PetscErrorCode PKCGSetUp(KSP, KSP_PK *, PetscInt);
PETSC_INTERN PetscErrorCode PKCGInitialResidual(KSP, KSP_PK *, Vec);
PETSC_INTERN PetscErrorCode PKCGDiagonalPC(KSP, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode PKCGDiagonalSame(Vec, Vec, Vec, PetscBool *);

#endif
