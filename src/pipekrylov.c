/*
   Registration: the six KSP types, PETSc's originals of the two we replace, the logging events, and the
   perf package (monitor, report) that hooks into every KSPSolve.
*/
#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkperfimpl.h>

PETSC_INTERN PetscErrorCode KSPCreate_PKPCG(KSP);
PETSC_INTERN PetscErrorCode KSPCreate_PKSAPCG(KSP);
PETSC_INTERN PetscErrorCode KSPCreate_PKNBPCG(KSP);
PETSC_INTERN PetscErrorCode KSPCreate_PKPIPECG(KSP);
PETSC_INTERN PetscErrorCode KSPCreate_PKPIPE2CG(KSP);
PETSC_INTERN PetscErrorCode KSPCreate_PKPGMRES(KSP);
/* PETSc's own, exported by libpetsc though not declared in its headers */
PETSC_EXTERN PetscErrorCode KSPCreate_PIPECG(KSP);
PETSC_EXTERN PetscErrorCode KSPCreate_PGMRES(KSP);

PetscClassId  PK_CLASSID;

static PetscBool PipeKrylovPackageInitialized = PETSC_FALSE;

/*@C
   PipeKrylovFinalizePackage - Called by PetscFinalize(); undoes PipeKrylovInitializePackage().

   Level: developer

.seealso: `PipeKrylovInitializePackage()`
@*/
PetscErrorCode PipeKrylovFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PKPerfFinalizePackage());
  PipeKrylovPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
   PipeKrylovInitializePackage - Registers pipekrylov's KSP types (pcg, sapcg, nbpcg, pipecg, pipe2cg, pgmres),
   keeps PETSc's pipecg and pgmres reachable as petsc_pipecg and petsc_pgmres, registers the logging events and
   the performance monitor. Call it after PetscInitialize() in an application that links libpipekrylov; the
   plugin entry point PetscDLLibraryRegister_pipekrylov() calls it for -dll_append. Calling it again does nothing.

   Not Collective

   Level: beginner

.seealso: `PetscDLLibraryRegister_pipekrylov()`, `KSPSetType()`
@*/
PetscErrorCode PipeKrylovInitializePackage(void)
{
  PetscFunctionBegin;
  if (PipeKrylovPackageInitialized) PetscFunctionReturn(0);
  PipeKrylovPackageInitialized = PETSC_TRUE;
  /* KSP's own registration first, so that it cannot run later and put PETSc's pipecg and pgmres back */
  PetscCall(KSPInitializePackage());
  PetscCall(PetscClassIdRegister("pipekrylov", &PK_CLASSID));
  PetscCall(KSPRegister(KSPPETSCPIPECG, KSPCreate_PIPECG));
  PetscCall(KSPRegister(KSPPETSCPGMRES, KSPCreate_PGMRES));
  PetscCall(KSPRegister(KSPPKPCG, KSPCreate_PKPCG));
  PetscCall(KSPRegister(KSPPKSAPCG, KSPCreate_PKSAPCG));
  PetscCall(KSPRegister(KSPPKNBPCG, KSPCreate_PKNBPCG));
  PetscCall(KSPRegister(KSPPKPIPECG, KSPCreate_PKPIPECG));
  PetscCall(KSPRegister(KSPPKPIPE2CG, KSPCreate_PKPIPE2CG));
  PetscCall(KSPRegister(KSPPKPGMRES, KSPCreate_PKPGMRES));
  PetscCall(PetscLogEventRegister("PKSpMV", PK_CLASSID, &PK_Event_SpMV));
  PetscCall(PetscLogEventRegister("PKAllreduce", PK_CLASSID, &PK_Event_Reduce));
  PetscCall(PetscLogEventRegister("PKIallreduceWait", PK_CLASSID, &PK_Event_Wait));
  PetscCall(PetscLogEventRegister("PKVecFused", PK_CLASSID, &PK_Event_VecFused));
  PetscCall(PetscLogEventRegister("PKResidualReplace", PK_CLASSID, &PK_Event_Replace));
  PetscCall(PKPerfInitializePackage());
  PetscCall(PetscRegisterFinalize(PipeKrylovFinalizePackage));
  PetscFunctionReturn(0);
}

/*@C
   PetscDLLibraryRegister_pipekrylov - Entry point PETSc calls when it loads libpipekrylov.so with
   -dll_append (or -dll_prepend, or PETSC_OPTIONS); registers everything with PipeKrylovInitializePackage().

   Level: beginner

.seealso: `PipeKrylovInitializePackage()`
@*/
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_pipekrylov(void)
{
  PetscFunctionBegin;
  PetscCall(PipeKrylovInitializePackage());
  PetscFunctionReturn(0);
}

/*@C
   PipeKrylovGetVersion - The version string of pipekrylov.

   Not Collective

   Input Parameter:
.  len - length of the buffer

   Output Parameter:
.  version - "pipekrylov M.m.p"

   Level: beginner
@*/
PetscErrorCode PipeKrylovGetVersion(char version[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(version, len, "pipekrylov %d.%d.%d", PIPEKRYLOV_VERSION_MAJOR, PIPEKRYLOV_VERSION_MINOR, PIPEKRYLOV_VERSION_PATCH));
  PetscFunctionReturn(0);
}
