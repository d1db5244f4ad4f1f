static const char help[] = "Test of noise injection (-ksp_perf_noise, KSPPerfNoiseSet):\n"
                           "  1. the same solve with and without noise: iterations and solution bit-for-bit equal;\n"
                           "  2. no detour inside an MPI call: PMPI wrappers below count the depth of MPI calls, the injector's\n"
                           "     detour callback counts detours that start at depth > 0 (must be 0; the wrappers must have\n"
                           "     seen calls); the injector's own count of detours in halo/reduction waits is 0 too;\n"
                           "  3. (-cost_check, one rank) the detour time the injector counts is what the detours cost, in the\n"
                           "     process's CPU time and in wall time: -cost_pairs (default 9) interleaved pairs of a quiet and a\n"
                           "     noisy solve; what a noisy solve took less what the injector counted in its detours must be what\n"
                           "     a quiet solve took, within 25%% of the injected time. Each side is the least over the pairs (the\n"
                           "     solve the machine disturbed least): with the duty cycle f d bounded below 1 the detours are at\n"
                           "     most as long as the solve's own compute, so on a loaded machine the stalls of single solves are\n"
                           "     as large as the signal, and a per-pair ratio or its median is not robust (a median of 9 pairs\n"
                           "     read 0.85 beside two other test suites). The detours are busy waits on the wall clock: one\n"
                           "     descheduled ends when its time is up, and the injector counts what it really took. Also the\n"
                           "     injector's wall time inside detours >= detours x duration. Measured: 3.5%% to 6.3%% on an idle\n"
                           "     machine (the marks' own work with noise on), up to 15.5%% beside two CPU hogs on 2 cores; an\n"
                           "     injector that counted half its detours or twice their time would be 50%% or 100%% off.\n"
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
  PKProblem          prob;
  KSP                ksp;
  Vec                x0, x1;
  PetscInt           its0, its1, n, nmpi, repeat = 3, seed = 7, nloc, ndiff = 0, gdiff, cost_pairs = 9;
  PetscReal          us = 200, hz = 500, wall, cpu;
  PetscBool          cost_check = PETSC_FALSE, rate_check = PETSC_FALSE;
  double             tsolve;
  PetscMPIInt        rank;
  long               lbad, gbad, lcalls, gcalls;
  const PetscScalar *a0, *a1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-noise_us", &us, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-noise_hz", &hz, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-noise_seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cost_check", &cost_check, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-rate_check", &rate_check, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cost_pairs", &cost_pairs, NULL));
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
    PetscCall(VecSet(x0, 0.0));
    PetscCall(KSPSolve(ksp, prob.b, x0));
  }
  PetscCall(KSPGetIterationNumber(ksp, &its0));
  PetscCall(KSPPerfNoiseGetCounts(ksp, &n, NULL, NULL, NULL));
  PetscCheck(n == 0 && detours == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "detours without noise: %" PetscInt_FMT, n);
  /* noisy */
  PetscCall(KSPPerfNoiseSet(ksp, us, hz, seed));
  PetscCall(VecSet(x1, 0.0));
  tsolve = MPI_Wtime();
  PetscCall(KSPSolve(ksp, prob.b, x1));
  tsolve = MPI_Wtime() - tsolve;
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
  /* 3. what the detours cost, in CPU and in wall time: the least over interleaved pairs of each side */
  if (cost_check) {
    PetscMPIInt size;
    PetscReal   best[2][2] =
      {
        {PETSC_MAX_REAL, PETSC_MAX_REAL},
        {PETSC_MAX_REAL, PETSC_MAX_REAL}
    },
              *inj[2], med[2]; /* [cpu|wall][quiet|noisy less detours] */
    const char *clk[2] = {"CPU", "wall"};

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-cost_check compares one rank's solve time with its own detours: run it on one rank");
    PetscCheck(cost_pairs >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-cost_pairs must be >= 1");
    PetscCall(PetscMalloc2(cost_pairs, &inj[0], cost_pairs, &inj[1]));
    for (PetscInt p = 0; p < cost_pairs; p++) {
      double   tq, tn, cq, cn;
      PetscInt np;
      PetscCall(KSPPerfNoiseSet(ksp, 0, 0, seed));
      PetscCall(VecSet(x1, 0.0));
      cq = ProcessCPU();
      tq = MPI_Wtime();
      PetscCall(KSPSolve(ksp, prob.b, x1));
      tq = MPI_Wtime() - tq;
      cq = ProcessCPU() - cq;
      PetscCall(KSPPerfNoiseSet(ksp, us, hz, seed + 1 + p));
      PetscCall(VecSet(x1, 0.0));
      cn = ProcessCPU();
      tn = MPI_Wtime();
      PetscCall(KSPSolve(ksp, prob.b, x1));
      tn = MPI_Wtime() - tn;
      cn = ProcessCPU() - cn;
      PetscCall(KSPPerfNoiseGetCounts(ksp, &np, &inj[1][p], &inj[0][p], NULL));
      PetscCheck(np > 0 && inj[1][p] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no detour in pair %" PetscInt_FMT ": nothing to compare", p);
      best[0][0] = PetscMin(best[0][0], (PetscReal)cq);
      best[0][1] = PetscMin(best[0][1], (PetscReal)cn - inj[0][p]);
      best[1][0] = PetscMin(best[1][0], (PetscReal)tq);
      best[1][1] = PetscMin(best[1][1], (PetscReal)tn - inj[1][p]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pair %" PetscInt_FMT ": quiet %.4e s (CPU %.4e s), noisy %.4e s (CPU %.4e s), injector %.4e s (CPU %.4e s, %" PetscInt_FMT " detours)\n", p, tq, cq, tn, cn, (double)inj[1][p], (double)inj[0][p], np));
    }
    for (int k = 0; k < 2; k++) {
      PetscCall(PetscSortReal(cost_pairs, inj[k]));
      med[k] = cost_pairs % 2 ? inj[k][cost_pairs / 2] : 0.5 * (inj[k][cost_pairs / 2 - 1] + inj[k][cost_pairs / 2]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: least quiet solve %.4e s, least noisy solve less its detours %.4e s: difference %+.1f%% of the median injected %.4e s\n", clk[k], (double)best[k][0], (double)best[k][1], (double)(100 * (best[k][1] - best[k][0]) / med[k]), (double)med[k]));
      PetscCheck(PetscAbsReal(best[k][1] - best[k][0]) <= 0.25 * med[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s time: a noisy solve less what the injector counted took %.4e s, a quiet one %.4e s: the detours cost %.1f%% of the injected time more than counted (25%% allowed)", clk[k], (double)best[k][1], (double)best[k][0], (double)(100 * (best[k][1] - best[k][0]) / med[k]));
    }
    PetscCall(PetscFree2(inj[0], inj[1]));
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
