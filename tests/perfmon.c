static const char help[] = "Test driver of the logging monitor: solves a model problem -nsolves times with the monitor on and\n"
                           "dumps, per solve, every rank's iteration count and time split next to PETSc's own KSPSolve event time,\n"
                           "and the cross-rank statistics (PKStats) of rank 0, as JSON, for tests/perf_check.py.\n"
                           "  -dump <file>     the JSON file (default $PK_BUILD/tests/perfmon.json, else $TMPDIR or /tmp/perfmon.json)\n"
                           "  -nsolves <k>     solves (default 2), solve s with rtol 10^-s times the KSP's\n"
                           "  -perf_code       turn the monitor on with KSPPerfMonitorSet() instead of options\n"
                           "  -expect_off      check instead that nothing is installed or recorded (no perf option given)\n"
                           "  -no_set_from_options  no KSPSetFromOptions(): the monitor reads its options inside the event hooks\n"
                           "  -late_rank_delay <s>  the last rank sleeps this long before each KSPSolve (the others enter first)\n"
                           "  -problem ...     model problem options (examples/common/problems.h)\n\n";

#include <pipekrylov.h>
#include <stdlib.h>
#include <errno.h>
#include <time.h>
#include <petsc/private/kspimpl.h>
#if PETSC_VERSION_LT(3, 20, 0)
  #include <petsc/private/logimpl.h>
#endif
#include "problems.h"

static void PrintReals(FILE *f, const char *name, const PetscReal *v, PetscInt n, PetscBool comma)
{
  fprintf(f, "\"%s\": [", name);
  for (PetscInt i = 0; i < n; i++) fprintf(f, "%s%.17g", i ? "," : "", (double)v[i]);
  fprintf(f, "]%s\n", comma ? "," : "");
}

static void PrintInts(FILE *f, const char *name, const PetscInt *v, PetscInt n, PetscBool comma)
{
  fprintf(f, "\"%s\": [", name);
  for (PetscInt i = 0; i < n; i++) fprintf(f, "%s%" PetscInt_FMT, i ? "," : "", v[i]);
  fprintf(f, "]%s\n", comma ? "," : "");
}

/* Is any event logging in (the monitor's hooks, or default logging)? PETSc 3.18's hook, or 3.20's handlers */
static PetscBool AnyLogging(void)
{
#if PETSC_VERSION_LT(3, 20, 0)
  return (PetscBool)(PetscLogPLB != NULL);
#else
  PetscBool active = PETSC_FALSE;
  return (PetscBool)(!PetscLogIsActive(&active) && active);
#endif
}

int main(int argc, char **argv)
{
  PKProblem          prob;
  KSP                ksp;
  Vec                x;
  PetscInt           nsolves = 2;
  PetscReal          delay   = 0;
  PetscReal          rtol;
  PetscBool          code = PETSC_FALSE, off = PETSC_FALSE, nosfo = PETSC_FALSE;
  char               dump[PETSC_MAX_PATH_LEN];
  PetscMPIInt        rank, size;
  FILE              *f = NULL;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsolves", &nsolves, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-perf_code", &code, NULL));
  { /* never into the source tree: the build tree when run by tests/run, else the temporary directory */
    const char *bd = getenv("PK_BUILD"), *tmp = getenv("TMPDIR");
    if (bd) PetscCall(PetscSNPrintf(dump, sizeof(dump), "%s/tests/perfmon.json", bd));
    else PetscCall(PetscSNPrintf(dump, sizeof(dump), "%s/perfmon.json", tmp ? tmp : "/tmp"));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dump", dump, sizeof(dump), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-expect_off", &off, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-late_rank_delay", &delay, NULL));
  PetscCheck(delay >= 0 && delay <= 10, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-late_rank_delay %g: 0 to 10 s", (double)delay);
  /* PETSc's own KSPSolve event time is the independent reference: default logging on before the monitor's hooks */
  if (!off) PetscCall(PetscLogDefaultBegin());
  PetscCall(PipeKrylovInitializePackage());
  PetscCheck(!off || !AnyLogging(), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "No perf option, yet event hooks are installed");
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(VecDuplicate(prob.b, &x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, prob.A, prob.A));
  PetscCall(KSPSetType(ksp, KSPPKPCG));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-no_set_from_options", &nosfo, NULL)); /* the monitor reads its options at the first solve, inside the event hooks */
  if (!nosfo) PetscCall(KSPSetFromOptions(ksp));
  if (code) PetscCall(KSPPerfMonitorSet(ksp, PETSC_TRUE));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  if (off) {
    const PKStats *S;
    PetscCall(KSPSolve(ksp, prob.b, x));
    PetscCall(KSPPerfMonitorGetStats(ksp, &S));
    PetscCheck(!S && !AnyLogging(), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "No perf option, yet the solve was recorded");
    nsolves = 0;
  } else if (!rank) {
    f = fopen(dump, "w");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", dump);
    fprintf(f, "{\"nranks\": %d, \"solves\": [\n", size);
  }
  for (PetscInt s = 0; s < nsolves; s++) {
    PetscEventPerfInfo e0, e1;
    PetscLogDouble     w0, w1;
    PetscInt           its;
    PetscReal          loc[6], *all = NULL;
    const PKStats     *S;

    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSetTolerances(ksp, rtol * PetscPowReal(0.1, (PetscReal)s), PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT)); /* solves differ */
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, KSP_Solve, &e0));
    if (delay > 0 && rank == size - 1) { /* the last rank enters the solve late: the others wait for it in the set-up */
      struct timespec ts = {(time_t)delay, (long)((delay - (PetscReal)(time_t)delay) * 1e9)};
      while (nanosleep(&ts, &ts) && errno == EINTR) { }
    }
    PetscCall(PetscTime(&w0));
    PetscCall(KSPSolve(ksp, prob.b, x));
    PetscCall(PetscTime(&w1));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, KSP_Solve, &e1));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPPerfMonitorGetTimes(ksp, NULL, &loc[1], &loc[2], &loc[3]));
    PetscCall(KSPPerfMonitorGetTimes(ksp, &its, NULL, NULL, NULL));
    loc[0] = (PetscReal)its;
    loc[4] = e1.time - e0.time; /* PETSc's own measurement of this KSPSolve */
    loc[5] = w1 - w0;
    if (!rank) PetscCall(PetscMalloc1(6 * size, &all));
    PetscCallMPI(MPI_Gather(loc, 6, MPIU_REAL, all, 6, MPIU_REAL, 0, PETSC_COMM_WORLD));
    PetscCall(KSPPerfMonitorGetStats(ksp, &S));
    PetscCheck(S, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The monitor recorded no solve");
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCheck(S->nits == its, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PKStats has %" PetscInt_FMT " iterations, KSPGetIterationNumber %" PetscInt_FMT, S->nits, its);
    if (!rank) {
      PetscInt K = S->nits, nsel = S->nsel, selv[16], nodev[16];
      for (PetscInt j = 0; j < nsel; j++) {
        selv[j]  = S->sel[j];
        nodev[j] = S->sel_node[j];
      }
      fprintf(f, "%s{\"solve\": %" PetscInt_FMT ", \"its\": %" PetscInt_FMT ", \"reason\": \"%s\",\n", s ? "," : "", S->solve, its, KSPConvergedReasons[reason]);
      PrintReals(f, "rank_its", all, 6 * size, PETSC_TRUE); /* [rank][its setup iterations finish event wall] */
      fprintf(f, "\"nits\": %" PetscInt_FMT ", \"nranks\": %d, \"nnodes\": %" PetscInt_FMT ", \"ppn\": %" PetscInt_FMT ",\n", K, S->nranks, S->nnodes, S->ppn);
      fprintf(f, "\"solve_time\": %.17g, \"setup_time\": %.17g, \"finish_time\": %.17g, \"arrival\": %.17g,\n", (double)S->solve_time, (double)S->setup_time, (double)S->finish_time, (double)S->arrival);
      fprintf(f, "\"nreductions\": %" PetscInt_FMT ", \"nearly\": %" PetscInt_FMT ", \"ntests\": %" PetscInt_FMT ", \"npooled\": %" PetscInt_FMT ", \"npapi\": %" PetscInt_FMT ",\n", S->nreductions, S->nearly, S->ntests, S->npooled, S->npapi);
      fprintf(f, "\"papi_names\": [");
      for (PetscInt j = 0; j < S->npapi; j++) fprintf(f, "%s\"%s\"", j ? "," : "", S->papi_names[j]);
      fprintf(f, "],\n");
      PrintInts(f, "sel", selv, nsel, PETSC_TRUE);
      PrintInts(f, "sel_node", nodev, nsel, PETSC_TRUE);
      PrintReals(f, "series", S->series, nsel * K, PETSC_TRUE);
      PrintInts(f, "itred", S->itred, K, PETSC_TRUE);
      PrintInts(f, "itearly", S->itearly, K, PETSC_TRUE);
      PrintReals(f, "tmin", S->tmin, K, PETSC_TRUE);
      PrintReals(f, "tmax", S->tmax, K, PETSC_TRUE);
      PrintReals(f, "tmean", S->tmean, K, PETSC_TRUE);
      PrintReals(f, "tvar", S->tvar, K, PETSC_TRUE);
      PrintReals(f, "tq", S->tq, K * PK_STATS_NQ, PETSC_TRUE);
      PrintReals(f, "phase_mean", S->phase_mean, K * PK_PHASE_N, PETSC_TRUE);
      PrintReals(f, "phase_max", S->phase_max, K * PK_PHASE_N, PETSC_TRUE);
      PrintReals(f, "cmin", S->cmin, K, PETSC_TRUE);
      PrintReals(f, "cmax", S->cmax, K, PETSC_TRUE);
      PrintReals(f, "cmean", S->cmean, K, PETSC_TRUE);
      PrintReals(f, "cmedian", S->cmedian, K, PETSC_TRUE);
      PrintReals(f, "papi_mean", S->papi_mean, K * S->npapi, PETSC_TRUE);
      PrintReals(f, "papi_max", S->papi_max, K * S->npapi, PETSC_TRUE);
      PrintReals(f, "pooled", S->pooled, S->npooled, PETSC_FALSE);
      fprintf(f, "}\n");
      PetscCall(PetscFree(all));
    }
  }
  if (f) {
    fprintf(f, "]}\n");
    fclose(f);
  }
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "perfmon: %s, %" PetscInt_FMT " solves recorded, %s\n", prob.name, nsolves, KSPConvergedReasons[reason]));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}
