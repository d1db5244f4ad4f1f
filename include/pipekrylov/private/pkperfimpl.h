/*
   The perf package: the logging monitor that records every KSPSolve, the trace, and the end-of-solve report.
*/
#ifndef PKPERFIMPL_H
#define PKPERFIMPL_H

#include <pipekrylov/private/pkrecimpl.h>

PETSC_INTERN PetscErrorCode PKPerfInitializePackage(void);
PETSC_INTERN PetscErrorCode PKPerfFinalizePackage(void);

#endif
