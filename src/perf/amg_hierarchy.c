/* Placeholder until the hierarchy reader lands: reports the AMG model as unavailable, with the reason */
#include <pipekrylov/private/pkamg.h>
PetscErrorCode PKAMGHierarchyFromPC(PC pc, PetscInt maxlevels, PKAMGLevel lev[], PetscInt *L, PetscBool *found, char why[], size_t len)
{
  PetscFunctionBegin;
  *L     = 0;
  *found = PETSC_FALSE;
  PetscCall(PetscSNPrintf(why, len, "reading hypre's hierarchy is not available in this build"));
  PetscFunctionReturn(0);
}
