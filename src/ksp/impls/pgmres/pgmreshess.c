/*
   The least-squares part of GMRES(m), owned by pgmres: Givens rotations applied column by column as the
   Hessenberg matrix is completed, the residual norm |rs[j+1]| of every step, happy-breakdown detection and the
   back substitution for the solution coefficients.

   Rotation G_j acts on rows j, j+1: [conj(c) conj(s); -s c], with c = h_jj / d, s = h_j+1,j / d,
   d = sqrt(|h_jj|^2 + |h_j+1,j|^2), so that it maps (h_jj, h_j+1,j) to (d, 0) and is unitary.
*/
#include "pgmresimpl.h"

/* Room for the columns in bytes, for messages */
static double PKHessBytes(PetscInt ncol)
{
  return 2.0 * sizeof(PetscScalar) * (double)PKHOFF(ncol);
}

/* Allocation that reports an out-of-memory in pgmres's terms instead of PetscMallocAlign()'s */
static PetscErrorCode PKHessAlloc(PKHess *h, PetscInt ncol, PetscScalar **hh, PetscScalar **hes)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscCalloc2(PKHOFF(ncol), hh, PKHOFF(ncol), hes);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_MEM, "pgmres: out of memory for the Hessenberg matrix of %" PetscInt_FMT " Krylov steps (%.4g MB) of restart %" PetscInt_FMT ": use a smaller -ksp_gmres_restart", ncol, PKHessBytes(ncol) / 1048576.0, h->m);
  PetscFunctionReturn(0);
}

/*
   PKHessCreate - the least-squares problem of restart length m: the O(m) vectors now, the Hessenberg columns
   (O(m^2)) as they are reached (PKHessEnsure).
*/
PetscErrorCode PKHessCreate(PetscInt m, PKHess *h)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(m >= 1 && m <= PETSC_MAX_INT - 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "pgmres: restart %" PetscInt_FMT " out of range", m);
  h->m    = m;
  h->ncol = 0;
  h->hh = h->hes = NULL;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscCalloc4((size_t)m + 2, &h->rs, (size_t)m + 1, &h->cc, (size_t)m + 1, &h->ss, (size_t)m + 1, &h->y);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_MEM, "pgmres: out of memory for the rotations of restart %" PetscInt_FMT " (%.4g MB): use a smaller -ksp_gmres_restart", m, 4.0 * sizeof(PetscScalar) * ((double)m + 2) / 1048576.0);
  PetscCall(PKHessEnsure(h, PetscMin(m, 32) - 1));
  PetscFunctionReturn(0);
}

/*
   PKHessEnsure - columns 0..j exist (j < m); grows the packed storage by at least half, keeping the columns
   already filled.
*/
PetscErrorCode PKHessEnsure(PKHess *h, PetscInt j)
{
  PetscScalar *hh, *hes;
  PetscInt     ncol;

  PetscFunctionBegin;
  if (j < h->ncol) PetscFunctionReturn(0);
  ncol = PetscMin(h->m, PetscMax(j + 1, h->ncol + h->ncol / 2));
  PetscCall(PKHessAlloc(h, ncol, &hh, &hes));
  if (h->ncol) {
    PetscCall(PetscArraycpy(hh, h->hh, PKHOFF(h->ncol)));
    PetscCall(PetscArraycpy(hes, h->hes, PKHOFF(h->ncol)));
    PetscCall(PetscFree2(h->hh, h->hes));
  }
  h->hh   = hh;
  h->hes  = hes;
  h->ncol = ncol;
  PetscFunctionReturn(0);
}

PetscErrorCode PKHessDestroy(PKHess *h)
{
  PetscFunctionBegin;
  if (h->ncol) PetscCall(PetscFree2(h->hh, h->hes));
  if (h->rs) PetscCall(PetscFree4(h->rs, h->cc, h->ss, h->y));
  h->hh = h->hes = h->rs = NULL;
  h->m = h->ncol = 0;
  PetscFunctionReturn(0);
}

/* A new cycle: right-hand side beta e_1 */
PetscErrorCode PKHessStart(PKHess *h, PetscReal beta)
{
  PetscFunctionBegin;
  PetscCall(PetscArrayzero(h->rs, h->m + 2));
  h->rs[0] = beta;
  PetscFunctionReturn(0);
}

/*
   PKHessFinishColumn - column j (rows 0..j+1 of hh) is complete: keep an unrotated copy, apply the earlier
   rotations, then the new one, and return the residual norm of step j+1.

   happy: h_j+1,j is zero, too small to divide by, or negligible (below min(haptol, |h_j+1,j / rs_j|)): the Krylov
          space is invariant, no new rotation, residual 0 (as PETSc's GMRES, which misses the exact zero: its bound
          is then 0, the test 0 < 0 fails, and with norm none it divides by 0 and reports DIVERGED_BREAKDOWN one step
          later; pgmres divided the lagged column by it and stopped with DIVERGED_NANORINF, x = 0, on a problem
          solved in one step)
   null:  the column is zero after the earlier rotations: no rotation can be formed (KSP_DIVERGED_NULL)
*/
PetscErrorCode PKHessFinishColumn(PKHess *h, PetscInt j, PetscReal haptol, PetscBool *happy, PetscBool *null, PetscReal *res)
{
  PetscScalar *col = h->hh + PKHOFF(j), *rs = h->rs;
  PetscReal    sub = PetscAbsScalar(col[j + 1]), bnd;

  PetscFunctionBegin;
  *happy = PETSC_FALSE;
  *null  = PETSC_FALSE;
  for (PetscInt i = 0; i <= j + 1; i++) PKHES(h, i, j) = col[i];
  bnd = haptol;
  if (rs[j] != 0.0) bnd = PetscMin(bnd, sub / PetscAbsScalar(rs[j]));
  if (sub == 0.0 || PetscIsInfOrNanReal(1.0 / sub) || sub < bnd) *happy = PETSC_TRUE; /* 0, or too small to divide by */
  for (PetscInt i = 0; i < j; i++) {
    const PetscScalar a = col[i], b = col[i + 1];
    col[i]     = PetscConj(h->cc[i]) * a + PetscConj(h->ss[i]) * b;
    col[i + 1] = -h->ss[i] * a + h->cc[i] * b;
  }
  if (*happy) {
    *res = 0.0;
    PetscFunctionReturn(0);
  }
  {
    const PetscReal d = PetscSqrtReal(PetscSqr(PetscAbsScalar(col[j])) + PetscSqr(sub));
    if (d == 0.0) {
      *null = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
    h->cc[j]   = col[j] / d;
    h->ss[j]   = col[j + 1] / d;
    col[j]     = PetscConj(h->cc[j]) * col[j] + PetscConj(h->ss[j]) * col[j + 1];
    col[j + 1] = 0.0;
    rs[j + 1]  = -h->ss[j] * rs[j];
    rs[j]      = PetscConj(h->cc[j]) * rs[j];
    *res       = PetscAbsScalar(rs[j + 1]);
  }
  PetscFunctionReturn(0);
}

/*
   PKHessSolve - y[0..j] from the upper triangular system of finished columns 0..j. On a zero diagonal entry
   (singular operator or preconditioner) returns its row in *zero_row and leaves y undefined; else *zero_row = -1.
*/
PetscErrorCode PKHessSolve(PKHess *h, PetscInt j, PetscInt *zero_row)
{
  PetscFunctionBegin;
  *zero_row = -1;
  for (PetscInt k = j; k >= 0; k--) {
    PetscScalar t = h->rs[k];
    for (PetscInt i = k + 1; i <= j; i++) t -= PKHH(h, k, i) * h->y[i];
    if (PKHH(h, k, k) == 0.0) {
      *zero_row = k;
      PetscFunctionReturn(0);
    }
    h->y[k] = t / PKHH(h, k, k);
  }
  PetscFunctionReturn(0);
}
