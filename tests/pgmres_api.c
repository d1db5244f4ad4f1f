static const char help[] = "pgmres through PETSc's API: KSPGMRESSetRestart() after KSPSetUp() (the basis is reallocated),\n"
                           "KSPGMRESGetRestart(), the GMRES calls PETSc's pgmres answers (KSPGMRESSetPreAllocateVectors(),\n"
                           "KSPGMRESSet/GetOrthogonalization(), KSPGMRESSet/GetCGSRefinementType()),\n"
                           "KSPBuildSolution() and KSPBuildResidual() after a solve, KSPReset()\n"
                           "and a new solve; each against KSPGMRES configured the same way. Exit status 1 on a mismatch.\n";

#include <pipekrylov.h>
#include "problems.h"

static PetscErrorCode Solve(PKProblem *p, KSPType type, PetscInt restart_after_setup, PetscInt *its, Vec x, PetscReal *rbuilt)
{
  KSP      ksp;
  Vec      xb, rv, t1, t2;
  PetscInt m;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, p->A, p->A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  /* what an application written for PETSc's (p)gmres may call: each a method of the type (KSPGMRESGet* fail
     without one) */
  PetscCall(KSPGMRESSetPreAllocateVectors(ksp));
  PetscCall(KSPGMRESSetOrthogonalization(ksp, KSPGMRESClassicalGramSchmidtOrthogonalization));
  PetscCall(KSPGMRESSetCGSRefinementType(ksp, KSP_GMRES_CGS_REFINE_IFNEEDED));
  {
    PetscErrorCode (*orth)(KSP, PetscInt) = NULL;
    KSPGMRESCGSRefinementType cgs         = KSP_GMRES_CGS_REFINE_NEVER;
    PetscCall(KSPGMRESGetOrthogonalization(ksp, &orth));
    PetscCall(KSPGMRESGetCGSRefinementType(ksp, &cgs));
    PetscCheck(orth == KSPGMRESClassicalGramSchmidtOrthogonalization && cgs == KSP_GMRES_CGS_REFINE_IFNEEDED, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: KSPGMRESGetOrthogonalization or KSPGMRESGetCGSRefinementType does not give what was set", type);
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGMRESSetRestart(ksp, restart_after_setup));
  PetscCall(KSPGMRESGetRestart(ksp, &m));
  PetscCheck(m == restart_after_setup, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: KSPGMRESGetRestart gives %" PetscInt_FMT ", set %" PetscInt_FMT, type, m, restart_after_setup);
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, p->b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  /* after the solve, the built solution is the solution, and the built residual its residual (not checked for
     gmres: PETSc 3.18's KSPBuildSolution_GMRES adds the last cycle's correction to x a second time) */
  PetscCall(VecDuplicate(x, &t1));
  PetscCall(VecDuplicate(x, &t2));
  *rbuilt = -1.0;
  if (strcmp(type, KSPGMRES)) {
    PetscReal d;
    /* not in place: after a finished solve PETSc 3.22's KSPBuildSolution(ksp, NULL, ...) returns x itself */
    PetscCall(KSPBuildSolution(ksp, NULL, &xb));
    PetscCall(VecWAXPY(t1, -1.0, x, xb));
    PetscCall(VecNorm(t1, NORM_2, &d));
    PetscCheck(d == 0.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: KSPBuildSolution after the solve differs from x by %g", type, (double)d);
    PetscCall(KSPBuildResidual(ksp, t1, t2, &rv)); /* rv is t2 */
    PetscCall(VecNorm(rv, NORM_2, rbuilt));
  }
  /* a reset KSP solves again the same way */
  PetscCall(KSPReset(ksp));
  PetscCall(KSPSetOperators(ksp, p->A, p->A));
  PetscCall(VecSet(t1, 0.0));
  PetscCall(KSPSolve(ksp, p->b, t1));
  PetscCall(KSPGetIterationNumber(ksp, &m));
  PetscCheck(m == *its, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " iterations after KSPReset, %" PetscInt_FMT " before", type, m, *its);
  PetscCall(VecDestroy(&t1));
  PetscCall(VecDestroy(&t2));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PKProblem p;
  Vec       x, xg, r;
  PetscInt  its, itsg, restart = 10;
  PetscReal rn, rg, rtrue, diff, nx;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-restart_after_setup", &restart, NULL));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &p));
  PetscCall(VecDuplicate(p.b, &x));
  PetscCall(VecDuplicate(p.b, &xg));
  PetscCall(VecDuplicate(p.b, &r));
  PetscCall(Solve(&p, KSPGMRES, restart, &itsg, xg, &rg)); /* rg: not built for gmres */
  PetscCall(Solve(&p, KSPPKPGMRES, restart, &its, x, &rn));
  PetscCall(MatMult(p.A, x, r));
  PetscCall(VecAYPX(r, -1.0, p.b));
  PetscCall(VecNorm(r, NORM_2, &rtrue));
  PetscCall(VecAXPY(xg, -1.0, x));
  PetscCall(VecNorm(xg, NORM_2, &diff));
  PetscCall(VecNorm(x, NORM_2, &nx));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "restart %" PetscInt_FMT " set after KSPSetUp: gmres %" PetscInt_FMT " its, pgmres %" PetscInt_FMT " its; KSPBuildResidual %.3e (b - A x %.3e); solution difference %.1e\n", restart, itsg, its, (double)rn, (double)rtrue, (double)(diff / nx)));
  PetscCheck(its == itsg, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "pgmres %" PetscInt_FMT " iterations, gmres %" PetscInt_FMT, its, itsg);
  PetscCheck(PetscAbsReal(rn - rtrue) <= 1e-12 * PetscMax(rtrue, 1e-300) + 1e-14 * nx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "KSPBuildResidual norm %g is not that of b - A x, %g", (double)rn, (double)rtrue);
  PetscCheck(diff <= 1e-6 * nx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "solutions differ by %g", (double)(diff / nx));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xg));
  PetscCall(VecDestroy(&r));
  PetscCall(PKProblemDestroy(&p));
  PetscCall(PetscFinalize());
  return 0;
}
