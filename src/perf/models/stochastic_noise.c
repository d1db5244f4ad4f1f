/*
   The stochastic model (paper 001, docs/bibliography.md [001]; docs/algorithms.md §9) applied a priori to injected
   noise: pure functions, no communication.

   Noise-free per-iteration time X (a sample x_1..x_m, each of weight 1/m). A rank with noise of detour length d and
   rate f spends Y = X + d N in an iteration, N ~ Poisson(f X) (compound Poisson detour time, convolved with X
   sample by sample: the longer the iteration, the more detours it catches).
     blocking solvers (E[T], eq 3): per iteration the slowest of Pn noisy and Pq quiet ranks,
       E[max] = int_0^inf 1 - F_Y(t)^Pn F_X(t)^Pq dt, exact for the step distributions;
     non-blocking solvers (E[T'], eq 5): the ranks drift apart and each runs its K iterations at its own pace; the
       solve takes the slowest rank's sum, E[T'] = E[max_p sum_k T_p^k], with the sums' laws the K-fold
       convolutions of Y (noisy ranks) and X (quiet ones): E = int_0^inf 1 - F_{SY}(t)^Pn F_{SX}(t)^Pq dt.
       For a long solve the sums concentrate at K E[Y] and K E[X] (eq 6, E[T'] -> K mu) and the slowdown tends to
       E[Y]/E[X] = 1 + f d; for few iterations the maximum over several noisy ranks of their detour counts is well
       above their mean and the slowdown is larger.
   Slowdown = E with noise / E without (the same formula with Pn = 0, from the same sample), so the ratio does not
   depend on the sample's absolute calibration.

   PKEMaxNormalGroups: E[max] of independent normals, in groups of equal ranks (slow ranks' cost, slowranks.c).
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

/* ---------------------------------------------------------------------------------------------------------------- */
/* Non-blocking solvers, E[T'] = E[max_p sum_k T_p^k] (001 eq 5, of which eq 6 is the long-solve limit): the law of a
   rank's sum over K iterations is the K-fold convolution of its per-iteration law (X, or Y = X + d Poisson(f X)),
   computed by repeated squaring on discrete laws of at most PK_NB_N points. A convolution keeps every distinct sum
   when there are few (exact: lattices such as a constant x plus multiples of d stay exact); otherwise it bins the
   sums into PK_NB_N cells over the range that holds all but PK_NB_TAIL of the mass (the tails lumped into the end
   cells), each cell at the mean of what fell in it, so that the law's mean stays exact and its spread is resolved
   on the scale of its standard deviation, not of its support (which grows like K while the spread grows like
   sqrt(K)). */

#define PK_NB_N    512
#define PK_NB_FINE (8 * PK_NB_N)
#define PK_NB_TAIL 1e-14

typedef struct {
  PetscInt   n;
  PetscReal *t, *w; /* sorted by t, weights summing to 1 */
} PKLaw;

static PetscErrorCode PKLawDestroy(PKLaw *L)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(L->t, L->w));
  L->n = 0;
  PetscFunctionReturn(0);
}

static int PKLawPtCmp(const void *a, const void *b)
{
  PetscReal x = ((const PetscReal *)a)[0], y = ((const PetscReal *)b)[0];
  return x < y ? -1 : x > y;
}

/* A law from n weighted points (t[i], w[i]) in any order: exact (sorted, equal values merged) when at most PK_NB_N
   distinct values, else binned as described above. pts is scratch of 2 n reals, overwritten. */
static PetscErrorCode PKLawFromPoints(PetscInt n, PetscReal pts[], PKLaw *L)
{
  PetscReal lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL, wsum = 0;
  PetscInt  m = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    lo = PetscMin(lo, pts[2 * i]);
    hi = PetscMax(hi, pts[2 * i]);
    wsum += pts[2 * i + 1];
  }
  if (n <= 8 * PK_NB_N) { /* few: sort, merge equal values (to rounding), keep them if few enough */
    const PetscReal tol = 1e-12 * PetscMax(PetscAbsReal(lo), PetscAbsReal(hi));
    qsort(pts, (size_t)n, 2 * sizeof(PetscReal), PKLawPtCmp);
    for (PetscInt i = 0; i < n; i++) {
      if (m && pts[2 * i] - pts[2 * (m - 1)] <= tol) pts[2 * (m - 1) + 1] += pts[2 * i + 1];
      else {
        pts[2 * m]     = pts[2 * i];
        pts[2 * m + 1] = pts[2 * i + 1];
        m++;
      }
    }
    if (m <= PK_NB_N) {
      PetscCall(PetscMalloc2(m, &L->t, m, &L->w));
      for (PetscInt i = 0; i < m; i++) {
        L->t[i] = pts[2 * i];
        L->w[i] = pts[2 * i + 1] / wsum;
      }
      L->n = m;
      PetscFunctionReturn(0);
    }
    n = m;
  }
  {
    /* many: a fine histogram of the mass gives the range [qlo, qhi] outside which PK_NB_TAIL of it lies (half on
       each side); then PK_NB_N cells over that range, each at the mean of its points, the tails in the end cells */
    PetscReal *fine, *cw, *ct, h, qlo = lo, qhi = hi, c = 0;
    PetscCall(PetscCalloc3(PK_NB_FINE, &fine, PK_NB_N, &cw, PK_NB_N, &ct));
    h = (hi - lo) / PK_NB_FINE;
    for (PetscInt i = 0; i < n; i++) {
      PetscInt b = h > 0 ? (PetscInt)((pts[2 * i] - lo) / h) : 0;
      fine[PetscMin(PetscMax(b, 0), PK_NB_FINE - 1)] += pts[2 * i + 1] / wsum;
    }
    for (PetscInt b = 0; b < PK_NB_FINE; b++) {
      c += fine[b];
      if (c > 0.5 * PK_NB_TAIL) {
        qlo = lo + b * h;
        break;
      }
    }
    c = 0;
    for (PetscInt b = PK_NB_FINE - 1; b >= 0; b--) {
      c += fine[b];
      if (c > 0.5 * PK_NB_TAIL) {
        qhi = lo + (b + 1) * h;
        break;
      }
    }
    h = (qhi - qlo) / PK_NB_N;
    for (PetscInt i = 0; i < n; i++) {
      PetscInt b = h > 0 ? (PetscInt)((pts[2 * i] - qlo) / h) : 0;
      b          = PetscMin(PetscMax(b, 0), PK_NB_N - 1);
      cw[b] += pts[2 * i + 1];
      ct[b] += pts[2 * i + 1] * pts[2 * i];
    }
    m = 0;
    for (PetscInt b = 0; b < PK_NB_N; b++) m += cw[b] > 0;
    PetscCall(PetscMalloc2(m, &L->t, m, &L->w));
    L->n = 0;
    for (PetscInt b = 0; b < PK_NB_N; b++)
      if (cw[b] > 0) {
        L->t[L->n] = ct[b] / cw[b];
        L->w[L->n] = cw[b] / wsum;
        L->n++;
      }
    PetscCall(PetscFree3(fine, cw, ct));
  }
  PetscFunctionReturn(0);
}

/* C = the law of A + B (independent) */
static PetscErrorCode PKLawConv(const PKLaw *A, const PKLaw *B, PKLaw *C)
{
  PetscReal *pts;
  PetscInt   n = A->n * B->n;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(2 * n, &pts));
  for (PetscInt i = 0; i < A->n; i++)
    for (PetscInt j = 0; j < B->n; j++) {
      pts[2 * (i * B->n + j)]     = A->t[i] + B->t[j];
      pts[2 * (i * B->n + j) + 1] = A->w[i] * B->w[j];
    }
  PetscCall(PKLawFromPoints(n, pts, C));
  PetscCall(PetscFree(pts));
  PetscFunctionReturn(0);
}

/* S = the law of the sum of K independent copies of L (repeated squaring); L is consumed */
static PetscErrorCode PKLawSumK(PKLaw *L, PetscInt K, PKLaw *S)
{
  PKLaw     base = *L, acc = {0, NULL, NULL}, t;
  PetscBool have = PETSC_FALSE;

  PetscFunctionBegin;
  L->n = 0;
  L->t = L->w = NULL;
  while (K > 0) {
    if (K & 1) {
      if (!have) {
        PetscCall(PetscMalloc2(base.n, &acc.t, base.n, &acc.w));
        PetscCall(PetscArraycpy(acc.t, base.t, base.n));
        PetscCall(PetscArraycpy(acc.w, base.w, base.n));
        acc.n = base.n;
        have  = PETSC_TRUE;
      } else {
        PetscCall(PKLawConv(&acc, &base, &t));
        PetscCall(PKLawDestroy(&acc));
        acc = t;
      }
    }
    K >>= 1;
    if (K) {
      PetscCall(PKLawConv(&base, &base, &t));
      PetscCall(PKLawDestroy(&base));
      base = t;
    }
  }
  PetscCall(PKLawDestroy(&base));
  *S = acc;
  PetscFunctionReturn(0);
}

/* E[max] of Pn draws of A (tagged noisy) and Pq of B */
static PetscErrorCode PKLawEMax(const PKLaw *A, PetscReal Pn, const PKLaw *B, PetscReal Pq, PetscReal *e)
{
  PKNoisePt *pt;
  PetscInt   np = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(A->n + B->n, &pt));
  if (Pn > 0)
    for (PetscInt i = 0; i < A->n; i++) pt[np++] = (PKNoisePt){A->t[i], A->w[i], 1};
  if (Pq > 0)
    for (PetscInt i = 0; i < B->n; i++) pt[np++] = (PKNoisePt){B->t[i], B->w[i], 0};
  qsort(pt, (size_t)np, sizeof(*pt), PKNoisePtCmp);
  *e = PKNoiseEMax(np, pt, Pn, Pq);
  PetscCall(PetscFree(pt));
  PetscFunctionReturn(0);
}

/* E[T'] per iteration with and without noise: per rank the sum of K iterations; the noisy ranks' iteration law is
   the sample convolved with the compound-Poisson detour time d Poisson(f x) */
static PetscErrorCode PKNoiseNonBlocking(PetscInt ms, const PetscReal xs[], PetscReal d, PetscReal f, PetscReal Pn, PetscReal Pq, PetscInt K, PetscReal *Equiet, PetscReal *Enoisy)
{
  PKLaw      X, Y, SX, SY;
  PetscReal *pts;
  PetscInt   n = 0, cap = 0;

  PetscFunctionBegin;
  /* X: the sample */
  PetscCall(PetscMalloc1(2 * ms, &pts));
  for (PetscInt i = 0; i < ms; i++) {
    pts[2 * i]     = xs[i];
    pts[2 * i + 1] = 1.0 / ms;
  }
  PetscCall(PKLawFromPoints(ms, pts, &X));
  PetscCall(PetscFree(pts));
  /* Y: x + k d with probability Poisson(f x)(k), per sample point; k over the range that holds all but 1e-15 of
     the Poisson mass (log-space weights: no underflow for large f x) */
  for (PetscInt i = 0; i < ms; i++) {
    PetscReal mu = f * xs[i], sd = PetscSqrtReal(mu);
    cap += (PetscInt)(mu + 12 * sd + 40) - PetscMax(0, (PetscInt)(mu - 12 * sd - 40)) + 1;
  }
  PetscCall(PetscMalloc1(2 * cap, &pts));
  for (PetscInt i = 0; i < ms; i++) {
    PetscReal mu = f * xs[i], sd = PetscSqrtReal(mu);
    PetscInt  k0 = PetscMax(0, (PetscInt)(mu - 12 * sd - 40)), k1 = (PetscInt)(mu + 12 * sd + 40);
    if (mu <= 0 || d <= 0) {
      pts[2 * n]     = xs[i];
      pts[2 * n + 1] = 1.0 / ms;
      n++;
      continue;
    }
    for (PetscInt k = k0; k <= k1; k++) {
      PetscReal lp = -mu + k * PetscLogReal(mu) - lgamma((double)k + 1);
      if (lp < -745) continue;
      pts[2 * n]     = xs[i] + k * d;
      pts[2 * n + 1] = PetscExpReal(lp) / ms;
      n++;
    }
  }
  PetscCall(PKLawFromPoints(n, pts, &Y));
  PetscCall(PetscFree(pts));
  /* per rank, the sum over K iterations; then the expected maximum over ranks */
  PetscCall(PKLawSumK(&X, K, &SX));
  PetscCall(PKLawSumK(&Y, K, &SY));
  PetscCall(PKLawEMax(&SY, 0, &SX, Pn + Pq, Equiet));
  PetscCall(PKLawEMax(&SY, Pn, &SX, Pq, Enoisy));
  *Equiet /= K;
  *Enoisy /= K;
  PetscCall(PKLawDestroy(&SX));
  PetscCall(PKLawDestroy(&SY));
  PetscFunctionReturn(0);
}

PetscErrorCode PKNoiseSlowdownModel(PetscInt m, const PetscReal x[], PetscReal d, PetscReal f, PetscReal Pn, PetscReal Pq, PetscInt K, PetscBool nonblocking, PetscReal *Equiet, PetscReal *Enoisy)
{
  const PetscInt mmax = 2048, nmax = 64;
  PetscReal     *xs;
  PetscInt       ms, np = 0;
  PKNoisePt     *pt;

  PetscFunctionBegin;
  PetscCheck(m > 0 && Pn >= 0 && Pq >= 0 && Pn + Pq >= 1 && d >= 0 && f >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Noise model needs a sample, ranks and d, f >= 0");
  PetscCheck(K >= 1 || !nonblocking, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The non-blocking noise model needs K >= 1 iterations, not %" PetscInt_FMT, K);
  /* a sorted copy; large samples reduced to mmax equally spaced quantiles */
  ms = PetscMin(m, mmax);
  PetscCall(PetscMalloc1(m, &xs));
  PetscCall(PetscArraycpy(xs, x, m));
  PetscCall(PetscSortReal(m, xs));
  if (ms < m)
    for (PetscInt i = 0; i < ms; i++) xs[i] = xs[(PetscInt)(((PetscReal)i + 0.5) * m / ms)];
  if (nonblocking) {
    PetscCall(PKNoiseNonBlocking(ms, xs, d, f, Pn, Pq, K, Equiet, Enoisy));
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
  const PetscInt n  = 4000;
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
