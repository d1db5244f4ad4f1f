/*
   pgmres's Krylov basis, grown in blocks as the cycles reach them (or whole at set-up with
   -ksp_gmres_preallocate): used by the iteration (pgmres.c) and by KSPGMRESSetPreAllocateVectors (pgmresapi.c).
*/
#include "pgmresimpl.h"

/*
   PGMRESAddBasis - n more basis vectors V[nV..nV+n-1], one VecDuplicateVecs() block (PETSc's GMRES allocates its
   basis the same way); an out-of-memory is reported in pgmres's terms.
*/
static PetscErrorCode PGMRESAddBasis(KSP ksp, KSP_PKPGMRES *pg, Vec model, PetscInt n)
{
  PetscErrorCode ierr;
  Vec           *blk = NULL;
  PetscInt       nloc;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VecDuplicateVecs(model, n, &blk);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    PetscCall(VecGetLocalSize(model, &nloc));
    SETERRQ(PETSC_COMM_SELF, ierr == PETSC_ERR_MEM ? PETSC_ERR_MEM : ierr, "pgmres: could not allocate Krylov basis vectors %" PetscInt_FMT "..%" PetscInt_FMT " of restart %" PetscInt_FMT " (%.4g MB each on this rank)%s: use a smaller -ksp_gmres_restart", pg->nV, pg->nV + n - 1, pg->m, (double)nloc * sizeof(PetscScalar) / 1048576.0, ierr == PETSC_ERR_MEM ? ", out of memory" : "");
  }
  (void)ksp;
  for (PetscInt i = 0; i < n; i++) pg->V[pg->nV + i] = blk[i];
  pg->Vblock[pg->nblock]   = blk;
  pg->Vblock_n[pg->nblock] = n;
  pg->nblock++;
  pg->nV += n;
  PetscFunctionReturn(0);
}

/* V[0..j] exist: adds a block of at least PGMRES_BASIS_BLOCK vectors (or half the basis so far) when V[j] does not */
PetscErrorCode PGMRESEnsureBasis(KSP ksp, KSP_PKPGMRES *pg, PetscInt j)
{
  PetscFunctionBegin;
  if (j < pg->nV) PetscFunctionReturn(0);
  PetscCall(PGMRESAddBasis(ksp, pg, pg->V[0], PetscMin(pg->m + 1, PetscMax(j + 1, pg->nV + PetscMax(PGMRES_BASIS_BLOCK, pg->nV / 2))) - pg->nV));
  PetscFunctionReturn(0);
}
