/*
   Expected maxima, bounds and the stochastic runtime models of 001 (docs/bibliography.md):
     stationary       E[T]  = K P int x F^{P-1} f dx   (eq 3)      E[T'] = K mu          (eq 6)
     non-stationary   E^[T] = sum_k P int x F_k^{P-1} f_k dx (eq 7) with uniform F_k (eq 11): sum_k a_k + s_k P/(P+1)
                      E^[T'] = sum_k mu_k (eq 8) = sum_k a_k + s_k/2
     section 6        a_k, s_k drawn from their Johnson SU fits, eqs 12-13 evaluated per draw
     bounds           Cramer mu + sigma (N-1)/sqrt(2N-1) (eq 9), Bertsimas mu + sigma sqrt(N-1) (eq 10)

   E[max of P] of X = g(Z), Z standard normal, g increasing (normal, Johnson SU, uniform via g = a + s Phi):
   int g(z) P Phi(z)^{P-1} phi(z) dz with the weight evaluated in log space, trapezoid h = 1e-3 on
   [-9, 8.5 + sqrt(2 ln P)] (docs/algorithms.md §9, robust to 1e6). A general law given by its quantile function uses
   int_0^1 Q(t^{1/P}) dt with PETSc's tanh-sinh quadrature.
*/
#include <petscdt.h>
#include <pipekrylov/private/pkmodel.h>

PetscReal PKEMaxUniform(PetscReal a, PetscReal s, PetscReal P)
{
  return a + s * P / (P + 1);
}

/* Blom's approximation (0.2% at P = 16) */
PetscReal PKEMaxNormalBlom(PetscReal mu, PetscReal sigma, PetscReal P)
{
  if (P <= 1) return mu;
  return mu + sigma * PKNormalQuantile((P - 0.375) / (P + 0.25));
}

PetscErrorCode PKEMaxTransform(PetscReal (*g)(PetscReal, void *), void *ctx, PetscReal P, PetscReal *e)
{
  const PetscReal h = 1e-3, lo = -9.0;
  PetscReal       hi, lP, sum = 0;
  PetscInt        n;

  PetscFunctionBegin;
  PetscCheck(P >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "E[max of P] needs P >= 1, got %g", (double)P);
  lP = log(P);
  hi = 8.5 + sqrt(2 * lP);
  n  = (PetscInt)ceil((hi - lo) / h);
  for (PetscInt i = 0; i <= n; i++) {
    PetscReal z = lo + i * h, lw, w;
    lw          = lP + (P - 1) * PKNormalLogCdf(z) - 0.5 * z * z - 0.91893853320467274178;
    w           = exp(lw);
    if (i == 0 || i == n) w *= 0.5;
    if (w > 0) sum += w * g(z, ctx);
  }
  *e = h * sum;
  PetscFunctionReturn(0);
}

typedef struct {
  PetscReal mu, sigma;
} PKNormalPar;

static PetscReal PKGNormal(PetscReal z, void *ctx)
{
  PKNormalPar *p = (PKNormalPar *)ctx;
  return p->mu + p->sigma * z;
}

static PetscReal PKGJSU(PetscReal z, void *ctx)
{
  PKJSU *j = (PKJSU *)ctx;
  return j->xi + j->lambda * sinh((z - j->gamma) / j->delta);
}

PetscErrorCode PKEMaxNormal(PetscReal mu, PetscReal sigma, PetscReal P, PetscReal *e)
{
  PKNormalPar p = {mu, sigma};

  PetscFunctionBegin;
  PetscCall(PKEMaxTransform(PKGNormal, &p, P, e));
  PetscFunctionReturn(0);
}

PetscErrorCode PKEMaxJSU(const PKJSU *j, PetscReal P, PetscReal *e)
{
  PKJSU c = *j;

  PetscFunctionBegin;
  PetscCall(PKEMaxTransform(PKGJSU, &c, P, e));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscReal (*Q)(PetscReal, void *);
  void     *ctx;
  PetscReal P;
} PKQuantCtx;

static void PKEMaxQuantileIntegrand(const PetscReal t[], void *ctx, PetscReal *f)
{
  PKQuantCtx *c = (PKQuantCtx *)ctx;
  PetscReal   p;

  /* tanh-sinh samples next to the ends; keep the quantile's argument inside (0,1) */
  if (t[0] <= 0) {
    *f = 0;
    return;
  }
  p = exp(log(t[0]) / c->P);
  if (p >= 1) p = 1 - PETSC_MACHINE_EPSILON;
  if (p <= 0) p = PETSC_MACHINE_EPSILON;
  *f = c->Q(p, c->ctx);
}

PetscErrorCode PKEMaxQuantile(PetscReal (*Q)(PetscReal, void *), void *ctx, PetscReal P, PetscReal *e)
{
  PKQuantCtx c = {Q, ctx, P};

  PetscFunctionBegin;
  PetscCheck(P >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "E[max of P] needs P >= 1, got %g", (double)P);
  PetscCall(PetscDTTanhSinhIntegrate(PKEMaxQuantileIntegrand, 0.0, 1.0, 10, &c, e));
  PetscFunctionReturn(0);
}

PetscReal PKBoundCramer(PetscReal mu, PetscReal sigma, PetscReal N)
{
  return mu + sigma * (N - 1) / sqrt(2 * N - 1);
}

PetscReal PKBoundBertsimas(PetscReal mu, PetscReal sigma, PetscReal N)
{
  return mu + sigma * sqrt(PetscMax(N - 1, 0));
}

/* ------------------------------------------------------------------------------------------------------------ */

/* 001 section 6: per run, K draws of a_k and s_k from their JSU fits (negative draws clamped to 0: a time and a
   span cannot be negative; JSU is unbounded), then eq 12 (closed form for a uniform F_k) and eq 13 */
PetscErrorCode PKStochasticSimulate(const PKJSU *fa, const PKJSU *fs, PetscInt K, PetscReal Peff, PetscInt nsim, unsigned long seed, PetscReal *ET, PetscReal *ETp, PetscReal *ET_sd, PetscReal *ETp_sd)
{
  PetscRandom rnd;
  PetscReal  *a, *s, m1 = 0, m2 = 0, q1 = 0, q2 = 0;

  PetscFunctionBegin;
  if (nsim <= 0) nsim = 8;
  PetscCheck(K >= 0 && Peff >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need K >= 0 and Peff >= 1 (got %" PetscInt_FMT ", %g)", K, (double)Peff);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscMalloc2(PetscMax(K, 1), &a, PetscMax(K, 1), &s));
  for (PetscInt r = 0; r < nsim; r++) {
    PetscReal et = 0, etp = 0;
    PetscCall(PKJSUSample(fa, rnd, K, a));
    PetscCall(PKJSUSample(fs, rnd, K, s));
    for (PetscInt k = 0; k < K; k++) {
      PetscReal ak = PetscMax(a[k], 0), sk = PetscMax(s[k], 0);
      et += PKEMaxUniform(ak, sk, Peff);
      etp += ak + 0.5 * sk;
    }
    m1 += et;
    q1 += et * et;
    m2 += etp;
    q2 += etp * etp;
  }
  m1 /= nsim;
  m2 /= nsim;
  *ET  = m1;
  *ETp = m2;
  if (ET_sd) *ET_sd = nsim > 1 ? sqrt(PetscMax(0, (q1 - nsim * m1 * m1) / (nsim - 1))) : 0;
  if (ETp_sd) *ETp_sd = nsim > 1 ? sqrt(PetscMax(0, (q2 - nsim * m2 * m2) / (nsim - 1))) : 0;
  PetscCall(PetscFree2(a, s));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* The empirical quantile function of a sorted sample (linear between order statistics) */
typedef struct {
  PetscInt         n;
  const PetscReal *x;
} PKEmpirical;

static PetscReal PKEmpiricalQuantile(PetscReal p, void *ctx)
{
  PKEmpirical *e = (PKEmpirical *)ctx;
  return PKQuantileSorted(e->n, e->x, p);
}

/* Does a one-sample KS test at 5% accept the JSU fit of x[0..n)? */
static PetscErrorCode PKJSUFitAccepted(PetscInt n, const PetscReal x[], const PKJSU *f, PetscReal *D, PetscReal *crit, PetscBool *ok)
{
  PetscFunctionBegin;
  PetscCall(PKKSOneSampleJSU(n, x, f, D));
  *crit = PKKSCritical(0.05, n, 0);
  *ok   = (PetscBool)(*D <= *crit);
  PetscFunctionReturn(0);
}

PetscErrorCode PKStochasticModel(const PKStochInput *in, PKStochResult *r)
{
  PetscInt  K = in->K, n = in->npooled;
  PetscReal Peff = in->Peff > 0 ? in->Peff : (PetscReal)PetscMax(in->P, 1), e;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->K    = K;
  r->Peff = Peff;
  if (n > 0) {
    for (PetscInt i = 0; i < n; i++) r->mean += in->pooled[i];
    r->mean /= n;
    for (PetscInt i = 0; i < n; i++) r->sd += (in->pooled[i] - r->mean) * (in->pooled[i] - r->mean);
    r->sd = n > 1 ? sqrt(r->sd / (n - 1)) : 0;
    PetscCall(PKJSUFit(n, in->pooled, &r->bulk, &r->bulk_info));
  }
  if (n > 1) { /* the sample's own distribution, for when no JSU fits it */
    PKEmpirical emp;
    PetscReal  *sorted;
    PetscCall(PetscMalloc1(n, &sorted));
    PetscCall(PetscArraycpy(sorted, in->pooled, n));
    PetscCall(PetscSortReal(n, sorted));
    emp.n = n;
    emp.x = sorted;
    PetscCall(PKEMaxQuantile(PKEmpiricalQuantile, &emp, Peff, &e));
    r->ET_emp  = K * e;
    r->ETp_emp = K * r->mean;
    PetscCall(PetscFree(sorted));
  }
  if (r->bulk_info.ok) {
    PetscBool accepted;
    PetscCall(PKEMaxJSU(&r->bulk, Peff, &e));
    r->ET  = K * e;
    r->ETp = K * PKJSUMean(&r->bulk);
    PetscCall(PKJSUFitAccepted(n, in->pooled, &r->bulk, &r->ks_D, &r->ks_crit, &accepted));
    if (!accepted) {
      r->bulk_rejected = PETSC_TRUE;
      r->ET            = r->ET_emp;
      r->ETp           = r->ETp_emp;
    }
  } else { /* no JSU fit (constant or tiny sample): a normal with the sample moments */
    PetscCall(PKEMaxNormal(r->mean, r->sd, Peff, &e));
    r->ET  = K * e;
    r->ETp = K * r->mean;
  }
  r->cramer    = K * PKBoundCramer(r->mean, r->sd, Peff);
  r->bertsimas = K * PKBoundBertsimas(r->mean, r->sd, Peff);
  if (in->tmin && in->tmax && K > 0) {
    PetscReal *ak, *sk;
    PetscCall(PetscMalloc2(K, &ak, K, &sk));
    for (PetscInt k = 0; k < K; k++) {
      ak[k] = in->tmin[k];
      sk[k] = PetscMax(0, in->tmax[k] - in->tmin[k]);
      r->EThat += PKEMaxUniform(ak[k], sk[k], Peff);
      r->ETphat += ak[k] + 0.5 * sk[k];
    }
    PetscCall(PKJSUFit(K, ak, &r->fit_a, &r->info_a));
    PetscCall(PKJSUFit(K, sk, &r->fit_s, &r->info_s));
    if (r->info_a.ok && r->info_s.ok) {
      PetscReal D, crit;
      PetscBool oka, oks;
      PetscCall(PKJSUFitAccepted(K, ak, &r->fit_a, &D, &crit, &oka));
      PetscCall(PKJSUFitAccepted(K, sk, &r->fit_s, &D, &crit, &oks));
      r->sim_rejected = (PetscBool) !(oka && oks);
    } else r->sim_rejected = PETSC_TRUE;
    if (!r->sim_rejected) PetscCall(PKStochasticSimulate(&r->fit_a, &r->fit_s, K, Peff, in->nsim, in->seed, &r->sim_ET, &r->sim_ETp, &r->sim_ET_sd, &r->sim_ETp_sd));
    PetscCall(PetscFree2(ak, sk));
  }
  PetscFunctionReturn(0);
}

/* E[T] and E[T'] of the stationary model for another iteration count and rank count (weak scaling: the
   per-rank iteration-time distribution unchanged) */
PetscErrorCode PKStochasticWhatIf(const PKStochResult *r, PetscInt K, PetscReal Peff, PetscReal *ET, PetscReal *ETp)
{
  PetscReal e;

  PetscFunctionBegin;
  if (r->bulk_info.ok && !r->bulk_rejected) {
    PetscCall(PKEMaxJSU(&r->bulk, Peff, &e));
    *ETp = K * PKJSUMean(&r->bulk);
  } else {
    PetscCall(PKEMaxNormal(r->mean, r->sd, Peff, &e));
    *ETp = K * r->mean;
  }
  *ET = K * e;
  PetscFunctionReturn(0);
}
