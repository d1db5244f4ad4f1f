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

PetscClassId PK_CLASSID;

static PetscBool PipeKrylovPackageInitialized = PETSC_FALSE;

/* "32-bit PetscInt, real double PetscScalar" for the sizes given */
static void PKConfigName(char buf[], size_t len, size_t isize, PetscDataType scalar, size_t rsize)
{
  (void)snprintf(buf, len, "%d-bit PetscInt, %s %s PetscScalar", (int)(8 * isize), scalar == PETSC_COMPLEX ? "complex" : "real", rsize == 4 ? "single" : rsize == 8 ? "double" : rsize == 16 ? "quad" : rsize == 2 ? "half" : "unknown-precision");
}

/*
   PKCheckPETScConfiguration - the running libpetsc must have the PetscInt, PetscScalar and PetscReal this
   library was compiled for: a plugin built against Debian's 32-bit-index PETSc and loaded (-dll_append) into an
   application of its 64-bit-index or complex PETSc would misread every integer or scalar it is given and crash.
   The sizes are asked of the running library (PetscDataTypeGetSize() and PetscDataTypeFromString("scalar") answer
   from the libpetsc the application runs), and only functions whose arguments do not depend on them are called.
*/
static PetscErrorCode PKCheckPETScConfiguration(void)
{
  size_t        isize = 0, ssize = 0, rsize = 0;
  PetscDataType stype = PETSC_DATATYPE_UNKNOWN, rtype = PETSC_DATATYPE_UNKNOWN;
  PetscBool     found     = PETSC_FALSE;
  const char   *dir       = NULL;
  char          arch[256] = "", have[128], want[128];

  PetscFunctionBegin;
  PetscCall(PetscDataTypeGetSize(PETSC_INT, &isize));
  PetscCall(PetscDataTypeFromString("scalar", &stype, &found));
  if (found) PetscCall(PetscDataTypeGetSize(stype, &ssize));
  PetscCall(PetscDataTypeFromString("real", &rtype, &found));
  if (found) PetscCall(PetscDataTypeGetSize(rtype, &rsize));
  if (isize == sizeof(PetscInt) && ssize == sizeof(PetscScalar) && rsize == sizeof(PetscReal) && stype == PETSC_SCALAR) PetscFunctionReturn(0);
  PKConfigName(have, sizeof(have), isize, stype, rsize);
  PKConfigName(want, sizeof(want), sizeof(PetscInt), PETSC_SCALAR, sizeof(PetscReal));
  PetscCall(PetscGetPetscDir(&dir));
  PetscCall(PetscGetArchType(arch, sizeof(arch)));
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "pipekrylov was built for a PETSc with %s, but the running PETSc (%s%s%s) has %s. Rebuild pipekrylov against the running PETSc: make clean && PKG_CONFIG_PATH=%s%s%s/lib/pkgconfig make (see README.md, \"Building against another PETSc\")", want, dir ? dir : "?", arch[0] ? "/" : "", arch, have, dir ? dir : "<PETSC_DIR>", arch[0] ? "/" : "", arch);
}

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
   It first checks that the running PETSc has the PetscInt, PetscScalar and PetscReal pipekrylov was built for,
   and refuses with an error that says how to rebuild otherwise (PETSC_ERR_LIB).

   Not Collective

   Level: beginner

.seealso: `PetscDLLibraryRegister_pipekrylov()`, `KSPSetType()`
@*/
PetscErrorCode PipeKrylovInitializePackage(void)
{
  PetscFunctionBegin;
  if (PipeKrylovPackageInitialized) PetscFunctionReturn(0);
  PetscCall(PKCheckPETScConfiguration()); /* first: nothing else is safe with a PETSc of other sizes */
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
  PetscCall(KSPRegister(KSPAUTOCG, KSPCreate_AUTOCG));
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
