/*
   pgmres's eigenvalue and singular value estimates, from the Hessenberg matrix of the last restart cycle, as PETSc's
   gmres answers KSPComputeExtremeSingularValues() and KSPComputeEigenvalues() (docs/algorithms.md §12):

     singular values  of the cycle's (n+1) x n Hessenberg matrix H, which are those of the n x n triangular factor R
                      that its Givens rotations leave in the rotated columns (LAPACK gesvd on R);
     eigenvalues      of the square n x n part of H, the unrotated columns (LAPACK geev): the Ritz values of the
                      preconditioned operator, ordered by real part.

   n is the number of finished columns of the last cycle. PETSc's gmres reports none (1 and 1) when the last cycle
   converged on entry (a restart whose true residual already meets the tolerance); pgmres then keeps the cycle before
   it, whose columns are still intact (pgmres.c resets the count only when a cycle writes its first column).
*/
#include "pgmresimpl.h"
#include <petscblaslapack.h>

PetscErrorCode PGMRESEigDestroy(KSP_PKPGMRES *pg)
{
  PKHessEig *e = &pg->eig;

  PetscFunctionBegin;
  if (e->m) PetscCall(PetscFree7(e->R, e->work, e->rwork, e->wr, e->wi, e->w, e->perm));
  e->m = 0;
  PetscFunctionReturn(0);
}

/* Room for restart m when estimates are requested, nothing otherwise; called at set-up and, for estimates requested
   after set-up, at the start of a solve (never inside the iteration) */
PetscErrorCode PGMRESEigSetUp(KSP ksp, KSP_PKPGMRES *pg)
{
  PKHessEig     *e = &pg->eig;
  const PetscInt m = pg->m;

  PetscFunctionBegin;
  if (!ksp->calc_sings || e->m == m) PetscFunctionReturn(0);
  PetscCall(PGMRESEigDestroy(pg));
  PetscCall(PetscMalloc7((size_t)m * m, &e->R, 5 * (size_t)m, &e->work, 5 * (size_t)m, &e->rwork, m, &e->wr, m, &e->wi, m, &e->w, m, &e->perm));
  e->m = m;
  PetscFunctionReturn(0);
}

/* The last cycle's n finished columns copied into R (n x n, by columns) for LAPACK: the triangular factor (rows
   0..j of rotated column j) or the square Hessenberg matrix (rows 0..j+1 of unrotated column j); n and the room
   for LAPACK as its integers. A clear error if the estimates were not requested in time. */
static PetscErrorCode PGMRESEigMatrix(KSP ksp, KSP_PKPGMRES *pg, PetscBool triangular, PetscInt *n, PetscBLASInt *bn, PetscBLASInt *lwork)
{
  PKHessEig *e = &pg->eig;

  PetscFunctionBegin;
  PetscCheck(e->m, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ORDER, "pgmres: no estimates were recorded in the last solve: call KSPSetComputeSingularValues() or KSPSetComputeEigenvalues() before KSPSolve()");
  *n = PetscMin(pg->eigcols, e->m);
  for (PetscInt j = 0; j < *n; j++)
    for (PetscInt i = 0; i < *n; i++) e->R[i + j * *n] = triangular ? (i <= j ? PKHH(&pg->hs, i, j) : 0.0) : (i <= j + 1 ? PKHES(&pg->hs, i, j) : 0.0);
  PetscCall(PetscBLASIntCast(*n, bn));
  PetscCall(PetscBLASIntCast(5 * e->m, lwork));
  PetscFunctionReturn(0);
}

PetscErrorCode KSPComputeExtremeSingularValues_PKPGMRES(KSP ksp, PetscReal *emax, PetscReal *emin)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;
  PKHessEig    *e  = &pg->eig;
  PetscInt      n;
  PetscBLASInt  bn, lwork, ione = 1, info = 0;
  PetscScalar   sdummy = 0.0;

  PetscFunctionBegin;
  PetscCall(PGMRESEigMatrix(ksp, pg, PETSC_TRUE, &n, &bn, &lwork));
  if (!n) {
    *emax = *emin = 1.0;
    PetscCall(PetscInfo(ksp, "no Krylov step: no estimate of the extreme singular values (1 and 1, as gmres)\n"));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
#if defined(PETSC_USE_COMPLEX)
  PetscCallBLAS("LAPACKgesvd", LAPACKgesvd_("N", "N", &bn, &bn, e->R, &bn, e->wr, &sdummy, &ione, &sdummy, &ione, e->work, &lwork, e->rwork, &info));
#else
  PetscCallBLAS("LAPACKgesvd", LAPACKgesvd_("N", "N", &bn, &bn, e->R, &bn, e->wr, &sdummy, &ione, &sdummy, &ione, e->work, &lwork, &info));
#endif
  PetscCall(PetscFPTrapPop());
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK gesvd failed on the %" PetscInt_FMT " x %" PetscInt_FMT " triangular factor of the Hessenberg matrix (info %d)", n, n, (int)info);
  *emax = e->wr[0]; /* decreasing */
  *emin = e->wr[n - 1];
  PetscFunctionReturn(0);
}

PetscErrorCode KSPComputeEigenvalues_PKPGMRES(KSP ksp, PetscInt nmax, PetscReal *r, PetscReal *c, PetscInt *neig)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;
  PKHessEig    *e  = &pg->eig;
  PetscInt      n;
  PetscBLASInt  bn, lwork, ione = 1, info = 0;
  PetscScalar   sdummy = 0.0;

  PetscFunctionBegin;
  PetscCall(PGMRESEigMatrix(ksp, pg, PETSC_FALSE, &n, &bn, &lwork));
  PetscCheck(nmax >= n, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_SIZ, "room for %" PetscInt_FMT " eigenvalues, %" PetscInt_FMT " needed", nmax, n);
  *neig = n;
  if (!n) PetscFunctionReturn(0);
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
#if defined(PETSC_USE_COMPLEX)
  PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", "N", &bn, e->R, &bn, e->w, &sdummy, &ione, &sdummy, &ione, e->work, &lwork, e->rwork, &info));
  for (PetscInt i = 0; i < n; i++) {
    e->wr[i] = PetscRealPart(e->w[i]);
    e->wi[i] = PetscImaginaryPart(e->w[i]);
  }
#else
  PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", "N", &bn, e->R, &bn, e->wr, e->wi, &sdummy, &ione, &sdummy, &ione, e->work, &lwork, &info));
#endif
  PetscCall(PetscFPTrapPop());
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK geev failed on the %" PetscInt_FMT " x %" PetscInt_FMT " Hessenberg matrix (info %d)", n, n, (int)info);
  for (PetscInt i = 0; i < n; i++) e->perm[i] = i;
  PetscCall(PetscSortRealWithPermutation(n, e->wr, e->perm));
  for (PetscInt i = 0; i < n; i++) {
    r[i] = e->wr[e->perm[i]];
    c[i] = e->wi[e->perm[i]];
  }
  PetscFunctionReturn(0);
}
