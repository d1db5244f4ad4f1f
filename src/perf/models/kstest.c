/*
   Kolmogorov-Smirnov statistics ([001] §3, docs/algorithms.md §10): two samples (are two ranks' iteration times drawn
   from one law? do the ranks of a node move together?) and one sample against a fitted Johnson SU.
*/
#include <pipekrylov/private/pkmodel.h>

/* The merge-walk of the sorted samples x and s y, stepping past ties in both before comparing, with F the empirical
   law of x and G that of s y: *D = sup |F - G| and *Dp = sup (G - F). Both only change where a step is taken, so
   checking after each merged value finds the sups; once one sample is exhausted the other law only grows towards 1,
   which moves neither sup past what was seen (|F - G| shrinks, and G - F cannot grow once G = 1 or F grows). */
static PetscErrorCode PKKSWalk(PetscInt n, const PetscReal x[], PetscInt m, const PetscReal y[], PetscReal s, PetscReal *D, PetscReal *Dp)
{
  PetscReal *a, *b, d = 0, dp = 0;
  PetscInt   i = 0, j = 0;

  PetscFunctionBegin;
  *D  = 0;
  *Dp = 0;
  if (n <= 0 || m <= 0) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(n, &a, m, &b));
  PetscCall(PetscArraycpy(a, x, n));
  for (PetscInt k = 0; k < m; k++) b[k] = s * y[k];
  PetscCall(PetscSortReal(n, a));
  PetscCall(PetscSortReal(m, b));
  while (i < n && j < m) {
    PetscReal v = PetscMin(a[i], b[j]);
    while (i < n && a[i] <= v) i++;
    while (j < m && b[j] <= v) j++;
    d  = PetscMax(d, PetscAbsReal((PetscReal)i / n - (PetscReal)j / m));
    dp = PetscMax(dp, (PetscReal)j / m - (PetscReal)i / n);
  }
  *D  = d;
  *Dp = dp;
  PetscCall(PetscFree2(a, b));
  PetscFunctionReturn(0);
}

/* D = sup_x |F1_n(x) - F2_m(x)| */
PetscErrorCode PKKSTwoSample(PetscInt n, const PetscReal x[], PetscInt m, const PetscReal y[], PetscReal *D)
{
  PetscReal dp;

  PetscFunctionBegin;
  PetscCall(PKKSWalk(n, x, m, y, 1.0, D, &dp));
  PetscFunctionReturn(0);
}

/* One-sided, scaled: D+ = sup_t (G(t) - F(t)), F the empirical law of x, G that of s y (y scaled by s). Large when x
   is stochastically larger than s y: with s = 1.05, when a sizeable share of x's values lie more than 5% above
   what y's would be (the report's noise section, slowranks.c: a rank slower than the reference rank in a fraction of its iterations, as a
   rank with detours is). A few spikes in x move D+ by their share only, so a descheduled rank is not named for
   them. Compare with PKKSOneSidedCritical. */
PetscErrorCode PKKSOneSidedScaled(PetscInt n, const PetscReal x[], PetscInt m, const PetscReal y[], PetscReal s, PetscReal *Dp)
{
  PetscReal d;

  PetscFunctionBegin;
  PetscCall(PKKSWalk(n, x, m, y, s, &d, Dp));
  PetscFunctionReturn(0);
}

PetscErrorCode PKKSOneSampleJSU(PetscInt n, const PetscReal x[], const PKJSU *j, PetscReal *D)
{
  PetscReal *a, d = 0;

  PetscFunctionBegin;
  *D = 0;
  if (n <= 0) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n, &a));
  PetscCall(PetscArraycpy(a, x, n));
  PetscCall(PetscSortReal(n, a));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal F = PKJSUCdf(j, a[i]);
    d           = PetscMax(d, PetscMax((PetscReal)(i + 1) / n - F, F - (PetscReal)i / n));
  }
  *D = d;
  PetscCall(PetscFree(a));
  PetscFunctionReturn(0);
}

/* c(alpha) = sqrt(-ln(alpha/2)/2): 1.2239 (0.10), 1.3581 (0.05), 1.6276 (0.01) */
PetscReal PKKSCoefficient(PetscReal alpha)
{
  return sqrt(-0.5 * log(0.5 * alpha));
}

/* Reject "same law" at level alpha if D exceeds this; m <= 0: one sample of size n (conservative when the law
   was fitted to the same data, the Lilliefors effect) */
PetscReal PKKSCritical(PetscReal alpha, PetscInt n, PetscInt m)
{
  if (n <= 0) return PETSC_INFINITY;
  if (m <= 0) return PKKSCoefficient(alpha) / sqrt((PetscReal)n);
  return PKKSCoefficient(alpha) * sqrt((PetscReal)(n + m) / ((PetscReal)n * m));
}

/* Reject "x is not stochastically larger" at level alpha if D+ exceeds this: Smirnov's one-sided bound
   P(D+ > d) <= exp(-2 d^2 n m / (n + m)) */
PetscReal PKKSOneSidedCritical(PetscReal alpha, PetscInt n, PetscInt m)
{
  if (n <= 0 || m <= 0) return PETSC_INFINITY;
  return sqrt(-0.5 * log(alpha) * (PetscReal)(n + m) / ((PetscReal)n * m));
}

/* Asymptotic p-value: Kolmogorov's Q(lambda) = 2 sum_j (-1)^{j-1} exp(-2 j^2 lambda^2) with Stephens' small-sample
   correction lambda = (sqrt(ne) + 0.12 + 0.11/sqrt(ne)) D */
PetscReal PKKSPValue(PetscReal D, PetscInt n, PetscInt m)
{
  PetscReal ne, sn, lam, q = 0, sign = 1;

  if (n <= 0) return 1;
  ne  = m > 0 ? (PetscReal)n * m / (n + m) : (PetscReal)n;
  sn  = sqrt(ne);
  lam = (sn + 0.12 + 0.11 / sn) * D;
  if (lam < 0.2) return 1;
  for (PetscInt j = 1; j <= 100; j++) {
    PetscReal t = sign * exp(-2.0 * j * j * lam * lam);
    q += t;
    if (PetscAbsReal(t) < 1e-16) break;
    sign = -sign;
  }
  return PetscMin(1, PetscMax(0, 2 * q));
}
