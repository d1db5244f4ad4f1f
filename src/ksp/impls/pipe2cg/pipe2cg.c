/* pipe2cg: the KSP type (set-up, options, view, the cost it reports, creation); the iteration is in
   pipe2cgsolve.c, the fused kernel in pipe2cgfused.c, the algorithm described in pipe2cgimpl.h */
#include "pipe2cgimpl.h"

/* The iteration, run by the common solve wrapper (KSPSolve_PK in common.c) between PKSolveBegin and PKSolveEnd */
static PetscErrorCode Pipe2CGIterate(KSP ksp, KSP_PK *pk)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;

  PetscFunctionBegin;
  (void)pk;
  PetscCall(Pipe2CGSolve(ksp, p2));
  p2->xtest = NULL; /* the solution is x itself again */
  PetscCall(PetscInfo(ksp, "%" PetscInt_FMT " iterations: %" PetscInt_FMT " replacements (%" PetscInt_FMT " brought forward), %" PetscInt_FMT " probes, %" PetscInt_FMT " refuted claims, %" PetscInt_FMT " recovered breakdowns, %" PetscInt_FMT " restarts, %" PetscInt_FMT " passes held back, %" PetscInt_FMT " passes recomputed\n",
                      ksp->its, p2->nreplace, p2->nadaptive, p2->nprobe, p2->nfalse, p2->nrecover, p2->nrestart, p2->nlate, p2->rc.npasses));
  PetscFunctionReturn(0);
}

/* After PKSolveEnd: one check of the true residual at exit (common.c) */
static PetscErrorCode Pipe2CGAfterSolve(KSP ksp, KSP_PK *pk)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PKTrueResidualAtExit(ksp, pk, p2->N[VG], p2->N[VH]));
  PetscFunctionReturn(0);
}

/* In monitors (e.g. -ksp_monitor_true_residual) the iterate under test, which is x_O for odd passes */
static PetscErrorCode KSPBuildSolution_PKPIPE2CG(KSP ksp, Vec v, Vec *V)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;
  Vec            x  = p2->xtest ? p2->xtest : ksp->vec_sol;

  PetscFunctionBegin;
  if (v) {
    PetscCall(VecCopy(x, v));
    if (V) *V = v;
  } else if (V) *V = x;
  PetscFunctionReturn(0);
}

/* Eigenvalue estimates need a replacement period (each replacement measures the gap) or the recompute: with neither
   the chain drifts unobserved and its coefficients stop being those of a Lanczos process (varcoef, jacobi,
   -ksp_pipe2cg_replace 0 -ksp_pipe2cg_recompute 0: smallest Ritz value 0.00096 where cg's is 0.00139) */
static PetscErrorCode Pipe2CGCheckEstimates(KSP ksp)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;

  PetscFunctionBegin;
  PetscCheck(p2->replace > 0 || p2->rc.user == 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "pipe2cg cannot estimate eigenvalues or singular values with -ksp_pipe2cg_replace 0 unless -ksp_pipe2cg_recompute is on: without replacements its chain drifts unobserved and its coefficients stop being those of a Lanczos process. Use a replacement period (the default 100), -ksp_pipe2cg_recompute, or -ksp_type cg");
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_PKPIPE2CG(KSP ksp)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, 18));
  for (PetscInt k = 0; k < 8; k++) p2->O[k] = ksp->work[k];
  p2->N[VX] = NULL;
  for (PetscInt k = VR; k <= VH; k++) p2->N[k] = ksp->work[7 + k];
  p2->D = ksp->work[17];
  PetscCall(PKCGSetUp(ksp, &p2->pk, 13));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPReset_PKPIPE2CG(KSP ksp)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p2->O, sizeof(p2->O)));
  PetscCall(PetscMemzero(p2->N, sizeof(p2->N)));
  p2->D = NULL;
  PetscCall(PKReset_Common(ksp, &p2->pk));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPDestroy_PKPIPE2CG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipe2CGSetReplacement_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipe2CGSetRecompute_C", NULL));
  PetscCall(PKDestroy_Common(ksp, (KSP_PK *)ksp->data));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_PKPIPE2CG(KSP ksp, PetscViewer viewer)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;
  PetscBool      iascii;

  PetscFunctionBegin;
  PetscCall(PKView_Common(ksp, &p2->pk, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
#if defined(PK_HAVE_V4D)
  PetscCall(PetscViewerASCIIPrintf(viewer, "  update kernel (-ksp_pipe2cg_fused): %s\n", p2->fused ? "one fused loop for steps A and B, a jacobi or none preconditioner applied in it" : "the generic multi-vector kernel and PCApply"));
#else
  PetscCall(PetscViewerASCIIPrintf(viewer, "  update kernel: the generic multi-vector kernel and PCApply (the fused kernels are built for real double scalars only)\n"));
#endif
  if (p2->fusedpc) PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: the diagonal preconditioner applied inside the fused vector pass\n"));
  PetscCall(PKRecomputeView(&p2->rc, viewer, ksp->its, "w = A z, p = M w, q = A p of the newer iterate (2 MatMult and 1 PCApply more per pass of two iterations)", "-ksp_pipe2cg_recompute"));
  if (p2->rc.npasses) PetscCall(PetscViewerASCIIPrintf(viewer, "  while recomputing, scheduled residual replacement %s\n", p2->replace_set || p2->gap_set ? "as set" : "off, only refuted convergence claims replace"));
  /* a pass makes two iterations: the period is k rounded up to even (k + 1 for odd k) */
  if (p2->replace && p2->gaptol > 0)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement every %" PetscInt_FMT " iterations%s, earlier when the measured gap ||r - (b - A x)|| would reach %g x the tolerance\n", p2->replace + p2->replace % 2, p2->replace % 2 ? " (-ksp_pipe2cg_replace rounded up to even: two iterations per pass)" : "",
                                     (double)p2->gaptol));
  else if (p2->replace)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement every %" PetscInt_FMT " iterations%s\n", p2->replace + p2->replace % 2, p2->replace % 2 ? " (-ksp_pipe2cg_replace rounded up to even: two iterations per pass)" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement: off (accuracy degrades; the default is -ksp_pipe2cg_replace %d)\n", PIPE2CG_DEFAULT_REPLACE));
  if (p2->nreplace || p2->nprobe || p2->nfalse || p2->nrecover) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " residual replacements (%" PetscInt_FMT " brought forward by the gap), %" PetscInt_FMT " gap measurements, largest gap %.2e x the tolerance, %" PetscInt_FMT " convergence claims refuted by the true residual, %" PetscInt_FMT " breakdowns found to be rounding, %" PetscInt_FMT " restarts\n", p2->nreplace, p2->nadaptive, p2->nprobe,
                                     (double)p2->maxgap, p2->nfalse, p2->nrecover, p2->nrestart));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPPipe2CGSetReplacement_PKPIPE2CG(KSP ksp, PetscInt k)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipe2cg_replace must be >= 0 (0 = off, k = every k iterations), not %" PetscInt_FMT, k);
  ((KSP_PKPIPE2CG *)ksp->data)->replace     = k;
  ((KSP_PKPIPE2CG *)ksp->data)->replace_set = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetFromOptions_PKPIPE2CG(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;
  PetscInt       k;
  PetscBool      flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP pipe2cg (pipekrylov) options");
  PetscCall(PKSetFromOptions_Common(ksp, &p2->pk, PetscOptionsObject));
  PetscCall(PetscOptionsInt("-ksp_pipe2cg_replace", "Recompute both iterates' vector chains from x every k iterations, k rounded up to even (0: off, not recommended)", "KSPPipe2CGSetReplacement", p2->replace, &k, &flg));
  if (flg) PetscCall(KSPPipe2CGSetReplacement_PKPIPE2CG(ksp, k));
  {
    PetscBool rc = (PetscBool)(p2->rc.user == 1);
    PetscCall(PetscOptionsBool("-ksp_pipe2cg_recompute", "Recompute w = A z, p = M w, q = A p of the newer iterate in the overlap window of every pass (1) or never (0) instead of as the policy decides (the default): two more MatMult and one more PCApply per two iterations, overlapped", "KSPPipe2CGSetRecompute", rc, &rc, &flg));
    if (flg) p2->rc.user = rc ? 1 : 0;
  }
  PetscCall(PetscOptionsBool("-ksp_pipe2cg_fused", "Steps A and B and their dots in one loop over the elements (else the generic fused kernel)", "", p2->fused, &p2->fused, NULL));
  PetscCall(PetscOptionsReal("-ksp_pipe2cg_replace_gap", "Measure the gap ||r - (b - A x)||: replace before it reaches this fraction of the tolerance (0: exactly every k iterations)", "KSPPipe2CGSetReplacement", p2->gaptol, &p2->gaptol, &flg));
  if (flg) p2->gap_set = PETSC_TRUE;
  PetscCheck(p2->gaptol >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_pipe2cg_replace_gap must be >= 0 (0 = exactly every k iterations), not %g", (double)p2->gaptol);
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPPipe2CGSetRecompute_PKPIPE2CG(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  ((KSP_PKPIPE2CG *)ksp->data)->rc.user = flg ? 1 : 0;
  PetscFunctionReturn(0);
}

/*@
   KSPPipe2CGSetRecompute - Forces whether pipekrylov's pipe2cg recomputes w = A z, p = M w and q = A p of the newer
   iterate in the overlap window of every pass (predict-and-recompute) instead of updating them by the three-term
   recurrences; by default a policy decides as the solve goes.

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (ignored unless its type is pipe2cg from pipekrylov)
-  flg - PETSC_TRUE to recompute in every pass, PETSC_FALSE for the plain recurrences in every pass (without a call
         or the option, the policy decides)

   Options Database Key:
.  -ksp_pipe2cg_recompute <bool> - default: the policy

   Notes:
   As in pipecg (KSPPipeCGSetRecompute()), recomputing restores cg's iteration counts where the recurrences' rounding
   delays convergence, and at tight tolerances it gives cg's error, since the plain recurrences need residual
   replacements that each inject the gap between recursive and true residual. The price is two more MatMult and one
   more PCApply per pass of two iterations, overlapped. The policy recomputes when the solve is predicted to take at
   least a tenth of the unknowns in iterations, or when the measured gap forces a residual replacement and more
   would be needed to reach the tolerance. -ksp_view shows what it did, -info each switch;
   docs/pipelined-accuracy.md has the measurements.

   Level: intermediate

.seealso: `KSPPKPIPE2CG`, `KSPPipe2CGSetReplacement()`, `KSPPipeCGSetRecompute()`
@*/
PetscErrorCode KSPPipe2CGSetRecompute(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPPipe2CGSetRecompute_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(0);
}

/*@
   KSPPipe2CGSetReplacement - Sets the period after which pipekrylov's pipe2cg recomputes its two sets of
   recursively updated vectors from the iterates: r = b - A x, z = M r, w = A z, p = M w, q = A p (and c = M q,
   d = A c for the older iterate), 7 MatMult + 5 PCApply per replacement.

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (ignored unless its type is pipe2cg)
-  k   - replacement period; 0 turns replacement off (only refuted convergence claims and suspected breakdowns
         then replace)

   Options Database Keys:
+  -ksp_pipe2cg_replace <k> - default 100; negative values are an error. A pass makes two iterations, so the period
         is k rounded up to an even number: an odd k replaces every k + 1 iterations (-ksp_view prints the period used)
-  -ksp_pipe2cg_replace_gap <f> - default 0.1: measure the gap ||r - (b - A x)|| (one MatMult per measurement)
         and replace earlier when it would reach f x the tolerance; 0 = exactly every k iterations, no measurements

   Notes:
   Without replacement the deep recurrence chain lets rounding errors grow in the residual, and the true residual
   stalls above the recursive one. With the gap measured, a window is replaced after k iterations and earlier,
   before its gap reaches f x the tolerance, unless the gap extrapolated to the end of the solve stays below half of
   it; every convergence claim is checked against the true residual, and a refuted one triggers a replacement.
   -ksp_view shows the replacements, measurements and largest gap of the last solve.

   References:
   docs/algorithms.md §5.5 (the policy, its growth law and its cost)

   Level: intermediate

.seealso: `KSPPKPIPE2CG`, `KSPPipeCGSetReplacement()`
@*/
PetscErrorCode KSPPipe2CGSetReplacement(KSP ksp, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, k, 2);
  PetscTryMethod(ksp, "KSPPipe2CGSetReplacement_C", (KSP, PetscInt), (ksp, k));
  PetscFunctionReturn(0);
}

/* What an iteration costs, for the performance model (composed as "KSPPipeGetCost_C"; see pkcost.h) */
static PetscErrorCode KSPPipeGetCost_PKPIPE2CG(KSP ksp, PKSolverCost *c)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;
  PetscReal      f  = p2->rc.user == 1 ? 1.0 : 0.0; /* share of the passes that recompute: as forced, or the policy's start */

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  if (ksp->its > 0) f = PetscMin(1.0, 2.0 * p2->rc.npasses / ksp->its); /* after a solve, what it did (a pass is two iterations) */
  c->pattern = "pipe2cg";
  c->chunks  = ((KSP_PK *)ksp->data)->chunks; /* MPI_Test between the pieces of the overlapped work (1: none) */
  c->its     = 2;
  c->nred    = 1;
  /* the 9 products and, but for the natural norm and none, the norms of both iterates (Pipe2CGDots; a KSP not set
     up yet has the default, preconditioned, norm), in flight during c = M q, d = A c, g = M d, h = A g of N and,
     in a recomputing pass, w = A z, p = M w, q = A p before them. With a diagonal PC the pass of steps A and B
     writes c (not before a recomputing pass: c of the recurred q would be thrown away) */
  c->red[0] = (PKReductionCost){.nvals = PIPE2CG_NLAMBDA + ((ksp->normtype == KSP_NORM_NATURAL || ksp->normtype == KSP_NORM_NONE) ? 0 : 2), .w_spmv = 2 + 2 * f, .w_pc = 2 + f, .w_pc_fused = 1 - f};
  c->nspmv  = 2 + 2 * f;
  c->npc    = 2 + f;
  c->streams = 32 - 3 * f; /* vector traffic as implemented, per 2 iterations: steps A and B and the dots in one pass read the 8 vectors of O and the 10 of N and write 8 and 6 (unfused they would be 75); a recomputing pass does not write w, p, q of N */
  c->init_spmv    = ksp->guess_zero ? 4 : 5; /* r = b - A x, and w, q, d, h of index 0 */
  c->init_pc      = 4;
  c->init_nvals   = 5;
  c->init_streams = 20;
  /* at max_it: c, d, g, h of the next pass are not made; with a norm the exit checks x's true residual */
  c->end_spmv     = ksp->normtype == KSP_NORM_NONE ? 2 : 1;
  c->end_pc       = (ksp->normtype == KSP_NORM_NONE || ksp->normtype == KSP_NORM_UNPRECONDITIONED) ? 2 : 1;
  c->replace      = p2->rc.user == 1 && !p2->replace_set ? 0 : p2->replace; /* a replacement is Pipe2CGReplace: 7 MatMult + 5 PCApply */
  c->replace_spmv = 7;
  c->replace_pc   = 5;
  c->nreplaced    = p2->nreplace;
#if defined(PK_HAVE_V4D)
  c->fuse_pc = p2->fused ? 1 - f : 0;
#endif
  c->fuse_pc_streams = 2; /* read the diagonal, write c */
  c->fused_last      = p2->fusedpc;
  c->recompute_spmv  = 2;
  c->recompute_pc    = 1;
  c->probe_spmv      = 1;
  c->recompute_on_at = p2->rc.user == 1 ? 0 : p2->rc.at_on;
  c->recompute_why   = p2->rc.reason[0];
  if (ksp->its > 0) { /* after a solve, what it really did: gap measurements (one MatMult each) and replacements */
    c->its_last    = ksp->its;
    c->nrecomputed = p2->rc.npasses;
    c->nprobed     = p2->nprobe;
    c->nspmv += 2.0 * p2->nprobe / ksp->its;
    c->replace = p2->nreplace ? PetscMax(1, ksp->its / p2->nreplace) : 0;
  }
  PetscFunctionReturn(0);
}

/*MC
   KSPPKPIPE2CG - "pipe2cg": preconditioned conjugate gradients with two iterations per non-blocking reduction
   (the PIPE2CG communication pattern of Eller and Gropp), from pipekrylov. Three-term recurrences on two
   consecutive iterates; one MPI_Iallreduce of 9 inner products and the norms per two iterations, overlapped with
   two PCApply and two MatMult, split into chunks with MPI_Test between them.

   Options Database Keys:
+  -ksp_pipe_chunks <n> - pieces the overlapped PCApply/MatMult/vector work is split into (default 8, 1 = no polling)
.  -ksp_pipe2cg_replace <k> - residual replacement period (default 100, 0 = off), see `KSPPipe2CGSetReplacement()`
.  -ksp_pipe2cg_replace_gap <f> - measure the gap ||r - (b - A x)||: replace earlier when it would reach f x the tolerance (default 0.1, 0 = fixed period)
.  -ksp_pipe2cg_recompute <bool> - recompute w, p, q of the newer iterate every pass (1) or never (0); default: as the policy decides, see `KSPPipe2CGSetRecompute()`
.  -ksp_pipe2cg_fused <bool> - steps A and B and the dots in one loop over the elements, a jacobi or none preconditioner applied in it (default true; false: the generic kernel and PCApply, same results)
.  -ksp_pipe_check_symmetry - check at set-up that the operator is symmetric (one transpose), error if not
.  -ksp_pipe_check_symmetry_tol <t> - tolerance of that check (default 1e-12)
-  -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - the norm the convergence test uses

   Notes:
   Both iterates of a pass are tested: iteration counts are PCG's up to rounding, never rounded up to even, and
   with no norm the solve stops at the exact -ksp_max_it. Every convergence claim is checked against the true
   residual, and breakdowns are reported with cg's reasons only if they persist once the chains are recomputed.
   Eigenvalue and singular value estimates and KSPSolveTranspose() are supported. Left preconditioning only;
   operator and preconditioner symmetric positive definite. docs/algorithms.md §5 describes the recurrences, the
   fused kernel, residual replacement, the recompute policy and the estimates. PETSc's KSPPIPECG2 has the same
   communication pattern with two-term recurrences and no residual replacement.

   Reference:
   P. Eller and W. Gropp, Scalable non-blocking preconditioned conjugate gradient methods, SC16.

   Level: intermediate

.seealso: `KSPPKPIPECG`, `KSPPKNBPCG`, `KSPPKPCG`, `KSPPIPECG2`, `KSPPipeSetChunks()`, `KSPPipe2CGSetReplacement()`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_PKPIPE2CG(KSP ksp)
{
  KSP_PKPIPE2CG *p2;

  PetscFunctionBegin;
  PetscCall(PetscNew(&p2));
  ksp->data              = (void *)p2;
  p2->replace            = PIPE2CG_DEFAULT_REPLACE;
  p2->gaptol             = PIPE2CG_DEFAULT_GAP;
  p2->rc.user            = -1; /* the policy */
  p2->fused              = PETSC_TRUE;
  p2->pk.recurred        = PETSC_TRUE; /* both vector chains by recurrence */
  p2->pk.check_estimates = Pipe2CGCheckEstimates;
  PetscCall(PKCreate_Common(ksp, &p2->pk, "two CG iterations per non-blocking reduction (three-term recurrences), overlapped with 2 PCApply + 2 MatMult", PETSC_FALSE, Pipe2CGIterate));
  p2->pk.after_solve = Pipe2CGAfterSolve;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", KSPPipeGetCost_PKPIPE2CG));
  PetscCall(PKCGCreate_Common(ksp));
  ksp->ops->setup          = KSPSetUp_PKPIPE2CG;
  ksp->ops->reset          = KSPReset_PKPIPE2CG;
  ksp->ops->destroy        = KSPDestroy_PKPIPE2CG;
  ksp->ops->view           = KSPView_PKPIPE2CG;
  ksp->ops->setfromoptions = KSPSetFromOptions_PKPIPE2CG;
  ksp->ops->buildsolution  = KSPBuildSolution_PKPIPE2CG;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipe2CGSetReplacement_C", KSPPipe2CGSetReplacement_PKPIPE2CG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipe2CGSetRecompute_C", KSPPipe2CGSetRecompute_PKPIPE2CG));
  PetscFunctionReturn(0);
}
