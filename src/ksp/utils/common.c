/*
   What every pipekrylov solver does the same way: create/set-up/reset/destroy of the common data, the options
   shared by all types (-ksp_pipe_chunks), the common lines of -ksp_view, the begin and end of a solve, the norm
   that a KSPNormType asks for, the convergence step and the true residual.
*/
#include <pipekrylov/private/pkkspimpl.h>
#include <errno.h>
#include <stdlib.h>

#define PK_DEFAULT_CHUNKS 8

static PetscErrorCode KSPPipeSetChunks_PK(KSP ksp, PetscInt n)
{
  KSP_PK *pk = (KSP_PK *)ksp->data;

  PetscFunctionBegin;
  PetscCheck(n >= 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipe_chunks must be at least 1 (1 = no MPI_Test progress), not %" PetscInt_FMT, n);
  pk->chunks = n;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPPipeGetChunks_PK(KSP ksp, PetscInt *n)
{
  PetscFunctionBegin;
  *n = ((KSP_PK *)ksp->data)->chunks;
  PetscFunctionReturn(0);
}

/* The operator's chunked-SpMV structure, for the report's halo model (composed as "KSPPipeGetSpMV_C"; NULL before
   set-up) */
static PetscErrorCode KSPPipeGetSpMV_PK(KSP ksp, PKSpMV *spmv)
{
  PetscFunctionBegin;
  *spmv = ((KSP_PK *)ksp->data)->spmv;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPPipeGetOverlapStats_PK(KSP ksp, PetscInt *nnonblock, PetscInt *nearly, PetscInt *ntests)
{
  KSP_PK *pk = (KSP_PK *)ksp->data;

  PetscFunctionBegin;
  if (nnonblock) *nnonblock = pk->red.nnonblock;
  if (nearly) *nearly = pk->red.nearly;
  if (ntests) *ntests = pk->red.ntesttotal;
  PetscFunctionReturn(0);
}

/* KSPSolve for every type: the common begin and end around the type's own iteration (pk->solve), then the type's
   after_solve if it has one (the pipelined CG types: the true residual at exit) */
static PetscErrorCode KSPSolve_PK(KSP ksp)
{
  KSP_PK *pk = (KSP_PK *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PKSolveBegin(ksp, pk));
  PetscCall((*pk->solve)(ksp, pk));
  PetscCall(PKSolveEnd(ksp, pk));
  if (pk->after_solve) PetscCall((*pk->after_solve)(ksp, pk));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPReset_PK(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(PKReset_Common(ksp, (KSP_PK *)ksp->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPDestroy_PK(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(PKDestroy_Common(ksp, (KSP_PK *)ksp->data));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_PK(KSP ksp, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PKView_Common(ksp, (KSP_PK *)ksp->data, viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetFromOptions_PK(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
  char title[64];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(title, sizeof(title), "KSP %s (pipekrylov) options", ((PetscObject)ksp)->type_name));
  PetscOptionsHeadBegin(PetscOptionsObject, title);
  PetscCall(PKSetFromOptions_Common(ksp, (KSP_PK *)ksp->data, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

/*
   Called by each KSPCreate_X after ksp->data is allocated. Sets the operations every type shares: KSPSolve (the
   common begin and end around solve, the type's iteration), reset, destroy, view and options of the common part.
   A type sets its own ksp->ops->setup and overrides the others when it has more to do.
*/
PetscErrorCode PKCreate_Common(KSP ksp, KSP_PK *pk, const char *description, PetscBool replaces, PetscErrorCode (*solve)(KSP, KSP_PK *))
{
  PetscFunctionBegin;
  pk->solve                = solve;
  ksp->ops->solve          = KSPSolve_PK;
  ksp->ops->reset          = KSPReset_PK;
  ksp->ops->destroy        = KSPDestroy_PK;
  ksp->ops->view           = KSPView_PK;
  ksp->ops->setfromoptions = KSPSetFromOptions_PK;
  ksp->ops->buildsolution  = KSPBuildSolutionDefault;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  pk->chunks               = PK_DEFAULT_CHUNKS;
  pk->description          = description;
  pk->replaces             = replaces;
  pk->true_rnorm           = -1.0;
  pk->symmetry_tol         = 1e-12;
  PetscCall(PKReduceCreate(PetscObjectComm((PetscObject)ksp), 4, &pk->red));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeSetChunks_C", KSPPipeSetChunks_PK));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetChunks_C", KSPPipeGetChunks_PK));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetOverlapStats_C", KSPPipeGetOverlapStats_PK));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetSpMV_C", KSPPipeGetSpMV_PK));
  PetscFunctionReturn(0);
}

/* The chunked SpMV for the current operator (built at set-up, rebuilt when KSPSetOperators gives a new one) */
static PetscErrorCode PKSpMVForOperator(KSP ksp, KSP_PK *pk)
{
  Mat Amat;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &Amat, NULL));
  if (Amat != pk->spmv_mat) {
    PetscCall(PKSpMVDestroy(&pk->spmv));
    PetscCall(PKSpMVCreate(Amat, &pk->spmv));
    pk->spmv_mat = Amat;
  }
  PetscFunctionReturn(0);
}

/* nred: the most values any one reduction of this solver carries */
PetscErrorCode PKSetUp_Common(KSP ksp, KSP_PK *pk, PetscInt nred)
{
  PetscFunctionBegin;
  PetscCall(PKReduceEnsure(&pk->red, nred));
  PetscCall(PKSpMVForOperator(ksp, pk));
  PetscFunctionReturn(0);
}

PetscErrorCode PKReset_Common(KSP ksp, KSP_PK *pk)
{
  (void)ksp;
  PetscFunctionBegin;
  if (pk->family_reset) PetscCall((*pk->family_reset)(pk));
  PetscCall(PKSpMVDestroy(&pk->spmv));
  pk->spmv_mat = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode PKDestroy_Common(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  PetscCall(PKReset_Common(ksp, pk));
  PetscCall(PKReduceDestroy(&pk->red));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeSetChunks_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetChunks_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetOverlapStats_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetSpMV_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", NULL)); /* composed by each type's create */
  PetscFunctionReturn(0);
}

PetscErrorCode PKSetFromOptions_Common(KSP ksp, KSP_PK *pk, PetscOptionItems *PetscOptionsObject)
{
  PetscInt  n;
  PetscBool flg;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-ksp_pipe_chunks", "Pieces the work overlapped with a reduction is split into, with an MPI_Test between them (1: no polling)", "KSPPipeSetChunks", pk->chunks, &n, &flg));
  if (flg) { /* PETSc 3.18 wraps a value beyond PetscInt (99999999999999 read as 276447231): check the text itself */
    char      text[64] = "";
    char     *end;
    long long v;
    PetscBool has;
    PetscCall(PetscOptionsGetString(PetscOptionsObject->options, PetscOptionsObject->prefix, "-ksp_pipe_chunks", text, sizeof(text), &has));
    errno = 0;
    v     = has ? strtoll(text, &end, 10) : n;
    PetscCheck(!has || *end || (errno != ERANGE && v == (long long)n), PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipe_chunks %s is out of range: at most %" PetscInt_FMT, text, PETSC_MAX_INT);
    PetscCall(KSPPipeSetChunks_PK(ksp, n));
  }
  {
    PetscEnum algo = (PetscEnum)pk->red.algo;
    PetscCall(PetscOptionsEnum("-ksp_pipe_iallreduce", "How a non-blocking reduction is done: mpi (MPI_Iallreduce) or rd (recursive doubling on point-to-point messages, advanced by the progress calls)", "KSPSolve", PKIallreduceTypes, algo, &algo, &flg));
    if (flg) pk->red.algo = (PKIallreduceType)algo;
  }
  PetscCall(PKObserverSetFromOptions(ksp));
  if (pk->needs_spd) {
    PetscCall(PetscOptionsBool("-ksp_pipe_check_symmetry", "Check at set-up that the operator is symmetric (costs one transpose)", "KSPSetUp", pk->check_symmetry, &pk->check_symmetry, NULL));
    PetscCall(PetscOptionsReal("-ksp_pipe_check_symmetry_tol", "Tolerance of that check", "KSPSetUp", pk->symmetry_tol, &pk->symmetry_tol, NULL));
    PetscCheck(pk->symmetry_tol >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipe_check_symmetry_tol must be non-negative, not %g", (double)pk->symmetry_tol);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKView_Common(KSP ksp, KSP_PK *pk, PetscViewer viewer)
{
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  pipekrylov %s: %s\n", ((PetscObject)ksp)->type_name, pk->description));
  if (pk->replaces) PetscCall(PetscViewerASCIIPrintf(viewer, "  (replaces PETSc's %s, which stays available as -ksp_type petsc_%s)\n", ((PetscObject)ksp)->type_name, ((PetscObject)ksp)->type_name));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  progress chunks: %" PetscInt_FMT "%s\n", pk->chunks, pk->chunks == 1 ? " (no MPI_Test polling)" : ""));
  if (pk->red.algo != PK_IALLREDUCE_MPI) PetscCall(PetscViewerASCIIPrintf(viewer, "  non-blocking reductions: recursive doubling on point-to-point messages, advanced by the progress calls (-ksp_pipe_iallreduce rd)\n"));
  if (pk->spmv) {
    PetscBool   chunked;
    const char *why;
    PetscCall(PKSpMVIsChunked(pk->spmv, &chunked));
    PetscCall(PKSpMVGetReason(pk->spmv, &why));
    if (chunked) {
      PetscInt  width;
      PetscReal t[2];
      PetscCall(PKSpMVGetWidth(pk->spmv, &width, t));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  SpMV: chunked, halo exchange driven by the solver\n"));
      if (width) PetscCall(PetscViewerASCIIPrintf(viewer, "  SpMV row kernel: %" PetscInt_FMT " rows per step, the faster on this operator (timed: 2 rows %.3g s, 4 rows %.3g s, rank 0)\n", width, (double)t[0], (double)t[1]));
      else PetscCall(PetscViewerASCIIPrintf(viewer, "  SpMV row kernel: 2 and 4 rows per step still being timed (the first %d applications)\n", 2 * PK_SPMV_TRIALS));
    } else PetscCall(PetscViewerASCIIPrintf(viewer, "  SpMV: %s\n", why));
  }
  if (pk->red.nnonblock)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " blocking and %" PetscInt_FMT " non-blocking reductions, %" PetscInt_FMT " of them complete before their wait (%" PetscInt_FMT " MPI_Test calls)\n", pk->red.nblocking,
                                     pk->red.nnonblock, pk->red.nearly, pk->red.ntesttotal));
  else if (pk->red.nblocking) PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " blocking reductions\n", pk->red.nblocking));
  if (pk->check_symmetry) PetscCall(PetscViewerASCIIPrintf(viewer, "  operator checked for symmetry at set-up (tolerance %g)\n", (double)pk->symmetry_tol));
  if (pk->true_rnorm >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  true residual norm at exit: %g\n", (double)pk->true_rnorm));
  PetscCall(PKObserverView(ksp, viewer));
  PetscFunctionReturn(0);
}

/* Start of every KSPSolve_X: the operator, the recorder, fresh counters, an empty Lanczos tridiagonal (CG family) */
PetscErrorCode PKSolveBegin(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  if (ksp->transpose_solve) PetscCall(PetscInfo(ksp, "%s: transpose solve: MatMultTranspose and PCApplyTranspose, the SpMV not chunked\n", ((PetscObject)ksp)->type_name));
  PetscCall(PKSpMVForOperator(ksp, pk));
  if (pk->family_begin) PetscCall((*pk->family_begin)(ksp, pk));
  pk->red.nblocking = pk->red.nnonblock = pk->red.nearly = pk->red.ntesttotal = 0;
  pk->true_rnorm                                                              = -1.0;
  PetscCall(PKRecGet(ksp, &pk->rec));
  pk->red.rec  = pk->rec;
  pk->red.poll = (PetscBool)(pk->chunks > 1);
  PKRecPhase(pk->rec, PK_PHASE_VEC);
  PetscFunctionReturn(0);
}

/* End of every KSPSolve_X, on every return path: no reduction may be left outstanding */
PetscErrorCode PKSolveEnd(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  if (pk->red.active) PetscCall(PKReduceEnd(&pk->red));
  if (!ksp->reason && ksp->its >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  if (pk->family_end) PetscCall((*pk->family_end)(ksp, pk));
  /* a CG type's indefinite breakdown is often a nonsymmetric operator (boundary rows, as in PETSc's ex45) */
  if (ksp->reason == KSP_DIVERGED_INDEFINITE_MAT || ksp->reason == KSP_DIVERGED_INDEFINITE_PC) {
    if (pk->check_symmetry)
      PetscCall(PetscInfo(ksp, "%s: %s although the operator passed -ksp_pipe_check_symmetry: the operator or the preconditioner is indefinite, or the preconditioner is not symmetric\n", ((PetscObject)ksp)->type_name, KSPConvergedReasons[ksp->reason]));
    else
      PetscCall(PetscInfo(ksp, "%s: %s: CG needs a symmetric positive definite operator and preconditioner; -ksp_pipe_check_symmetry checks at set-up that the operator is symmetric (gmres or pgmres solve nonsymmetric ones)\n", ((PetscObject)ksp)->type_name,
                          KSPConvergedReasons[ksp->reason]));
  }
  pk->red.rec = pk->rec = NULL;
  PetscFunctionReturn(0);
}

/* A^T x in a transpose solve. The chunked SpMV (src/core/spmv.c) multiplies by A only: MatMultTranspose, with an
   MPI_Test before and after as for any operator the chunked SpMV does not handle */
PetscErrorCode PKMatMultTranspose_Private(KSP ksp, KSP_PK *pk, Vec x, Vec y)
{
  Mat A;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PKRecApply(pk->rec, PK_PHASE_SPMV);
  PetscCall(PKReduceTest(&pk->red));
  PetscCall(MatMultTranspose(A, x, y));
  PetscCall(PKReduceTest(&pk->red));
  PKRecPhase(pk->rec, PK_PHASE_VEC);
  PetscFunctionReturn(0);
}

PetscErrorCode PKPCApply(KSP ksp, KSP_PK *pk, Vec x, Vec y)
{
  PetscFunctionBegin;
  PKRecApply(pk->rec, PK_PHASE_PC);
  PetscCall(PKReduceTest(&pk->red));
  PetscCall(KSP_PCApply(ksp, x, y));
  PetscCall(PKReduceTest(&pk->red));
  PKRecPhase(pk->rec, PK_PHASE_VEC);
  PetscFunctionReturn(0);
}

/* The convergence-test norm from reduced (r,r), (z,z) and (r,z), z = M r */
PetscErrorCode PKNormFromDots(KSP ksp, PetscScalar rr, PetscScalar zz, PetscScalar rz, PetscReal *norm)
{
  PetscFunctionBegin;
  switch (ksp->normtype) {
  case KSP_NORM_PRECONDITIONED:
    *norm = PetscSqrtReal(PetscAbsScalar(zz));
    break;
  case KSP_NORM_UNPRECONDITIONED:
    *norm = PetscSqrtReal(PetscAbsScalar(rr));
    break;
  case KSP_NORM_NATURAL:
    *norm = PetscSqrtReal(PetscAbsScalar(rz));
    break;
  default:
    *norm = 0.0;
  }
  PetscFunctionReturn(0);
}

/* The norm of b - A x as the convergence test measures it: ||r||, ||M r|| or sqrt((r, M r)); r and z are work
   (x need not be ksp->vec_sol: pipe2cg checks the iterate a norm belongs to). A^T and M^T in a transpose solve. */
PetscErrorCode PKTrueResidualNorm(KSP ksp, KSP_PK *pk, Vec x, Vec r, Vec z, PetscReal *norm)
{
  PetscScalar rz;

  PetscFunctionBegin;
  if (ksp->transpose_solve) PetscCall(PKMatMultTranspose_Private(ksp, pk, x, r));
  else PetscCall(PKSpMVApply(pk->spmv, x, r, 1, NULL, NULL));
  PetscCall(VecAYPX(r, -1.0, ksp->vec_rhs));
  switch (ksp->normtype) {
  case KSP_NORM_PRECONDITIONED:
    PetscCall(KSP_PCApply(ksp, r, z));
    PetscCall(VecNorm(z, NORM_2, norm));
    break;
  case KSP_NORM_NATURAL:
    PetscCall(KSP_PCApply(ksp, r, z));
    PetscCall(VecDot(r, z, &rz));
    *norm = PetscSqrtReal(PetscAbsScalar(rz));
    break;
  default:
    PetscCall(VecNorm(r, NORM_2, norm));
  }
  PetscFunctionReturn(0);
}

/* The true residual at the end of a pipelined solve, for -ksp_view and the user, unless a convergence check has
   computed it already or the solve ended in NaN/Inf or a failed preconditioner; r and z are work */
PetscErrorCode PKTrueResidualAtExit(KSP ksp, KSP_PK *pk, Vec r, Vec z)
{
  PetscFunctionBegin;
  if (pk->true_rnorm >= 0 || ksp->normtype == KSP_NORM_NONE || ksp->reason == KSP_DIVERGED_NANORINF || ksp->reason == KSP_DIVERGED_PC_FAILED) PetscFunctionReturn(0);
  PetscCall(PKTrueResidualNorm(ksp, pk, ksp->vec_sol, r, z, &pk->true_rnorm));
  PetscFunctionReturn(0);
}

/* Record the norm of iteration ksp->its, call the monitors and the convergence test */
PetscErrorCode PKConvergenceStep(KSP ksp, PetscReal rnorm)
{
  PetscFunctionBegin;
  KSPCheckNorm(ksp, rnorm);
  PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
  ksp->rnorm = rnorm;
  PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
  PetscCall(KSPLogResidualHistory(ksp, rnorm));
  PetscCall(KSPLogErrorHistory(ksp));
  PetscCall(KSPMonitor(ksp, ksp->its, rnorm));
  PetscCall((*ksp->converged)(ksp, ksp->its, rnorm, &ksp->reason, ksp->cnvP));
  PetscFunctionReturn(0);
}

/*@
   KSPPipeSetChunks - Sets into how many pieces a pipekrylov solver splits the work it overlaps with a
   non-blocking reduction; an MPI_Test between pieces lets the reduction progress (Open MPI has no progress thread).

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (one of pipekrylov's types; ignored by other types)
-  n   - the number of pieces, at least 1; 1 means no polling at all

   Options Database Keys:
+  -ksp_pipe_chunks <n> - default 8
-  -ksp_pipe_iallreduce <mpi,rd> - how the non-blocking sum itself is done: the MPI library's MPI_Iallreduce
   (default), or recursive doubling on point-to-point messages, one round advanced per progress call as Open MPI's
   own schedule does (the default under SimGrid's simulator, whose MPI_Iallreduce sends P - 1 messages per rank)

   Level: intermediate

.seealso: `KSPPipeGetChunks()`, `KSPPipeGetOverlapStats()`
@*/
PetscErrorCode KSPPipeSetChunks(KSP ksp, PetscInt n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, n, 2);
  PetscTryMethod(ksp, "KSPPipeSetChunks_C", (KSP, PetscInt), (ksp, n));
  PetscFunctionReturn(0);
}

/*@
   KSPPipeGetChunks - Gets the number of progress chunks (see `KSPPipeSetChunks()`); 0 for types not from pipekrylov.

   Not Collective

   Input Parameter:
.  ksp - the Krylov solver

   Output Parameter:
.  n - the number of pieces

   Level: intermediate

.seealso: `KSPPipeSetChunks()`
@*/
PetscErrorCode KSPPipeGetChunks(KSP ksp, PetscInt *n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  *n = 0;
  PetscTryMethod(ksp, "KSPPipeGetChunks_C", (KSP, PetscInt *), (ksp, n));
  PetscFunctionReturn(0);
}

/*@
   KSPPipeGetOverlapStats - Counts of the last solve's non-blocking reductions: how many there were, how many had
   completed before the solver waited for them (the measured overlap), and how many MPI_Test calls were made.

   Not Collective

   Input Parameter:
.  ksp - the Krylov solver

   Output Parameters:
+  nnonblocking - non-blocking reductions (may be NULL)
.  nearly       - of those, completed before their wait (may be NULL)
-  ntests       - MPI_Test calls (may be NULL)

   Notes:
   All three are 0 for types not from pipekrylov and for the blocking solvers pcg and sapcg.

   Level: intermediate

.seealso: `KSPPipeSetChunks()`
@*/
PetscErrorCode KSPPipeGetOverlapStats(KSP ksp, PetscInt *nnonblocking, PetscInt *nearly, PetscInt *ntests)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  if (nnonblocking) *nnonblocking = 0;
  if (nearly) *nearly = 0;
  if (ntests) *ntests = 0;
  PetscTryMethod(ksp, "KSPPipeGetOverlapStats_C", (KSP, PetscInt *, PetscInt *, PetscInt *), (ksp, nnonblocking, nearly, ntests));
  PetscFunctionReturn(0);
}

/*@
   KSPPipeIsPipeKrylov - Tells whether a KSP's current type is one of pipekrylov's solvers.

   Not Collective

   Input Parameter:
.  ksp - the Krylov solver

   Output Parameter:
.  flg - PETSC_TRUE for pcg, sapcg, nbpcg, pipecg, pipe2cg and pgmres (as registered by pipekrylov)

   Level: intermediate
@*/
PetscErrorCode KSPPipeIsPipeKrylov(KSP ksp, PetscBool *flg)
{
  PetscErrorCode (*f)(KSP, PetscInt *);

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetChunks_C", &f));
  *flg = f ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}
