/* placeholder while pipecg is being written */
#include <pipekrylov/private/pkkspimpl.h>
PETSC_EXTERN PetscErrorCode KSPCreate_PKPIPECG(KSP ksp)
{
  SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "pipecg is not written yet");
}
