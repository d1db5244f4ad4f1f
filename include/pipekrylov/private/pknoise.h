/*
   Noise injection (-ksp_perf_noise <duration_us>,<frequency_hz>[,<seed>], src/perf/monitor/noise.c): detours of a fixed
   length with Poisson arrivals, independent per rank, served at the entry of compute phases only (the phase marks
   of pipekrylov's types, the begin and end of MatMult and PCApply for PETSc's types), never inside an MPI call.

   Arrivals: Poisson at rate f in the rank's compute time (the arrival clock stops while detours run and while the
   rank waits in MPI: halo and reduction waits, and for PETSc's types their blocking reductions), so that waiting
   for another rank's detour never makes detours of its own. They are served at the next compute mark; several due
   at once are served back to back. Bounds (noise.c, PKNoiseCheckValues): duration <= 1 s, f <= 1e6 Hz, duty cycle
   duration x f < 1. Each rank has its own PRNG (splitmix64), seeded with seed + rank: the sequence of gaps is
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
  PetscInt           nranks; /* 0: every rank */
  PetscInt           ranks[PK_NOISE_MAXRANKS];
  PetscBool          here;      /* this rank injects */
  PetscInt           skip;      /* -ksp_perf_noise_skip: the first solves of the KSP run without noise */
  PetscBool          alternate; /* -ksp_perf_noise_alternate: after the skip, noisy and noise-free solves alternate */
  PetscBool          active;    /* noise in the solve under way (or the last one) */
  unsigned long long state;     /* PRNG state */
  PetscBool          seeded;
  /* the arrival clock (noise.c, PKNoiseClock): compute time since t0; the next arrival at next_c on it */
  PetscLogDouble t0, next_c;
  PetscLogDouble blocked;  /* PETSc's types: time inside their blocking reductions (hooks.c) */
  PetscLogDouble block_t0; /* when the current one began */
  int            inblock;  /* nesting depth of blocking reductions */
  /* counters of the solve under way (or the last one) */
  PetscInt       n;                  /* detours served */
  PetscLogDouble wall, cpu;          /* time inside them: wall clock (PetscTime) and this thread's CPU time */
  PetscInt       nphase[PK_PHASE_N]; /* detours by the phase they were charged to (act: what was being done) */
  PetscInt       noverlap;           /* of those, served while a non-blocking reduction was in flight */
} PKNoise;

/* testing (tests/noise.c, linked with the static archive): a function called at the start of every detour */
PETSC_INTERN PetscErrorCode PKNoiseSetDetourCallback(void (*)(void *), void *);

/* The stochastic model of the slowdown that noise causes is pure (src/perf/models/stochastic_noise.c): pkmodel.h */

#endif
