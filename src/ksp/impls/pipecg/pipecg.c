/* pipecg: the KSP type (set-up, options, view, the cost it reports, creation); the iteration is in pipecgsolve.c,
   the fused kernel in pipecgfused.c, the algorithm described in pipecgimpl.h */
#include "pipecgimpl.h"

/* The iteration, run by the common solve wrapper (KSPSolve_PK in common.c) between PKSolveBegin and PKSolveEnd */
static PetscErrorCode PipeCGIterate(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  (void)pk;
  PetscCall(PipeCGSolve(ksp, (KSP_PKPIPECG *)ksp->data));
  PetscFunctionReturn(0);
}

/* After PKSolveEnd: one check of the true residual at exit (common.c) */
static PetscErrorCode PipeCGAfterSolve(KSP ksp, KSP_PK *pk)
{
  PetscFunctionBegin;
  PetscCall(PKTrueResidualAtExit(ksp, pk, ksp->work[PIPECG_R], ksp->work[PIPECG_S]));
  PetscFunctionReturn(0);
}

/* Eigenvalue estimates need the gap measured or w recomputed: with neither, pipecg cannot tell where its plain
   recurrences stop describing a Lanczos process (varcoef without preconditioner, -ksp_pipecg_replace_gap 0: largest
   Ritz value 1.4 and 3.9 times cg's past the attainable accuracy; with periodic replacement instead, 1.005) */
static PetscErrorCode PipeCGCheckEstimates(KSP ksp)
{
  KSP_PKPIPECG *cg = (KSP_PKPIPECG *)ksp->data;

  PetscFunctionBegin;
  PetscCheck(cg->rc.user == 1 || cg->gaptol != 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "pipecg cannot estimate eigenvalues or singular values with -ksp_pipecg_replace_gap 0 and w = A u by recurrence: without the gap measured it cannot tell where its coefficients stop being those of a Lanczos process. Use -ksp_pipecg_recompute, a gap tolerance above 0 (the default), or -ksp_type cg");
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_PKPIPECG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, PIPECG_NWORK)); /* and the diagonal of a diagonal preconditioner */
  PetscCall(PKCGSetUp(ksp, (KSP_PK *)ksp->data, PIPECG_NRED + 2));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPDestroy_PKPIPECG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeCGSetReplacement_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeCGSetRecompute_C", NULL));
  PetscCall(PKDestroy_Common(ksp, (KSP_PK *)ksp->data));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_PKPIPECG(KSP ksp, PetscViewer viewer)
{
  KSP_PKPIPECG *cg = (KSP_PKPIPECG *)ksp->data;
  PetscBool     iascii;

  PetscFunctionBegin;
  PetscCall(PKView_Common(ksp, &cg->pk, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
#if defined(PK_HAVE_V4D)
  PetscCall(PetscViewerASCIIPrintf(viewer, "  update kernel (-ksp_pipecg_fused): %s\n", cg->fused ? "one fused loop, a jacobi or none preconditioner applied in it" : "the generic multi-vector kernel and PCApply"));
#else
  PetscCall(PetscViewerASCIIPrintf(viewer, "  update kernel: the generic multi-vector kernel and PCApply (the fused kernels are built for real double scalars only)\n"));
#endif
  if (cg->fusedpc) PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: the diagonal preconditioner applied inside the fused vector pass\n"));
  if (cg->gaptol > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement when the measured gap ||r - (b - A x)|| would reach %g x the tolerance or %g x ||r|| (-ksp_pipecg_replace_gap)\n", (double)cg->gaptol, (double)PIPECG_REL_GAP));
  else if (cg->gaptol < 0 && cg->rc.user != 1)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement while w is recurred, when the measured gap ||r - (b - A x)|| would reach %g x the tolerance or %g x ||r|| (-ksp_pipecg_replace_gap); not while it is recomputed\n", (double)PIPECG_DEFAULT_GAP, (double)PIPECG_REL_GAP));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  gap-driven residual replacement: off%s (-ksp_pipecg_replace_gap %g to turn on)\n", cg->gaptol < 0 ? ", not needed with the recompute" : "", (double)PIPECG_DEFAULT_GAP));
  PetscCall(PKRecomputeView(&cg->rc, viewer, ksp->its, "w = A u (predict-and-recompute: one more MatMult per iteration)", "-ksp_pipecg_recompute"));
  if (cg->replace) PetscCall(PetscViewerASCIIPrintf(viewer, "  periodic residual replacement every %" PetscInt_FMT " iterations\n", cg->replace));
  if (cg->nreplace || cg->nprobe || cg->nfalse || cg->nrecover)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " residual replacements, %" PetscInt_FMT " gap measurements, largest gap %.2e x the tolerance, %" PetscInt_FMT " convergence claims refuted by the true residual, %" PetscInt_FMT " breakdowns found to be rounding, %" PetscInt_FMT " restarts at the attainable accuracy\n", cg->nreplace, cg->nprobe,
                                     (double)cg->maxgap, cg->nfalse, cg->nrecover, cg->nrestart));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPPipeCGSetReplacement_PKPIPECG(KSP ksp, PetscInt k)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipecg_replace must be >= 0 (0 = off, k = every k iterations), not %" PetscInt_FMT, k);
  ((KSP_PKPIPECG *)ksp->data)->replace = k;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetFromOptions_PKPIPECG(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
  KSP_PKPIPECG *cg = (KSP_PKPIPECG *)ksp->data;
  PetscInt      k;
  PetscBool     flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP pipecg (pipekrylov) options");
  PetscCall(PKSetFromOptions_Common(ksp, &cg->pk, PetscOptionsObject));
  PetscCall(PetscOptionsBool("-ksp_pipecg_fused", "The eight updates and the dots in one loop over the elements, with a diagonal preconditioner (jacobi, none) applied in it (else the generic fused kernel and PCApply)", "", cg->fused, &cg->fused, NULL));
  {
    PetscBool rc = (PetscBool)(cg->rc.user == 1);
    PetscCall(PetscOptionsBool("-ksp_pipecg_recompute", "Recompute w = A u in the overlap window of every iteration (1) or never (0) instead of as the policy decides (the default): one more MatMult per iteration, overlapped; cg's iteration counts on ill-conditioned problems", "KSPPipeCGSetRecompute", rc, &rc, &flg));
    if (flg) cg->rc.user = rc ? 1 : 0;
  }
  PetscCall(PetscOptionsInt("-ksp_pipecg_replace", "Recompute r, u, w, s, q, z from x and p every k iterations (0: off)", "KSPPipeCGSetReplacement", cg->replace, &k, &flg));
  if (flg) PetscCall(KSPPipeCGSetReplacement_PKPIPECG(ksp, k));
  {
    PetscReal g = PipeCGGapTol(ksp, cg);
    PetscCall(PetscOptionsReal("-ksp_pipecg_replace_gap", "Measure the gap ||r - (b - A x)|| (one MatMult per measurement) and replace before it reaches this fraction of the tolerance (0: off; default 0.1 while w is recurred, off while it is recomputed)", "KSPPipeCGSetReplacement", g, &g, &flg));
    if (flg) {
      PetscCheck(g >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipecg_replace_gap must be >= 0 (0 = off), not %g", (double)g);
      cg->gaptol = g;
    }
  }
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

/*@
   KSPPipeCGSetReplacement - Sets how often pipekrylov's pipecg replaces its recursively updated residuals by
   freshly computed ones: r = b - A x, u = M r, w = A u, s = A p, q = M s, z = A q (3 MatMult + 2 PCApply).

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (ignored unless its type is pipecg from pipekrylov)
-  k   - replace every k iterations; 0 turns periodic replacement off

   Options Database Key:
.  -ksp_pipecg_replace <k> - default 0 (off)

   Notes:
   Pipelined CG loses attainable accuracy through its extra recurrences (Cools et al., SIMAX 2018); periodic
   replacement, as in PETSc's KSPPIPECGRR, restores it at the price of the extra products. Independently of k,
   every convergence claim is checked against the true residual, and a refuted claim triggers one replacement.

   Level: intermediate

.seealso: `KSPPKPIPECG`, `KSPPipe2CGSetReplacement()`, `KSPPIPECGRR`
@*/
PetscErrorCode KSPPipeCGSetReplacement(KSP ksp, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, k, 2);
  PetscTryMethod(ksp, "KSPPipeCGSetReplacement_C", (KSP, PetscInt), (ksp, k));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPPipeCGSetRecompute_PKPIPECG(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  ((KSP_PKPIPECG *)ksp->data)->rc.user = flg ? 1 : 0;
  PetscFunctionReturn(0);
}

/*@
   KSPPipeCGSetRecompute - Forces whether pipekrylov's pipecg recomputes w = A u in the overlap window of every
   iteration (predict-and-recompute) instead of updating it by the recurrence w -= alpha z; by default a policy
   decides as the solve goes.

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (ignored unless its type is pipecg from pipekrylov)
-  flg - PETSC_TRUE to recompute in every iteration, PETSC_FALSE for the plain Ghysels-Vanroose recurrence in every
         iteration (without a call or the option, the policy decides)

   Options Database Key:
.  -ksp_pipecg_recompute <bool> - default: the policy

   Notes:
   On some ill-conditioned problems the rounding of the plain recurrence delays convergence against cg, and residual
   replacement does not cure it; recomputing w (the dot (w, u) still on the recurred w, so that the one reduction
   per iteration stays where it is: Chen and Carson's predict-and-recompute) restores cg's iteration counts, at the
   price of one more MatMult per iteration, overlapped. The policy recomputes when the solve is predicted, from the
   residual's decrease, to take at least a tenth of the unknowns in iterations, and stops when the prediction falls
   below half of that or a convergence claim is refuted. -ksp_view shows what it did, -info each switch;
   docs/pipelined-accuracy.md has the measurements.

   Level: intermediate

.seealso: `KSPPKPIPECG`, `KSPPipeCGSetReplacement()`, `KSPPIPEPRCG`
@*/
PetscErrorCode KSPPipeCGSetRecompute(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPPipeCGSetRecompute_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(0);
}

/* What an iteration costs, for the performance model (composed as "KSPPipeGetCost_C"; see pkcost.h) */
static PetscErrorCode KSPPipeGetCost_PKPIPECG(KSP ksp, PKSolverCost *c)
{
  KSP_PKPIPECG *cg = (KSP_PKPIPECG *)ksp->data;
  PetscReal     f  = cg->rc.user == 1 ? 1.0 : 0.0; /* share of the passes that recompute w: as forced, or the policy's start */

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  if (ksp->its > 0) f = PetscMin(1.0, (PetscReal)cg->rc.npasses / ksp->its); /* after a solve, what it did */
  c->pattern = "pipecg";
  c->chunks  = ((KSP_PK *)ksp->data)->chunks; /* MPI_Test between the pieces of the overlapped work (1: none) */
  c->its     = 1;
  c->nred    = 1;
  /* (r,u), (w,u), the norm, and (u,s), (p,s) for the curvature computed from products; in flight during m = M w and
     n = A m, and w = A u first in a recomputing pass. With a diagonal PC the update pass writes m (not before a
     recomputing pass: m of the recurred w would be thrown away), so the window has no PCApply */
  c->red[0]       = (PKReductionCost){.nvals = PIPECG_NRED, .w_spmv = 1 + f, .w_pc = 1, .w_pc_fused = 1 - f};
  c->nspmv        = 1 + f;
  c->npc          = 1;
  c->streams      = 18 - f;                  /* vector traffic as implemented: the eight updates and the dots in one pass read x r u w m n z q s p and write z q s p x u w r (unfused they would be 29); w not written before a recomputing pass */
  c->init_spmv    = ksp->guess_zero ? 2 : 3; /* r = b - A x, w = A u, and the lagging pass's n = A m (docs/algorithms.md §4) */
  c->init_pc      = 2;
  c->init_nvals   = 3;
  c->init_streams = 12;
  /* at max_it: m = M w and n = A m of the next pass are not made; with a norm the exit checks x's true residual */
  c->end_spmv     = ksp->normtype == KSP_NORM_NONE ? 1 : 0;
  c->end_pc       = (ksp->normtype == KSP_NORM_NONE || ksp->normtype == KSP_NORM_UNPRECONDITIONED) ? 1 : 0;
  c->replace      = cg->replace; /* -ksp_pipecg_replace; a replacement is PipeCGReplace: 4 MatMult + 2 PCApply */
  c->replace_spmv = 4;
  c->replace_pc   = 2;
  c->nreplaced    = cg->nreplace;
#if defined(PK_HAVE_V4D)
  c->fuse_pc = cg->fused ? 1 - f : 0;
#endif
  c->fuse_pc_streams = 2; /* read the diagonal, write m */
  c->fused_last      = cg->fusedpc;
  c->recompute_spmv  = 1;
  c->probe_spmv      = 1;
  c->recompute_on_at = cg->rc.user == 1 ? 0 : cg->rc.at_on;
  c->recompute_why   = cg->rc.reason[0];
  if (ksp->its > 0) { /* after a solve, what it really did: gap measurements (one MatMult each) and replacements */
    c->its_last    = ksp->its;
    c->nrecomputed = cg->rc.npasses;
    c->nprobed     = cg->nprobe;
    c->nspmv += (PetscReal)cg->nprobe / ksp->its;
    if (cg->nreplace && (!c->replace || ksp->its / cg->nreplace < c->replace)) c->replace = PetscMax(1, ksp->its / cg->nreplace);
  }
  PetscFunctionReturn(0);
}

/*MC
   KSPPKPIPECG - "pipecg": the pipelined preconditioned conjugate gradient method of Ghysels and Vanroose, from
   pipekrylov. One non-blocking reduction per iteration, overlapped with one PCApply and one MatMult, which are
   split into chunks with an MPI_Test between them so that the reduction progresses without an MPI progress thread.

   Options Database Keys:
+  -ksp_pipe_chunks <n> - pieces the overlapped PCApply/MatMult/vector work is split into (default 8, 1 = no polling)
.  -ksp_pipecg_recompute <bool> - recompute w = A u every iteration (1) or never (0); default: as the policy decides (one more MatMult per recomputing iteration, overlapped), see `KSPPipeCGSetRecompute()`
.  -ksp_pipecg_replace <k> - residual replacement every k iterations (default 0 = off), see `KSPPipeCGSetReplacement()`
.  -ksp_pipecg_replace_gap <f> - replace before the measured gap reaches f x the tolerance (default 0.1 while w is recurred, off while it is recomputed; 0 = off)
.  -ksp_pipecg_fused <bool> - the updates and dots in one loop over the elements, a jacobi or none preconditioner applied in it (default true; false: the generic kernel and PCApply, same results)
.  -ksp_pipe_check_symmetry - check at set-up that the operator is symmetric (one transpose), error if not
.  -ksp_pipe_check_symmetry_tol <t> - tolerance of that check (default 1e-12)
-  -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - the norm the convergence test uses

   Notes:
   This type replaces PETSc's KSPPIPECG once pipekrylov is loaded; PETSc's stays available as "petsc_pipecg".
   Iterations, residual history and solution are PETSc's cg's up to rounding: every convergence claim is checked
   against the true residual, and breakdowns are reported with cg's reasons only if they persist once the vectors
   are recomputed. Eigenvalue and singular value estimates and KSPSolveTranspose() are supported. Left
   preconditioning only; operator and preconditioner symmetric positive definite. docs/algorithms.md §4 describes
   the fused kernel, the recompute policy, residual replacement and the estimates.

   Reference:
   P. Ghysels and W. Vanroose, Hiding global synchronization latency in the preconditioned conjugate gradient
   algorithm, Parallel Computing 40(7), 2014.

   Level: intermediate

.seealso: `KSPPKPIPE2CG`, `KSPPKNBPCG`, `KSPPKPCG`, `KSPPIPECG`, `KSPPipeSetChunks()`, `KSPPipeCGSetReplacement()`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_PKPIPECG(KSP ksp)
{
  KSP_PKPIPECG *cg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cg));
  ksp->data              = (void *)cg;
  cg->fused              = PETSC_TRUE;
  cg->gaptol             = PETSC_DEFAULT; /* PipeCGGapTol */
  cg->rc.user            = -1;            /* the policy */
  cg->pk.recurred        = PETSC_TRUE;    /* r, u, w, s, q, z by recurrence */
  cg->pk.check_estimates = PipeCGCheckEstimates;
  PetscCall(PKCreate_Common(ksp, &cg->pk, "pipelined CG (Ghysels-Vanroose), one non-blocking reduction per iteration overlapped with PCApply + MatMult", PETSC_TRUE, PipeCGIterate));
  cg->pk.after_solve = PipeCGAfterSolve;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", KSPPipeGetCost_PKPIPECG));
  PetscCall(PKCGCreate_Common(ksp));
  ksp->ops->setup          = KSPSetUp_PKPIPECG;
  ksp->ops->destroy        = KSPDestroy_PKPIPECG;
  ksp->ops->view           = KSPView_PKPIPECG;
  ksp->ops->setfromoptions = KSPSetFromOptions_PKPIPECG;
  ksp->ops->buildsolution  = KSPBuildSolutionDefault;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeCGSetReplacement_C", KSPPipeCGSetReplacement_PKPIPECG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeCGSetRecompute_C", KSPPipeCGSetRecompute_PKPIPECG));
  PetscFunctionReturn(0);
}
