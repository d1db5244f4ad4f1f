/*
   Eigenvalue and singular value estimates of the CG family (pcg, sapcg, nbpcg, pipecg, pipe2cg): the storage of
   the Lanczos tridiagonal each type fills from its own coefficients (pkcgimpl.h: PKLanczosPushCG and
   PKLanczosPushThreeTerm), and KSPComputeEigenvalues() / KSPComputeExtremeSingularValues() from it, as PETSc's cg
   answers them: the eigenvalues of the symmetric tridiagonal T of the iterations done (LAPACK's steqr, values
   only), in increasing order; the extreme ones as the extreme singular values. docs/algorithms.md §12.
*/
#include <pipekrylov/private/pkcgimpl.h>
#include <petscblaslapack.h>

static PetscErrorCode PKLanczosCreate(PetscInt cap, PKLanczos *L)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(L));
  (*L)->cap = cap;
  PetscCall(PetscCalloc4(cap, &(*L)->d, cap, &(*L)->e, cap, &(*L)->dd, cap, &(*L)->ee));
  PetscFunctionReturn(0);
}

PetscErrorCode PKCGLanczosDestroy(KSP_PK *pk)
{
  PetscFunctionBegin;
  if (!pk->lanczos) PetscFunctionReturn(0);
  PetscCall(PetscFree4(pk->lanczos->d, pk->lanczos->e, pk->lanczos->dd, pk->lanczos->ee));
  PetscCall(PetscFree(pk->lanczos));
  PetscFunctionReturn(0);
}

/* Storage for max_it + 1 entries when estimates are requested (KSPSetComputeSingularValues(),
   KSPSetComputeEigenvalues(), -ksp_view_singularvalues, a Chebyshev smoother's estimator), none otherwise: a solve
   that asks for nothing allocates nothing and appends nothing. A type whose configuration cannot give them says so
   here, at set-up (check_estimates). */
PetscErrorCode PKCGLanczosSetUp(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  if (!ksp->calc_sings) {
    PetscCall(PKCGLanczosDestroy(pk));
    PetscFunctionReturn(0);
  }
  if (pk->check_estimates) PetscCall((*pk->check_estimates)(ksp));
  if (pk->lanczos && pk->lanczos->cap >= ksp->max_it + 1) PetscFunctionReturn(0);
  PetscCall(PKCGLanczosDestroy(pk));
  PetscCall(PKLanczosCreate(ksp->max_it + 1, &pk->lanczos));
  PetscFunctionReturn(0);
}

/* Start of a solve: an empty tridiagonal. Estimates requested, or -ksp_max_it raised, after KSPSetUp() get their
   storage here, before the iteration (PETSc's cg refuses both) */
PetscErrorCode PKCGLanczosBegin(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  PetscCall(PKCGLanczosSetUp(ksp, pk));
  if (!pk->lanczos) PetscFunctionReturn(0);
  pk->lanczos->n       = 0;
  pk->lanczos->aprev   = 0.0;
  pk->lanczos->muprev  = 0.0;
  pk->lanczos->rzmax   = 0.0;
  pk->lanczos->floor   = pk->recurred ? PK_LANCZOS_FLOOR : 0.0;
  pk->lanczos->stopped = NULL;
  PetscFunctionReturn(0);
}

/* End of a solve: say where the tridiagonal ended if it ended before the solve */
PetscErrorCode PKCGLanczosEnd(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  if (pk->lanczos && pk->lanczos->stopped) PetscCall(PetscInfo(ksp, "%s: the eigenvalue estimates use the first %" PetscInt_FMT " of %" PetscInt_FMT " iterations: %s\n", ((PetscObject)ksp)->type_name, pk->lanczos->n, ksp->its, pk->lanczos->stopped));
  PetscFunctionReturn(0);
}

/* The tridiagonal of the iterations tested so far (during a solve, for monitors, the iterations up to ksp->its),
   copied into dd and ee and reduced to its eigenvalues in increasing order; *n their number */
static PetscErrorCode PKLanczosEigenvalues(KSP ksp, PetscInt *n)
{
  PKLanczos    L = ((KSP_PK *)ksp->data)->lanczos;
  PetscBLASInt bn, ldz = 1, info = 0;
  PetscReal    zdummy = 0.0, wdummy = 0.0;

  PetscFunctionBegin;
  PetscCheck(L, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ORDER, "%s: no eigenvalue estimates were recorded in the last solve: call KSPSetComputeSingularValues() or KSPSetComputeEigenvalues() before KSPSolve()", ((PetscObject)ksp)->type_name);
  *n = PetscMin(L->n, ksp->its);
  if (!*n) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < *n; k++) {
    L->dd[k] = L->d[k];
    L->ee[k] = k + 1 < *n ? L->e[k + 1] : 0.0; /* steqr reads the n - 1 couplings, the first between entries 0 and 1 */
  }
  PetscCall(PetscBLASIntCast(*n, &bn));
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
  PetscCallBLAS("LAPACKsteqr", LAPACKREALsteqr_("N", &bn, L->dd, L->ee, &zdummy, &ldz, &wdummy, &info));
  PetscCall(PetscFPTrapPop());
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK steqr failed on the %" PetscInt_FMT " x %" PetscInt_FMT " Lanczos tridiagonal (info %d)", *n, *n, (int)info);
  PetscFunctionReturn(0);
}

/* KSPComputeExtremeSingularValues() for the CG family: the extreme eigenvalues of T (M A is self-adjoint in the
   M^{-1} inner product). Before the first iteration there is no estimate: 1 and 1, as PETSc's cg answers. */
PetscErrorCode KSPComputeExtremeSingularValues_PKCG(KSP ksp, PetscReal *emax, PetscReal *emin)
{
  PKLanczos L;
  PetscInt  n;

  PetscFunctionBegin;
  PetscCall(PKLanczosEigenvalues(ksp, &n));
  L = ((KSP_PK *)ksp->data)->lanczos;
  if (!n) {
    *emax = *emin = 1.0;
    PetscCall(PetscInfo(ksp, "no iteration: no estimate of the extreme singular values (1 and 1, as cg)\n"));
    PetscFunctionReturn(0);
  }
  *emin = L->dd[0];
  *emax = L->dd[n - 1];
  PetscFunctionReturn(0);
}

/* KSPComputeEigenvalues() for the CG family: the n eigenvalues of T, real, increasing */
PetscErrorCode KSPComputeEigenvalues_PKCG(KSP ksp, PetscInt nmax, PetscReal *r, PetscReal *c, PetscInt *neig)
{
  PKLanczos L;
  PetscInt  n;

  PetscFunctionBegin;
  PetscCall(PKLanczosEigenvalues(ksp, &n));
  L = ((KSP_PK *)ksp->data)->lanczos;
  PetscCheck(nmax >= n, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_SIZ, "room for %" PetscInt_FMT " eigenvalues, %" PetscInt_FMT " needed", nmax, n);
  *neig = n;
  for (PetscInt k = 0; k < n; k++) {
    r[k] = L->dd[k];
    c[k] = 0.0;
  }
  PetscFunctionReturn(0);
}
