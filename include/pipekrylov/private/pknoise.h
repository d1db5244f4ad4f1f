/*
   Noise injection (-ksp_perf_noise <duration_us>,<frequency_hz>[,<seed>], src/perf/noise.c): detours of a fixed
   length with Poisson arrivals, independent per rank, served at the entry of compute phases only (the phase marks
   of pipekrylov's types, the begin and end of MatMult and PCApply for PETSc's types), never inside an MPI call.

   Arrivals: Poisson at rate f in the time outside detours (the arrival clock stops while they run). A detour
   whose arrival falls in a wait (halo, reduction) is served at the next compute mark; several due at once are
   served back to back. Each rank has its own PRNG (splitmix64), seeded with seed + rank: the sequence of gaps is
   reproducible, the number of detours in a solve depends on its wall time.
*/
#ifndef PKNOISE_H
#define PKNOISE_H

#include <pipekrylov/private/pkrecimpl.h>

#define PK_NOISE_MAXRANKS 64 /* -ksp_perf_noise_ranks: ranks listed at most */

typedef struct {
  /* settings: -ksp_perf_noise and -ksp_perf_noise_ranks, or KSPPerfNoiseSet() */
  PetscBool          on;       /* this KSP injects noise */
  PetscBool          code_set; /* set by KSPPerfNoiseSet(): the options do not override it */
  PetscReal          duration; /* seconds */
  PetscReal          freq;     /* mean arrivals per second */
  PetscInt           seed;
  PetscInt           nranks;   /* 0: every rank */
  PetscInt           ranks[PK_NOISE_MAXRANKS];
  PetscBool          here;     /* this rank injects */
  PetscInt           skip;     /* -ksp_perf_noise_skip: the first solves of the KSP run without noise */
  PetscBool          active;   /* noise in the solve under way (or the last one) */
  unsigned long long state;    /* PRNG state */
  PetscBool          seeded;
  /* counters of the solve under way (or the last one) */
  PetscInt           n;                 /* detours served */
  PetscLogDouble     wall, cpu;         /* time inside them: wall clock (PetscTime) and this thread's CPU time */
  PetscInt           nphase[PK_PHASE_N]; /* detours by the phase they were charged to (act: what was being done) */
  PetscInt           noverlap;          /* of those, served while a non-blocking reduction was in flight */
} PKNoise;

PETSC_EXTERN PetscErrorCode PKNoiseSetDetourCallback(void (*)(void *), void *);

/* The stochastic model of the slowdown that noise of rate f and length d causes (src/perf/stochastic_noise.c):
   x[0..m) a sample of the noise-free per-iteration time; Pn ranks with noise, Pq without. Blocking solvers: the
   ratio of E[max over ranks] with and without noise per iteration (each noisy rank's iteration time is x plus d
   times a Poisson(f x) count); non-blocking solvers: the ratio of the slowest rank's mean. */
PETSC_EXTERN PetscErrorCode PKNoiseSlowdownModel(PetscInt m, const PetscReal x[], PetscReal d, PetscReal f, PetscReal Pn, PetscReal Pq, PetscBool nonblocking, PetscReal *Equiet, PetscReal *Enoisy);
/* E[max of independent normals]: ng groups, group i has cnt[i] ranks with mean mu[i] and deviation sd[i] */
PETSC_EXTERN PetscErrorCode PKEMaxNormalGroups(PetscInt ng, const PetscReal mu[], const PetscReal sd[], const PetscReal cnt[], PetscReal *e);

#endif
