/*
   pgmres: pipelined GMRES(m), p(1)-GMRES of Ghysels, Ashby, Meerbergen, Vanroose (SISC 2013); docs/algorithms.md
   §6. Classical Gram-Schmidt whose normalisation lags one pass: in pass `it` the operator is applied to
   V[it] before V[it] is orthogonal, and the one non-blocking reduction of the pass (the it+1 dots of the new vector
   with the basis and the norm of V[it]) is overlapped with the operator application of the next pass. The
   Hessenberg relation then corrects the new vector algebraically (one fused MAXPY pass over the basis).

   Iterations are Krylov steps, counted, monitored and tested exactly as PETSc's KSPGMRES does; the residual of
   step j is known two passes after its operator application, so the last two operator applications before
   convergence are discarded work, not iterations. At the end of a full cycle no operator is applied that no
   step will use.
*/
#include "pgmresimpl.h"

#define PGMRES_DEFAULT_RESTART 30
#define PGMRES_CLAIM_SLACK     2.0 /* a true residual this much above the recursive one refutes a convergence claim */

/* KSPCheckNorm() returns from the function it is used in: keep it in its own; the caller checks ksp->reason */
static PetscErrorCode PGMRESCheckNorm(KSP ksp, PetscReal nrm)
{
  PetscFunctionBegin;
  KSPCheckNorm(ksp, nrm);
  PetscFunctionReturn(0);
}

static PetscErrorCode PGMRESMonitor(KSP ksp, PetscReal res)
{
  PetscFunctionBegin;
  PetscCall(KSPLogResidualHistory(ksp, res));
  PetscCall(KSPLogErrorHistory(ksp));
  PetscCall(KSPMonitor(ksp, ksp->its, res));
  PetscFunctionReturn(0);
}

/* y = Op x: M A x (left) or A M x (right); t is work */
static PetscErrorCode PGMRESApplyOp(KSP ksp, KSP_PK *pk, Vec x, Vec y, Vec t)
{
  PetscFunctionBegin;
  if (ksp->pc_side == PC_RIGHT) {
    PetscCall(PKPCApply(ksp, pk, x, t));
    PetscCall(PKMatMult(ksp, pk, t, y));
  } else {
    PetscCall(PKMatMult(ksp, pk, x, t));
    PetscCall(PKPCApply(ksp, pk, t, y));
  }
  PetscFunctionReturn(0);
}

/* v = M (b - A x) (left) or b - A x (right); t is work */
static PetscErrorCode PGMRESInitialResidual(KSP ksp, KSP_PK *pk, PetscBool guess_zero, Vec v, Vec t)
{
  PetscFunctionBegin;
  if (ksp->pc_side == PC_RIGHT) {
    if (guess_zero) PetscCall(VecCopy(ksp->vec_rhs, v));
    else {
      PetscCall(PKMatMult(ksp, pk, ksp->vec_sol, v));
      PetscCall(VecAYPX(v, -1.0, ksp->vec_rhs));
    }
  } else {
    if (guess_zero) PetscCall(PKPCApply(ksp, pk, ksp->vec_rhs, v));
    else {
      PetscCall(PKMatMult(ksp, pk, ksp->vec_sol, t));
      PetscCall(VecAYPX(t, -1.0, ksp->vec_rhs));
      PetscCall(PKPCApply(ksp, pk, t, v));
    }
  }
  PetscFunctionReturn(0);
}

/*
   dest = vec_sol + V y (left) or vec_sol + M V y (right) for the finished columns 0..col; dest may be vec_sol.
   A zero on the diagonal of the triangular factor is a breakdown, as in PETSc's GMRES.
*/
static PetscErrorCode PGMRESBuildSolution(KSP ksp, KSP_PKPGMRES *pg, PetscInt col, Vec dest)
{
  KSP_PK  *pk = &pg->pk;
  Vec      x  = ksp->vec_sol;
  PetscInt zero_row;

  PetscFunctionBegin;
  if (col < 0) {
    if (dest != x) PetscCall(VecCopy(x, dest));
    PetscFunctionReturn(0);
  }
  PetscCall(PKHessSolve(&pg->hs, col, &zero_row));
  if (zero_row >= 0) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "pgmres breakdown: the triangular factor of the Hessenberg matrix has a zero diagonal entry in row %" PetscInt_FMT " (singular operator or preconditioner?)", zero_row);
    ksp->reason = KSP_DIVERGED_BREAKDOWN;
    PetscCall(PetscInfo(ksp, "Likely singular operator or preconditioner: zero diagonal entry %" PetscInt_FMT " in the triangular factor\n", zero_row));
    if (dest != x) PetscCall(VecCopy(x, dest));
    PetscFunctionReturn(0);
  }
  if (ksp->pc_side == PC_RIGHT) {
    Vec t = ksp->work[0], s = ksp->work[1];
    PetscCall(PKVecMAXPYLocal(pk, &pg->mw, t, 0.0, col + 1, pg->hs.y, pg->V));
    PetscCall(PKPCApply(ksp, pk, t, s));
    if (dest == x) PetscCall(VecAXPY(x, 1.0, s));
    else PetscCall(VecWAXPY(dest, 1.0, s, x));
  } else if (dest == x) {
    PetscCall(PKVecMAXPYLocal(pk, &pg->mw, x, 1.0, col + 1, pg->hs.y, pg->V));
  } else {
    PetscCall(VecCopy(x, dest));
    PetscCall(PKVecMAXPYLocal(pk, &pg->mw, dest, 1.0, col + 1, pg->hs.y, pg->V));
  }
  PetscFunctionReturn(0);
}

/*
   One pass's vector work (it >= 1), fused into one sweep over the basis, in this order per block:
     V[it-1] /= h                                            (it > 1: its norm h just arrived)
     V[it+1] = sc V[it+1] + sum_{k<it} coef_k V[k] - H(it-1,it-1) sc V[it]   (if V[it+1] was computed this pass:
                                                              now Op applied to the orthogonalised V[it])
     V[it]   = sc V[it] - sum_{k<it} H(k,it-1) V[k]          (orthogonal to the basis, not yet normalised)
   then the local dots of the next reduction: (V[it+1], V[k]) for k <= it, and (V[it], V[it]).
   sc = 1/h undoes the missing normalisation of V[it-1] in the vectors computed from it (1 when it = 1).
*/
static PetscErrorCode PGMRESUpdateAndDots(KSP ksp, KSP_PKPGMRES *pg, PetscInt it, PetscReal h, PetscBool next, PetscInt *nvals)
{
  KSP_PK      *pk = &pg->pk;
  PKHess      *hs = &pg->hs;
  Vec         *V  = pg->V;
  PetscScalar *cn = pg->coef, *co = pg->coef + (pg->m + 2), sc = it > 1 ? 1.0 / h : 1.0;
  PKMaxpy      upd[3];
  PKMDot       dot[2];
  PetscInt     nu = 0, nd = 0, nv = 0;
  PetscScalar *out = pk->red.local;
  (void)ksp;

  PetscFunctionBegin;
  if (it > 1) {
    upd[nu].y     = V[it - 1];
    upd[nu].alpha = sc;
    upd[nu].n     = 0;
    upd[nu].a     = NULL;
    upd[nu].x     = NULL;
    nu++;
  }
  if (next) {
    /* Op V[it]orth = Op V[it] - sum_{j<it} H(j,it-1) Op V[j], with Op V[j] = sum_{k<=j+1} HES(k,j) V[k] for j < it-1
       (finished columns) and Op V[it-1] = V[it] itself */
    for (PetscInt k = 0; k < it; k++) {
      PetscScalar s = 0.0;
      for (PetscInt j = PetscMax(0, k - 1); j < it - 1; j++) s += PKHES(hs, k, j) * PKHH(hs, j, it - 1);
      cn[k] = -s;
    }
    cn[it]        = -PKHH(hs, it - 1, it - 1) * sc;
    upd[nu].y     = V[it + 1];
    upd[nu].alpha = sc;
    upd[nu].n     = it + 1;
    upd[nu].a     = cn;
    upd[nu].x     = V;
    nu++;
  }
  for (PetscInt k = 0; k < it; k++) co[k] = -PKHH(hs, k, it - 1);
  upd[nu].y     = V[it];
  upd[nu].alpha = sc;
  upd[nu].n     = it;
  upd[nu].a     = co;
  upd[nu].x     = V;
  nu++;
  if (next) {
    dot[nd].x   = V[it + 1];
    dot[nd].n   = it + 1;
    dot[nd].y   = V;
    dot[nd].out = out;
    nv += it + 1;
    nd++;
  }
  dot[nd].x   = V[it];
  dot[nd].n   = 1;
  dot[nd].y   = &V[it];
  dot[nd].out = out + nv;
  nv += 1;
  nd++;
  PetscCall(PKVecMaxpyMDot(pk, &pg->mw, nu, upd, nd, dot));
  *nvals = nv;
  PetscFunctionReturn(0);
}

/*
   One restart cycle. On entry ksp->its counts the steps done so far; on exit *ncols steps were added, and
   ksp->vec_sol holds the cycle's solution (not updated when a NaN/Inf stopped the cycle, as in KSPGMRES).
*/
static PetscErrorCode PGMRESCycle(KSP ksp, KSP_PKPGMRES *pg, PetscBool guess_zero, PetscInt *ncols)
{
  KSP_PK        *pk = &pg->pk;
  PKHess        *hs = &pg->hs;
  Vec           *V  = pg->V;
  const PetscInt m = pg->m, base = ksp->its;
  PetscReal      res, h          = 0.0;
  PetscInt       npend = 0; /* dots in the reduction under way (the norm, if any, follows them) */

  PetscFunctionBegin;
  *ncols  = 0;
  pg->col = -1;
  PetscCall(PGMRESInitialResidual(ksp, pk, guess_zero, V[0], ksp->work[0]));
  PetscCall(PKVecMDotLocal(pk, &pg->mw, V[0], 1, &V[0], pk->red.local));
  PetscCall(PKReduceAllreduce(&pk->red, 1));
  res = PetscSqrtReal(PetscAbsScalar(pk->red.global[0]));
  if (PetscIsInfOrNanReal(res)) {
    PetscCall(PGMRESCheckNorm(ksp, res));
    PetscFunctionReturn(0);
  }
  /* the recursive residual that ended the last cycle must agree with the true one it restarts from */
  if (ksp->rnorm > 0.0 && PetscAbsReal(res - ksp->rnorm) > pg->breakdowntol * pg->rnorm0) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_CONV_FAILED, "Residual norm computed by the pgmres recursion %g is far from the computed residual norm %g at restart, residual norm at start of cycle %g",
               (double)ksp->rnorm, (double)res, (double)pg->rnorm0);
    PetscCall(PetscInfo(ksp, "Residual norm computed by the pgmres recursion %g is far from the computed residual norm %g at restart, residual norm at start of cycle %g\n", (double)ksp->rnorm, (double)res, (double)pg->rnorm0));
    ksp->reason = KSP_DIVERGED_BREAKDOWN;
    PetscFunctionReturn(0);
  }
  pg->rnorm0 = res;
  if (res > 0.0) PetscCall(VecScale(V[0], 1.0 / res));
  PetscCall(PKHessStart(hs, res));
  PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
  ksp->rnorm = res;
  PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
  PetscCall(PGMRESMonitor(ksp, res));
  if (res == 0.0) {
    ksp->reason = KSP_CONVERGED_ATOL;
    PetscCall(PetscInfo(ksp, "Converged due to zero residual norm on entry\n"));
    PetscFunctionReturn(0);
  }
  PetscCall((*ksp->converged)(ksp, ksp->its, res, &ksp->reason, ksp->cnvP));
  if (ksp->reason || ksp->its >= ksp->max_it) PetscFunctionReturn(0);

  for (PetscInt it = 0;; it++) {
    /* V[it+1] feeds column it, which is finished only if step it+1 is one GMRES would take */
    const PetscBool next  = (PetscBool)(it < m && base + it < ksp->max_it);
    PetscInt        nvals = 0;

    if (next) {
      PetscCall(PGMRESEnsureBasis(ksp, pg, it + 1));
      PetscCall(PKHessEnsure(hs, it));
      PetscCall(PGMRESApplyOp(ksp, pk, V[it], V[it + 1], ksp->work[0]));
    }
    if (it > 0) {
      const PetscScalar *g = pk->red.global;

      PetscCall(PKReduceEnd(&pk->red));
      if (it == 1) pg->eigcols = 0; /* this cycle overwrites the last one's columns from here on */
      for (PetscInt k = 0; k < npend; k++) PKHH(hs, k, it - 1) = g[k];
      if (it > 1) {
        PetscBool          happy, null, last;
        KSPConvergedReason reason;

        h = PetscSqrtReal(PetscAbsScalar(g[npend]));
        if (PetscIsInfOrNanReal(h)) {
          PetscCall(PGMRESCheckNorm(ksp, h));
          PetscFunctionReturn(0);
        }
        PKHH(hs, it - 1, it - 2) = h;
        PetscCall(PKHessFinishColumn(hs, it - 2, pg->haptol, &happy, &null, &res));
        if (happy) PetscCall(PetscInfo(ksp, "Detected happy breakdown, H(%" PetscInt_FMT ",%" PetscInt_FMT ") = %g\n", it - 1, it - 2, (double)h));
        if (null) {
          PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "pgmres: Hessenberg column %" PetscInt_FMT " is zero after rotation", it - 2);
          ksp->reason = KSP_DIVERGED_NULL;
        }
        pg->col     = it - 2;
        pg->eigcols = it - 1; /* the columns the estimates use (pgmreseig.c) */
        PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
        ksp->its++;
        ksp->rnorm = res;
        PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
        /* the test's answer is kept aside while the monitors run, as KSPGMRES monitors before it tests: from PETSc
           3.20 on, KSPBuildSolution() of a KSP with a reason returns x as it is, which a cycle updates only at its
           end (-ksp_monitor_true_residual would show the last step's residual twice) */
        reason = ksp->reason;
        if (!reason) PetscCall((*ksp->converged)(ksp, ksp->its, res, &reason, ksp->cnvP));
        if (happy) {
          if (ksp->normtype == KSP_NORM_NONE) reason = KSP_CONVERGED_HAPPY_BREAKDOWN;
          else if (!reason) {
            PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "You reached the happy break down, but convergence was not indicated. Residual norm = %g", (double)res);
            reason = KSP_DIVERGED_BREAKDOWN;
          }
        }
        last = (PetscBool)(it - 1 == m);
        /* as KSPGMRES: every step is monitored except the last of a cycle that restarts (the restart monitors it
           again with the true residual) */
        if (reason || ksp->its >= ksp->max_it || !last) PetscCall(PGMRESMonitor(ksp, res));
        ksp->reason = reason;
        PetscCall(PKRecIterEnd(pk->rec, ksp->its));
        if (ksp->reason || ksp->its >= ksp->max_it || last) break;
        /* column it-1 was computed from the unnormalised V[it-1] (sub-diagonal entry h): scale it */
        for (PetscInt k = 0; k < it; k++) PKHH(hs, k, it - 1) /= h;
        PKHH(hs, it - 1, it - 1) /= h;
      }
      PetscCall(PGMRESUpdateAndDots(ksp, pg, it, h, next, &nvals));
    } else {
      PetscCall(PKVecMDotLocal(pk, &pg->mw, V[1], 1, V, pk->red.local));
      nvals = 1;
    }
    npend = next ? it + 1 : 0;
    PetscCall(PKReduceBegin(&pk->red, nvals));
  }
  *ncols = pg->col + 1;
  PetscCall(PGMRESBuildSolution(ksp, pg, pg->col, ksp->vec_sol));
  pg->col = -1;
  PetscFunctionReturn(0);
}

/* The iteration, run by the common solve wrapper (KSPSolve_PK in common.c) between PKSolveBegin and PKSolveEnd */
static PetscErrorCode KSPSolve_PKPGMRES_Private(KSP ksp, KSP_PK *pk)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;
  PetscInt      ncols, total = 0;
  PetscBool     guess_zero = ksp->guess_zero, first = PETSC_TRUE;

  PetscFunctionBegin;
  (void)pk;                           /* the same as &pg->pk */
  PetscCall(PGMRESEigSetUp(ksp, pg)); /* estimates requested after set-up: their room now, before the iteration */
  pg->eigcols = 0;
  PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
  ksp->its   = 0;
  ksp->rnorm = -1.0; /* no cycle has ended yet: no restart check */
  PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
  /* a preconditioner that failed in set-up has set the reason already: one cycle runs to report it */
  pg->nfalse = 0;
  while (!ksp->reason || (first && ksp->reason == KSP_DIVERGED_PC_FAILED)) {
    PetscReal tn;

    PetscCall(PGMRESCycle(ksp, pg, guess_zero, &ncols));
    first      = PETSC_FALSE;
    guess_zero = PETSC_FALSE;
    total += ncols;
    /* a convergence the recursion claims is checked against b - A x: on long cycles the basis of pipelined GMRES
       loses orthogonality through its lagged normalisation and the recursive residual runs ahead of the true one
       by orders of magnitude (restart 300 on ex2 100x100: a claim at 1e-13 after 234 steps with the error 100x
       gmres's). A true residual more than PGMRES_CLAIM_SLACK times the recursive one refutes the claim (gmres's own
       recursion is that close to the truth, and it checks nothing) if the convergence test rejects it too (a happy
       breakdown's recursive residual is 0); the next cycle restarts from x. */
    if (ksp->reason > 0 && ncols > 0 && ksp->normtype != KSP_NORM_NONE && ksp->converged != KSPConvergedSkip) {
      KSPConvergedReason claimed = ksp->reason, truth = KSP_CONVERGED_ITERATING;

      PetscCall(PKTrueResidualNorm(ksp, pk, ksp->vec_sol, ksp->work[0], ksp->work[1], &tn));
      pk->true_rnorm = tn;
      if (tn > PGMRES_CLAIM_SLACK * ksp->rnorm) PetscCall((*ksp->converged)(ksp, ksp->its, tn, &truth, ksp->cnvP));
      ksp->reason = claimed;
      if (tn > PGMRES_CLAIM_SLACK * ksp->rnorm && truth <= 0) {
        PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": recursive residual %g claims convergence, true residual %g; restarting from x\n", ksp->its, (double)ksp->rnorm, (double)tn));
        pg->nfalse++;
        ksp->reason = KSP_CONVERGED_ITERATING;
        PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
        ksp->rnorm = tn; /* what the next cycle's restart check compares its residual with */
        PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
      }
    }
    if (total >= ksp->max_it) {
      if (!ksp->reason) ksp->reason = KSP_DIVERGED_ITS;
      break;
    }
  }
  pg->col = -1; /* also after a cycle stopped by NaN/Inf: KSPBuildSolution() returns what KSPSolve() returns */
  PetscFunctionReturn(0);
}

/* For monitors inside a cycle (x is only updated at the end of a cycle), as KSPBuildSolution_GMRES */
static PetscErrorCode KSPBuildSolution_PKPGMRES(KSP ksp, Vec ptr, Vec *result)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;

  PetscFunctionBegin;
  if (!ptr) {
    if (!pg->sol_temp) PetscCall(VecDuplicate(ksp->vec_sol, &pg->sol_temp));
    ptr = pg->sol_temp;
  }
  PetscCall(PGMRESBuildSolution(ksp, pg, pg->col, ptr));
  if (result) *result = ptr;
  PetscFunctionReturn(0);
}

static PetscErrorCode PGMRESFreeBasis(KSP_PKPGMRES *pg)
{
  PetscFunctionBegin;
  for (PetscInt b = 0; b < pg->nblock; b++) PetscCall(VecDestroyVecs(pg->Vblock_n[b], &pg->Vblock[b]));
  PetscCall(PetscFree4(pg->V, pg->Vblock, pg->Vblock_n, pg->coef));
  pg->nV = pg->nblock = 0;
  PetscCall(PKHessDestroy(&pg->hs));
  PetscCall(PGMRESEigDestroy(pg));
  PetscCall(PKMultiWorkDestroy(&pg->mw));
  PetscCall(VecDestroy(&pg->sol_temp));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_PKPGMRES(KSP ksp)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;
  PetscInt      m, N;
  Mat           A;

  PetscFunctionBegin;
  PetscCheck(ksp->pc_side == PC_LEFT || ksp->pc_side == PC_RIGHT, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "pgmres supports left and right preconditioning only, not symmetric");
  PetscCall(PGMRESFreeBasis(pg));
  /* the cycle never needs more steps than the problem has unknowns: its bookkeeping (and the basis and Hessenberg
     matrix, which grow in blocks) follow the problem, not a restart far above it */
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  m = pg->m = PetscMax(1, PetscMin(pg->max_k, N));
  if (m < pg->max_k) PetscCall(PetscInfo(ksp, "restart %" PetscInt_FMT " capped at the problem's %" PetscInt_FMT " unknowns\n", pg->max_k, N));
  PetscCall(KSPSetWorkVecs(ksp, 2));
  /* the O(m) bookkeeping now; the basis (O(m) vectors) and the Hessenberg matrix (O(m^2)) in blocks as the
     cycles reach them, so that a restart far above the steps a solve takes costs nothing */
  PetscCheck(m <= (PETSC_MAX_INT - 15) / 5, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "pgmres restart %" PetscInt_FMT " (-ksp_gmres_restart) exceeds %" PetscInt_FMT, m, (PetscInt)((PETSC_MAX_INT - 15) / 5));
  {
    PetscErrorCode ierr;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PetscCalloc4((size_t)m + 1, &pg->V, (size_t)m + 1, &pg->Vblock, (size_t)m + 1, &pg->Vblock_n, 2 * ((size_t)m + 2), &pg->coef);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_MEM, "pgmres: out of memory for the bookkeeping of restart %" PetscInt_FMT " (%.4g MB): use a smaller -ksp_gmres_restart", m, ((double)m + 2) * (3 * sizeof(void *) + 2 * sizeof(PetscScalar)) / 1048576.0);
  }
  pg->Vblock[0] = NULL;
  PetscCall(KSPCreateVecs(ksp, 1, &pg->Vblock[0], 0, NULL));
  pg->Vblock_n[0] = 1;
  pg->V[0]        = pg->Vblock[0][0];
  pg->nblock = pg->nV = 1;
  PetscCall(PGMRESEnsureBasis(ksp, pg, pg->preallocate ? m : PetscMin(m, PGMRES_BASIS_BLOCK)));
  PetscCall(PKHessCreate(m, &pg->hs));
  PetscCall(PGMRESEigSetUp(ksp, pg)); /* room for the estimates, if requested */
  /* distinct vectors: the basis, x and a target; references: 3 updates and 2 dots of at most m + 2 vectors each */
  PetscCall(PKMultiWorkCreate(m + 4, 5 * (m + 3), &pg->mw));
  PetscCall(PKSetUp_Common(ksp, &pg->pk, m + 2)); /* it+1 dots and a norm per pass, it <= m */
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPReset_PKPGMRES(KSP ksp)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PGMRESFreeBasis(pg));
  PetscCall(PKReset_Common(ksp, &pg->pk));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGMRESSetRestart_PKPGMRES(KSP ksp, PetscInt m)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;

  PetscFunctionBegin;
  PetscCheck(m >= 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "pgmres restart (-ksp_gmres_restart) must be at least 1, not %" PetscInt_FMT, m);
  if (m != pg->max_k && ksp->setupstage != KSP_SETUP_NEW) { /* the basis and Hessenberg must be reallocated */
    PetscCall(PGMRESFreeBasis(pg));
    ksp->setupstage = KSP_SETUP_NEW;
  }
  pg->max_k = m;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGMRESGetRestart_PKPGMRES(KSP ksp, PetscInt *m)
{
  PetscFunctionBegin;
  *m = ((KSP_PKPGMRES *)ksp->data)->max_k;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGMRESSetHapTol_PKPGMRES(KSP ksp, PetscReal tol)
{
  PetscFunctionBegin;
  PetscCheck(tol >= 0.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "Happy breakdown tolerance (-ksp_gmres_haptol) must be non-negative, not %g", (double)tol);
  ((KSP_PKPGMRES *)ksp->data)->haptol = tol;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGMRESSetBreakdownTolerance_PKPGMRES(KSP ksp, PetscReal tol)
{
  PetscFunctionBegin;
  if (tol == PETSC_DEFAULT) tol = 0.1;
  PetscCheck(tol >= 0.0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "Breakdown tolerance (-ksp_gmres_breakdown_tolerance) must be non-negative, not %g", (double)tol);
  ((KSP_PKPGMRES *)ksp->data)->breakdowntol = tol;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetFromOptions_PKPGMRES(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;
  PetscInt      m;
  PetscReal     tol;
  PetscBool     flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP pgmres (pipekrylov) options");
  PetscCall(PetscOptionsInt("-ksp_gmres_restart", "Number of Krylov steps before restart", "KSPGMRESSetRestart", pg->max_k, &m, &flg));
  if (flg) PetscCall(KSPGMRESSetRestart_PKPGMRES(ksp, m));
  PetscCall(PetscOptionsReal("-ksp_gmres_haptol", "Tolerance for exact convergence (happy ending)", "KSPGMRESSetHapTol", pg->haptol, &tol, &flg));
  if (flg) PetscCall(KSPGMRESSetHapTol_PKPGMRES(ksp, tol));
  PetscCall(PetscOptionsReal("-ksp_gmres_breakdown_tolerance", "Divergence breakdown tolerance during GMRES restart", "KSPGMRESSetBreakdownTolerance", pg->breakdowntol, &tol, &flg));
  if (flg) PetscCall(KSPGMRESSetBreakdownTolerance_PKPGMRES(ksp, tol));
  PetscCall(PGMRESSetFromOptionsGMRESAPI(ksp, PetscOptionsObject));
  PetscCall(PKSetFromOptions_Common(ksp, &pg->pk, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_PKPGMRES(KSP ksp, PetscViewer viewer)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;
  PetscBool     iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  restart=%" PetscInt_FMT ", classical Gram-Schmidt with lagged normalisation (p(1)-GMRES)\n", pg->max_k));
    if (pg->m && pg->m < pg->max_k) PetscCall(PetscViewerASCIIPrintf(viewer, "  cycles of at most %" PetscInt_FMT " steps: the problem's size (a Krylov space has no more dimensions)\n", pg->m));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  happy breakdown tolerance %g, restart breakdown tolerance %g\n", (double)pg->haptol, (double)pg->breakdowntol));
    if (pg->nfalse) PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " convergence claims of the recursive residual refuted by the true residual (each restarted from x)\n", pg->nfalse));
    PetscCall(PGMRESViewGMRESAPI(ksp, viewer));
  }
  PetscCall(PKView_Common(ksp, &pg->pk, viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPDestroy_PKPGMRES(KSP ksp)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PGMRESFreeBasis(pg));
  PetscCall(PKDestroy_Common(ksp, &pg->pk));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetRestart_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESGetRestart_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetHapTol_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetBreakdownTolerance_C", NULL));
  PetscCall(PGMRESComposeGMRESAPI(ksp, PETSC_FALSE));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(0);
}

/* What an iteration costs, for the performance model (composed as "KSPPipeGetCost_C"; see pkcost.h) */
static PetscErrorCode KSPPipeGetCost_PKPGMRES(KSP ksp, PKSolverCost *c)
{
  KSP_PKPGMRES *pg = (KSP_PKPGMRES *)ksp->data;
  PetscInt      m  = pg->m ? pg->m : pg->max_k;

  PetscFunctionBegin;
  /* a cycle of m steps: m Ops, m + 1 passes of one split reduction each (pass i: i + 1 dots and, i > 0, a norm);
     vector work counted by operations: the fused sweeps are bound by their multiply-adds */
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->pattern      = "pgmres";                      /* the p(1) pattern: the model builds the cycle of the steps a solve reaches from it */
  c->chunks       = ((KSP_PK *)ksp->data)->chunks; /* MPI_Test between the pieces of the overlapped work (1: none) */
  c->its          = m;
  c->nred         = m + 1;
  c->nspmv        = m;
  c->npc          = m;
  c->streams      = 2.0 * m * m + 15.0 * m + 4; /* by operations (see PKSolverShapeGet): pass it MAXPY it+3, CGS it+2, norm 1, MDot it+2, scalings 4; x += V y m+2 */
  c->init_spmv    = 1;
  c->init_pc      = 1;
  c->init_nvals   = 1;
  c->init_streams = 6;
  c->restart      = m;
  PetscFunctionReturn(0);
}

/*MC
   KSPPKPGMRES - "pgmres": pipelined GMRES(m) from pipekrylov, p(1)-GMRES of Ghysels, Ashby, Meerbergen and
   Vanroose (2013). One non-blocking reduction per Krylov step carries the new vector's dot products with the
   basis and the lagged norm of the previous one; it is overlapped with the next preconditioner application and
   matrix-vector product, and progressed by MPI_Test between chunks of that work.

   Options Database Keys:
+  -ksp_gmres_restart <m> - Krylov steps before a restart (default 30; a cycle is capped at the problem's size)
.  -ksp_gmres_haptol <tol> - happy breakdown tolerance (default 1e-30)
.  -ksp_gmres_breakdown_tolerance <tol> - restart check of the recursive against the true residual norm (default 0.1)
.  -ksp_gmres_preallocate - allocate the whole Krylov basis at set-up (default: in blocks as the cycles reach them)
.  -ksp_gmres_classicalgramschmidt - accepted: p(1)-GMRES's orthogonalisation, which is fixed
.  -ksp_gmres_modifiedgramschmidt - accepted and recorded, no effect (as in PETSc's pgmres)
.  -ksp_gmres_cgs_refinement_type <refine_never,refine_ifneeded,refine_always> - accepted and recorded, no effect
-  -ksp_pipe_chunks <n> - pieces the overlapped work is split into, with an MPI_Test between them

   Notes:
   Replaces PETSc's KSPPGMRES once pipekrylov is loaded; PETSc's stays available as "petsc_pgmres".
   Left preconditioning with the preconditioned norm (default) or right preconditioning with the unpreconditioned
   norm. Iteration counts, monitor calls and residual norms are those of KSPGMRES with the same restart (up to
   rounding; classical Gram-Schmidt in both). The residual of a step is known two passes after its operator
   application, so a solve applies the operator twice more than KSPGMRES per cycle that ends in convergence; a
   full cycle of m steps applies it m times plus once for the restart residual. Breakdowns are reported as
   KSP_DIVERGED_BREAKDOWN, NaN or Inf as KSP_DIVERGED_NANORINF or KSP_DIVERGED_PC_FAILED.
   KSPGMRESSetRestart(), KSPGMRESGetRestart(), KSPGMRESSetHapTol(), KSPGMRESSetBreakdownTolerance() and
   KSPGMRESSetPreAllocateVectors() apply; KSPGMRESSet/GetOrthogonalization() and KSPGMRESSet/GetCGSRefinementType()
   record and return their setting with no effect on the method, as PETSc's pgmres.

   Eigenvalue and singular value estimates come from the Hessenberg matrix of the last cycle, as KSPGMRES's;
   KSPSolveTranspose() is supported. With long cycles (a few hundred steps) the lagged normalisation loses
   orthogonality: a convergence claim is checked against b - A x when the cycle ends and a refuted one restarts
   from x (docs/algorithms.md §6 and §12, docs/pipelined-accuracy.md).

   Level: beginner

.seealso: `KSPGMRES`, `KSPPGMRES`, `KSPGMRESSetRestart()`, `KSPPKPIPECG`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_PKPGMRES(KSP ksp)
{
  KSP_PKPGMRES *pg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&pg));
  ksp->data        = (void *)pg;
  pg->max_k        = PGMRES_DEFAULT_RESTART;
  pg->haptol       = 1.0e-30;
  pg->breakdowntol = 0.1;
  pg->col          = -1;
  PetscCall(PKCreate_Common(ksp, &pg->pk, "pipelined GMRES(m), p(1)-GMRES: one non-blocking reduction per Krylov step, overlapped with the next PCApply and MatMult", PETSC_TRUE, KSPSolve_PKPGMRES_Private));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", KSPPipeGetCost_PKPGMRES));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_RIGHT, 2));
  /* as PETSc's GMRES: PCMG and GAMG set KSP_NORM_NONE on smoothers and coarse solvers (the least-squares residual
     estimate comes free with the Hessenberg matrix; the convergence test decides whether it is used) */
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_RIGHT, 1));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  ksp->ops->setup                        = KSPSetUp_PKPGMRES;
  ksp->ops->reset                        = KSPReset_PKPGMRES;
  ksp->ops->destroy                      = KSPDestroy_PKPGMRES;
  ksp->ops->view                         = KSPView_PKPGMRES;
  ksp->ops->setfromoptions               = KSPSetFromOptions_PKPGMRES;
  ksp->ops->buildsolution                = KSPBuildSolution_PKPGMRES;
  ksp->ops->buildresidual                = KSPBuildResidualDefault;
  ksp->ops->computeextremesingularvalues = KSPComputeExtremeSingularValues_PKPGMRES;
  ksp->ops->computeeigenvalues           = KSPComputeEigenvalues_PKPGMRES;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetRestart_C", KSPGMRESSetRestart_PKPGMRES));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESGetRestart_C", KSPGMRESGetRestart_PKPGMRES));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetHapTol_C", KSPGMRESSetHapTol_PKPGMRES));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPGMRESSetBreakdownTolerance_C", KSPGMRESSetBreakdownTolerance_PKPGMRES));
  PetscCall(PGMRESComposeGMRESAPI(ksp, PETSC_TRUE)); /* preallocation, orthogonalisation and CGS refinement calls */
  PetscFunctionReturn(0);
}
