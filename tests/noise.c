static const char help[] = "Test of noise injection (-ksp_perf_noise, KSPPerfNoiseSet):\n"
                           "  1. the same solve with and without noise: iterations and solution bit-for-bit equal;\n"
                           "  2. no detour inside an MPI call: PMPI wrappers below count the depth of MPI calls, the injector's\n"
                           "     detour callback counts detours that start at depth > 0 (must be 0; the wrappers must have\n"
                           "     seen calls); the injector's own count of detours in halo/reduction waits is 0 too;\n"
                           "  3. (-cpu_check) the injected time costs what the injector counts: the process CPU time of the\n"
                           "     noisy solve minus that of the quiet solve (the least of -repeat) against the CPU time the\n"
                           "     injector measured inside its detours, within 10%%; and the injector's wall time inside\n"
                           "     detours >= detours x duration.\n"
                           "  3b. (-wall_check, one rank) the detour time the injector counts matches the wall time it cost, within\n"
                           "     10%%: -wall_pairs (default 5) interleaved pairs of a quiet and a noisy solve; per pair the noisy\n"
                           "     solve's wall time minus the quiet one's against the injector's wall time inside its detours; the\n"
                           "     median of the pairs' ratios must be in [0.9, 1.1]. The more the detours dominate the solve, the more\n"
                           "     robust on a loaded machine; the duty cycle f d is bounded below 1 (e.g. 100 us at 9.5 kHz: about half\n"
                           "     of the noisy solve), so use more pairs there. The ratio is\n"
                           "     1 + (O - Q) / I, O the noisy solve's time outside its detours, Q the quiet solve's, I the\n"
                           "     injected time; the detours are busy waits on the wall clock (one descheduled ends when its time\n"
                           "     is up, and the injector counts what it really took) and arrive at rate f in the time outside\n"
                           "     them, so I >= d f O: however long the load stretches O, the ratio stays below about\n"
                           "     1 + 1/(f d) (plus the Poisson spread of the count), and above 1 - Q/I; the median\n"
                           "     discards the pairs whose quiet solve a stall hit.\n"
                           "  4. (-rate_check) Poisson arrivals at the rate asked: each rank's count of detours against\n"
                           "     frequency x (its noisy solve's compute time: wall time outside detours and outside its halo and\n"
                           "     reduction waits; a pipekrylov type, which marks them all), within 5 standard deviations\n"
                           "     of the Poisson count, less the arrivals of 5 ms (after the last compute phase, in the\n"
                           "     end-of-solve statistics, arrivals are not served)\n"
                           "     (every rank must inject, and the expected count be at least 50)\n"
                           "  -noise_us <d> -noise_hz <f> -noise_seed <s>   the noise (default 200 us at 500 Hz, seed 7)\n"
                           "  -problem ...                                  model problem options (examples/common/problems.h)\n\n";

#include <mpi.h> /* the wrappers first: PETSc's headers define some MPI names as logging macros */
#include <time.h>

/* ---- PMPI wrappers: the depth of MPI calls of this process (single-threaded: MPI_THREAD_FUNNELED) ---- */
static int  mpi_depth = 0;
static long mpi_calls = 0, bad_detours = 0, detours = 0;

#define PK_WRAP(ret, name, params, args) \
  ret name params \
  { \
    ret r; \
    mpi_depth++; \
    mpi_calls++; \
    r = P##name args; \
    mpi_depth--; \
    return r; \
  }
PK_WRAP(int, MPI_Allreduce, (const void *a, void *b, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (a, b, n, t, o, c))
PK_WRAP(int, MPI_Iallreduce, (const void *a, void *b, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q), (a, b, n, t, o, c, q))
PK_WRAP(int, MPI_Wait, (MPI_Request * q, MPI_Status *s), (q, s))
PK_WRAP(int, MPI_Waitall, (int n, MPI_Request q[], MPI_Status s[]), (n, q, s))
PK_WRAP(int, MPI_Waitany, (int n, MPI_Request q[], int *i, MPI_Status *s), (n, q, i, s))
PK_WRAP(int, MPI_Test, (MPI_Request * q, int *f, MPI_Status *s), (q, f, s))
PK_WRAP(int, MPI_Testall, (int n, MPI_Request q[], int *f, MPI_Status s[]), (n, q, f, s))
PK_WRAP(int, MPI_Startall, (int n, MPI_Request q[]), (n, q))
PK_WRAP(int, MPI_Start, (MPI_Request * q), (q))
PK_WRAP(int, MPI_Isend, (const void *a, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *q), (a, n, t, d, g, c, q))
PK_WRAP(int, MPI_Irecv, (void *a, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *q), (a, n, t, d, g, c, q))
PK_WRAP(int, MPI_Send, (const void *a, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (a, n, t, d, g, c))
PK_WRAP(int, MPI_Recv, (void *a, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Status *s), (a, n, t, d, g, c, s))
PK_WRAP(int, MPI_Reduce, (const void *a, void *b, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c), (a, b, n, t, o, root, c))
PK_WRAP(int, MPI_Bcast, (void *a, int n, MPI_Datatype t, int root, MPI_Comm c), (a, n, t, root, c))
PK_WRAP(int, MPI_Barrier, (MPI_Comm c), (c))
PK_WRAP(int, MPI_Neighbor_alltoallv, (const void *a, const int sc[], const int sd[], MPI_Datatype st, void *b, const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm c), (a, sc, sd, st, b, rc, rd, rt, c))

#include <pipekrylov.h>
#include <pipekrylov/private/pknoise.h>
#include <pipekrylov/private/pkperfimpl.h> /* the recorder's waits, for the rate check */
#include <petsc/private/kspimpl.h>
#include <time.h>
#include "problems.h"

static void DetourCheck(void *ctx)
{
  (void)ctx;
  detours++;
  if (mpi_depth > 0) bad_detours++;
}

static double ProcessCPU(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  PKProblem   prob;
  KSP         ksp;
  Vec         x0, x1;
  PetscInt    its0, its1, n, nmpi, repeat = 3, seed = 7, nloc, ndiff = 0, gdiff, wall_pairs = 5;
  PetscReal   us = 200, hz = 500, wall, cpu, cpu0 = 1e30, cpu1;
  PetscBool   cpu_check = PETSC_FALSE, rate_check = PETSC_FALSE, wall_check = PETSC_FALSE;
  double      tsolve;
  PetscMPIInt rank;
  long        lbad, gbad, lcalls, gcalls;
  const PetscScalar *a0, *a1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-noise_us", &us, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-noise_hz", &hz, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-noise_seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cpu_check", &cpu_check, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-rate_check", &rate_check, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-wall_check", &wall_check, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-wall_pairs", &wall_pairs, NULL));
  PetscCall(PKNoiseSetDetourCallback(DetourCheck, NULL));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(VecDuplicate(prob.b, &x0));
  PetscCall(VecDuplicate(prob.b, &x1));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, prob.A, prob.A));
  PetscCall(KSPSetType(ksp, KSPPKPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPPerfMonitorSet(ksp, PETSC_TRUE));
  PetscCall(KSPSetUp(ksp));
  /* quiet */
  for (PetscInt r = 0; r < repeat; r++) {
    double c0;
    PetscCall(VecSet(x0, 0.0));
    c0 = ProcessCPU();
    PetscCall(KSPSolve(ksp, prob.b, x0));
    cpu0 = PetscMin(cpu0, ProcessCPU() - c0);
  }
  PetscCall(KSPGetIterationNumber(ksp, &its0));
  PetscCall(KSPPerfNoiseGetCounts(ksp, &n, NULL, NULL, NULL));
  PetscCheck(n == 0 && detours == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "detours without noise: %" PetscInt_FMT, n);
  /* noisy */
  PetscCall(KSPPerfNoiseSet(ksp, us, hz, seed));
  PetscCall(VecSet(x1, 0.0));
  cpu1   = ProcessCPU();
  tsolve = MPI_Wtime();
  PetscCall(KSPSolve(ksp, prob.b, x1));
  tsolve = MPI_Wtime() - tsolve;
  cpu1   = ProcessCPU() - cpu1;
  PetscCall(KSPGetIterationNumber(ksp, &its1));
  PetscCall(KSPPerfNoiseGetCounts(ksp, &n, &wall, &cpu, &nmpi));
  /* 1. bit-for-bit */
  PetscCall(VecGetLocalSize(x0, &nloc));
  PetscCall(VecGetArrayRead(x0, &a0));
  PetscCall(VecGetArrayRead(x1, &a1));
  for (PetscInt i = 0; i < nloc; i++)
    if (memcmp(&a0[i], &a1[i], sizeof(PetscScalar))) ndiff++;
  PetscCall(VecRestoreArrayRead(x0, &a0));
  PetscCall(VecRestoreArrayRead(x1, &a1));
  PetscCallMPI(MPI_Allreduce(&ndiff, &gdiff, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCheck(its0 == its1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "iterations differ with noise: %" PetscInt_FMT " vs %" PetscInt_FMT, its1, its0);
  PetscCheck(gdiff == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " solution entries differ with noise", gdiff);
  /* 2. no detour in an MPI call */
  lbad   = bad_detours;
  lcalls = mpi_calls;
  PetscCallMPI(MPI_Allreduce(&lbad, &gbad, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&lcalls, &gcalls, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "rank %d: %" PetscInt_FMT " detours (callback saw %ld), wall %.4e s (>= %.4e), cpu %.4e s, in MPI %ld, in waits %" PetscInt_FMT "\n", rank, n, detours, (double)wall, (double)(n * us * 1e-6), (double)cpu, bad_detours, nmpi));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscCheck(n == detours, PETSC_COMM_SELF, PETSC_ERR_PLIB, "injector counted %" PetscInt_FMT " detours, callback %ld", n, detours);
  PetscCheck(gcalls > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the PMPI wrappers saw no MPI call: the check is void");
  PetscCheck(gbad == 0 && nmpi == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%ld detours inside MPI calls, %" PetscInt_FMT " in waits", gbad, nmpi);
  PetscCheck(wall >= n * us * 1e-6 * (1 - 1e-9), PETSC_COMM_SELF, PETSC_ERR_PLIB, "detours shorter than asked");
  /* 3. what the detours cost */
  if (cpu_check) {
    PetscReal cost = cpu1 - cpu0;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cpu: quiet %.4e s, noisy %.4e s, difference %.4e s, injector %.4e s: ratio %.3f\n", cpu0, (double)cpu1, (double)cost, (double)cpu, (double)(cpu > 0 ? cost / cpu : 0)));
    PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no detour: nothing to compare");
    PetscCheck(PetscAbsReal(cost / cpu - 1) <= 0.10, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the noisy solve cost %.4e s of CPU more, the injector counted %.4e s", (double)cost, (double)cpu);
  }
  /* 3b. what the detours cost in wall time: interleaved quiet/noisy pairs, the median of (noisy - quiet) / injected */
  if (wall_check) {
    PetscMPIInt size;
    PetscReal  *ratio, med;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-wall_check compares one rank's solve time with its own detours: run it on one rank");
    PetscCheck(wall_pairs >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-wall_pairs must be >= 1");
    PetscCall(PetscMalloc1(wall_pairs, &ratio));
    for (PetscInt p = 0; p < wall_pairs; p++) {
      double    tq, tn;
      PetscInt  np;
      PetscReal inj;
      PetscCall(KSPPerfNoiseSet(ksp, 0, 0, seed));
      PetscCall(VecSet(x1, 0.0));
      tq = MPI_Wtime();
      PetscCall(KSPSolve(ksp, prob.b, x1));
      tq = MPI_Wtime() - tq;
      PetscCall(KSPPerfNoiseSet(ksp, us, hz, seed + 1 + p));
      PetscCall(VecSet(x1, 0.0));
      tn = MPI_Wtime();
      PetscCall(KSPSolve(ksp, prob.b, x1));
      tn = MPI_Wtime() - tn;
      PetscCall(KSPPerfNoiseGetCounts(ksp, &np, &inj, NULL, NULL));
      PetscCheck(np > 0 && inj > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no detour in pair %" PetscInt_FMT ": nothing to compare", p);
      ratio[p] = (PetscReal)(tn - tq) / inj;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wall pair %" PetscInt_FMT ": quiet %.4e s, noisy %.4e s, difference %.4e s, injector %.4e s (%" PetscInt_FMT " detours): ratio %.3f\n", p, tq, tn, tn - tq, (double)inj, np, (double)ratio[p]));
    }
    PetscCall(PetscSortReal(wall_pairs, ratio));
    med = wall_pairs % 2 ? ratio[wall_pairs / 2] : 0.5 * (ratio[wall_pairs / 2 - 1] + ratio[wall_pairs / 2]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wall: median ratio (noisy - quiet) / injected over %" PetscInt_FMT " pairs %.3f\n", wall_pairs, (double)med));
    PetscCheck(PetscAbsReal(med - 1) <= 0.10, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the noisy solves took %.3f times the wall time the injector counted in their detours (median of %" PetscInt_FMT " pairs), not within 10%%", (double)med, wall_pairs);
    PetscCall(PetscFree(ratio));
  }
  /* 4. the arrival rate, in the rank's compute time: the recorded solve (the hooks' clock) less the injector's detours
     and the halo and reduction waits the recorder saw (pipekrylov's types mark every wait); waiting for another
     rank's detour must make no detours (it did, and two noisy ranks at a high duty cycle ran away) */
  if (rate_check) {
    PKPerfCtx *pc;
    double     compute, expect, lo, hi, waits;

    PetscCall(PKPerfCtxGet(ksp, PETSC_FALSE, &pc));
    waits   = pc->mon.rec.hot.work[PK_PHASE_HALO] + pc->mon.rec.hot.work[PK_PHASE_REDUCE];
    compute = (pc->mon.tend - pc->mon.tbegin) - wall - waits;
    expect  = hz * compute;
    PetscCheck(expect >= 50, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rate_check needs at least 50 expected detours per rank, not %.1f", expect);
    lo = expect - 5 * sqrt(expect) - hz * 5e-3;
    hi = expect + 5 * sqrt(expect);
    PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "rank %d: %" PetscInt_FMT " detours in %.4e s of compute (%.4e s waiting, %.4e s in detours) at %g Hz: expected %.1f, allowed [%.1f, %.1f]\n", rank, n, compute, waits, (double)wall, (double)hz, expect, lo, hi));
    PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
    PetscCheck(n >= lo && n <= hi, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " detours, %.1f expected at %g Hz", n, expect, (double)hz);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "noise ok: %" PetscInt_FMT " iterations, solution bit-for-bit equal, %ld MPI calls wrapped, no detour inside one\n", its1, gcalls));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&x1));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}
