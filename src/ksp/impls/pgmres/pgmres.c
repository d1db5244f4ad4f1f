/* placeholder while pgmres is being written */
#include <pipekrylov/private/pkkspimpl.h>
PETSC_EXTERN PetscErrorCode KSPCreate_PKPGMRES(KSP ksp)
{
  SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "pgmres is not written yet");
}
