static const char help[] = "Overhead of the logging monitor, measured interleaved in one run: the same solve with the monitor on\n"
                           "(KSPPerfMonitorSet, PAPI events as -ksp_perf_papi_events, default the hardware counters where they exist) and off\n"
                           "(no hooks, PETSc's logging off: what an application without perf options gets), in alternating order.\n"
                           "  -repeats <n>     pairs of solves (default 40), after -warmup <n> pairs (default 3)\n"
                           "  -problem ...     model problem (default poisson27 -rows_per_rank 8000)\n"
                           "  -ksp_type ...    the solver (default pcg); -pc_type etc. as usual\n"
                           "  -on_hooks_only  'on' has the hooks installed but records nothing (their share of the cost)\n"
                           "Each solve is timed with the wall clock and the process CPU time around KSPSolve (max over ranks;\n"
                           "so it includes the monitor's end-of-solve statistics). CPU time is the robust figure on a shared\n"
                           "machine (time other processes hold the core is not counted). Prints, for both clocks, the median\n"
                           "over the pairs of on/off of the two solves of a pair, and the ratio of the medians.\n\n";

#include <pipekrylov.h>
#include <time.h>
#include "problems.h"

/* The event stream on and off between solves, as with and without perf options: PETSc 3.18's global hooks, or
   from 3.20 on the table of started log handlers (only the monitor's are started here; saved and put back) */
#if PETSC_VERSION_LT(3, 20, 0)
typedef struct {
  PetscErrorCode (*plb)(PetscLogEvent, int, PetscObject, PetscObject, PetscObject, PetscObject);
  PetscErrorCode (*ple)(PetscLogEvent, int, PetscObject, PetscObject, PetscObject, PetscObject);
} LogHooks;
static void LogHooksSave(LogHooks *h)
{
  h->plb = PetscLogPLB;
  h->ple = PetscLogPLE;
}
static void LogHooksSet(const LogHooks *h, PetscBool on)
{
  PetscLogPLB = on ? h->plb : NULL;
  PetscLogPLE = on ? h->ple : NULL;
}
#else
typedef struct {
  PetscLogHandlerHot hot[PETSC_LOG_HANDLER_MAX];
} LogHooks;
static void LogHooksSave(LogHooks *h)
{
  memcpy(h->hot, PetscLogHandlers, sizeof(h->hot));
}
static void LogHooksSet(const LogHooks *h, PetscBool on)
{
  if (on) memcpy(PetscLogHandlers, h->hot, sizeof(h->hot));
  else memset(PetscLogHandlers, 0, sizeof(h->hot));
}
#endif

static double CPUTime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* t[0]: wall, t[1]: CPU time of KSPSolve, max over ranks */
static PetscErrorCode TimeSolve(KSP ksp, Vec b, Vec x, PetscReal t[2])
{
  PetscLogDouble w0, w1;
  double         c0, c1;
  PetscReal      dt[2];

  PetscFunctionBegin;
  PetscCall(VecSet(x, 0.0));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&w0));
  c0 = CPUTime();
  PetscCall(KSPSolve(ksp, b, x));
  c1 = CPUTime();
  PetscCall(PetscTime(&w1));
  dt[0] = w1 - w0;
  dt[1] = c1 - c0;
  PetscCallMPI(MPI_Allreduce(dt, t, 2, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

static PetscReal Median(PetscInt n, PetscReal *v)
{
  PetscSortReal(n, v);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
  PKProblem   prob;
  KSP         ksp;
  Vec         x;
  PetscInt    repeats = 40, warmup = 3, its[2];
  PetscReal  *t[2][2], *ratio[2], med[2][2], mr[2]; /* [clock][mode][repeat] */
  LogHooks    hooks;
  PetscMPIInt size;
  PetscBool   logonly = PETSC_FALSE;
  KSPType     type;
  const char *clk[2] = {"wall", "CPU "};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &repeats, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-on_hooks_only", &logonly, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(VecDuplicate(prob.b, &x));
  /* one KSP for both modes, so that both use the same vectors (placement in memory alone can move a solve by a
     few per cent); "off" removes the hooks, as in a run without perf options (the monitor attached to the KSP then
     never sees a solve begin and returns at once) */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, prob.A, prob.A));
  PetscCall(KSPSetType(ksp, KSPPKPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPPerfMonitorSet(ksp, PETSC_TRUE)); /* installs the hooks */
  if (logonly) PetscCall(KSPPerfMonitorSet(ksp, PETSC_FALSE));
  PetscCall(KSPSetUp(ksp));
  LogHooksSave(&hooks);
  for (int c = 0; c < 2; c++) PetscCall(PetscMalloc3(repeats, &t[c][0], repeats, &t[c][1], repeats, &ratio[c]));
  for (PetscInt r = -warmup; r < repeats; r++) {
    for (int j = 0; j < 2; j++) {
      int       m = (int)((r + j) & 1); /* 0 off, 1 on: off-on, on-off, ... */
      PetscReal dt[2];
      LogHooksSet(&hooks, (PetscBool)m);
      PetscCall(TimeSolve(ksp, prob.b, x, dt));
      PetscCall(KSPGetIterationNumber(ksp, &its[m]));
      if (r >= 0)
        for (int c = 0; c < 2; c++) t[c][m][r] = dt[c];
    }
  }
  LogHooksSet(&hooks, PETSC_TRUE);
  for (int c = 0; c < 2; c++) {
    for (PetscInt r = 0; r < repeats; r++) ratio[c][r] = t[c][1][r] / t[c][0][r];
    mr[c] = Median(repeats, ratio[c]);
    for (int m = 0; m < 2; m++) med[c][m] = Median(repeats, t[c][m]);
  }
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "monitor overhead (%s): %s on %s, %d ranks, %" PetscInt_FMT " iterations, %" PetscInt_FMT " interleaved pairs\n", logonly ? "hooks only" : "monitor + PAPI", type, prob.name, size, its[0], repeats));
  for (int c = 0; c < 2; c++)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: KSPSolve median off %.6f s, on %.6f s; on/off: median of pairs %.4f, of medians %.4f\n", clk[c], (double)med[c][0], (double)med[c][1], (double)mr[c], (double)(med[c][1] / med[c][0])));
  PetscCheck(its[0] == its[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The monitor changed the iterations: %" PetscInt_FMT " vs %" PetscInt_FMT, its[1], its[0]);
  for (int c = 0; c < 2; c++) PetscCall(PetscFree3(t[c][0], t[c][1], ratio[c]));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}
