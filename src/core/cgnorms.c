/*
   The norms a CG method supports, written once for the CG types (src/ksp) and for -ksp_type autocg (src/perf), which
   must accept exactly what every candidate it may become accepts: left preconditioning; the preconditioned norm is
   the default, as for PETSc's KSPCG.
*/
#include <pipekrylov/private/pkcore.h>

PetscErrorCode PKSetCGNorms(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NATURAL, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  PetscFunctionReturn(0);
}
