/* placeholder while pipe2cg is being written */
#include <pipekrylov/private/pkkspimpl.h>
PETSC_EXTERN PetscErrorCode KSPCreate_PKPIPE2CG(KSP ksp)
{
  SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "pipe2cg is not written yet");
}
