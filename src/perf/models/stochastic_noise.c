/*
   The stochastic model (paper 001, docs/bibliography.md [001]; docs/algorithms.md §9) applied a priori to injected
   noise: pure functions, no communication.

   Noise-free per-iteration time X (a sample x_1..x_m, each of weight 1/m). A rank with noise of detour length d and
   rate f spends Y = X + d N in an iteration, N ~ Poisson(f X) (compound Poisson detour time, convolved with X
   sample by sample: the longer the iteration, the more detours it catches).
     blocking solvers (E[T], eq 3): per iteration the slowest of Pn noisy and Pq quiet ranks,
       E[max] = int_0^inf 1 - F_Y(t)^Pn F_X(t)^Pq dt, exact for the step distributions;
     non-blocking solvers (E[T'], eq 6): the ranks drift apart and the slowest rank's mean sets the pace,
       E = E[Y] = E[X] (1 + f d) when any rank is noisy.
   Slowdown = E with noise / E without (the same formula with Pn = 0), so the ratio does not depend on the sample's
   absolute calibration.

   PKEMaxNormalGroups: E[max] of independent normals, in groups of equal ranks (slow ranks' cost, report_noise.c).
*/
#include <pipekrylov/private/pkmodel.h>

typedef struct {
  PetscReal t, w;
  int       noisy;
} PKNoisePt;

static int PKNoisePtCmp(const void *a, const void *b)
{
  PetscReal x = ((const PKNoisePt *)a)->t, y = ((const PKNoisePt *)b)->t;
  return x < y ? -1 : x > y;
}

/* int_0^inf 1 - FY^Pn FX^Pq over merged sorted support points (weights of the two laws tagged by noisy) */
static PetscReal PKNoiseEMax(PetscInt n, const PKNoisePt p[], PetscReal Pn, PetscReal Pq)
{
  PetscReal FX = 0, FY = 0, e, G;

  if (!n) return 0;
  e = p[0].t; /* 1 - G = 1 below the smallest point */
  for (PetscInt i = 0; i < n; i++) {
    if (p[i].noisy) FY += p[i].w;
    else FX += p[i].w;
    if (i + 1 < n && p[i + 1].t > p[i].t) {
      FX = PetscMin(FX, 1.0);
      FY = PetscMin(FY, 1.0);
      G  = 1.0;
      if (Pn > 0) G *= FY > 0 ? exp(Pn * log(FY)) : 0.0;
      if (Pq > 0) G *= FX > 0 ? exp(Pq * log(FX)) : 0.0;
      e += (1.0 - G) * (p[i + 1].t - p[i].t);
    }
  }
  return e;
}

PetscErrorCode PKNoiseSlowdownModel(PetscInt m, const PetscReal x[], PetscReal d, PetscReal f, PetscReal Pn, PetscReal Pq, PetscBool nonblocking, PetscReal *Equiet, PetscReal *Enoisy)
{
  const PetscInt mmax = 2048, nmax = 64;
  PetscReal     *xs, mean = 0;
  PetscInt       ms, np = 0;
  PKNoisePt     *pt;

  PetscFunctionBegin;
  PetscCheck(m > 0 && Pn >= 0 && Pq >= 0 && Pn + Pq >= 1 && d >= 0 && f >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Noise model needs a sample, ranks and d, f >= 0");
  /* a sorted copy; large samples reduced to mmax equally spaced quantiles */
  ms = PetscMin(m, mmax);
  PetscCall(PetscMalloc1(m, &xs));
  PetscCall(PetscArraycpy(xs, x, m));
  PetscCall(PetscSortReal(m, xs));
  if (ms < m)
    for (PetscInt i = 0; i < ms; i++) xs[i] = xs[(PetscInt)(((PetscReal)i + 0.5) * m / ms)];
  for (PetscInt i = 0; i < ms; i++) mean += xs[i] / ms;
  if (nonblocking) {
    *Equiet = mean;
    *Enoisy = Pn > 0 ? mean * (1 + f * d) : mean;
    PetscCall(PetscFree(xs));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1(ms * (nmax + 2), &pt));
  /* without noise: every rank draws X */
  for (PetscInt i = 0; i < ms; i++) pt[np++] = (PKNoisePt){xs[i], 1.0 / ms, 0};
  qsort(pt, (size_t)np, sizeof(*pt), PKNoisePtCmp);
  *Equiet = PKNoiseEMax(np, pt, 0, Pn + Pq);
  /* with noise: X for the quiet ranks, X + d Poisson(f X) for the noisy ones */
  for (PetscInt i = 0; i < ms; i++) {
    PetscReal mu = f * xs[i], pk = exp(-mu), cum = 0;
    for (PetscInt k = 0; k <= nmax; k++) {
      pt[np++] = (PKNoisePt){xs[i] + k * d, pk / ms, 1};
      cum += pk;
      if (1 - cum < 1e-12) break;
      pk *= mu / (k + 1);
    }
  }
  qsort(pt, (size_t)np, sizeof(*pt), PKNoisePtCmp);
  *Enoisy = PKNoiseEMax(np, pt, Pn, Pq);
  PetscCall(PetscFree(pt));
  PetscCall(PetscFree(xs));
  PetscFunctionReturn(0);
}

PetscErrorCode PKEMaxNormalGroups(PetscInt ng, const PetscReal mu[], const PetscReal sd[], const PetscReal cnt[], PetscReal *e)
{
  const PetscInt n = 4000;
  PetscReal      lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL, h, sum = 0;

  PetscFunctionBegin;
  for (PetscInt g = 0; g < ng; g++) {
    if (cnt[g] <= 0) continue;
    lo = PetscMin(lo, mu[g] - 9 * sd[g]);
    hi = PetscMax(hi, mu[g] + 9 * sd[g]);
  }
  PetscCheck(hi >= lo, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No ranks");
  if (hi == lo) {
    *e = hi;
    PetscFunctionReturn(0);
  }
  /* E[max] = lo + int_lo^hi 1 - prod_g F_g(t)^cnt_g dt (midpoint rule) */
  h = (hi - lo) / n;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal t = lo + (i + 0.5) * h, lG = 0;
    for (PetscInt g = 0; g < ng; g++) {
      if (cnt[g] <= 0) continue;
      if (sd[g] > 0) lG += cnt[g] * PKNormalLogCdf((t - mu[g]) / sd[g]);
      else if (t < mu[g]) lG = -PETSC_MAX_REAL;
    }
    sum += 1 - (lG <= -700 ? 0 : exp(lG));
  }
  *e = lo + h * sum;
  PetscFunctionReturn(0);
}
