/*
   The GMRES calls PETSc's pgmres answers beyond the restart and the tolerances, so that an application written for
   it keeps working when pipekrylov's pgmres replaces it: KSPGMRESSetPreAllocateVectors() (the whole basis at set-up),
   KSPGMRESSet/GetOrthogonalization() and KSPGMRESSet/GetCGSRefinementType(). p(1)-GMRES orthogonalises by classical
   Gram-Schmidt whose normalisation lags one step, whatever is set: the last two are recorded and returned, and have
   no effect, as in PETSc's pgmres (whose cycle never calls the orthogonalisation it stores); -ksp_view says so when
   something else was asked for. Without them KSPGMRESGetOrthogonalization() failed ("Cannot locate function").
*/
#include "pgmresimpl.h"

static PetscErrorCode KSPGMRESSetPreAllocateVectors_PKPGMRES(KSP ksp)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;

  PetscFunctionBegin;
  pg->preallocate = PETSC_TRUE;
  if (pg->nV) PetscCall(PGMRESEnsureBasis(ksp, pg, pg->m)); /* after set-up: now */
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGMRESSetOrthogonalization_PKPGMRES(KSP ksp, PetscErrorCode (*fcn)(KSP, PetscInt))
{
  PetscFunctionBegin;
  ((KSP_PKPGMRES *)ksp->data)->orthog = fcn;
  if (fcn != KSPGMRESClassicalGramSchmidtOrthogonalization) PetscCall(PetscInfo(ksp, "pgmres orthogonalises by classical Gram-Schmidt with lagged normalisation whatever is set, as PETSc's pgmres\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGMRESGetOrthogonalization_PKPGMRES(KSP ksp, PetscErrorCode (**fcn)(KSP, PetscInt))
{
  PetscFunctionBegin;
  *fcn = ((KSP_PKPGMRES *)ksp->data)->orthog;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGMRESSetCGSRefinementType_PKPGMRES(KSP ksp, KSPGMRESCGSRefinementType type)
{
  PetscFunctionBegin;
  ((KSP_PKPGMRES *)ksp->data)->cgstype = type;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGMRESGetCGSRefinementType_PKPGMRES(KSP ksp, KSPGMRESCGSRefinementType *type)
{
  PetscFunctionBegin;
  *type = ((KSP_PKPGMRES *)ksp->data)->cgstype;
  PetscFunctionReturn(0);
}

/* Defaults and the composed functions (at create), or their removal (at destroy: compose = PETSC_FALSE) */
PetscErrorCode PGMRESComposeGMRESAPI(KSP ksp, PetscBool compose)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;

  PetscFunctionBegin;
  if (compose) {
    pg->orthog  = KSPGMRESClassicalGramSchmidtOrthogonalization;
    pg->cgstype = KSP_GMRES_CGS_REFINE_NEVER;
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetPreAllocateVectors_C", compose ? KSPGMRESSetPreAllocateVectors_PKPGMRES : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetOrthogonalization_C", compose ? KSPGMRESSetOrthogonalization_PKPGMRES : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESGetOrthogonalization_C", compose ? KSPGMRESGetOrthogonalization_PKPGMRES : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetCGSRefinementType_C", compose ? KSPGMRESSetCGSRefinementType_PKPGMRES : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESGetCGSRefinementType_C", compose ? KSPGMRESGetCGSRefinementType_PKPGMRES : NULL));
  PetscFunctionReturn(0);
}

/* Their options, as KSPSetFromOptions_GMRES() reads them */
PetscErrorCode PGMRESSetFromOptionsGMRESAPI(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
  KSP_PKPGMRES *pg  = (KSP_PKPGMRES *)ksp->data;
  PetscBool     pre = pg->preallocate, flg = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsBool("-ksp_gmres_preallocate", "Allocate the whole Krylov basis at set-up", "KSPGMRESSetPreAllocateVectors", pre, &pre, NULL));
  if (pre && !pg->preallocate) PetscCall(KSPGMRESSetPreAllocateVectors_PKPGMRES(ksp));
  PetscCall(PetscOptionsBoolGroupBegin("-ksp_gmres_classicalgramschmidt", "Classical (unmodified) Gram-Schmidt (p(1)-GMRES's, whatever is set)", "KSPGMRESSetOrthogonalization", &flg));
  if (flg) PetscCall(KSPGMRESSetOrthogonalization_PKPGMRES(ksp, KSPGMRESClassicalGramSchmidtOrthogonalization));
  PetscCall(PetscOptionsBoolGroupEnd("-ksp_gmres_modifiedgramschmidt", "Modified Gram-Schmidt: accepted, no effect on p(1)-GMRES", "KSPGMRESSetOrthogonalization", &flg));
  if (flg) PetscCall(KSPGMRESSetOrthogonalization_PKPGMRES(ksp, KSPGMRESModifiedGramSchmidtOrthogonalization));
  PetscCall(PetscOptionsEnum("-ksp_gmres_cgs_refinement_type", "Refinement of classical Gram-Schmidt: accepted, no effect on p(1)-GMRES", "KSPGMRESSetCGSRefinementType", KSPGMRESCGSRefinementTypes, (PetscEnum)pg->cgstype, (PetscEnum *)&pg->cgstype, NULL));
  PetscFunctionReturn(0);
}

/* -ksp_view: only when something p(1)-GMRES does not do was asked for */
PetscErrorCode PGMRESViewGMRESAPI(KSP ksp, PetscViewer viewer)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;

  PetscFunctionBegin;
  if (pg->orthog != KSPGMRESClassicalGramSchmidtOrthogonalization || pg->cgstype != KSP_GMRES_CGS_REFINE_NEVER)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  the orthogonalisation or CGS refinement asked for has no effect: p(1)-GMRES uses classical Gram-Schmidt, as PETSc's pgmres\n"));
  if (pg->preallocate) PetscCall(PetscViewerASCIIPrintf(viewer, "  the whole Krylov basis allocated at set-up\n"));
  PetscFunctionReturn(0);
}
