/* hypre BoomerAMG's hierarchy for the AMG cycle model (002 IV): see src/perf/amg_hierarchy.c */
#ifndef PKAMG_H
#define PKAMG_H
#include <petscpc.h>
#include <pipekrylov/private/pkmodel.h>
PETSC_EXTERN PetscErrorCode PKAMGHierarchyFromPC(PC, PetscInt, PKAMGLevel[], PetscInt *, PetscBool *, char[], size_t);
#endif
