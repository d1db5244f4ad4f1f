/* placeholder while nbpcg is being written */
#include <pipekrylov/private/pkkspimpl.h>
PETSC_EXTERN PetscErrorCode KSPCreate_PKNBPCG(KSP ksp)
{
  SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "nbpcg is not written yet");
}
