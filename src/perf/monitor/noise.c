/*
   Noise injection: -ksp_perf_noise <duration_us>,<frequency_hz>[,<seed>] and -ksp_perf_noise_ranks <r0,r1,...>
   (include/pipekrylov/private/pknoise.h has the arrival process). As paper 003 (docs/bibliography.md [003]) does
   with a daemon in its section VII.D, but inside the process: a detour is a busy wait (not a sleep: the core stays
   taken, as it does when the OS or a daemon runs there) served at the entry of a compute phase:
     - pipekrylov's types: the phase marks (PKRecPhase, pkrecimpl.h) that enter spmv, pc or vec, through the
       recorder's detour function (set by the monitor that owns it: the solvers and the core never name this file);
     - PETSc's types: the same marks, which the event hooks (hooks.c) set at the begin and end of MatMult and
       PCApply and at the end of a blocking VecDot, VecNorm ... (an arrival during their vector work waits for the
       next of these: the count per iteration is the same).
   Nothing is injected in a halo or reduction wait, so never inside an MPI call.

   Free when off: the marks compare the clock they read anyway with noise_next, which is +infinity. Noise turns the monitor on (the marks belong to the recorder).

   The injector counts, per rank and solve: detours, the wall time inside them (its own clock) and this thread's CPU
   time inside them; by phase (act: what the rank was doing) and how many fell in a non-blocking reduction's
   overlap window (compute while the reduction is in flight: where the pipelined solvers can hide it).
*/
#include <pipekrylov/private/pkmonitor.h>
#include <pipekrylov/private/pkmodel.h>
#include <petsc/private/kspimpl.h>
#include <time.h>

static void (*pk_noise_cb)(void *) = NULL;
static void *pk_noise_cb_ctx       = NULL;

/* the last noise-free solve of the process, by KSP type, global rows and ranks (another KSP on the same problem) */
static struct {
  char        type[64];
  PetscInt    N;
  PetscMPIInt P;
  PetscReal   per_it;
  PetscInt    npooled;
  PetscReal  *pooled;
  PetscBool   have;
} pk_quiet_last;

/*@C
   PKNoiseSetDetourCallback - A function called at the start of every injected detour of this process (testing:
   for instance to check that no detour lands inside an MPI call, with PMPI wrappers that set a flag)

   Not Collective

   Input Parameters:
+  cb  - the function, or NULL
-  ctx - its argument

   Level: developer

.seealso: `KSPPerfNoiseSet()`
@*/
PetscErrorCode PKNoiseSetDetourCallback(void (*cb)(void *), void *ctx)
{
  PetscFunctionBegin;
  pk_noise_cb     = cb;
  pk_noise_cb_ctx = ctx;
  PetscFunctionReturn(0);
}

/* splitmix64: a small PRNG of our own per rank, so that the detours do not depend on PETSc's random types */
static inline unsigned long long PKNoiseNext64(unsigned long long *s)
{
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
  z                    = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z                    = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Exp(1/f) gap, from a uniform on (0, 1] */
static inline PetscReal PKNoiseGap(PKNoise *nz)
{
  double u = (double)((PKNoiseNext64(&nz->state) >> 11) + 1) * 0x1.0p-53;
  return -log(u) / nz->freq;
}

static inline PetscLogDouble PKNoiseThreadCPU(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (PetscLogDouble)ts.tv_sec + 1e-9 * (PetscLogDouble)ts.tv_nsec;
}

/* The arrival clock at time t (a mark's clock reading, the recorder's work[] up to date): this rank's compute time in
   the solve, i.e. its wall time less its halo and reduction waits (work[] by activity: also those inside overlap
   windows), less the detours served, less the blocking reductions of PETSc's types inside an SpMV or a PC
   application (VecDot, VecNorm ...: the hooks time them, PKNoiseBlockingBegin/End; at the top level they are
   reduce). A rank waiting in MPI for another rank's detour gathers no
   arrivals of its own: with two or more noisy ranks the wait for each other's detours never feeds more detours
   (at a high duty cycle it did, and the solve ran away). */
static inline PetscLogDouble PKNoiseClock(const PKMonitorCtx *c, PetscLogDouble t)
{
  const PKRecHot *h = &c->rec.hot;

  return (t - c->noise.t0) - (h->work[PK_PHASE_HALO] + h->work[PK_PHASE_REDUCE]) - c->noise.wall - c->noise.blocked;
}

/* Serve every detour due at time t (the mark's clock reading), back to back. Arrivals are Poisson in the rank's
   compute time (PKNoiseClock: the clock stops in waits and while the detours run), so a rank that is descheduled
   in a detour (a loaded machine) or waits for others never builds up a backlog. noise_next, which the marks compare
   with their wall-clock reading, is the earliest wall time the next arrival can be due (compute time never runs
   faster than the wall clock). */
void PKNoiseDetour_Private(PKRec rec, PetscLogDouble t)
{
  PKMonitorCtx  *c  = (PKMonitorCtx *)rec->priv;
  PKNoise       *nz = &c->noise;
  PKRecHot      *h  = &rec->hot;
  PetscInt       k  = 0;
  PetscLogDouble now, end, cpu0, ct = PKNoiseClock(c, t);

  while (nz->next_c <= ct) {
    k++;
    nz->next_c += PKNoiseGap(nz);
  }
  if (!k) { /* the wall clock ran on in waits: not due yet */
    h->noise_next = t + (nz->next_c - ct);
    return;
  }
  for (PetscInt i = 0; i < k && pk_noise_cb; i++) (*pk_noise_cb)(pk_noise_cb_ctx);
  cpu0 = PKNoiseThreadCPU();
  end  = t + k * nz->duration;
  do PetscTime(&now);
  while (now < end);
  nz->cpu += PKNoiseThreadCPU() - cpu0;
  nz->wall += now - t;
  nz->n += k;
  nz->nphase[h->act] += k;
  if (h->overlap) nz->noverlap += k;
  h->noise_next = now + (nz->next_c - ct); /* the compute clock stood still during the detours */
}

/* PETSc's types: a blocking reduction (VecDot, VecNorm, VecMDot ...: local work and an MPI_Allreduce that PETSc does
   not log apart) inside an SpMV or a PC application begins and ends; the arrival clock stands still inside (hooks.c,
   only while this rank injects) */
void PKNoiseBlockingBegin(PKMonitorCtx *c)
{
  if (!c->noise.inblock++) PetscTime(&c->noise.block_t0);
}

void PKNoiseBlockingEnd(PKMonitorCtx *c)
{
  PetscLogDouble t;

  if (!c->noise.inblock || --c->noise.inblock) return;
  PetscTime(&t);
  c->noise.blocked += t - c->noise.block_t0;
}

/* The bounds of the noise (the option's and KSPPerfNoiseSet's): finite; a detour of at most 1 s; at most 1e6 arrivals
   per second (one per microsecond: more cannot be told apart from the marks' own cost, and 1e300 Hz looped for
   ever); a duty cycle, detour time per unit of compute time, below 1; the seed an integer of PetscInt's range */
#define PK_NOISE_MAX_US 1e6
#define PK_NOISE_MAX_HZ 1e6
PetscErrorCode PKNoiseCheckValues(MPI_Comm comm, const char *what, PetscReal us, PetscReal hz, PetscReal seed)
{
  PetscFunctionBegin;
  PetscCheck(!PetscIsInfOrNanReal(us) && !PetscIsInfOrNanReal(hz) && !PetscIsInfOrNanReal(seed), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the values must be finite numbers (got %g us, %g Hz, seed %g)", what, (double)us, (double)hz, (double)seed);
  PetscCheck(us >= 0 && us <= PK_NOISE_MAX_US, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the detour duration must be in [0, %g] us, not %g", what, PK_NOISE_MAX_US, (double)us);
  PetscCheck(hz >= 0 && hz <= PK_NOISE_MAX_HZ, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the frequency must be in [0, %g] Hz, not %g", what, PK_NOISE_MAX_HZ, (double)hz);
  PetscCheck(us * hz * 1e-6 < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the duty cycle, duration x frequency = %g us x %g Hz = %g, must be below 1 (detour time per unit of compute time)", what, (double)us, (double)hz, (double)(us * hz * 1e-6));
  PetscCheck(seed >= 0 && seed <= PETSC_MAX_INT && seed == PetscFloorReal(seed), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: the seed must be an integer in [0, %d], not %g", what, (int)PETSC_MAX_INT, (double)seed);
  PetscFunctionReturn(0);
}

PetscErrorCode PKNoiseSetHere(KSP ksp, PKNoise *nz)
{
  PetscMPIInt rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  nz->here = (PetscBool)(nz->on && nz->nranks == 0);
  for (PetscInt i = 0; i < nz->nranks; i++) {
    PetscCheck(nz->ranks[i] >= 0 && nz->ranks[i] < size, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_perf_noise_ranks: rank %" PetscInt_FMT " is not in [0, %d)", nz->ranks[i], size);
    if (nz->on && nz->ranks[i] == rank) nz->here = PETSC_TRUE;
  }
  nz->state  = (unsigned long long)nz->seed + (unsigned long long)rank;
  nz->seeded = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Inside an options block with the KSP's prefix (hooks.c's PKPerfOptionItems: the KSP's own at KSPSetFromOptions,
   or the monitor's at the first solve); PKNoiseCheckOptions checks the ranks afterwards */
PetscErrorCode PKNoiseReadOptions(KSP ksp, PKMonitorCtx *c, PetscOptionItems *PetscOptionsObject)
{
  PKNoise  *nz = &c->noise;
  PetscReal v[4];
  PetscInt  n = 4, nr = PK_NOISE_MAXRANKS;
  PetscBool set, rset, named;
  MPI_Comm  comm = PetscObjectComm((PetscObject)ksp);

  PetscFunctionBegin;
  v[0] = nz->duration * 1e6;
  v[1] = nz->freq;
  v[2] = (PetscReal)nz->seed;
  PetscCall(PetscOptionsRealArray("-ksp_perf_noise", "Inject detours (busy waits) of <duration_us> at mean rate <frequency_hz> (Poisson, per rank, in its compute time) into the compute phases: <duration_us>,<frequency_hz>[,<seed>]; duration <= 1e6 us, frequency <= 1e6 Hz, duration x frequency x 1e-6 < 1", "KSPPerfNoiseSet", v, &n, &set));
  PetscCall(PetscOptionsInt("-ksp_perf_noise_skip", "The first <k> solves of the KSP run without noise (warm-up and the noise-free reference of the slowdown)", "KSPPerfNoiseSet", nz->skip, &nz->skip, NULL));
  PetscCheck(nz->skip >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ksp_perf_noise_skip must be >= 0");
  PetscCall(PetscOptionsBool("-ksp_perf_noise_alternate", "After the skipped solves, noisy and noise-free solves alternate (noisy first): each noisy solve's reference is measured beside it", "KSPPerfNoiseSet", nz->alternate, &nz->alternate, NULL));
  PetscCall(PetscOptionsIntArray("-ksp_perf_noise_ranks", "Only these ranks inject noise (default: every rank)", "KSPPerfNoiseSetRanks", nz->ranks, &nr, &rset));
  /* a bare -ksp_perf_noise reads as not set: it must not silently mean off */
  PetscCall(PetscOptionsHasName(PetscOptionsObject->options, PetscOptionsObject->prefix, "-ksp_perf_noise", &named));
  PetscCheck(set || !named, comm, PETSC_ERR_ARG_WRONG, "-ksp_perf_noise needs <duration_us>,<frequency_hz>[,<seed>], got none (0,0 turns it off)");
  if (set && !nz->code_set) {
    PetscCheck(n >= 2 && n <= 3, comm, PETSC_ERR_ARG_WRONG, "-ksp_perf_noise needs <duration_us>,<frequency_hz>[,<seed>], got %s%" PetscInt_FMT " value(s)", n > 3 ? "more than 3: " : "", n);
    PetscCall(PKNoiseCheckValues(comm, "-ksp_perf_noise", v[0], v[1], n >= 3 ? v[2] : 1));
    nz->duration = v[0] * 1e-6;
    nz->freq     = v[1];
    nz->seed     = n >= 3 ? (PetscInt)v[2] : 1;
    nz->on       = (PetscBool)(nz->duration > 0 && nz->freq > 0);
  }
  if (rset) nz->nranks = nr;
  PetscFunctionReturn(0);
}

/* After the options were read (hooks.c's PKPerfCheckOptions): which ranks inject; a rank out of range is an error */
PetscErrorCode PKNoiseCheckOptions(KSP ksp, PKMonitorCtx *c)
{
  PetscFunctionBegin;
  PetscCall(PKNoiseSetHere(ksp, &c->noise));
  PetscFunctionReturn(0);
}

/* After PKRecSolveBegin: the counters start afresh, the first arrival is drawn */
PetscErrorCode PKNoiseSolveBegin(KSP ksp, PKMonitorCtx *c)
{
  PKNoise       *nz = &c->noise;
  PetscLogDouble now;

  PetscFunctionBegin;
  (void)ksp;
  nz->n = nz->noverlap = 0;
  nz->wall = nz->cpu = 0;
  PetscCall(PetscArrayzero(nz->nphase, PK_PHASE_N));
  nz->blocked           = 0;
  nz->inblock           = 0;
  c->rec.hot.noise_next = PK_NOISE_OFF;
  /* alternating, every second solve after the skip is a noise-free reference taken in the same conditions as its
     noisy neighbours (a machine whose speed drifts during a run biased a reference taken only before them) */
  nz->active = (PetscBool)(nz->on && c->solve >= nz->skip && (!nz->alternate || (c->solve - nz->skip) % 2 == 0));
  if (!nz->active || !nz->here) PetscFunctionReturn(0);
  PetscCall(PetscTime(&now));
  nz->t0                = now; /* the origin of the arrival clock (PKNoiseClock) */
  nz->next_c            = PKNoiseGap(nz);
  c->rec.hot.noise_next = now + nz->next_c;
  PetscFunctionReturn(0);
}

/* After the statistics: a noise-free solve becomes the reference of the next noisy one (this KSP's, and the
   process's for the same type, size and ranks) */
PetscErrorCode PKNoiseSolveEnd(KSP ksp, PKMonitorCtx *c)
{
  const PKStats *S = &c->stats;
  PetscInt       N;
  KSPType        type;
  Mat            A;

  PetscFunctionBegin;
  c->rec.hot.noise_next = PK_NOISE_OFF;
  if (c->noise.active || S->nits <= 0) PetscFunctionReturn(0);
  /* the reference is the median of the last PK_QUIET_HIST noise-free solves: one slow quiet solve (a descheduled
     rank) made every slowdown measured against it too small (bench/noise: slowdowns of 0.6-0.85 with noise on) */
  c->quiet_have                                 = PETSC_TRUE;
  c->quiet_hist[c->quiet_nhist % PK_QUIET_HIST] = S->solve_time / S->nits;
  c->quiet_nhist++;
  {
    PetscReal h[PK_QUIET_HIST];
    PetscInt  n = PetscMin(c->quiet_nhist, PK_QUIET_HIST);
    PetscCall(PetscArraycpy(h, c->quiet_hist, n));
    c->quiet_per_it = PKMedian(n, h);
  }
  PetscCall(PetscFree(c->quiet_pooled));
  c->quiet_npooled = S->pooled ? S->npooled : 0;
  if (c->quiet_npooled) {
    PetscCall(PetscMalloc1(c->quiet_npooled, &c->quiet_pooled));
    PetscCall(PetscArraycpy(c->quiet_pooled, S->pooled, c->quiet_npooled));
  }
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(PetscStrncpy(pk_quiet_last.type, type ? type : "", sizeof(pk_quiet_last.type)));
  pk_quiet_last.N      = N;
  pk_quiet_last.P      = S->nranks;
  pk_quiet_last.per_it = c->quiet_per_it;
  PetscCall(PetscFree(pk_quiet_last.pooled));
  pk_quiet_last.npooled = c->quiet_npooled;
  if (c->quiet_npooled) {
    PetscCall(PetscMalloc1(c->quiet_npooled, &pk_quiet_last.pooled));
    PetscCall(PetscArraycpy(pk_quiet_last.pooled, c->quiet_pooled, c->quiet_npooled));
  }
  pk_quiet_last.have = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The noise-free reference of a noisy solve: this KSP's last quiet solve, else the process's last quiet solve of
   the same type on an operator of the same size and the same number of ranks; per_it < 0 when there is none */
PetscErrorCode PKNoiseQuietReference(KSP ksp, PKMonitorCtx *c, PetscReal *per_it, PetscInt *m, const PetscReal **x, const char **what)
{
  PetscInt    N;
  KSPType     type;
  Mat         A;
  PetscBool   same;
  PetscMPIInt size;

  PetscFunctionBegin;
  *per_it = -1;
  *m      = 0;
  *x      = NULL;
  *what   = NULL;
  if (c->quiet_have) {
    *per_it = c->quiet_per_it;
    *m      = c->quiet_npooled;
    *x      = c->quiet_pooled;
    *what   = c->quiet_nhist > 1 ? "the median of the last noise-free solves of this KSP" : "the last noise-free solve of this KSP";
    PetscFunctionReturn(0);
  }
  if (!pk_quiet_last.have) PetscFunctionReturn(0);
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  PetscCall(PetscStrcmp(type, pk_quiet_last.type, &same));
  if (!same || N != pk_quiet_last.N || size != pk_quiet_last.P) PetscFunctionReturn(0);
  *per_it = pk_quiet_last.per_it;
  *m      = pk_quiet_last.npooled;
  *x      = pk_quiet_last.pooled;
  *what   = "the last noise-free solve of this type and size";
  PetscFunctionReturn(0);
}

PetscErrorCode PKNoiseView(KSP ksp, PKMonitorCtx *c, PetscViewer viewer)
{
  PKNoise *nz        = &c->noise;
  char     list[256] = "every rank";
  size_t   len;

  PetscFunctionBegin;
  (void)ksp;
  if (!nz->on) PetscFunctionReturn(0);
  if (nz->nranks) {
    PetscCall(PetscStrcpy(list, "rank(s)"));
    for (PetscInt i = 0; i < nz->nranks; i++) {
      PetscCall(PetscStrlen(list, &len));
      if (len > sizeof(list) - 24) break;
      PetscCall(PetscSNPrintf(list + len, sizeof(list) - len, "%s%" PetscInt_FMT, i ? "," : " ", nz->ranks[i]));
    }
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  noise injection: %.0f us detours at %.0f Hz (Poisson, seed %" PetscInt_FMT " + rank) in the compute phases of %s\n", (double)(nz->duration * 1e6), (double)nz->freq, nz->seed, list));
  if (nz->skip) PetscCall(PetscViewerASCIIPrintf(viewer, "    (not in the first %" PetscInt_FMT " solve(s) of this KSP)\n", nz->skip));
  if (nz->alternate) PetscCall(PetscViewerASCIIPrintf(viewer, "    (then in every second solve, the others noise-free references)\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode PKNoiseFinalize(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(pk_quiet_last.pooled));
  PetscCall(PetscMemzero(&pk_quiet_last, sizeof(pk_quiet_last)));
  PetscFunctionReturn(0);
}
