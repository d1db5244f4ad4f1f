/*
   The perf package (monitor, trace, report): registration.
*/
#include <pipekrylov/private/pkperfimpl.h>

PetscErrorCode PKPerfInitializePackage(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(0);
}

PetscErrorCode PKPerfFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(0);
}
