static const char help[] = "Unit test of the noise slowdown model and of E[max] of normal groups (src/perf/models/stochastic_noise.c):\n"
                           "no noisy rank gives 1; one noisy rank with a constant iteration time gives 1 + f d exactly (E[x + d N]);\n"
                           "several noisy ranks against a Monte Carlo of max over ranks of x + d Poisson(f x); a sample of\n"
                           "iteration times against Monte Carlo too; the non-blocking E[T'] (max over ranks of the sums over K\n"
                           "iterations) against hand-computed values, above 1 + f d for few iterations and several ranks, tending\n"
                           "to it for many, and against a Monte Carlo of the sums; E[max] of one normal group against PKEMaxNormal.\n\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkperfimpl.h>

#define CHECK(c, ...) \
  do { \
    if (!(c)) { \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL " __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n")); \
      fails++; \
    } \
  } while (0)

static PetscInt Poisson(PetscRandom r, PetscReal mu)
{
  PetscReal L = exp(-mu), p = 1, u;
  PetscInt  k = 0;
  do {
    PetscRandomGetValueReal(r, &u);
    p *= u;
    k++;
  } while (p > L);
  return k - 1;
}

/* E over iterations of max over P ranks (Pn noisy) of x + d N, x drawn from the sample */
static PetscReal MonteCarlo(PetscRandom r, PetscInt m, const PetscReal x[], PetscReal d, PetscReal f, PetscInt Pn, PetscInt Pq, PetscInt n)
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal mx = 0, u;
    for (PetscInt p = 0; p < Pn + Pq; p++) {
      PetscReal xi;
      PetscRandomGetValueReal(r, &u);
      xi = x[PetscMin((PetscInt)(u * m), m - 1)];
      if (p < Pn) xi += d * Poisson(r, f * xi);
      mx = PetscMax(mx, xi);
    }
    s += mx;
  }
  return s / n;
}

/* E over runs of max over P ranks (Pn noisy) of the sum over K iterations of x + d N, x drawn from the sample */
static PetscReal MonteCarloSums(PetscRandom r, PetscInt m, const PetscReal x[], PetscReal d, PetscReal f, PetscInt Pn, PetscInt Pq, PetscInt K, PetscInt n)
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal mx = 0, u;
    for (PetscInt p = 0; p < Pn + Pq; p++) {
      PetscReal sum = 0;
      for (PetscInt k = 0; k < K; k++) {
        PetscReal xi;
        PetscRandomGetValueReal(r, &u);
        xi = x[PetscMin((PetscInt)(u * m), m - 1)];
        if (p < Pn) xi += d * Poisson(r, f * xi);
        sum += xi;
      }
      mx = PetscMax(mx, sum);
    }
    s += mx;
  }
  return s / n;
}

int main(int argc, char **argv)
{
  PetscInt    fails = 0;
  PetscReal   x1    = 1e-3, Eq, En, mc, sample[64];
  PetscRandom r;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetSeed(r, 42));
  PetscCall(PetscRandomSeed(r));
  /* no noisy rank */
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 0, 4, 1, PETSC_FALSE, &Eq, &En));
  CHECK(PetscAbsReal(En / Eq - 1) < 1e-12, "no noise: slowdown %g", (double)(En / Eq));
  /* one noisy rank, constant x: 1 + f d, blocking and non-blocking */
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 1, 0, 1, PETSC_FALSE, &Eq, &En));
  CHECK(PetscAbsReal(En / Eq - 1.1) < 1e-9, "one rank, blocking: %.12g, expected 1.1", (double)(En / Eq));
  /* non-blocking, one noisy rank among quiet ones, constant x: the quiet ranks' sums K x never exceed the noisy
     one's, so E[T'] = K x + d E[Poisson(f K x)] and the slowdown is 1 + f d for every K */
  for (PetscInt K = 1; K <= 64; K *= 8) {
    PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 1, 5, K, PETSC_TRUE, &Eq, &En));
    CHECK(PetscAbsReal(En / Eq - 1.1) < 1e-9, "non-blocking, one noisy rank, K = %d: %.12g, expected 1.1", (int)K, (double)(En / Eq));
  }
  /* four noisy ranks, constant x, against Monte Carlo */
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 2000, 4, 0, 1, PETSC_FALSE, &Eq, &En));
  mc = MonteCarlo(r, 1, &x1, 2e-4, 2000, 4, 0, 200000);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "4 noisy ranks, x = 1 ms, 200 us at 2 kHz: model %.5e s, Monte Carlo %.5e s\n", (double)En, (double)mc));
  CHECK(PetscAbsReal(En / mc - 1) < 0.01, "4 noisy ranks: model %g, Monte Carlo %g", (double)En, (double)mc);
  /* a sample of iteration times, 2 noisy of 8 ranks */
  for (PetscInt i = 0; i < 64; i++) {
    PetscReal u;
    PetscCall(PetscRandomGetValueReal(r, &u));
    sample[i] = 1e-4 * (1 + u);
  }
  PetscCall(PKNoiseSlowdownModel(64, sample, 5e-5, 4000, 2, 6, 1, PETSC_FALSE, &Eq, &En));
  mc = MonteCarlo(r, 64, sample, 5e-5, 4000, 2, 6, 200000);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "2 noisy of 8 ranks, sample: model %.5e s, Monte Carlo %.5e s\n", (double)En, (double)mc));
  CHECK(PetscAbsReal(En / mc - 1) < 0.01, "2 of 8 noisy: model %g, Monte Carlo %g", (double)En, (double)mc);
  mc = MonteCarlo(r, 64, sample, 0, 0, 0, 8, 200000);
  CHECK(PetscAbsReal(Eq / mc - 1) < 0.01, "quiet 8 ranks: model %g, Monte Carlo %g", (double)Eq, (double)mc);
  /* Non-blocking E[T'] (001 eq 5), x = 1 ms constant, 200 us detours at 500 Hz (f d = 0.1, f x = 0.5):
     a rank's sum over K iterations is K x + d N, N ~ Poisson(f K x), so
       slowdown = (K x + d E[max over the Pn noisy ranks of N]) / (K x) = 1 + (d / (K x)) E[max_Pn Poisson(f K x)],
     E[max of 2 Poisson(0.5)] = sum_n 1 - F(n)^2 with F(0..5) = 0.606531, 0.909796, 0.985612, 0.998248, 0.999828,
     0.999986: 0.632121 + 0.172271 + 0.028569 + 0.003501 + 0.000344 + 0.000028 + 0.000002 = 0.836835, so
     K = 1, 2 noisy ranks (2 quiet ones change nothing: their K x is below every noisy sum): 1 + 0.2 x 0.836835 =
     1.167367, not 1 + f d = 1.1. The same sum for Poisson(2) (K = 4) gives E[max of 2] = 2.771506: 1.138575. */
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 2, 2, 1, PETSC_TRUE, &Eq, &En));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "non-blocking, 2 noisy of 4 ranks, K = 1: slowdown %.6f (hand 1.167367), E[T'] quiet %.6e s\n", (double)(En / Eq), (double)Eq));
  CHECK(PetscAbsReal(En / Eq - 1.167367) < 2e-6, "non-blocking K = 1, 2 noisy: %.9f, hand-computed 1.167367", (double)(En / Eq));
  CHECK(PetscAbsReal(Eq - x1) < 1e-15, "non-blocking quiet E[T'] per iteration %g, expected x = %g", (double)Eq, (double)x1);
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 2, 0, 4, PETSC_TRUE, &Eq, &En));
  CHECK(PetscAbsReal(En / Eq - 1.138575) < 2e-6, "non-blocking K = 4, 2 noisy: %.9f, hand-computed 1.138575", (double)(En / Eq));
  /* above 1 + f d for few iterations and several ranks, decreasing to it as K grows (4 noisy ranks:
     1 + 0.2 E[max of 4 Poisson(0.5)] = 1.248718 at K = 1; about 1 + 0.1 (1 + 1.03 / sqrt(0.5 K)) for large K) */
  {
    PetscReal prev = PETSC_MAX_REAL, s;
    for (PetscInt K = 1; K <= 1000000; K *= 10) {
      PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 4, 4, K, PETSC_TRUE, &Eq, &En));
      s = En / Eq;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "non-blocking, 4 noisy of 8 ranks, K = %7d: slowdown %.6f\n", (int)K, (double)s));
      if (K == 1) CHECK(PetscAbsReal(s - 1.248718) < 2e-6, "non-blocking K = 1, 4 noisy: %.9f, hand-computed 1.248718", (double)s);
      if (K <= 100) CHECK(s > 1.1 + 0.01, "non-blocking K = %d, 4 noisy ranks: %.6f is not above 1 + f d = 1.1", (int)K, (double)s);
      CHECK(s < prev && s > 1.1, "non-blocking K = %d: %.6f not between 1.1 and the previous %.6f", (int)K, (double)s, (double)prev);
      if (K == 1000000) CHECK(s - 1.1 < 2e-4, "non-blocking K = 1e6: %.6f does not tend to 1 + f d = 1.1", (double)s);
      prev = s;
    }
  }
  /* a sample of iteration times: quiet E[T'] hand-computed for x in {1, 2} ms, K = 2, 2 ranks: a rank's sum is 2, 3
     or 4 ms with probabilities 1/4, 1/2, 1/4; E[max of 2] = 2 + (1 - 1/16) + (1 - 9/16) = 3.375 ms, 1.6875 ms per
     iteration. Then a random sample against a Monte Carlo of the sums: 3 noisy of 6 ranks, K = 6 */
  {
    PetscReal two[2] = {2e-3, 1e-3};
    PetscCall(PKNoiseSlowdownModel(2, two, 1e-4, 100, 0, 2, 2, PETSC_TRUE, &Eq, &En));
    CHECK(PetscAbsReal(Eq - 1.6875e-3) < 1e-15 && PetscAbsReal(En - Eq) < 1e-15, "non-blocking quiet {1, 2} ms, K = 2, P = 2: %.12g, hand-computed 1.6875e-3", (double)Eq);
  }
  PetscCall(PKNoiseSlowdownModel(64, sample, 5e-5, 4000, 3, 3, 6, PETSC_TRUE, &Eq, &En));
  mc = MonteCarloSums(r, 64, sample, 5e-5, 4000, 3, 3, 6, 100000) / 6;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "non-blocking, 3 noisy of 6 ranks, K = 6, sample: model %.5e s, Monte Carlo %.5e s per iteration\n", (double)En, (double)mc));
  CHECK(PetscAbsReal(En / mc - 1) < 0.01, "non-blocking 3 of 6 noisy, K = 6: model %g, Monte Carlo %g", (double)En, (double)mc);
  mc = MonteCarloSums(r, 64, sample, 0, 0, 0, 6, 6, 100000) / 6;
  CHECK(PetscAbsReal(Eq / mc - 1) < 0.01, "non-blocking quiet 6 ranks, K = 6: model %g, Monte Carlo %g", (double)Eq, (double)mc);
  /* E[max] of normal groups: one group of 16 against PKEMaxNormal; two groups against a Monte Carlo */
  {
    PetscReal mu[2] = {1.0, 1.5}, sd[2] = {0.1, 0.2}, cnt[2] = {16, 0}, e, e0;
    PetscCall(PKEMaxNormalGroups(2, mu, sd, cnt, &e));
    PetscCall(PKEMaxNormal(1.0, 0.1, 16, &e0));
    CHECK(PetscAbsReal(e / e0 - 1) < 1e-4, "normal groups %g, PKEMaxNormal %g", (double)e, (double)e0);
    cnt[1] = 1;
    PetscCall(PKEMaxNormalGroups(2, mu, sd, cnt, &e));
    CHECK(e > 1.5 && e < 1.5 + 0.2 * 0.5, "a slow rank of mean 1.5 dominates: %g", (double)e);
  }
  PetscCall(PetscRandomDestroy(&r));
  if (!fails) PetscCall(PetscPrintf(PETSC_COMM_SELF, "noise model ok\n"));
  PetscCall(PetscFinalize());
  return fails ? 1 : 0;
}
