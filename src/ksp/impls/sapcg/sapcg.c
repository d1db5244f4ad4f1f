/* placeholder while sapcg is being written */
#include <pipekrylov/private/pkkspimpl.h>
PETSC_EXTERN PetscErrorCode KSPCreate_PKSAPCG(KSP ksp)
{
  SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "sapcg is not written yet");
}
