static const char help[] = "Registration: every type exists under its fixed name, registering twice is harmless, PETSc's\n"
                           "pipecg and pgmres stay reachable as petsc_pipecg and petsc_pgmres.\n\n";

#include <pipekrylov.h>

static PetscErrorCode Check(const char *type, PetscBool ours, PetscInt *failures)
{
  KSP       ksp;
  KSPType   got;
  PetscBool is;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetType(ksp, &got));
  PetscCall(KSPPipeIsPipeKrylov(ksp, &is));
  if (strcmp(got, type) || is != ours) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: type %s, from pipekrylov %d (expected %d)\n", type, got, (int)is, (int)ours));
    (*failures)++;
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %-13s %s\n", type, ours ? "pipekrylov" : "PETSc"));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const char *ours[]   = {KSPPKPCG, KSPPKSAPCG, KSPPKNBPCG, KSPPKPIPECG, KSPPKPIPE2CG, KSPPKPGMRES};
  const char *petscs[] = {KSPPETSCPIPECG, KSPPETSCPGMRES, KSPCG, KSPGMRES, KSPGROPPCG, KSPPIPECG2};
  PetscInt    failures = 0;
  char        version[64];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(PipeKrylovInitializePackage());       /* twice: harmless */
  PetscCall(PetscDLLibraryRegister_pipekrylov()); /* and through the plugin entry point */
  PetscCall(PipeKrylovGetVersion(version, sizeof(version)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", version));
  for (int i = 0; i < 6; i++) PetscCall(Check(ours[i], PETSC_TRUE, &failures));
  for (int i = 0; i < 6; i++) PetscCall(Check(petscs[i], PETSC_FALSE, &failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
