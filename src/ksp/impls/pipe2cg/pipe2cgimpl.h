/*
   pipe2cg: two CG iterations per non-blocking reduction (the communication pattern of Eller & Gropp, SC16),
   built on three-term-recurrence PCG (docs/algorithms.md §5.2-5.5).

   Every vector v of the chain r -> z = M r -> w = A z -> p = M w -> q = A p -> c = M q -> d = A c -> g = M d ->
   h = A g obeys v_{k+1} = a_k v_k - b_k v'_k + c_k v_{k-1} (v' two links down the chain), with a = rho,
   b = rho gamma, c = 1 - rho. Two consecutive indices are kept: set O (index n-1) and set N (index n). One pass
   computes O <- n+1 (step A) and N <- n+2 (step B) in a single fused sweep, then reduces nine inner products of
   the new O and N and the norms in one MPI_Iallreduce, overlapped with c = M q, d = A c, g = M d, h = A g of N.
   The nine products give the scalars of step n exactly and predict those of step n+1; rho and gamma are chosen
   to make the next residual orthogonal to the last two z as the vectors are (not by the exact-arithmetic formulas,
   which let rounding and replacements break the local orthogonality for good): see Pipe2CGStep and
   docs/pipelined-accuracy.md.

   Iterations: both new iterates are tested after the reduction (n-1 first), the first that converges stops the
   solve and is returned, so the count is the true one, never rounded to an even number. A max_it or a breakdown
   that falls on an odd iterate is handled by a last half pass (step A and one small reduction).

   Accuracy: the deep chain propagates rounding errors into r (section 5.5): the gap r - (b - A x) grows, and
   when both sets are recomputed from x_O and x_N (residual replacement, 7 MatMult + 5 PCApply) the gap is injected
   into the recurrences as a perturbation. What matters is the gap against the tolerance (at the end the true
   residual is the recursive one plus the gap) and, for what a replacement injects, against ||r||. So the gap is
   measured, for free at a replacement (the old r_N against the new) and with one MatMult in between (a probe,
   its norm riding in the pass's reduction), and the policy is: with -ksp_pipe2cg_replace k (default 100),
   - a window (the iterations since the last replacement) is replaced after k iterations, as before;
   - it is replaced earlier, before its gap reaches gaptol x the tolerance (-ksp_pipe2cg_replace_gap, 0.1) or
     1e-4 ||r||, unless its gap extrapolated to the end of the solve (predicted from the convergence rate so
     far) stays below half the tolerance;
   - the first probe comes after 16 iterations for a relative tolerance of 1e-10 (later for looser ones, by the
     growth law: 40 for 1e-8); the next where the gap, growing at most like the 5th power of the window (measured
     2-5, fastest early), would reach a threshold; after a replacement, where the gap would reach it if it grew
     as fast as in the window just closed; none in a pass that the norms predict to be the last.
   So a short solve makes no probe and no replacement, a long one one every hundred iterations or so
   (docs/algorithms.md §5.5 has the counts and the alternatives that were tried). Every claimed
   convergence is checked against b - A x. A breakdown is first taken for drift: the chains are recomputed and the
   reduction redone once, and only a breakdown that persists, or that comes with a gap below 1e-6 ||r|| (no drift to
   speak of), is reported.

   While the recompute is on (the policy of pkcgimpl.h: the solve predicted to run for 0.1 x the unknowns, or more
   than 8 replacements, done and predicted, forced by the gap; or -ksp_pipe2cg_recompute) the newer iterate's
   w = A z, p = M w and q = A p are
   recomputed in the overlap window of every pass (predict-and-recompute, Pipe2CGOverlap): the chain then drifts so
   little that the scheduled replacements above are off and only refuted claims replace; that is what brings the
   error at tight tolerances to cg's (docs/algorithms.md §5.5, docs/pipelined-accuracy.md).
*/
#ifndef PKPIPE2CGIMPL_H
#define PKPIPE2CGIMPL_H

#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkcgimpl.h>
#include <pipekrylov/private/pksimd.h>

#define PIPE2CG_NLAMBDA         9    /* inner products per reduction, before the norms */
#define PIPE2CG_DEFAULT_REPLACE 100  /* longest period of residual replacement */
#define PIPE2CG_DEFAULT_GAP     0.1  /* replace when the residual gap reaches this fraction of the tolerance */
#define PIPE2CG_FIRST_PROBE     16   /* iterations into a solve to 1e-10 at which the gap is first measured */
#define PIPE2CG_MIN_PROBE       4    /* iterations into a window before which the gap is not measured */
#define PIPE2CG_GAP_POWER       5.0  /* the gap grows at most about like the 5th power of the window (measured 2-5) */
#define PIPE2CG_REL_GAP         1e-4 /* a replacement injects the gap into the recurrences: at most this relative to r */
#define PIPE2CG_DRIFT_EVIDENCE  1e-6 /* a suspected breakdown is taken for drift only if the gap is at least this relative to r */
#define PIPE2CG_RESTART_GAP     2.0  /* a refuted claim whose true residual is this much larger restarts */

/* Work vectors: set O = x r z w p q c d, set N = r z w p q c d g h (x_N is ksp->vec_sol) */
enum {
  VX,
  VR,
  VZ,
  VW,
  VP,
  VQ,
  VC,
  VD,
  VG,
  VH
};

typedef struct {
  PetscScalar mu, nu, gamma, rho, pap; /* (z,r), (z,A z), mu/nu, rho, (p,A p) = nu/rho of one step */
  PetscReal   mu_mag, nu_mag;          /* a predicted step: the sums of the magnitudes of mu's and nu's terms (0: exact) */
  PetscBool   restart;                 /* no predecessor (step 0, or a restart: rho = 1); a new Lanczos block */
} P2Step;

typedef struct {
  KSP_PK      pk;                   /* must be first */
  PetscInt    replace;              /* -ksp_pipe2cg_replace: longest period of residual replacement, 0 = off */
  PetscReal   gaptol;               /* -ksp_pipe2cg_replace_gap: replace when the gap reaches this fraction of the tolerance, 0 = fixed period */
  Vec         O[8];                 /* index n-1 */
  Vec         N[10];                /* index n; N[VX] is ksp->vec_sol during a solve */
  Vec         xtest;                /* the iterate under test when it is not ksp->vec_sol (for KSPBuildSolution in monitors) */
  PetscBool   restart;              /* restart (rho = 1) at the next replacement */
  PetscBool   fused;                /* -ksp_pipe2cg_fused: the one-loop kernel for steps A and B (else the generic PKVecFused) */
  PKRecompute rc;                   /* w, p, q of N recomputed from z in the overlap window: -ksp_pipe2cg_recompute, else the policy */
  PetscBool   replace_set, gap_set; /* -ksp_pipe2cg_replace, -ksp_pipe2cg_replace_gap given (else the defaults in force) */
  /* in force in the last (or current) solve */
  PetscInt  period;  /* the replacement period: replace, or 0 while recomputing unless replace_set */
  PetscReal gapeff;  /* the gap tolerance: gaptol, or 0 while recomputing unless gap_set */
  PetscBool fusedpc; /* the last solve applied the (diagonal) preconditioner inside that kernel */
  Vec       D;       /* the diagonal of a diagonal preconditioner */
  /* what happened in the last solve, for -ksp_view */
  PetscInt  nreplace;  /* residual replacements */
  PetscInt  nadaptive; /* of those, brought forward by the measured gap */
  PetscInt  nprobe;    /* gap measurements between replacements (one MatMult each) */
  PetscReal maxgap;    /* the largest gap ||r - (b - A x)|| measured, relative to the tolerance */
  PetscInt  nfalse;    /* convergence claims refuted by the true residual */
  PetscInt  nrecover;  /* breakdowns that a replacement showed to be drift */
  PetscInt  nrestart;  /* restarts after the recurrences had drifted too far */
  PetscInt  nlate;     /* passes whose overlapped work was held back for a predicted convergence that did not come */
} KSP_PKPIPE2CG;

#if defined(PK_HAVE_V4D)
/* steps A [and B] of a pass and its products in one loop over the elements (pipe2cgfused.c) */
PETSC_INTERN PetscErrorCode Pipe2CGFusedPass(KSP, Vec *, Vec *, PetscBool, PetscBool, PetscInt, const P2Step *, const P2Step *, Vec, PetscScalar[]);
#endif
/* the iteration of one solve (pipe2cgsolve.c) */
PETSC_INTERN PetscErrorCode Pipe2CGSolve(KSP, KSP_PKPIPE2CG *);

#endif
