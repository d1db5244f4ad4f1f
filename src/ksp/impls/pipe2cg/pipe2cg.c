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
   So a short solve (poisson27, 40 iterations to 1e-8) makes no probe and no replacement, ex2 600x600 jacobi
   (1014 iterations) 8, and the variable-coefficient problem without preconditioner (2200 iterations) about 80.
   (Skipping periodic replacements where the gap stayed far below the tolerance, and predicting a new window's
   gap from the residual's decrease, both cost that problem 5-7% more iterations at rtol 1e-6: not done.) Every claimed
   convergence is checked against b - A x. A breakdown is first taken for drift: the chains are recomputed and the
   reduction redone once, and only a breakdown that persists, or that comes with a gap below 1e-6 ||r|| (no drift to
   speak of), is reported.

   Below a relative tolerance of 5e-10 (or with -ksp_pipe2cg_recompute) the newer iterate's w = A z, p = M w and
   q = A p are recomputed in the overlap window of every pass (predict-and-recompute, Pipe2CGOverlap): the chain
   then drifts so little that the scheduled replacements above are off and only refuted claims replace; that is
   what brings the error at tight tolerances to cg's (docs/algorithms.md §5.5, docs/pipelined-accuracy.md).
*/
#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pkcgimpl.h>
#include <pipekrylov/private/pksimd.h>

#define PIPE2CG_NLAMBDA         9     /* inner products per reduction, before the norms */
#define PIPE2CG_DEFAULT_REPLACE 100   /* longest period of residual replacement */
#define PIPE2CG_DEFAULT_GAP     0.1   /* replace when the residual gap reaches this fraction of the tolerance */
#define PIPE2CG_FIRST_PROBE     16    /* iterations into a solve to 1e-10 at which the gap is first measured */
#define PIPE2CG_MIN_PROBE       4     /* iterations into a window before which the gap is not measured */
#define PIPE2CG_GAP_POWER       5.0   /* the gap grows at most about like the 5th power of the window (measured 2-5) */
#define PIPE2CG_REL_GAP         1e-4  /* a replacement injects the gap into the recurrences: at most this relative to r */
#define PIPE2CG_DRIFT_EVIDENCE  1e-6  /* a suspected breakdown is taken for drift only if the gap is at least this relative to r */
#define PIPE2CG_RESTART_GAP     2.0   /* a refuted claim whose true residual is this much larger restarts */
#define PIPE2CG_AUTO_RTOL       5e-10 /* below this relative tolerance the recompute is on by default: the error of the
                                         plain recurrences with replacements is up to 2.8x cg's at 1e-10 and 4-11x at
                                         1e-11..1e-13, within 1.3x at 1e-8 (docs/pipelined-accuracy.md) */

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
  PetscReal   mu_mag, nu_mag;           /* a predicted step: the sums of the magnitudes of mu's and nu's terms (0: exact) */
} P2Step;

typedef struct {
  KSP_PK    pk;        /* must be first */
  PetscInt  replace;   /* -ksp_pipe2cg_replace: longest period of residual replacement, 0 = off */
  PetscReal gaptol;    /* -ksp_pipe2cg_replace_gap: replace when the gap reaches this fraction of the tolerance, 0 = fixed period */
  Vec       O[8];      /* index n-1 */
  Vec       N[10];     /* index n; N[VX] is ksp->vec_sol during a solve */
  Vec       xtest;     /* the iterate under test when it is not ksp->vec_sol (for KSPBuildSolution in monitors) */
  PetscBool restart;   /* restart (rho = 1) at the next replacement */
  PetscBool fused;     /* -ksp_pipe2cg_fused: the one-loop kernel for steps A and B (else the generic PKVecFused) */
  PetscInt  recompute; /* -ksp_pipe2cg_recompute: w, p, q of N recomputed from z in the overlap window; 1 yes,
                          0 no, -1 (default) when the relative tolerance is below PIPE2CG_AUTO_RTOL */
  PetscBool replace_set, gap_set; /* -ksp_pipe2cg_replace, -ksp_pipe2cg_replace_gap given (else the defaults in force) */
  /* in force in the last (or current) solve */
  PetscBool rc;        /* the recompute */
  PetscInt  period;    /* the replacement period: replace, or 0 with the recompute unless replace_set */
  PetscReal gapeff;    /* the gap tolerance: gaptol, or 0 with the recompute unless gap_set */
  PetscInt  nrecompute; /* passes of the last solve that recomputed them */
  PetscBool fusedpc;   /* the last solve applied the (diagonal) preconditioner inside that kernel */
  Vec       D;         /* the diagonal of a diagonal preconditioner */
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

/* Scalars of a step from its mu and nu, given the previous step (NULL for step 0), with PETSc cg's breakdown tests:
   (r,z) changing sign = indefinite PC; (p,A p) = nu/rho zero or changing sign = indefinite operator.
   With o = {(z_k, r_{k-1}), (z_k, A z_{k-1}), (z_{k-1}, r_{k-1})} (may be NULL: the classical formulas), rho and
   gamma are those that make r_{k+1} = rho (r_k - gamma A z_k) + (1 - rho) r_{k-1} orthogonal to z_k and z_{k-1} as
   the vectors are, not as exact arithmetic would have them: there (z_k, r_{k-1}) = 0 and the classical
   gamma = mu/nu, rho = 1/(1 - gamma mu / (gamma_{k-1} mu_{k-1} rho_{k-1})) follow. Rounding (and the gap a
   residual replacement injects) breaks that local orthogonality; the classical formulas then let it persist and
   grow, the formulas from the products restore it at every step, at no cost: the products are among the nine
   of the pass (docs/algorithms.md §5.5). (p, A p) = mu / alpha with alpha = rho gamma (= nu/rho classically). */
static KSPConvergedReason Pipe2CGStep(const P2Step *prev, P2Step *cur, const PetscScalar *o)
{
  KSPConvergedReason r = PKCGCheckGamma(cur->mu, prev ? prev->mu : 0.0, (PetscBool)!prev);

  if (r) return r; /* (r, z) = 0: the iterate is the solution; sign change: indefinite PC */
  if (cur->nu == 0.0) return KSP_DIVERGED_INDEFINITE_MAT;
  cur->gamma = cur->mu / cur->nu;
  if (!prev) cur->rho = 1.0;
  else if (o) {
    /* (r_{k+1}, z_k) = rho (mu - gamma nu) + (1 - rho) x1 = 0 and (r_{k+1}, z_{k-1}) = rho (x1 - gamma x2) + (1 - rho) m = 0 */
    const PetscScalar x1 = o[0], x2 = o[1], m = o[2], dg = m * cur->nu - x1 * x2;
    PetscScalar       dr;

    if (dg == 0.0) return KSP_DIVERGED_BREAKDOWN;
    cur->gamma = (m * cur->mu - x1 * x1) / dg;
    dr         = m + cur->gamma * x2 - x1;
    if (dr == 0.0) return KSP_DIVERGED_BREAKDOWN;
    cur->rho = m / dr;
  } else {
    const PetscScalar den = prev->gamma * prev->mu * prev->rho, t = den != 0.0 ? 1.0 - cur->gamma * cur->mu / den : 0.0;
    if (t == 0.0) return KSP_DIVERGED_BREAKDOWN;
    cur->rho = 1.0 / t;
  }
  if (PetscIsInfOrNanScalar(cur->rho) || PetscIsInfOrNanScalar(cur->gamma)) return KSP_DIVERGED_BREAKDOWN;
  cur->pap = cur->mu / (cur->rho * cur->gamma); /* mu / alpha; nu / rho in exact arithmetic */
  if (cur->pap == 0.0 || (prev && PKCGSignsDiffer(cur->pap, prev->pap))) return KSP_DIVERGED_INDEFINITE_MAT;
  return KSP_CONVERGED_ITERATING;
}

/* mu and nu of step n+1 from the nine products of indices n (N) and n-1 (O) and the coefficients of step n */
static void Pipe2CGPredict(const PetscScalar l[], PetscScalar a, PetscScalar b, PetscScalar c, P2Step *next)
{
  next->nu     = a * a * l[0] - 2.0 * a * b * l[1] + 2.0 * a * c * l[2] + b * b * l[3] - 2.0 * b * c * l[4] + c * c * l[5];
  next->mu     = a * a * l[6] - 2.0 * a * b * l[0] + 2.0 * a * c * l[7] + b * b * l[1] - 2.0 * b * c * l[2] + c * c * l[8];
  next->nu_mag = PetscAbsScalar(a * a * l[0]) + PetscAbsScalar(2.0 * a * b * l[1]) + PetscAbsScalar(2.0 * a * c * l[2]) + PetscAbsScalar(b * b * l[3]) + PetscAbsScalar(2.0 * b * c * l[4]) + PetscAbsScalar(c * c * l[5]);
  next->mu_mag = PetscAbsScalar(a * a * l[6]) + PetscAbsScalar(2.0 * a * b * l[0]) + PetscAbsScalar(2.0 * a * c * l[7]) + PetscAbsScalar(b * b * l[1]) + PetscAbsScalar(2.0 * b * c * l[2]) + PetscAbsScalar(c * c * l[8]);
}

/* A predicted mu or nu with no significant digit left: the cancellation of its terms is at the rounding level
   (the residual has reached it: a problem that converges exactly, as ex2 3x3 does after a few steps). Its sign is
   noise, not evidence of an indefinite operator or preconditioner. */
static PetscBool Pipe2CGInsignificant(const P2Step *s)
{
  const PetscReal tol = 64.0 * PETSC_MACHINE_EPSILON;
  return (PetscBool)(PetscAbsScalar(s->mu) <= tol * s->mu_mag || PetscAbsScalar(s->nu) <= tol * s->nu_mag);
}

static const char *Pipe2CGReasonWhy(KSPConvergedReason r)
{
  switch (r) {
  case KSP_CONVERGED_ATOL:
    return "(r, z) = 0";
  case KSP_DIVERGED_INDEFINITE_PC:
    return "(r, z) changes sign: indefinite preconditioner";
  case KSP_DIVERGED_INDEFINITE_MAT:
    return "(p, A p) zero or changing sign: indefinite operator";
  default:
    return "three-term recurrence breaks down (rho undefined)";
  }
}


#if defined(PK_HAVE_V4D)
/* Steps A and B of a pass and its inner products, in one loop over the elements: each element's 18 values are
   loaded once, updated in registers and stored once (the generic PKVecFused walks 14 updates and 11 dots over
   cache blocks, touching each vector several times). Same arithmetic per element as the generic path. */
typedef struct {
  PetscScalar *o[8], *n[10]; /* set O: x r z w p q c d; set N: x r z w p q c d g h */
  const PetscScalar *dinv;   /* with step B, c_N = M q_N = q_N .* dinv (a diagonal preconditioner), or NULL */
  PetscScalar  a, b, c;      /* step A: O_x = a N_x + b N_z + c O_x, O_v = a N_v - b N_v' + c O_v */
  PetscScalar  e, f, g;      /* step B: N_x = e O_x + f O_z + g N_x, N_v = e O_v - f O_v' + g N_v */
  PetscInt     len;
  PetscBool    stepB;        /* else step A only (the last half pass), no dots */
  PetscBool    dots;         /* the dots of the new sets (with step B) */
  PetscInt     normv;        /* -1: no norms, else VZ or VR: lambda_9, 10 = norms of that vector of N and O */
  PetscScalar  out[11];      /* lambda_0..8 [, 9, 10], local */
} P2Fused;

  #define P2_UPDATE(T, LD, ST, BC, DOT) \
    do { \
      const T a = BC(p->a), mb = BC(-p->b), b = BC(p->b), c = BC(p->c); \
      T       nx = LD(n[VX]), nr = LD(n[VR]), nz = LD(n[VZ]), nw = LD(n[VW]), np = LD(n[VP]), nq = LD(n[VQ]); \
      const T nc = LD(n[VC]), nd = LD(n[VD]), ng = LD(n[VG]), nh = LD(n[VH]); \
      T       ox, or, oz, ow, op, oq, oc, od; \
      if (readO) { \
        ox = a * nx + b * nz + c * LD(o[VX]); \
        or = a * nr + mb * nw + c * LD(o[VR]); \
        oz = a * nz + mb * np + c * LD(o[VZ]); \
        ow = a * nw + mb * nq + c * LD(o[VW]); \
        op = a * np + mb * nc + c * LD(o[VP]); \
        oq = a * nq + mb * nd + c * LD(o[VQ]); \
        oc = a * nc + mb * ng + c * LD(o[VC]); \
        od = a * nd + mb * nh + c * LD(o[VD]); \
      } else { \
        ox = a * nx + b * nz; \
        or = a * nr + mb * nw; \
        oz = a * nz + mb * np; \
        ow = a * nw + mb * nq; \
        op = a * np + mb * nc; \
        oq = a * nq + mb * nd; \
        oc = a * nc + mb * ng; \
        od = a * nd + mb * nh; \
      } \
      ST(o[VX], ox); ST(o[VR], or); ST(o[VZ], oz); ST(o[VW], ow); ST(o[VP], op); ST(o[VQ], oq); ST(o[VC], oc); ST(o[VD], od); \
      if (p->stepB) { \
        const T e = BC(p->e), f = BC(p->f), mf = BC(-p->f), g = BC(p->g); \
        if (readN) { \
          nx = e * ox + f * oz + g * nx; \
          nr = e * or + mf * ow + g * nr; \
          nz = e * oz + mf * op + g * nz; \
          nw = e * ow + mf * oq + g * nw; \
          np = e * op + mf * oc + g * np; \
          nq = e * oq + mf * od + g * nq; \
        } else { \
          nx = e * ox + f * oz; \
          nr = e * or + mf * ow; \
          nz = e * oz + mf * op; \
          nw = e * ow + mf * oq; \
          np = e * op + mf * oc; \
          nq = e * oq + mf * od; \
        } \
        ST(n[VX], nx); ST(n[VR], nr); ST(n[VZ], nz); ST(n[VW], nw); ST(n[VP], np); ST(n[VQ], nq); \
        if (p->dinv) ST(n[VC], nq * LD(p->dinv)); \
        if (dots) { \
          DOT(0, nz, nw); DOT(1, nz, nq); DOT(2, nz, ow); DOT(3, np, nq); DOT(4, np, ow); \
          DOT(5, oz, ow); DOT(6, nz, nr); DOT(7, nz, or); DOT(8, oz, or); \
          if (normv == VZ) { DOT(9, nz, nz); DOT(10, oz, oz); } \
          else if (normv == VR) { DOT(9, nr, nr); DOT(10, or, or); } \
        } \
      } \
    } while (0)

  #define P2_LDV(q)    (*(const PKv4d *)((q) + i))
  #define P2_STV(q, v) (*(PKv4d *)((q) + i) = (v))
  #define P2_BCV(s)    ((PKv4d){(s), (s), (s), (s)})
  #define P2_LDS(q)    ((q)[i])
  #define P2_STS(q, v) ((q)[i] = (v))
  #define P2_BCS(s)    (s)

PK_SIMD_CLONES static void P2FusedKernel(P2Fused *p)
{
  PetscScalar *const *o = p->o, *const *n = p->n;
  const PetscBool     readO = (PetscBool)(p->c != 0.0), readN = (PetscBool)(p->g != 0.0); /* 0 x garbage must not leak */
  const PetscBool     dots  = p->dots;
  const PetscInt      normv = p->normv, len = p->len;
  PetscScalar         sum[11] = {0};

  PK_FUSED_BLOCKS(len, 11, sum, dots, P2_UPDATE, P2_LDV, P2_STV, P2_BCV, P2_LDS, P2_STS, P2_BCS)
  for (PetscInt k = 0; k < 11; k++) p->out[k] = sum[k];
}

/* The pass of steps A [and B] with the dots of the new sets [nd values into out] */
static PetscErrorCode Pipe2CGFusedPass(KSP ksp, Vec *O, Vec *N, PetscBool stepB, PetscInt nd, const P2Step *sA, const P2Step *sB, Vec dinv, PetscScalar out[])
{
  P2Fused         p;
  const PetscBool wc = (PetscBool)(stepB && dinv); /* c_N is written */

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 8; k++) PetscCall(VecGetArray(O[k], &p.o[k]));
  for (PetscInt k = 0; k < 10; k++) {
    if (k <= VQ || (k == VC && wc)) PetscCall(VecGetArray(N[k], &p.n[k]));
    else PetscCall(VecGetArrayRead(N[k], (const PetscScalar **)&p.n[k]));
  }
  if (wc) PetscCall(VecGetArrayRead(dinv, &p.dinv));
  else p.dinv = NULL;
  PetscCall(VecGetLocalSize(N[VR], &p.len));
  p.a     = sA->rho;
  p.b     = sA->rho * sA->gamma;
  p.c     = 1.0 - sA->rho;
  p.stepB = stepB;
  p.dots  = (PetscBool)(stepB && nd > 0);
  if (stepB) {
    p.e = sB->rho;
    p.f = sB->rho * sB->gamma;
    p.g = 1.0 - sB->rho;
  } else p.e = p.f = p.g = 0.0;
  p.normv = nd > PIPE2CG_NLAMBDA ? (ksp->normtype == KSP_NORM_PRECONDITIONED ? VZ : VR) : -1;
  PetscCall(PetscLogEventBegin(PK_Event_VecFused, 0, 0, 0, 0));
  P2FusedKernel(&p);
  PetscCall(PetscLogEventEnd(PK_Event_VecFused, 0, 0, 0, 0));
  PetscCall(PetscLogFlops((stepB ? 14 * 5.0 + 2.0 * nd + (wc ? 1.0 : 0.0) : 8 * 5.0) * p.len));
  for (PetscInt k = 0; k < nd; k++) out[k] = p.out[k];
  if (wc) PetscCall(VecRestoreArrayRead(dinv, &p.dinv));
  for (PetscInt k = 0; k < 8; k++) PetscCall(VecRestoreArray(O[k], &p.o[k]));
  for (PetscInt k = 0; k < 10; k++) {
    if (k <= VQ || (k == VC && wc)) PetscCall(VecRestoreArray(N[k], &p.n[k]));
    else PetscCall(VecRestoreArrayRead(N[k], (const PetscScalar **)&p.n[k]));
  }
  PetscFunctionReturn(0);
}
#endif

/* Section 5.5: recompute both sets from x_O and x_N (7 MatMult + 5 PCApply, no reduction). The new r_N is built in
   the scratch g_N (stale until the overlapped work) so that the gap it removes, r_N - (b - A x_N), is measured in
   the same pass over memory: gap[0] = local ||gap||^2, gap[1] = local ||b - A x_N||^2. */
static PetscErrorCode Pipe2CGReplace(KSP ksp, KSP_PKPIPE2CG *p2, PetscScalar gap[2])
{
  KSP_PK *pk = &p2->pk;
  Vec    *O = p2->O, *N = p2->N, t;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PK_Event_Replace, ksp, 0, 0, 0));
  PetscCall(PKMatMult(ksp, pk, N[VX], N[VG]));
  {
    const PKAxpbypcz u[2] = {
      {N[VG], 1.0, ksp->vec_rhs, 0.0, NULL, -1.0}, /* g = b - A x_N */
      {N[VR], 1.0, N[VG],        0.0, NULL, -1.0}  /* r_N <- (b - A x_N) - r_N, the gap */
    };
    const PKDot d[2] = {
      {N[VR], N[VR]},
      {N[VG], N[VG]}
    };
    PetscCall(PKVecFused(pk, 2, u, 2, d, gap));
  }
  t     = N[VR]; /* the new residual takes the place of r_N; the gap vector becomes scratch */
  N[VR] = N[VG];
  N[VG] = t;
  PetscCall(PKMatMult(ksp, pk, O[VX], O[VR]));
  PetscCall(VecAYPX(O[VR], -1.0, ksp->vec_rhs));
  for (PetscInt s = 0; s < 2; s++) {
    Vec           *v    = s ? N : O;
    const PetscInt last = s ? VQ : VD;
    for (PetscInt k = VZ; k <= last; k++) {
      if (k % 2 == 0) PetscCall(PKPCApply(ksp, pk, v[k - 1], v[k])); /* z, p, c = M (r, w, q) */
      else PetscCall(PKMatMult(ksp, pk, v[k - 1], v[k]));            /* w, q, d = A (z, p, c) */
    }
  }
  PetscCall(PetscLogEventEnd(PK_Event_Replace, ksp, 0, 0, 0));
  p2->nreplace++;
  PetscFunctionReturn(0);
}

/* Measure the gap r_N - (b - A x_N) without replacing (1 MatMult, g_N as scratch): gap[0] = local ||gap||^2,
   gap[1] = local ||r_N||^2 */
static PetscErrorCode Pipe2CGProbe(KSP ksp, KSP_PKPIPE2CG *p2, PetscScalar gap[2])
{
  KSP_PK          *pk = &p2->pk;
  Vec             *N  = p2->N;
  const PKAxpbypcz u  = {N[VG], 1.0, ksp->vec_rhs, -1.0, N[VR], -1.0}; /* g = b - r_N - A x_N */
  const PKDot      d[2] = {
    {N[VG], N[VG]},
    {N[VR], N[VR]}
  };

  PetscFunctionBegin;
  PetscCall(PKMatMult(ksp, pk, N[VX], N[VG]));
  PetscCall(PKVecFused(pk, 1, &u, 2, d, gap));
  p2->nprobe++;
  PetscFunctionReturn(0);
}

/* The local dots of a pass: lambda_0..8, then the norm of N [and of O] (section 5.3); returns their number */
static PetscInt Pipe2CGDots(KSP ksp, Vec *O, Vec *N, PKDot d[])
{
  const PKDot l[PIPE2CG_NLAMBDA] = {
    {N[VZ], N[VW]},
    {N[VZ], N[VQ]},
    {N[VZ], O[VW]},
    {N[VP], N[VQ]},
    {N[VP], O[VW]},
    {O[VZ], O[VW]},
    {N[VZ], N[VR]},
    {N[VZ], O[VR]},
    {O[VZ], O[VR]}
  };
  for (PetscInt k = 0; k < PIPE2CG_NLAMBDA; k++) d[k] = l[k];
  if (ksp->normtype == KSP_NORM_PRECONDITIONED || ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
    const PetscInt v = ksp->normtype == KSP_NORM_PRECONDITIONED ? VZ : VR;
    d[9].x           = N[v];
    d[9].y           = N[v];
    d[10].x          = O[v];
    d[10].y          = O[v];
    return 11;
  }
  return PIPE2CG_NLAMBDA; /* natural: sqrt(lambda_6) and sqrt(lambda_8); none */
}

/* Test iterate `its`; nrm2 is its norm's dot, rz its (r,z). On a claimed convergence the true residual of x decides;
   a refuted claim sets *replace. Returns with ksp->reason set when the solve must stop at this iterate. */
static PetscErrorCode Pipe2CGTest(KSP ksp, KSP_PKPIPE2CG *p2, PetscInt its, Vec x, PetscScalar nrm2, PetscScalar rz, PetscBool *replace)
{
  KSP_PK   *pk = &p2->pk;
  PetscReal dp, truenorm;

  PetscFunctionBegin;
  ksp->its  = its;
  p2->xtest = x == ksp->vec_sol ? NULL : x;
  PetscCall(PKNormFromDots(ksp, nrm2, nrm2, rz, &dp));
  PetscCall(PKConvergenceStep(ksp, dp));
  p2->xtest = NULL;
  if (its > 0) {
    PetscBool refuted = PETSC_FALSE;
    /* g_N and h_N are scratch: after a refuted claim the next pass replaces everything they feed */
    PetscCall(PKCGCheckClaim(ksp, pk, its, x, dp, p2->N[VG], p2->N[VH], &p2->nfalse, &refuted, &truenorm));
    if (refuted) {
      *replace = PETSC_TRUE;
      /* a recursive residual that far off has lost the three-term recurrence too: restart from x */
      if (truenorm > PIPE2CG_RESTART_GAP * dp) p2->restart = PETSC_TRUE;
    }
  }
  if (!ksp->reason && its >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  PetscFunctionReturn(0);
}

/* When to measure the gap r_N - (b - A x_N) and when to replace (section 5.5, and the policy in the header) */
typedef struct {
  PetscInt  lastrep;   /* iteration of the last replacement (0: the start) */
  PetscInt  nextprobe; /* measure the gap at the first pass that reaches this iteration */
  PetscReal rstart;    /* ||r|| at lastrep */
  PetscReal relgap;    /* the last gap measured, relative to ||r|| */
  PetscReal ttolr;     /* the tolerance carried over to the 2-norm of r: ||r_0|| max(rtol, atol / norm_0) */
  PetscReal dp0, ttol; /* the convergence test's norm at iteration 0 and its tolerance */
} P2Sched;

/* After the gap has been measured at iteration n, by a probe or by the replacement that removed it (v[0] = ||gap||^2,
   v[1] = ||r_N||^2): replace at the next pass or not, and when to measure next. See the header for the policy. */
static PetscErrorCode Pipe2CGSchedule(KSP ksp, KSP_PKPIPE2CG *p2, P2Sched *ps, PetscInt n, PetscBool replaced, const PetscScalar v[], PetscBool *replace)
{
  const PetscReal big = (PetscReal)PETSC_MAX_INT / 4, gap = PetscSqrtReal(PetscAbsScalar(v[0])), rn = PetscSqrtReal(PetscAbsScalar(v[1]));
  const PetscInt  L   = PetscMax(n - ps->lastrep, 1);
  const PetscReal G   = ps->ttolr > 0 ? gap / (p2->gapeff * ps->ttolr) : big; /* 1: the gap at the replacement threshold */
  const PetscReal R   = rn > 0 ? gap / (rn * PIPE2CG_REL_GAP) : big;          /* 1: the relative gap at its limit */
  PetscReal       next;                                                       /* window length of the next measurement */

  PetscFunctionBegin;
  if (ps->ttolr > 0) p2->maxgap = PetscMax(p2->maxgap, gap / ps->ttolr);
  ps->relgap = rn > 0 ? gap / rn : 0.0;
  if (replaced) {
    /* the new window's gap may grow as fast as this one's did (scaling it by the residual's decrease failed where
       the residual stagnates: variable coefficients, no preconditioner) */
    const PetscReal g = G;

    PetscCall(PetscInfo(ksp, "residual replacement at iteration %" PetscInt_FMT ", %" PetscInt_FMT " iterations after the previous one: gap %g x the tolerance, %g x ||r||\n", n, n - ps->lastrep, ps->ttolr > 0 ? (double)(gap / ps->ttolr) : 0.0, rn > 0 ? (double)(gap / rn) : 0.0));
    ps->lastrep   = n;
    ps->rstart    = rn;
    next          = PetscMin(g > 0 ? L * PetscPowReal(1.0 / g, 1.0 / PIPE2CG_GAP_POWER) : big, R > 0 ? L * PetscPowReal(1.0 / R, 1.0 / PIPE2CG_GAP_POWER) : big);
    ps->nextprobe = n + (PetscInt)PetscMax((PetscReal)PIPE2CG_MIN_PROBE, PetscMin(next, big));
  } else {
    const PetscReal dp   = ksp->rnorm;
    PetscReal       rate = 0.0, rem = (PetscReal)(ksp->max_it - n), end;

    /* iterations left at the average rate so far (CG speeds up: an overestimate), and the gap then */
    if (dp > 0 && ps->dp0 > dp && n > 0) rate = PetscLogReal(ps->dp0 / dp) / n;
    if (rate > 0) rem = PetscMin(rem, PetscMax(0.0, PetscLogReal(dp / ps->ttol) / rate));
    end = G * p2->gapeff * PetscPowReal((L + rem) / L, PIPE2CG_GAP_POWER - 1.0);
    PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ", %" PetscInt_FMT " iterations after the last replacement: gap %g x the tolerance, %g x ||r||; predicted %g x the tolerance after %g more iterations\n", n, L, ps->ttolr > 0 ? (double)(gap / ps->ttolr) : 0.0, rn > 0 ? (double)(gap / rn) : 0.0, (double)end, (double)rem));
    if (end < 0.5) next = L + PetscMax(rem, (PetscReal)PIPE2CG_MIN_PROBE); /* below half the tolerance up to the predicted end */
    else if (G >= 0.5 || R >= 0.5) {
      *replace = PETSC_TRUE; /* near a threshold: replace now rather than measure again */
      p2->nadaptive++;
      next = big;
    } else next = PetscMin(L * PetscPowReal(1.0 / G, 1.0 / PIPE2CG_GAP_POWER), L * PetscPowReal(1.0 / R, 1.0 / PIPE2CG_GAP_POWER));
    if (!*replace) ps->nextprobe = PetscMax(n + 2, ps->lastrep + (PetscInt)PetscMin(PetscCeilReal(next), big));
  }
  PetscFunctionReturn(0);
}

/* The work overlapped with a pass's reduction: c = M q, d = A c, g = M d, h = A g of N (the chain beyond q, which the
   next step A reads) and, with -ksp_pipe2cg_recompute, first w = A z, p = M w, q = A p of N: predict-and-recompute
   as pipecg's (docs/algorithms.md §4.2, §5.5): the pass's products were taken on the recurred w, p, q (the
   prediction) and the recurrences from here on use the recomputed ones, so their rounding errors are not carried
   on. fresh: the chain is exact already (the pass replaced it). row: close iteration row n-1 after c and d (the
   first half of the overlapped work is the first iteration's, for the monitor); -1: no row. */
static PetscErrorCode Pipe2CGOverlap(KSP ksp, KSP_PKPIPE2CG *p2, PetscBool fresh, PetscBool *c_ready, PetscInt row)
{
  KSP_PK *pk = &p2->pk;
  Vec    *N  = p2->N;

  PetscFunctionBegin;
  if (p2->rc && !fresh) {
    PetscCall(PKMatMult(ksp, pk, N[VZ], N[VW])); /* w = A z */
    PetscCall(PKPCApply(ksp, pk, N[VW], N[VP])); /* p = M w */
    PetscCall(PKMatMult(ksp, pk, N[VP], N[VQ])); /* q = A p */
    *c_ready = PETSC_FALSE;
    p2->nrecompute++;
  }
  if (!*c_ready) PetscCall(PKPCApply(ksp, pk, N[VQ], N[VC]));
  PetscCall(PKMatMult(ksp, pk, N[VC], N[VD]));
  if (row >= 0) PetscCall(PKRecIterEnd(pk->rec, row));
  PetscCall(PKPCApply(ksp, pk, N[VD], N[VG]));
  PetscCall(PKMatMult(ksp, pk, N[VG], N[VH]));
  PetscFunctionReturn(0);
}

/* The main loop, pass by pass (docs/algorithms.md §5.4): each pass makes two iterations with one reduction.
     plan      what the pass does: both steps or only the last half one, a gap probe, a replacement, a redo
     steps     step A (O <- n+1) and step B (N <- n+2) in one sweep, with the local products of the new sets
     reduce    the products [and the gap] in one non-blocking reduction, overlapped with c, d, g, h of N
     test      iterates n-1 and n against the convergence test (the first that converges ends the solve)
     advance   step n from the products, step n+1 predicted from them; a step that fails is first taken for
               rounding: the next pass is a redo (recompute both chains from x, reduce again, no steps)
   The state that lives from one pass to the next is P2Loop; what one pass does is P2Pass. */
typedef struct {
  PetscInt           n;          /* index of set N, the newer iterate (set O holds n-1) */
  P2Step             sA, sB;     /* the steps of the coming pass: n -> n+1 (step A) and n+1 -> n+2 (step B) */
  KSPConvergedReason pending;    /* a breakdown predicted for step n+1, reported once iterate n+1 is tested */
  PetscBool          replace;    /* the coming pass replaces the residuals (period over, gap, refuted claim) */
  PetscBool          redo;       /* the coming pass recomputes both chains and redoes the reduction, no steps */
  PetscReal          dpm2, dpm4; /* the norms of the last two even iterates: they predict the last pass */
  PetscBool          adaptive;   /* the measured gap schedules probes and replacements (else the fixed period) */
  PetscBool          diagpc;     /* c_N = M q_N is computed inside the fused sweep (a diagonal preconditioner) */
  PetscInt           nd;         /* local products of a pass: the nine lambdas and the norms */
  PKDot              d[11];
  P2Sched            ps;
} P2Loop;

typedef struct {
  PetscBool half;    /* only step A, then a small blocking test of n+1, and the solve ends */
  PetscBool probe;   /* the gap r_N - (b - A x_N) is measured (one MatMult) and rides in the reduction */
  PetscBool replace; /* the residuals are replaced after the steps (in a redo, instead of them) */
  PetscBool lazy;    /* the norms predict that the pass converges: its overlapped work waits for the verdict */
  PetscBool c_ready; /* c_N = M q_N is computed already (by the fused sweep) */
  PetscInt  nred;    /* values in the reduction: the products, and the gap and ||r_N|| with a probe or replacement */
} P2Pass;

/* The pipeline fill: index 0 and its chain up to h, iterate 0 tested, the steps of the first pass */
static PetscErrorCode Pipe2CGStart(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st)
{
  KSP_PK            *pk  = &p2->pk;
  Vec               *N   = p2->N;
  const PetscScalar *lam = pk->red.global;
  PetscScalar        l[PIPE2CG_NLAMBDA];
  P2Step             s0, s1;
  PetscBool          replace = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  st->ps.nextprobe = PETSC_MAX_INT;
  ksp->its         = 0;
  p2->nreplace = p2->nadaptive = p2->nprobe = p2->nfalse = p2->nrecover = p2->nrestart = p2->nlate = p2->nrecompute = 0;
  p2->restart  = PETSC_FALSE;
  p2->maxgap   = 0.0;
  p2->rc       = (PetscBool)(p2->recompute == 1); /* auto: decided after the fill, from the tolerance */
  p2->fusedpc  = PETSC_FALSE;
  p2->period   = p2->replace;
  p2->gapeff   = p2->gaptol;
  N[VX]        = ksp->vec_sol;

  PetscCall(PKCGInitialResidual(ksp, pk, N[VR]));
  PetscCall(PKPCApply(ksp, pk, N[VR], N[VZ]));
#if defined(PK_HAVE_V4D)
  /* a diagonal preconditioner is applied inside the pass (c_N = M q_N), if it computes exactly what PCApply does:
     checked on z = M r */
  if (p2->fused) PetscCall(PKCGDiagonalPC(ksp, N[VG], p2->D, &st->diagpc));
  if (st->diagpc) PetscCall(PKCGDiagonalSame(p2->D, N[VR], N[VZ], &st->diagpc));
#endif
  PetscCall(PKMatMult(ksp, pk, N[VZ], N[VW]));
  PetscCall(PKPCApply(ksp, pk, N[VW], N[VP]));
  PetscCall(PKMatMult(ksp, pk, N[VP], N[VQ]));
  {
    PKDot    f[6] = {
      {N[VZ], N[VW]},
      {N[VZ], N[VQ]},
      {N[VP], N[VQ]},
      {N[VZ], N[VR]},
      {N[VZ], N[VZ]},
      {N[VR], N[VR]}
    };
    PetscInt nf = 4, nrr; /* and (r,r) for the scale of the gap */
    if (ksp->normtype == KSP_NORM_PRECONDITIONED) nf = 5;
    else if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
      f[4].x = f[4].y = N[VR];
      nf              = 5;
    }
    nrr = ksp->normtype == KSP_NORM_UNPRECONDITIONED ? 4 : nf;
    if (nrr == nf) f[nf++] = (PKDot){N[VR], N[VR]};
    PetscCall(PKVecFused(pk, 0, NULL, nf, f, pk->red.local));
    PetscCall(PKReduceBegin(&pk->red, nf));
    if (ksp->max_it > 0) {
      PetscCall(PKPCApply(ksp, pk, N[VQ], N[VC]));
      PetscCall(PKMatMult(ksp, pk, N[VC], N[VD]));
      PetscCall(PKPCApply(ksp, pk, N[VD], N[VG]));
      PetscCall(PKMatMult(ksp, pk, N[VG], N[VH]));
    }
    PetscCall(PKReduceEnd(&pk->red));
    l[0] = lam[0];
    l[1] = lam[1];
    l[3] = lam[2];
    l[6] = lam[3];
    l[2] = l[4] = l[5] = l[7] = l[8] = 0.0;
    PetscCall(Pipe2CGTest(ksp, p2, 0, N[VX], ksp->normtype == KSP_NORM_PRECONDITIONED || ksp->normtype == KSP_NORM_UNPRECONDITIONED ? lam[4] : 0.0, l[6], &replace));
    if (ksp->reason) PetscFunctionReturn(0);
    for (PetscInt k = 0; k < 4; k++) KSPCheckDot(ksp, lam[k]);
    /* the gap r - (b - A x) is judged against the tolerance, carried over to the 2-norm of r */
    st->ps.rstart = PetscSqrtReal(PetscAbsScalar(lam[nrr]));
    st->ps.dp0    = ksp->rnorm;
    st->ps.ttol   = PetscMax(ksp->rtol * st->ps.dp0, ksp->abstol);
    st->ps.ttolr  = st->ps.rstart * (st->ps.dp0 > 0 ? st->ps.ttol / st->ps.dp0 : ksp->rtol);
    /* the recompute by default below PIPE2CG_AUTO_RTOL; with it the chain drifts so little that scheduled
       replacements do more harm (each injects the gap) than good: only a refuted convergence claim replaces */
    if (p2->recompute < 0) p2->rc = (PetscBool)(st->ps.dp0 > 0 && st->ps.ttol / st->ps.dp0 < PIPE2CG_AUTO_RTOL);
    if (p2->rc) {
      p2->period = p2->replace_set ? p2->replace : 0;
      p2->gapeff = p2->gap_set ? p2->gaptol : 0.0;
      st->diagpc = PETSC_FALSE; /* c = M q of the recurred q would be thrown away */
    }
    p2->fusedpc  = st->diagpc;
    st->adaptive = (PetscBool)(p2->period > 0 && p2->gapeff > 0 && st->ps.ttolr > 0); /* no tolerance (a fixed count): the fixed period */
    if (st->adaptive) {
      /* the gap threatens a looser tolerance later: where the growth law puts it as close as at 16 for 1e-10 */
      st->ps.nextprobe = (PetscInt)PetscMin((PetscReal)p2->period, PetscMax((PetscReal)PIPE2CG_MIN_PROBE, PIPE2CG_FIRST_PROBE * PetscPowReal(st->ps.ttolr / st->ps.rstart / 1e-10, 1.0 / PIPE2CG_GAP_POWER)));
    }
  }
  s0.mu = l[6];
  s0.nu = l[0];
  if ((ksp->reason = Pipe2CGStep(NULL, &s0, NULL))) {
    ksp->its = 1; /* where cg reports it */
    PetscCall(PetscInfo(ksp, "stopping at iteration 0: %s\n", Pipe2CGReasonWhy(ksp->reason)));
    PetscFunctionReturn(0);
  }
  Pipe2CGPredict(l, 1.0, s0.gamma, 0.0, &s1); /* c = 1 - rho_0 = 0: O is never read in the first step A */
  {
    const PetscScalar o1[3] = {l[6] - s0.gamma * l[0], l[0] - s0.gamma * l[1], l[6]}; /* as in Pipe2CGAdvance, with rho_0 = 1 */

    st->pending = Pipe2CGStep(&s0, &s1, o1);
  }
  st->sA = s0;
  st->sB = s1;
  st->nd = Pipe2CGDots(ksp, p2->O, N, st->d);
  PetscFunctionReturn(0);
}

/* What the coming pass does. The last half pass comes when only iterate n+1 is still wanted (max_it, or step n+1
   predicted to break down); a replacement when the period is over or something asked for one; a probe where the
   schedule puts it, unless the pass replaces or is predicted to be the last. */
static void Pipe2CGPlan(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st, P2Pass *pp)
{
  const PetscBool last = (PetscBool)(st->dpm4 > 0 && st->dpm2 > 0 && st->dpm2 * (st->dpm2 / st->dpm4) <= st->ps.ttol);

  pp->half = pp->probe = pp->c_ready = PETSC_FALSE;
  if (!st->redo) {
    pp->half = (PetscBool)(st->pending || st->n + 1 >= ksp->max_it);
    if (!pp->half) {
      if (p2->period > 0 && st->n + 2 - st->ps.lastrep >= p2->period) st->replace = PETSC_TRUE;
      pp->probe = (PetscBool)(st->adaptive && !st->replace && !last && st->n + 2 >= st->ps.nextprobe);
    }
  }
  pp->replace = (PetscBool)(st->redo || st->replace);
  /* c, d, g, h of N are only needed if the solve goes on: when the norms so far predict convergence in this pass,
     they are computed after the reduction, and only if it does go on (same operations, same results) */
  pp->lazy = (PetscBool)(!st->redo && st->n + 2 < ksp->max_it && last);
  pp->nred = st->nd + (pp->probe || pp->replace ? 2 : 0);
}

/* Step A: O <- n+1 from N (n) and O (n-1); step B (not in the last half pass): N <- n+2 from the new O and N (n),
   with the local products of the new sets unless the pass replaces them; n advances by two */
static PetscErrorCode Pipe2CGSteps(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st, P2Pass *pp)
{
  KSP_PK           *pk = &p2->pk;
  Vec              *O = p2->O, *N = p2->N;
  const P2Step     *sA = &st->sA, *sB = &st->sB;
  const PetscScalar a = sA->rho, b = sA->rho * sA->gamma, c = 1.0 - sA->rho;
  const PetscScalar e = sB->rho, f = sB->rho * sB->gamma, g = 1.0 - sB->rho;
  const PetscInt    nd = (!pp->half && !pp->replace) ? st->nd : 0;
  PKAxpbypcz        u[14];
  PetscInt          nu = 0;

  PetscFunctionBegin;
  u[nu++] = (PKAxpbypcz){O[VX], a, N[VX], b, N[VZ], c};
  for (PetscInt k = VR; k <= VD; k++) u[nu++] = (PKAxpbypcz){O[k], a, N[k], -b, N[k + 2], c};
  if (!pp->half) {
    u[nu++] = (PKAxpbypcz){N[VX], e, O[VX], f, O[VZ], g};
    for (PetscInt k = VR; k <= VQ; k++) u[nu++] = (PKAxpbypcz){N[k], e, O[k], -f, O[k + 2], g};
  }
#if defined(PK_HAVE_V4D)
  if (p2->fused) {
    PetscCall(Pipe2CGFusedPass(ksp, O, N, (PetscBool)!pp->half, nd, sA, sB, st->diagpc ? p2->D : NULL, pk->red.local));
    pp->c_ready = (PetscBool)(st->diagpc && !pp->half);
  } else
#endif
    PetscCall(PKVecFused(pk, nu, u, nd, st->d, pk->red.local));
  if (!pp->half) st->n += 2;
  PetscFunctionReturn(0);
}

/* The last half pass, after step A: iterate n+1 is tested with a small blocking reduction, and the solve ends
   there (with the breakdown predicted for step n+1 if it has not converged) */
static PetscErrorCode Pipe2CGLastHalfPass(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st)
{
  KSP_PK            *pk  = &p2->pk;
  Vec               *O   = p2->O;
  const PetscScalar *lam = pk->red.global;
  PetscBool          replace = PETSC_FALSE;
  PKDot              h[2]    = {
    {O[VZ], O[VR]},
    {O[VZ], O[VZ]}
  };
  PetscInt nh = 1;

  PetscFunctionBegin;
  if (ksp->normtype == KSP_NORM_PRECONDITIONED) nh = 2;
  else if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) {
    h[1].x = h[1].y = O[VR];
    nh              = 2;
  }
  PetscCall(PKVecFused(pk, 0, NULL, nh, h, pk->red.local));
  PetscCall(PKReduceAllreduce(&pk->red, nh));
  KSPCheckDot(ksp, lam[0]);
  PetscCall(Pipe2CGTest(ksp, p2, st->n + 1, O[VX], nh > 1 ? lam[1] : 0.0, lam[0], &replace));
  PetscCall(PKRecIterEnd(pk->rec, st->n + 1));
  PetscCall(VecCopy(O[VX], ksp->vec_sol));
  if (ksp->reason <= 0 && st->pending) {
    ksp->reason = st->pending;
    ksp->its    = st->n + 2; /* where cg reports it */
    PetscCall(PetscInfo(ksp, "stopping after iteration %" PetscInt_FMT ": %s\n", st->n + 1, Pipe2CGReasonWhy(st->pending)));
  }
  PetscFunctionReturn(0);
}

/* The pass's reduction: the local values (a probe adds the gap and ||r_N||; a replacement recomputes both chains,
   then their products, and adds the gap it removed and the new ||r_N||), begun, overlapped with the chain beyond q
   of N unless it waits for the verdict, ended */
static PetscErrorCode Pipe2CGReduce(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st, P2Pass *pp)
{
  KSP_PK *pk = &p2->pk;

  PetscFunctionBegin;
  if (pp->probe) PetscCall(Pipe2CGProbe(ksp, p2, &pk->red.local[st->nd])); /* g_N is stale until the overlap */
  else if (pp->replace) {
    PetscScalar gap[2] = {0.0, 0.0};

    PetscCall(Pipe2CGReplace(ksp, p2, gap));
    st->nd      = Pipe2CGDots(ksp, p2->O, p2->N, st->d); /* r_N is another vector now */
    pp->c_ready = PETSC_FALSE;                           /* q_N is new */
    st->replace = PETSC_FALSE;
    PetscCall(PKVecFused(pk, 0, NULL, st->nd, st->d, pk->red.local));
    pk->red.local[st->nd]     = gap[0];
    pk->red.local[st->nd + 1] = gap[1];
  }
  PetscCall(PKReduceBegin(&pk->red, pp->nred)); /* nine products and the norms of n and n-1, for two iterations */
  /* one row per iteration: the first half of the overlapped work is n-1's */
  if (st->n < ksp->max_it && !pp->lazy) PetscCall(Pipe2CGOverlap(ksp, p2, pp->replace, &pp->c_ready, st->redo ? -1 : st->n - 1));
  else if (!st->redo) PetscCall(PKRecIterEnd(pk->rec, st->n - 1));
  PetscCall(PKReduceEnd(&pk->red));
  PetscFunctionReturn(0);
}

/* Both new iterates, n-1 (in O) first: the first that converges ends the solve and is returned. A refuted
   convergence claim asks for a replacement. */
static PetscErrorCode Pipe2CGTestPair(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st)
{
  KSP_PK            *pk  = &p2->pk;
  const PetscScalar *lam = pk->red.global;
  const PetscInt     n = st->n, nd = st->nd;

  PetscFunctionBegin;
  PetscCall(Pipe2CGTest(ksp, p2, n - 1, p2->O[VX], nd > 10 ? lam[10] : 0.0, lam[8], &st->replace));
  if (ksp->reason) {
    PetscCall(VecCopy(p2->O[VX], ksp->vec_sol));
    PetscFunctionReturn(0);
  }
  PetscCall(Pipe2CGTest(ksp, p2, n, p2->N[VX], nd > 9 ? lam[9] : 0.0, lam[6], &st->replace));
  PetscCall(PKRecIterEnd(pk->rec, n));
  if (ksp->reason) PetscFunctionReturn(0);
  st->dpm4 = st->dpm2;
  st->dpm2 = ksp->rnorm;
  PetscFunctionReturn(0);
}

/* After the reduction: the schedule of probes and replacements, then step n exactly (its predecessor is the step
   n-1 that was used) and step n+1 predicted, from the nine products. A step that fails is first taken for rounding:
   the next pass is a redo. After a redo (or a replacement that found drift), the fresh products decide: a real
   breakdown is reported, drift restarts the recurrence. Sets ksp->reason when the solve ends here. */
static PetscErrorCode Pipe2CGAdvance(KSP ksp, KSP_PKPIPE2CG *p2, P2Loop *st, P2Pass *pp)
{
  KSP_PK            *pk  = &p2->pk;
  const PetscScalar *lam = pk->red.global;
  const PetscInt     n   = st->n;
  PetscScalar        l[PIPE2CG_NLAMBDA], on[3];
  P2Step             sn, snext;
  PetscBool          first;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < pp->nred; k++) KSPCheckDot(ksp, lam[k]);
  for (PetscInt k = 0; k < PIPE2CG_NLAMBDA; k++) l[k] = lam[k];
  if (pp->probe || pp->replace) PetscCall(Pipe2CGSchedule(ksp, p2, &st->ps, n, pp->replace, lam + st->nd, &st->replace));

  sn.mu = l[6];
  sn.nu = l[0];
  on[0] = l[7]; /* (z_n, r_{n-1}), (z_n, A z_{n-1}), mu_{n-1} as the vectors are */
  on[1] = l[2];
  on[2] = l[8];
  first = (PetscBool)(pp->replace && p2->restart && !st->redo); /* rho_n = 1: x_{n+1} forgets x_{n-1} */
  if (st->redo && st->ps.relgap < PIPE2CG_DRIFT_EVIDENCE) {
    /* the recurrences had hardly drifted from b - A x: the breakdown is the operator's or the preconditioner's */
    PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": the recomputed residual differs from the recursive one by only %g relative: not drift\n", n, (double)st->ps.relgap));
    st->redo = PETSC_FALSE;
    p2->nrecover--;
    ksp->reason = Pipe2CGStep(first ? NULL : &st->sB, &sn, on);
  } else ksp->reason = st->redo ? KSP_DIVERGED_BREAKDOWN : Pipe2CGStep(first ? NULL : &st->sB, &sn, on);
  if (ksp->reason < 0 && (st->redo || (pp->replace && st->ps.relgap >= PIPE2CG_DRIFT_EVIDENCE))) {
    /* every vector is fresh: judged on the recomputed vectors alone (the scalar history is what drifted), (r,z)
       of n-1 and n, and (z, A z) of n-1 and n; if they hold, the breakdown was drift, which has spoiled the
       recurrence: restart (docs/algorithms.md §5.5) */
    if (PKCGSignsDiffer(l[6], l[8])) ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
    else if (l[0] == 0.0 || PKCGSignsDiffer(l[0], l[5])) ksp->reason = KSP_DIVERGED_INDEFINITE_MAT;
    else {
      first       = PETSC_TRUE;
      ksp->reason = Pipe2CGStep(NULL, &sn, NULL);
    }
  }
  if (!ksp->reason) {
    /* (z_{n+1}, r_n) = a (z_n, r_n) - b (M w_n, r_n) + c (z_{n-1}, r_n), (M w_n, r_n) = (w_n, z_n) (M symmetric);
       (z_{n+1}, A z_n) = a (z_n, w_n) - b (p_n, w_n) + c (z_{n-1}, w_n), (p_n, w_n) = (z_n, q_n) (A symmetric) */
    const PetscScalar a = sn.rho, b = sn.rho * sn.gamma, c = 1.0 - sn.rho;
    const PetscScalar o1[3] = {a * l[6] - b * l[0] + c * l[7], a * l[0] - b * l[1] + c * l[2], l[6]};

    Pipe2CGPredict(l, a, b, c, &snext);
    st->pending = Pipe2CGStep(&sn, &snext, o1); /* reported after n+1 is tested, as cg does */
    if (st->pending < 0 && ((pp->replace && st->ps.relgap >= PIPE2CG_DRIFT_EVIDENCE) || Pipe2CGInsignificant(&snext)) && !PetscIsInfOrNanScalar(snext.rho) && !PetscIsInfOrNanScalar(snext.gamma)) {
      /* predicted from fresh vectors, or with no significant digit left, the step n+1 fails only through the
         rounding of the prediction near the attainable accuracy. Its coefficients were not computed (the test
         failed first), and any computed from those digits would be noise: step n+1 is a null step (rho = 1,
         gamma = 0: x_{n+2} = x_{n+1}), then both chains are recomputed and the recurrence restarts at the next
         pass, where the fresh products decide */
      PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": %s predicted %s; a null step, then recomputing and restarting at the next pass\n", n + 1, Pipe2CGReasonWhy(st->pending), Pipe2CGInsignificant(&snext) ? "at the rounding level" : "from fresh vectors"));
      snext.rho   = 1.0;
      snext.gamma = 0.0;
      snext.pap   = sn.pap;
      st->pending = KSP_CONVERGED_ITERATING;
      st->replace = PETSC_TRUE;
      p2->restart = PETSC_TRUE;
    }
  }
  if ((ksp->reason || st->pending) && !pp->replace && ksp->reason != KSP_CONVERGED_ATOL && st->pending != KSP_CONVERGED_ATOL) {
    PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": %s; recomputing the vector chains to rule out rounding\n", n, Pipe2CGReasonWhy(ksp->reason ? ksp->reason : st->pending)));
    p2->nrecover++;
    ksp->reason = KSP_CONVERGED_ITERATING;
    st->pending = KSP_CONVERGED_ITERATING;
    st->redo    = PETSC_TRUE; /* the steps stay those of the pass just made */
    PetscFunctionReturn(0);
  }
  st->redo = PETSC_FALSE;
  if (first) {
    p2->nrestart++;
    p2->restart = PETSC_FALSE;
  }
  if (ksp->reason) {
    ksp->its = n + 1; /* where cg reports it */
    PetscCall(PetscInfo(ksp, "stopping after iteration %" PetscInt_FMT ": %s\n", n, Pipe2CGReasonWhy(ksp->reason)));
    PetscFunctionReturn(0);
  }
  if (pp->lazy && !st->replace) { /* the prediction was wrong: the work that was not overlapped */
    PetscCall(Pipe2CGOverlap(ksp, p2, pp->replace, &pp->c_ready, -1));
    p2->nlate++;
  }
  st->sA = sn;
  st->sB = snext;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSolve_PKPIPE2CG_Private(KSP ksp, KSP_PKPIPE2CG *p2)
{
  P2Loop st;

  PetscFunctionBegin;
  PetscCall(Pipe2CGStart(ksp, p2, &st));
  while (!ksp->reason) {
    P2Pass pp;

    Pipe2CGPlan(ksp, p2, &st, &pp);
    if (!st.redo) PetscCall(Pipe2CGSteps(ksp, p2, &st, &pp));
    if (pp.half) {
      PetscCall(Pipe2CGLastHalfPass(ksp, p2, &st));
      break;
    }
    PetscCall(Pipe2CGReduce(ksp, p2, &st, &pp));
    if (!st.redo) {
      PetscCall(Pipe2CGTestPair(ksp, p2, &st));
      if (ksp->reason) break;
    }
    PetscCall(Pipe2CGAdvance(ksp, p2, &st, &pp));
  }
  PetscFunctionReturn(0);
}

/* The iteration, run by the common solve wrapper (KSPSolve_PK in common.c) between PKSolveBegin and PKSolveEnd */
static PetscErrorCode Pipe2CGIterate(KSP ksp, KSP_PK *pk)
{
  KSP_PKPIPE2CG *p2 = (KSP_PKPIPE2CG *)ksp->data;

  PetscFunctionBegin;
  (void)pk;
  PetscCall(KSPSolve_PKPIPE2CG_Private(ksp, p2));
  p2->xtest = NULL; /* the solution is x itself again */
  PetscCall(PetscInfo(ksp, "%" PetscInt_FMT " iterations: %" PetscInt_FMT " replacements (%" PetscInt_FMT " brought forward), %" PetscInt_FMT " probes, %" PetscInt_FMT " refuted claims, %" PetscInt_FMT " recovered breakdowns, %" PetscInt_FMT " restarts, %" PetscInt_FMT " passes held back, %" PetscInt_FMT " recomputes\n", ksp->its, p2->nreplace, p2->nadaptive, p2->nprobe, p2->nfalse, p2->nrecover, p2->nrestart, p2->nlate, p2->nrecompute));
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
  if (p2->fusedpc) PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: the diagonal preconditioner applied inside the fused vector pass\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  recompute of w = A z, p = M w, q = A p of the newer iterate in the overlap of every pass (-ksp_pipe2cg_recompute): %s\n", p2->recompute > 0 ? "on" : p2->recompute == 0 ? "off" : "when the relative tolerance is below 5e-10"));
  if (p2->nrecompute) PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: recomputed (4 MatMult and 3 PCApply per two iterations); scheduled residual replacement %s\n", p2->period ? "as set" : "off, only refuted convergence claims replace"));
  /* a pass makes two iterations: the period is k rounded up to even (k + 1 for odd k) */
  if (p2->replace && p2->gaptol > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement every %" PetscInt_FMT " iterations%s, earlier when the measured gap ||r - (b - A x)|| would reach %g x the tolerance\n", p2->replace + p2->replace % 2, p2->replace % 2 ? " (-ksp_pipe2cg_replace rounded up to even: two iterations per pass)" : "", (double)p2->gaptol));
  else if (p2->replace) PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement every %" PetscInt_FMT " iterations%s\n", p2->replace + p2->replace % 2, p2->replace % 2 ? " (-ksp_pipe2cg_replace rounded up to even: two iterations per pass)" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  residual replacement: off (accuracy degrades; the default is -ksp_pipe2cg_replace %d)\n", PIPE2CG_DEFAULT_REPLACE));
  if (p2->nreplace || p2->nprobe || p2->nfalse || p2->nrecover) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %" PetscInt_FMT " residual replacements (%" PetscInt_FMT " brought forward by the gap), %" PetscInt_FMT " gap measurements, largest gap %.2e x the tolerance, %" PetscInt_FMT " convergence claims refuted by the true residual, %" PetscInt_FMT " breakdowns found to be rounding, %" PetscInt_FMT " restarts\n", p2->nreplace, p2->nadaptive, p2->nprobe, (double)p2->maxgap, p2->nfalse, p2->nrecover, p2->nrestart));
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
    PetscBool rc = (PetscBool)(p2->recompute > 0);
    PetscCall(PetscOptionsBool("-ksp_pipe2cg_recompute", "Recompute w = A z, p = M w, q = A p of the newer iterate in the overlap window of every pass instead of recurring them (two more MatMult and one more PCApply per two iterations, overlapped); default: when the relative tolerance is below 5e-10", "KSPPipe2CGSetRecompute", rc, &rc, &flg));
    if (flg) p2->recompute = rc ? 1 : 0;
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
  ((KSP_PKPIPE2CG *)ksp->data)->recompute = flg ? 1 : 0;
  PetscFunctionReturn(0);
}

/*@
   KSPPipe2CGSetRecompute - Sets whether pipekrylov's pipe2cg recomputes w = A z, p = M w and q = A p of the newer
   iterate in the overlap window of every pass (predict-and-recompute) instead of updating them by the three-term
   recurrences.

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (ignored unless its type is pipe2cg from pipekrylov)
-  flg - PETSC_TRUE to recompute, PETSC_FALSE for the plain recurrences (the default is to recompute when the
         relative tolerance of the solve is below 5e-10)

   Options Database Key:
.  -ksp_pipe2cg_recompute <bool> - default: when the relative tolerance is below 5e-10

   Notes:
   As in pipecg (KSPPipeCGSetRecompute()), the rounding of the recurrences delays convergence against cg on some
   ill-conditioned problems, from the loosest tolerance on, and residual replacement does not cure it; pipe2cg's
   chain is deeper, so the delay is larger (the variable-coefficient test problem without preconditioner: 566
   iterations to 1e-4 where cg needs 476). The products of the pass are still taken on the recurred vectors, so the
   one reduction per two iterations stays where it is; every update from there on uses the recomputed ones. The
   recomputed chain also drifts less from b - A x, so fewer residual replacements are needed.

   At tight tolerances it is what gives cg's error: the plain recurrences need residual replacements, and each injects
   the gap between recursive and true residual (with them the error was 4-11x cg's at 1e-11..1e-13); with the
   recompute the scheduled replacements are off (unless -ksp_pipe2cg_replace or -ksp_pipe2cg_replace_gap are given)
   and only a refuted convergence claim replaces. Hence the default below a relative tolerance of 5e-10.

   The price is two more MatMult and one more PCApply per pass of two iterations, overlapped with the reduction (and
   a diagonal preconditioner goes through PCApply instead of the fused pass): at loose tolerances worth it where
   the overlap window is free at scale or where the iteration count matters.

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
   Without replacement the deep recurrence chain lets rounding errors grow in the residual: iteration counts
   can triple and the true residual stalls well above the recursive one (docs/algorithms.md §5.5). How fast
   depends on the problem: on the variable-coefficient problem of the tests (Jacobi) a fixed period of 70 costs 8%
   more iterations than PCG and 40 does not, on a 40-iteration Poisson solve to 1e-8 no replacement is needed.

   What the drift costs is measured by the gap g = r - (b - A x) of the newer iterate: at the end the true residual
   is the recursive one plus g, and a replacement injects g into the recurrences as a perturbation of relative size
   ||g|| / ||r||. With the gap measured (-ksp_pipe2cg_replace_gap f > 0), all in the 2-norm of r with the tolerance
   carried over to it: a window (the iterations since the last replacement) is replaced after k iterations, and
   earlier, before its gap reaches f x the tolerance or 1e-4 ||r||, unless its gap extrapolated to the end of the
   solve (predicted from the convergence rate so far) stays below half the tolerance. The gap is measured for
   free at each replacement and with one MatMult in between: first after 16 iterations for a relative tolerance
   of 1e-10 (40 for 1e-8), then where a growth like the 5th power of the window length (measured 2-5) would
   reach a threshold. A replacement costs about 6 PCG iterations' worth of operator applications; -ksp_view
   shows how many the last solve made, how many were brought forward, how many measurements, and the largest gap.

   Independently of k, every convergence claim is checked against the true residual, and a refuted claim triggers
   one replacement.

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
  KSP_PKPIPE2CG            *p2   = (KSP_PKPIPE2CG *)ksp->data;
  static const PKSolverCost cost = {"pipe2cg", 2, 1, 11, PETSC_TRUE, 2, 2, 75, 5, 4, 5, 20, 0, 0, 7, 5, 0, 0, PETSC_FALSE, 0};
  const PetscBool           rc   = (PetscBool)(p2->recompute > 0 || (p2->recompute < 0 && p2->rc)); /* as set, or as the last solve decided */

  PetscFunctionBegin;
  *c           = cost;
  c->replace   = rc && !p2->replace_set ? 0 : p2->replace; /* a replacement is Pipe2CGReplace: 7 MatMult + 5 PCApply */
  c->nreplaced = p2->nreplace;
  /* the 9 products and, but for the natural norm and none, the norms of both iterates (Pipe2CGDots; a KSP not set
     up yet has the default, preconditioned, norm) */
  c->nvals = PIPE2CG_NLAMBDA + ((ksp->normtype == KSP_NORM_NATURAL || ksp->normtype == KSP_NORM_NONE) ? 0 : 2);
  if (rc) { /* w = A z, p = M w, q = A p of N in the overlap window; c = M q by PCApply after them */
    c->nspmv += 2;
    c->npc += 1;
    c->ovl_extra_spmv = 2;
    c->ovl_extra_pc   = 1;
    c->pc_unfused     = PETSC_TRUE;
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
.  -ksp_pipe2cg_recompute <bool> - recompute w, p, q of the newer iterate every pass (default: when the relative tolerance is below 5e-10), see `KSPPipe2CGSetRecompute()`
.  -ksp_pipe2cg_fused <bool> - steps A and B and the dots in one loop over the elements, a jacobi or none preconditioner applied in it (default true; false: the generic kernel and PCApply, same results)
.  -ksp_pipe_check_symmetry - check at set-up that the operator is symmetric (one transpose), error if not
.  -ksp_pipe_check_symmetry_tol <t> - tolerance of that check (default 1e-12)
-  -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - the norm the convergence test uses

   Notes:
   Norms: both iterates of a pass are tested, so the reduction carries both norms. Preconditioned (default):
   ||z|| = ||M r||, dots (z_N,z_N) and (z_O,z_O), 11 values; unpreconditioned: ||r||, dots (r_N,r_N) and
   (r_O,r_O), 11 values; natural: sqrt((r,z)), which the recurrences need anyway (9 values); none: no norm, only
   -ksp_max_it stops the iteration (at the exact count, odd or even).

   Iterations: ksp->its is the number of the iterate tested last; the first of the two iterates of a pass that
   converges stops the solve and is returned in the solution vector, so counts are PCG's (up to rounding), never
   rounded up to even. The pipeline costs 4 PCApply + 4 MatMult to fill (one more MatMult for a nonzero initial
   guess); the two PCApply + MatMult of the last pass wait until its reduction has confirmed that the solve goes
   on whenever the norms of the last two passes predict convergence in it.

   Cost: steps A and B of a pass and its dots are one loop over the elements (each of the 18 vectors read once,
   14 written once; AVX2 where the CPU has it, without FMA, so the results do not depend on the CPU); with
   PCJACOBI or PCNONE (and no null space) c = M q is written in the same loop instead of a separate PCApply, after
   a check that it gives the same bits.

   Every convergence claim of the recursive residual is checked against the true residual (the
   convergence test is called a second time for that iteration, with the true norm; monitors are not)
   b - A x in the same norm; a refuted claim replaces the residuals (restarting the recurrence, rho = 1, if the
   true residual is more than twice the recursive one) and the iteration continues (KSP_DIVERGED_BREAKDOWN if the
   true residual stagnates above the tolerance). -ksp_view shows the true residual norm at exit.

   Breakdowns are reported with PETSc's reasons, tested on the same quantities as PETSc's cg, and, as cg does,
   with ksp->its one past the last tested iterate: KSP_DIVERGED_INDEFINITE_PC ((r,z) changes sign),
   KSP_DIVERGED_INDEFINITE_MAT ((p,A p) = (z,r)/(rho gamma), = (z,A z)/rho in exact arithmetic, zero or changing sign), KSP_DIVERGED_BREAKDOWN (rho
   undefined), KSP_DIVERGED_NANORINF, KSP_DIVERGED_PC_FAILED. Since drift can fake the first three, a breakdown
   is reported only if it persists after the chains are recomputed from the iterates, or if the recomputation
   shows a gap below 1e-6 ||r|| (no drift to speak of); otherwise the recurrence restarts.
   Left preconditioning only; operator and preconditioner symmetric positive definite. 17 work vectors.

   PETSc's KSPPIPECG2 (Tiwari and Vadhiyar) has the same communication pattern with two-term recurrences and no
   residual replacement; it can fail to converge where this type does (ex2 -m 600 -n 600 -pc_type jacobi).

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
  ksp->data   = (void *)p2;
  p2->replace  = PIPE2CG_DEFAULT_REPLACE;
  p2->gaptol   = PIPE2CG_DEFAULT_GAP;
  p2->recompute = -1;
  p2->fused    = PETSC_TRUE;
  PetscCall(PKCreate_Common(ksp, &p2->pk, "two CG iterations per non-blocking reduction (three-term recurrences), overlapped with 2 PCApply + 2 MatMult", PETSC_FALSE, Pipe2CGIterate));
  p2->pk.after_solve = Pipe2CGAfterSolve;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetCost_C", KSPPipeGetCost_PKPIPE2CG));
  PetscCall(PKCGSetSupportedNorms(ksp));
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
