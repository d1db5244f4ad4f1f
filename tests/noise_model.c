static const char help[] = "Unit test of the noise slowdown model and of E[max] of normal groups (src/perf/models/stochastic_noise.c):\n"
                           "no noisy rank gives 1; one noisy rank with a constant iteration time gives 1 + f d exactly (E[x + d N]);\n"
                           "several noisy ranks against a Monte Carlo of max over ranks of x + d Poisson(f x); a sample of\n"
                           "iteration times against Monte Carlo too; E[max] of one normal group against PKEMaxNormal.\n\n";

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

int main(int argc, char **argv)
{
  PetscInt    fails = 0;
  PetscReal   x1 = 1e-3, Eq, En, mc, sample[64];
  PetscRandom r;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetSeed(r, 42));
  PetscCall(PetscRandomSeed(r));
  /* no noisy rank */
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 0, 4, PETSC_FALSE, &Eq, &En));
  CHECK(PetscAbsReal(En / Eq - 1) < 1e-12, "no noise: slowdown %g", (double)(En / Eq));
  /* one noisy rank, constant x: 1 + f d, blocking and non-blocking */
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 1, 0, PETSC_FALSE, &Eq, &En));
  CHECK(PetscAbsReal(En / Eq - 1.1) < 1e-9, "one rank, blocking: %.12g, expected 1.1", (double)(En / Eq));
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 500, 3, 5, PETSC_TRUE, &Eq, &En));
  CHECK(PetscAbsReal(En / Eq - 1.1) < 1e-12, "non-blocking: %.12g, expected 1.1", (double)(En / Eq));
  /* four noisy ranks, constant x, against Monte Carlo */
  PetscCall(PKNoiseSlowdownModel(1, &x1, 2e-4, 2000, 4, 0, PETSC_FALSE, &Eq, &En));
  mc = MonteCarlo(r, 1, &x1, 2e-4, 2000, 4, 0, 200000);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "4 noisy ranks, x = 1 ms, 200 us at 2 kHz: model %.5e s, Monte Carlo %.5e s\n", (double)En, (double)mc));
  CHECK(PetscAbsReal(En / mc - 1) < 0.01, "4 noisy ranks: model %g, Monte Carlo %g", (double)En, (double)mc);
  /* a sample of iteration times, 2 noisy of 8 ranks */
  for (PetscInt i = 0; i < 64; i++) {
    PetscReal u;
    PetscCall(PetscRandomGetValueReal(r, &u));
    sample[i] = 1e-4 * (1 + u);
  }
  PetscCall(PKNoiseSlowdownModel(64, sample, 5e-5, 4000, 2, 6, PETSC_FALSE, &Eq, &En));
  mc = MonteCarlo(r, 64, sample, 5e-5, 4000, 2, 6, 200000);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "2 noisy of 8 ranks, sample: model %.5e s, Monte Carlo %.5e s\n", (double)En, (double)mc));
  CHECK(PetscAbsReal(En / mc - 1) < 0.01, "2 of 8 noisy: model %g, Monte Carlo %g", (double)En, (double)mc);
  mc = MonteCarlo(r, 64, sample, 0, 0, 0, 8, 200000);
  CHECK(PetscAbsReal(Eq / mc - 1) < 0.01, "quiet 8 ranks: model %g, Monte Carlo %g", (double)Eq, (double)mc);
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
