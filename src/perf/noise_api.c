/*
   The public noise-injection interface (KSPPerfNoiseSet, KSPPerfNoiseSetRanks, KSPPerfNoiseGetCounts): the package's
   entry points into the injector of src/perf/monitor/noise.c, which owns the arrival process and its counters.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <petsc/private/petscimpl.h>

/*@
   KSPPerfNoiseSet - Injects noise into the compute phases of every following KSPSolve() of a KSP: detours (busy
   waits) of a given length with Poisson arrivals at a given mean rate, independent per rank, for noise studies of
   the stochastic model (paper 001, docs/algorithms.md §9)

   Logically Collective

   Input Parameters:
+  ksp         - the Krylov solver (any type)
.  duration_us - length of each detour in microseconds (0: no noise)
.  freq_hz     - mean number of detours per second on each rank (0: no noise)
-  seed        - each rank seeds its generator with seed + rank: the same seed gives the same gaps

   Options Database Keys:
+  -ksp_perf_noise <duration_us>,<frequency_hz>[,<seed>] - the same from the options (seed 1 by default)
.  -ksp_perf_noise_ranks <r0,r1,...> - only these ranks inject (default: every rank)
.  -ksp_perf_noise_skip <k> - the first k solves of the KSP run without noise: an application that solves several
                              times (-nsolves) gets its noise-free reference in the same run
-  -ksp_perf_noise_alternate - after those, noisy and noise-free solves alternate (noisy first), so that the reference
                               of each noisy solve (the median of the last 5 noise-free ones) is measured beside it

   Notes:
   Arrivals are Poisson in each rank's compute time: the arrival clock stops while a detour runs and while the rank
   waits in MPI (halo and reduction waits; for PETSc's types their blocking VecDot, VecNorm, VecMDot ... count as
   reduction waits), so that waiting for another rank's detour never makes more detours. Detours are served at the
   entry of compute phases only (SpMV, PC, vector work; for PETSc's types at the begin and end of MatMult and PCApply
   and at the end of a blocking reduction), never inside an MPI call. Bounds: duration_us in [0, 1e6], freq_hz in [0, 1e6], the duty cycle
   duration_us x freq_hz x 1e-6 below 1, finite values, a seed in [0, PETSC_MAX_INT]. Noise turns the performance monitor on; the report
   (-ksp_perfmodel_view) then shows the injected time per rank, the measured slowdown against the last noise-free
   solve and the stochastic model's predicted slowdown. Iterations and solution are bit-for-bit those without
   noise. A call overrides -ksp_perf_noise.

   Level: advanced

.seealso: `KSPPerfNoiseSetRanks()`, `KSPPerfNoiseGetCounts()`, `KSPPerfMonitorSet()`
@*/
PetscErrorCode KSPPerfNoiseSet(KSP ksp, PetscReal duration_us, PetscReal freq_hz, PetscInt seed)
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscCall(PKNoiseCheckValues(PetscObjectComm((PetscObject)ksp), "KSPPerfNoiseSet", duration_us, freq_hz, (PetscReal)seed));
  PetscCall(PKPerfCtxGet(ksp, PETSC_TRUE, &c));
  c->mon.noise.code_set = PETSC_TRUE;
  c->mon.noise.duration = duration_us * 1e-6;
  c->mon.noise.freq     = freq_hz;
  c->mon.noise.seed     = seed;
  c->mon.noise.on       = (PetscBool)(duration_us > 0 && freq_hz > 0);
  PetscCall(PKNoiseSetHere(ksp, &c->mon.noise));
  if (c->mon.noise.on) PetscCall(PKPerfHooksInstall());
  PetscFunctionReturn(0);
}

/*@
   KSPPerfNoiseSetRanks - Restricts noise injection to some ranks of the KSP's communicator

   Logically Collective

   Input Parameters:
+  ksp   - the Krylov solver
.  n     - how many ranks (0: every rank injects)
-  ranks - the ranks

   Options Database Key:
.  -ksp_perf_noise_ranks <r0,r1,...> - the same

   Level: advanced

.seealso: `KSPPerfNoiseSet()`
@*/
PetscErrorCode KSPPerfNoiseSetRanks(KSP ksp, PetscInt n, const PetscInt ranks[])
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscCheck(n >= 0 && n <= PK_NOISE_MAXRANKS, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "Between 0 and %d ranks, not %" PetscInt_FMT, PK_NOISE_MAXRANKS, n);
  PetscCall(PKPerfCtxGet(ksp, PETSC_TRUE, &c));
  c->mon.noise.nranks = n;
  for (PetscInt i = 0; i < n; i++) c->mon.noise.ranks[i] = ranks[i];
  PetscCall(PKNoiseSetHere(ksp, &c->mon.noise));
  PetscFunctionReturn(0);
}

/*@
   KSPPerfNoiseGetCounts - This rank's injected noise in the last (or current) solve of a KSP, as the injector
   counted it

   Not Collective

   Input Parameter:
.  ksp - the Krylov solver

   Output Parameters:
+  n    - detours served (may be NULL)
.  wall - wall-clock time inside them, by the injector's own clock, in seconds (may be NULL)
.  cpu  - this thread's CPU time inside them, in seconds (may be NULL; less than wall when the process was
          descheduled during a detour)
-  nmpi - detours served while the rank was in a halo or reduction wait (always 0; may be NULL)

   Level: advanced

.seealso: `KSPPerfNoiseSet()`
@*/
PetscErrorCode KSPPerfNoiseGetCounts(KSP ksp, PetscInt *n, PetscReal *wall, PetscReal *cpu, PetscInt *nmpi)
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscCall(PKPerfCtxGet(ksp, PETSC_FALSE, &c));
  if (n) *n = c ? c->mon.noise.n : 0;
  if (wall) *wall = c ? c->mon.noise.wall : 0;
  if (cpu) *cpu = c ? c->mon.noise.cpu : 0;
  if (nmpi) *nmpi = c ? c->mon.noise.nphase[PK_PHASE_HALO] + c->mon.noise.nphase[PK_PHASE_REDUCE] : 0;
  PetscFunctionReturn(0);
}
