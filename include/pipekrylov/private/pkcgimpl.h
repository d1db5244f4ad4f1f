/*
   What the five CG-family solvers (pcg, sapcg, nbpcg, pipecg, pipe2cg) share beyond KSP_PK.
*/
#ifndef PKCGIMPL_H
#define PKCGIMPL_H

#include <pipekrylov/private/pkkspimpl.h>

/* The breakdown tests every CG variant makes, on the same quantities as PETSc's cg: gamma = (r, z) vanishing
   means the iterate is the solution; (r, z) changing sign means an indefinite preconditioner; the curvature
   (p, A p) vanishing or changing sign means an indefinite operator. 0: none.
   Signs are compared, not the sign of the product (as PETSc's cg does): run past convergence (KSP_NORM_NONE, as
   PCMG and GAMG set on their coarse solvers, or -ksp_rtol 0) the values fall below 1e-160 and their product
   underflows to 0, which read as a sign change. */
static inline PetscBool PKCGSignsDiffer(PetscScalar a, PetscScalar b)
{
  return (PetscBool)(PetscSign(PetscRealPart(a)) * PetscSign(PetscRealPart(b)) < 0);
}

static inline KSPConvergedReason PKCGCheckGamma(PetscScalar gamma, PetscScalar gammaold, PetscBool first)
{
  if (gamma == 0.0) return KSP_CONVERGED_ATOL;
  if (!first && PKCGSignsDiffer(gamma, gammaold)) return KSP_DIVERGED_INDEFINITE_PC;
  return KSP_CONVERGED_ITERATING;
}

static inline KSPConvergedReason PKCGCheckCurvature(PetscScalar pap, PetscScalar papold, PetscBool first)
{
  if (pap == 0.0 || (!first && PKCGSignsDiffer(pap, papold))) return KSP_DIVERGED_INDEFINITE_MAT;
  return KSP_CONVERGED_ITERATING;
}

/* The dot the norm type needs besides (r, z): (z, z) preconditioned, (r, r) unpreconditioned; none for natural
   and none. Returns whether there is one. */
static inline PetscBool PKCGNormDot(KSP ksp, Vec R, Vec Z, PKDot *d)
{
  if (ksp->normtype == KSP_NORM_PRECONDITIONED) {
    d->x = Z;
    d->y = Z;
    return PETSC_TRUE;
  }
  if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
    d->x = R;
    d->y = R;
    return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* 1 if the norm type needs its own value in a reduction (PKCGNormDot), else 0: for the cost descriptions. A KSP
   not set up yet has KSP_NORM_DEFAULT, which becomes the preconditioned norm */
static inline PetscInt PKCGNormValues(KSP ksp)
{
  return (ksp->normtype == KSP_NORM_NATURAL || ksp->normtype == KSP_NORM_NONE) ? 0 : 1;
}

/* The convergence-test norm from the reduced (r, z) and, when the norm type needs it, the reduced norm dot */
static inline PetscErrorCode PKCGNorm(KSP ksp, PetscScalar rz, const PetscScalar *normdot, PetscReal *norm)
{
  return PKNormFromDots(ksp, normdot ? *normdot : 0.0, normdot ? *normdot : 0.0, rz, norm);
}

PETSC_INTERN PetscErrorCode PKCGSetSupportedNorms(KSP);
PETSC_INTERN PetscErrorCode PKCGSetUp(KSP, KSP_PK *, PetscInt);
PETSC_INTERN PetscErrorCode PKCGInitialResidual(KSP, KSP_PK *, Vec);
PETSC_INTERN PetscErrorCode PKCGDiagonalPC(KSP, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode PKCGDiagonalSame(Vec, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode PKCGCheckClaim(KSP, KSP_PK *, PetscInt, Vec, PetscReal, Vec, Vec, PetscInt *, PetscBool *, PetscReal *);

#endif
