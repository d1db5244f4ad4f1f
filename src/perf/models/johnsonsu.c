/*
   Normal and Johnson SU distributions, the Slifker-Shapiro percentile estimate and the maximum-likelihood fit
   (docs/algorithms.md §10; [001] §5-6 fit with scipy, whose johnsonsu(a, b, loc, scale) is our (gamma, delta, xi,
   lambda)).

   The fit minimises the profile negative log-likelihood over (xi, log lambda): for fixed (xi, lambda) the MLE of
   (gamma, delta) is closed form (delta = 1/sd_pop(y), gamma = -delta mean(y), y = asinh((x - xi)/lambda)). The
   2-D minimisation is PETSc TAO's Nelder-Mead (TAONM) on PETSC_COMM_SELF, started from Slifker-Shapiro, in
   coordinates scaled so that TAONM's unit initial simplex step is (0.1 lambda0, 0.1) in (xi, log lambda).
*/
#include <stdlib.h>
#include <petsctao.h>
#include <pipekrylov/private/pkmodel.h>

#define PK_SQRT2  1.41421356237309504880
#define PK_LSQ2PI 0.91893853320467274178 /* log(sqrt(2 pi)) */

PetscReal PKNormalCdf(PetscReal x)
{
  return 0.5 * erfc(-x / PK_SQRT2);
}

/* log Phi(x) without cancellation in either tail (the E[max] quadrature raises Phi to the power P-1 <= 1e6) */
PetscReal PKNormalLogCdf(PetscReal x)
{
  if (x < 0) return log(0.5 * erfc(-x / PK_SQRT2));
  return log1p(-0.5 * erfc(x / PK_SQRT2));
}

/* Acklam's rational approximation (relative error 1.2e-9) refined by one Halley step on erfc */
PetscReal PKNormalQuantile(PetscReal p)
{
  static const PetscReal a[]  = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const PetscReal b[]  = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01};
  static const PetscReal c[]  = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const PetscReal d[]  = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  const PetscReal        plow = 0.02425;
  PetscReal              q, r, x, e, u;

  if (p <= 0) return PETSC_NINFINITY;
  if (p >= 1) return PETSC_INFINITY;
  if (p < plow) {
    q = sqrt(-2 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - plow) {
    q = p - 0.5;
    r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    q = sqrt(-2 * log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  /* Halley: e = Phi(x) - p, computed on the side of the smaller tail */
  if (x < 0) e = PKNormalCdf(x) - p;
  else e = (1 - p) - 0.5 * erfc(x / PK_SQRT2);
  u = e * sqrt(2 * PETSC_PI) * exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}

PetscReal PKJSUPdf(const PKJSU *j, PetscReal x)
{
  PetscReal u = (x - j->xi) / j->lambda, z = j->gamma + j->delta * asinh(u);
  return j->delta / (j->lambda * sqrt(2 * PETSC_PI) * sqrt(1 + u * u)) * exp(-0.5 * z * z);
}

PetscReal PKJSUCdf(const PKJSU *j, PetscReal x)
{
  return PKNormalCdf(j->gamma + j->delta * asinh((x - j->xi) / j->lambda));
}

PetscReal PKJSUQuantile(const PKJSU *j, PetscReal p)
{
  return j->xi + j->lambda * sinh((PKNormalQuantile(p) - j->gamma) / j->delta);
}

PetscReal PKJSUMean(const PKJSU *j)
{
  return j->xi - j->lambda * exp(0.5 / (j->delta * j->delta)) * sinh(j->gamma / j->delta);
}

PetscReal PKJSUVariance(const PKJSU *j)
{
  PetscReal w = exp(1.0 / (j->delta * j->delta));
  return 0.5 * j->lambda * j->lambda * (w - 1) * (w * cosh(2 * j->gamma / j->delta) + 1);
}

/* Sample quantile of a sorted sample, linear interpolation between order statistics (numpy's default) */
PetscReal PKQuantileSorted(PetscInt n, const PetscReal x[], PetscReal p)
{
  PetscReal h;
  PetscInt  i;

  if (n <= 0) return 0;
  if (p <= 0) return x[0];
  if (p >= 1) return x[n - 1];
  h = (n - 1) * p;
  i = (PetscInt)h;
  if (i >= n - 1) return x[n - 1];
  return x[i] + (h - i) * (x[i + 1] - x[i]);
}

static int PKCmpReal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

/* The median of x[0..n) (0 when n <= 0), x sorted in place: the one median of the tools, the examples and the report
   (the mean of the two middle values when n is even) */
PetscReal PKMedian(PetscInt n, PetscReal x[])
{
  if (n <= 0) return 0;
  qsort(x, (size_t)n, sizeof(PetscReal), PKCmpReal);
  return PKQuantileSorted(n, x, 0.5);
}

/* Slifker & Shapiro (1980): the Johnson family and its parameters from four percentiles at +-z, +-3z */
PetscErrorCode PKJSUSlifkerShapiro(PetscInt n, const PetscReal x[], PetscReal z, PKJSU *j, PetscBool *su)
{
  PetscReal x3, x1, xm1, xm3, mm, nn, pp, M, N, MN1;

  PetscFunctionBegin;
  *su = PETSC_FALSE;
  if (z <= 0) z = 0.524;
  if (n < 4) PetscFunctionReturn(0);
  x3  = PKQuantileSorted(n, x, PKNormalCdf(3 * z));
  x1  = PKQuantileSorted(n, x, PKNormalCdf(z));
  xm1 = PKQuantileSorted(n, x, PKNormalCdf(-z));
  xm3 = PKQuantileSorted(n, x, PKNormalCdf(-3 * z));
  mm  = x3 - x1;
  nn  = xm1 - xm3;
  pp  = x1 - xm1;
  if (!(mm > 0 && nn > 0 && pp > 0)) PetscFunctionReturn(0);
  M   = mm / pp;
  N   = nn / pp;
  MN1 = M * N - 1;
  if (!(MN1 > 0)) PetscFunctionReturn(0); /* SB (< 0) or lognormal (= 0): not SU */
  j->delta  = 2 * z / acosh(0.5 * (M + N));
  j->gamma  = j->delta * asinh((N - M) / (2 * sqrt(MN1)));
  j->lambda = 2 * pp * sqrt(MN1) / ((M + N - 2) * sqrt(M + N + 2));
  j->xi     = 0.5 * (x1 + xm1) + pp * (N - M) / (2 * (M + N - 2));
  *su       = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode PKJSUProfileNLL(PetscInt n, const PetscReal x[], PetscReal xi, PetscReal lambda, PetscReal *nll, PKJSU *j)
{
  PetscReal mean = 0, syy = 0, sl = 0, var, delta;

  PetscFunctionBegin;
  *nll = PETSC_INFINITY;
  if (n < 2 || !(lambda > 0)) PetscFunctionReturn(0);
  /* one pass, one asinh a point (Welford's running mean and sum of squared deviations, as stable as two passes): the
     fit evaluates this hundreds of times, and it was most of a report's cost */
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal u = (x[i] - xi) / lambda, a = asinh(u), au = PetscAbsReal(u), d = a - mean;
    mean += d / (i + 1);
    syy += d * (a - mean);
    sl += au < 1e100 ? log1p(u * u) : 2 * log(au);
  }
  var = syy / n;
  if (!(var > 0)) PetscFunctionReturn(0);
  delta = 1 / sqrt(var);
  *nll  = -n * log(delta) + n * log(lambda) + 0.5 * sl + 0.5 * n + n * PK_LSQ2PI;
  if (j) {
    j->delta  = delta;
    j->gamma  = -delta * mean;
    j->xi     = xi;
    j->lambda = lambda;
  }
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt         n;
  const PetscReal *x;
  PetscReal        xi0, lambda0;
} PKJSUFitCtx;

#if !defined(PETSC_USE_COMPLEX) /* TAO is real-only: a complex PETSc keeps the percentile start (PKJSUFit) */
static void PKJSUFitUnscale(const PKJSUFitCtx *c, const PetscReal v[2], PetscReal *xi, PetscReal *lambda)
{
  *xi     = c->xi0 + 0.1 * c->lambda0 * v[0];
  *lambda = c->lambda0 * exp(0.1 * v[1]);
}

static PetscErrorCode PKJSUFitObjective(Tao tao, Vec X, PetscReal *f, void *ctx)
{
  PKJSUFitCtx       *c = (PKJSUFitCtx *)ctx;
  const PetscScalar *v;
  PetscReal          vv[2], xi, lambda;

  PetscFunctionBegin;
  (void)tao;
  PetscCall(VecGetArrayRead(X, &v));
  vv[0] = PetscRealPart(v[0]);
  vv[1] = PetscRealPart(v[1]);
  PetscCall(VecRestoreArrayRead(X, &v));
  PKJSUFitUnscale(c, vv, &xi, &lambda);
  PetscCall(PKJSUProfileNLL(c->n, c->x, xi, lambda, f, NULL));
  if (PetscIsInfOrNanReal(*f)) *f = PETSC_MAX_REAL; /* outside the domain: worst vertex, never chosen */
  PetscFunctionReturn(0);
}
#endif

PetscErrorCode PKJSUFit(PetscInt n, const PetscReal x[], PKJSU *j, PKJSUFitInfo *info)
{
  PetscReal   *s, mean = 0, var = 0, xi, lambda, nll;
  PKJSUFitCtx  ctx;
  PKJSUFitInfo dummy;

  PetscFunctionBegin;
  if (!info) info = &dummy;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  j->gamma  = 0;
  j->delta  = 1;
  j->xi     = n > 0 ? x[0] : 0;
  j->lambda = 1;
  if (n < 8) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n, &s));
  PetscCall(PetscArraycpy(s, x, n));
  PetscCall(PetscSortReal(n, s));
  for (PetscInt i = 0; i < n; i++) mean += s[i];
  mean /= n;
  for (PetscInt i = 0; i < n; i++) var += (s[i] - mean) * (s[i] - mean);
  var /= n;
  if (!(var > 0) || s[n - 1] == s[0]) {
    PetscCall(PetscFree(s));
    PetscFunctionReturn(0);
  }
  PetscCall(PKJSUSlifkerShapiro(n, s, 0.524, &info->start, &info->start_su));
  if (!info->start_su || !(info->start.lambda > 0) || PetscIsInfOrNanReal(info->start.xi)) {
    /* not SU by percentiles (SB-like or too few distinct values): start near a normal (large delta) */
    info->start.xi     = PKQuantileSorted(n, s, 0.5);
    info->start.lambda = 3 * sqrt(var);
    info->start.delta  = 3;
    info->start.gamma  = 0;
  }
  ctx.n       = n;
  ctx.x       = s;
  ctx.xi0     = info->start.xi;
  ctx.lambda0 = info->start.lambda;
  PetscCall(PKJSUProfileNLL(n, s, ctx.xi0, ctx.lambda0, &info->nll_start, NULL));

#if defined(PETSC_USE_COMPLEX)
  xi     = ctx.xi0;
  lambda = ctx.lambda0;
#else
  Tao          tao;
  Vec          X;
  PetscScalar *v;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2, &X));
  PetscCall(VecSet(X, 0.0));
  PetscCall(TaoCreate(PETSC_COMM_SELF, &tao));
  PetscCall(TaoSetType(tao, TAONM));
  PetscCall(TaoSetSolution(tao, X));
  PetscCall(TaoSetObjective(tao, PKJSUFitObjective, &ctx));
  PetscCall(TaoSetTolerances(tao, 1e-9, 1e-13, 0));
  PetscCall(TaoSetMaximumIterations(tao, 1000));
  PetscCall(TaoSetMaximumFunctionEvaluations(tao, 2000));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetIterationNumber(tao, &info->its));
  PetscCall(PetscInfo(NULL, "Johnson SU fit of %" PetscInt_FMT " points: %" PetscInt_FMT " Nelder-Mead iterations\n", n, info->its));
  PetscCall(VecGetArray(X, &v));
  {
    PetscReal vv[2] = {PetscRealPart(v[0]), PetscRealPart(v[1])};
    PKJSUFitUnscale(&ctx, vv, &xi, &lambda);
  }
  PetscCall(VecRestoreArray(X, &v));
  PetscCall(TaoDestroy(&tao));
  PetscCall(VecDestroy(&X));
#endif
  PetscCall(PKJSUProfileNLL(n, s, xi, lambda, &nll, j));
  if (!(nll <= info->nll_start)) { /* cannot happen with Nelder-Mead (it keeps its best vertex); keep the start */
    PetscCall(PKJSUProfileNLL(n, s, ctx.xi0, ctx.lambda0, &nll, j));
  }
  info->nll = nll;
  info->ok  = PetscIsInfOrNanReal(nll) ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

/* Box-Muller from PetscRandom's uniforms on [0,1) */
PetscErrorCode PKNormalSample(PetscRandom rnd, PetscInt n, PetscReal z[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i += 2) {
    PetscReal u1 = 0, u2, r, t;
    while (u1 <= 0) PetscCall(PetscRandomGetValueReal(rnd, &u1));
    PetscCall(PetscRandomGetValueReal(rnd, &u2));
    r    = sqrt(-2 * log(u1));
    t    = 2 * PETSC_PI * u2;
    z[i] = r * cos(t);
    if (i + 1 < n) z[i + 1] = r * sin(t);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKJSUSample(const PKJSU *j, PetscRandom rnd, PetscInt n, PetscReal x[])
{
  PetscFunctionBegin;
  PetscCall(PKNormalSample(rnd, n, x));
  for (PetscInt i = 0; i < n; i++) x[i] = j->xi + j->lambda * sinh((x[i] - j->gamma) / j->delta);
  PetscFunctionReturn(0);
}
