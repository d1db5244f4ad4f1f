/*
   Section "run and machine" of the report: the solver and its description, the operator, the measured KSPSolve time
   and its phases, and the machine profile the models use, with what it lacks filled in and where every parameter
   came from. Gathered collectively (means over ranks of the time by activity and the CPU time, the ranks sharing a
   core, the operator's size); printed first (the run) and last (the machine).
*/
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "report.h"
#include <petsc/private/kspimpl.h>
#include <petsc/private/matimpl.h> /* ops->getinfo: whether the operator can count its nonzeros */
#include <sched.h>
#include <unistd.h>

/* The model's profile, loaded once: -ksp_perfmodel_machine > this host's profile in the user's cache > the embedded
   default. Called at KSPSetFromOptions when a report is asked for (the package's hooks), so that a broken profile,
   the cached one included, stops the run before its solve with its own error, and at the first report otherwise.
   Collective. */
PetscErrorCode PKReportLoadMachine(MPI_Comm comm, PKModelCtx *model)
{
  PetscFunctionBegin;
  if (model->machine_loaded && (!model->machine_path[0] || !model->machine_from_host)) PetscFunctionReturn(0);
  PetscCall(PKMachineChoose(comm, model->machine_path, &model->machine, NULL));
  model->machine_from_host = (PetscBool)!model->machine_path[0];
  model->machine_loaded    = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Ranks per core on the busiest host: the ranks of this host (MPI_COMM_TYPE_SHARED, whatever -ksp_perf_node_size
   says: this is about real cores) over the cores they may run on together, the union of their affinity masks.
   Each rank's own mask is not enough: mpiexec binds each rank to its own core by default, and nhost ranks over one
   core each would read as "nhost ranks share each core".
   Nodes that are containers or network namespaces of one host (bin/pipekrylov-cluster's emulated nodes) share its
   cores but are counted apart, on purpose: told apart by the kernel's boot id, 8 such nodes on 2 cores gave 4 ranks
   per core, and the term k t_cpu - compute then counted each rank's busy-polling MPI waits (CPU time) k times,
   which made the model worse on bench/topology.sh (docs/benchmarks.md, "The switch tree"). */
PetscErrorCode PKReportRanksPerCore(MPI_Comm comm, PetscReal *rpc)
{
#if defined(PK_SMPI)
  PetscFunctionBegin;
  /* under SimGrid's simulator every simulated rank has a simulated core of its own: the real cores that run the
     simulated ranks one after another say nothing about the simulated machine */
  (void)comm;
  *rpc = 1;
  PetscFunctionReturn(0);
#else
  MPI_Comm    host;
  PetscMPIInt nhost;
  PetscReal   mine, cores = 0;
  cpu_set_t   set, all;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  PetscCallMPI(MPI_Comm_size(host, &nhost));
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set)) CPU_ZERO(&set);
  PetscCallMPI(MPI_Allreduce(&set, &all, (PetscMPIInt)sizeof(set), MPI_BYTE, MPI_BOR, host));
  PetscCallMPI(MPI_Comm_free(&host));
  cores = CPU_COUNT(&all);
  if (cores <= 0) cores = (PetscReal)sysconf(_SC_NPROCESSORS_ONLN);
  mine = cores > 0 ? PetscMax(1.0, nhost / cores) : 1;
  PetscCallMPI(MPI_Allreduce(&mine, rpc, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscFunctionReturn(0);
#endif
}

/* The solver's description: one of ours describes itself with its live settings, PETSc's types come from the
   model's table (the KSP's own type, or `type` for a KSP about to become one) */
PetscErrorCode PKReportSolverConfig(KSP ksp, const char type[], PKSolverConfig *config)
{
  PetscErrorCode (*getcost)(KSP, PKSolverCost *);
  PetscErrorCode (*restart)(KSP, PetscInt *);

  PetscFunctionBegin;
  PetscCall(PetscMemzero(config, sizeof(*config)));
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetCost_C", &getcost));
  if (getcost) {
    PKSolverCost cost;
    PetscCall((*getcost)(ksp, &cost));
    PetscCall(PKSolverConfigFromCost(&cost, config));
  } else {
    PetscCall(PKSolverKindFromType(type, &config->kind));
    PKSolverConfigDefault(config->kind, config);
    PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPGMRESGetRestart_C", &restart));
    if (restart) PetscCall((*restart)(ksp, &config->restart));
    if (config->kind == PK_SOLVER_PETSC_CG) config->norm_separate = (PetscBool)(ksp->normtype == KSP_NORM_PRECONDITIONED || ksp->normtype == KSP_NORM_UNPRECONDITIONED);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecRunGather(KSP ksp, const PKSolveRecord *rec, PKModelCtx *model, PKSecRun *r)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)ksp);
  const PKStats *S    = rec->stats;
  PetscMPIInt    size;
  PetscErrorCode (*ours)(KSP, PetscInt *);
  PetscReal w[2 * PK_PHASE_N + 9], wsum[2 * PK_PHASE_N + 9], once[4];
  Mat       A;
  MatInfo   info;
  PetscInt  nloc;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(KSPGetType(ksp, &r->type));
  PetscCall(KSPGetConvergedReason(ksp, &r->reason));
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetChunks_C", &ours));
  r->ours = ours ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PKReportSolverConfig(ksp, r->type, &r->config));
  r->model = (PetscBool)(r->config.kind != PK_SOLVER_UNKNOWN);
  /* the machine, with what it lacks filled in (and said) */
  PetscCall(PKReportLoadMachine(comm, model));
  r->machine            = &model->machine;
  r->machine_is_default = (PetscBool)(!model->machine_path[0] && !strncmp(model->machine.origin, "embedded default", 16));
  {
    PKMachineGaps gaps;
    PetscCall(PKMachineEffective(&model->machine, &r->eff, &gaps));
    r->offnode_substituted = gaps.offnode_substituted;
    PetscCall(PetscStrncpy(r->offnode_missing, gaps.offnode_missing, sizeof(r->offnode_missing)));
    PetscCall(PetscStrncpy(r->offnode_filled, gaps.offnode_filled, sizeof(r->offnode_filled)));
    PetscCall(PetscStrncpy(r->onnode_default, gaps.onnode_default, sizeof(r->onnode_default)));
  }
  /* the operator */
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetSize(A, &r->nrows_global, NULL));
  PetscCall(MatGetLocalSize(A, &nloc, NULL));
  r->rows_local = (PetscReal)nloc;
  r->nnz_global = -1; /* a matrix-free operator (MATMFFD, MATSHELL) has no nonzero count: the report says so */
  /* means over ranks of the time by activity (inside the windows too) and of the CPU time; sums of the local rows and
     nonzeros */
  for (int j = 0; j < PK_PHASE_N; j++) {
    w[j]              = rec->work[j];
    w[PK_PHASE_N + j] = rec->win[j];
  }
  w[2 * PK_PHASE_N]     = rec->cpu;
  w[2 * PK_PHASE_N + 1] = (PetscReal)nloc;
  w[2 * PK_PHASE_N + 2] = 0;
  w[2 * PK_PHASE_N + 3] = S->test_time; /* the progress calls this rank timed, and their count */
  w[2 * PK_PHASE_N + 4] = (PetscReal)S->test_timed;
  w[2 * PK_PHASE_N + 5] = S->post_time; /* the non-blocking reductions this rank posted (each timed) */
  w[2 * PK_PHASE_N + 6] = (PetscReal)S->post_timed;
  if (A->ops->getinfo) {
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    w[2 * PK_PHASE_N + 2] = (PetscReal)info.nz_used;
  }
  /* the first SpMV and PC application, and what it took beyond the others: PETSc's jacobi computes its diagonal inside
     its first PCApply (with two reductions, where a rank that entered the solve early also waits for the late one) */
  for (int k = 0; k < 2; k++) {
    const PetscInt  n         = k ? rec->npc : rec->nspmv;
    const PetscReal wk        = rec->work[k ? PK_PHASE_PC : PK_PHASE_SPMV];
    w[2 * PK_PHASE_N + 7 + k] = n > 1 ? rec->first[k] : 0;
    once[k]                   = n > 1 ? PetscMax(0, rec->first[k] - (wk - rec->first[k]) / (n - 1)) : 0;
    once[2 + k]               = -once[k];
  }
  PetscCallMPI(MPI_Allreduce(w, wsum, 2 * PK_PHASE_N + 9, MPIU_REAL, MPIU_SUM, comm));
  /* the set-up in a first application is the least any rank took beyond its others: the rank that entered last waited
     for nobody there. The others' wait is the arrival's, a term of its own: the set-ups' spread bounds it where their
     first collective falls in the set-up (pipekrylov's types), this spread where it falls in a first application (PETSc's
     cg with jacobi: in the first PCApply, an iteration row) */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, once, 4, MPIU_REAL, MPIU_MIN, comm));
  for (int j = 0; j < PK_PHASE_N; j++) {
    r->work[j] = wsum[j] / size;
    r->win[j]  = wsum[PK_PHASE_N + j] / size;
  }
  r->t_cpu        = wsum[2 * PK_PHASE_N] / size;
  r->rows_sum     = wsum[2 * PK_PHASE_N + 1];
  r->nnz_sum      = wsum[2 * PK_PHASE_N + 2];
  r->tests_timed  = (PetscInt)wsum[2 * PK_PHASE_N + 4];
  r->t_test_timed = r->tests_timed > 0 ? wsum[2 * PK_PHASE_N + 3] / r->tests_timed : -1;
  r->t_test       = r->tests_timed >= PK_TESTS_TIMED_MIN ? r->t_test_timed : -1; /* enough of them for the model */
  r->posts_timed  = (PetscInt)wsum[2 * PK_PHASE_N + 6];
  r->t_post       = r->posts_timed > 0 ? wsum[2 * PK_PHASE_N + 5] / r->posts_timed : -1; /* every post is timed */
  if (A->ops->getinfo) r->nnz_global = (PetscInt)r->nnz_sum;
  r->nspmv = rec->nspmv;
  r->npc   = rec->npc;
  for (int k = 0; k < 2; k++) {
    r->first[k] = wsum[2 * PK_PHASE_N + 7 + k] / size;
    r->once[k]  = once[k];
  }
  /* the arrival: the clocks' spread, bounded by what the set-ups or the first applications show of the wait for it */
  r->arrival  = PetscMax(S->arrival, PetscMin(S->arrival_clock, PetscMax(-once[2] - once[0], -once[3] - once[1])));
  r->measured = S->solve_time;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp->pc, &r->pc_diagonal, PCJACOBI, PCNONE, ""));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp->pc, PCJACOBI, &r->pc_is_jacobi));
  if (r->config.have_cost && r->config.cost.fused_last) r->config.pc_fused = PETSC_TRUE;
  PetscCall(PKReportRanksPerCore(comm, &r->ranks_per_core));
  r->theta_counts = S->nreductions ? PKModelThetaFromCounts(S->nearly, S->nreductions) : -1;
  {
    PetscContainer cont;
    PetscCall(PetscObjectQuery((PetscObject)ksp, "PKTypeChoice", (PetscObject *)&cont));
    if (cont) PetscCall(PetscContainerGetPointer(cont, (void **)&r->choice));
  }
  r->papi_unavailable = rec->papi_unavailable;
  r->papi_reason      = rec->papi_reason;
  /* rank 0: the iterations' elapsed time (the sum of per-iteration maxima would overstate it when the slowest rank
     changes from iteration to iteration) and the phases */
  r->rows_time = PetscMax(0, S->solve_time - S->setup_time - S->finish_time);
  if (S->phase_mean)
    for (PetscInt k = 0; k < S->nits; k++)
      for (int j = 0; j < PK_PHASE_N; j++) r->phase[j] += S->phase_mean[k * PK_PHASE_N + j];
  PetscFunctionReturn(0);
}

/* The run's part of the text report: the title, the machine profile's warning, the operator and the measurement */
/* text on lines of at most 100 columns, each after indent, broken at blanks */
static PetscErrorCode PKSecRunWrapped(PetscViewer v, const char indent[], const char text[])
{
  size_t      w = 100 - strlen(indent), n;
  const char *p = text;

  PetscFunctionBegin;
  while (*p) {
    n = strlen(p);
    if (n > w) {
      n = w;
      while (n > 0 && p[n] != ' ') n--;
      if (!n) n = w; /* one word longer than a line */
    }
    PetscCall(PetscViewerASCIIPrintf(v, "%s%.*s\n", indent, (int)n, p));
    p += n;
    while (*p == ' ') p++;
  }
  PetscFunctionReturn(0);
}

/* What the pipelined CG types' accuracy policy did in the solve (their own description, pkcost.h): passes that
   recomputed the auxiliary vectors, residual replacements, gap measurements, and the policy's last switch */
static PetscErrorCode PKSecRunPolicyView(PetscViewer v, const PKSecRun *r)
{
  const PKSolverCost *c = &r->config.cost;

  PetscFunctionBegin;
  if (!r->config.have_cost || (r->config.kind != PK_SOLVER_PIPECG && r->config.kind != PK_SOLVER_PIPE2CG)) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(v, "    accuracy policy: passes recomputed %" PetscInt_FMT " (%.0f SpMV%s each), residual replacements %" PetscInt_FMT ",\n      gap measurements %" PetscInt_FMT "\n", c->nrecomputed, (double)c->recompute_spmv, c->recompute_pc > 0 ? " + PC" : "", c->nreplaced, c->nprobed));
  if (c->recompute_why && c->recompute_why[0]) PetscCall(PKSecRunWrapped(v, "      ", c->recompute_why));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecRunView(PetscViewer v, PetscViewerFormat fmt, const PKSolveRecord *rec, const PKSecRun *r)
{
  const PKStats *S       = rec->stats;
  char           nnz[32] = "unknown";

  PetscFunctionBegin;
  (void)fmt;
  PetscCall(PetscViewerASCIIPrintf(v, "pipekrylov performance report: KSP %s (%s), solve %" PetscInt_FMT "\n", r->type, r->ours ? "pipekrylov" : "PETSc", S->solve));
  if (r->machine_is_default) {
    char host[256], path[PETSC_MAX_PATH_LEN], cmd[PETSC_MAX_PATH_LEN + 64];
    PetscCall(PKMachineHostName(host, sizeof(host)));
    PetscCall(PKMachineCachePath(path, sizeof(path), NULL, 0));
    PetscCall(PKCalibrateCommand(S->ppn, cmd, sizeof(cmd)));
    /* the host name (node and processor) is as long as the processor's name: it goes on a line of its own, so
       that the fixed text stays within 100 columns whatever the machine */
    PetscCall(PetscViewerASCIIPrintf(v, "  NO MACHINE PROFILE FOR THIS HOST: the model uses the embedded default, measured on another\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "  machine. Make this host's profile (about 20 s, or 3 s with -quick; reports then use it):\n    %s\n", cmd));
    PetscCall(PetscViewerASCIIPrintf(v, "  (profiles are per host and processor; this one is %s)\n", host));
    if (!path[0]) PetscCall(PetscViewerASCIIPrintf(v, "  (neither XDG_CACHE_HOME nor HOME is set: write it with -o file and use -ksp_perfmodel_machine file)\n"));
  }
  if (r->nnz_global < 0) PetscCall(PetscViewerASCIIPrintf(v, "  the operator is matrix-free: its nonzeros and halo are unknown, so are the terms built on them\n"));
  if (r->nnz_global >= 0) PetscCall(PetscSNPrintf(nnz, sizeof(nnz), "%" PetscInt_FMT, r->nnz_global));
  PetscCall(PetscViewerASCIIPrintf(v, "  %" PetscInt_FMT " rows, %s nonzeros; %d ranks on %" PetscInt_FMT " node(s), up to %" PetscInt_FMT " per node; %" PetscInt_FMT " iterations, %s\n", r->nrows_global, nnz, S->nranks, S->nnodes, S->ppn, S->nits, KSPConvergedReasons[r->reason]));
  if (r->papi_unavailable && r->papi_unavailable[0]) PetscCall(PetscViewerASCIIPrintf(v, "  no PAPI counters on this machine: %.60s (-ksp_view lists them)\n", r->papi_reason));
  PetscCall(PetscViewerASCIIPrintf(v, "  measured KSPSolve %.4e s (slowest rank): set-up %.2e s,\n    iterations %.4e s, finish %.2e s\n", (double)r->measured, (double)S->setup_time, (double)r->rows_time, (double)S->finish_time));
  {
    PetscReal tot = 0;
    for (int j = 0; j < PK_PHASE_N; j++) tot += r->phase[j];
    PetscCall(PetscViewerASCIIPrintf(v, "    phases (mean over ranks):"));
    for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, " %s %.0f%%", PKPhaseNames[j], (double)PKPct(r->phase[j], tot)));
    PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    if (r->phase[PK_PHASE_OVERLAP] > 0) { /* the overlap window hides what was done in it: show that too */
      tot = 0;
      for (int j = 0; j < PK_PHASE_N; j++) tot += r->work[j];
      PetscCall(PetscViewerASCIIPrintf(v, "    by activity, in overlap too:"));
      for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, " %s %.0f%%", j == PK_PHASE_OVERLAP ? "MPI-calls" : PKPhaseNames[j], (double)PKPct(r->work[j], tot)));
      PetscCall(PetscViewerASCIIPrintf(v, "\n"));
      tot = 0;
      for (int j = 0; j < PK_PHASE_N; j++) tot += r->win[j];
      PetscCall(PetscViewerASCIIPrintf(v, "    inside the overlap windows:"));
      for (int j = 0; j < PK_PHASE_N; j++)
        if (j != PK_PHASE_REDUCE) PetscCall(PetscViewerASCIIPrintf(v, " %s %.0f%%", j == PK_PHASE_OVERLAP ? "MPI-calls" : PKPhaseNames[j], (double)PKPct(r->win[j], tot)));
      PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    }
  }
  PetscCall(PKSecRunPolicyView(v, r));
  if (r->choice) PetscCall(PKReportTypeChoiceView(v, r->choice));
  if (S->nreductions) {
    PetscCall(PetscViewerASCIIPrintf(v, "    measured overlap: %" PetscInt_FMT " of %" PetscInt_FMT " reductions complete before their wait (%.0f%%), %" PetscInt_FMT " MPI_Test calls", S->nearly, S->nreductions, (double)PKPct(S->nearly, S->nreductions), S->ntests));
    /* on a line of its own whenever the solver polls: the golden reports' lines do not come and go with the count */
    if (r->tests_timed > 0) PetscCall(PetscViewerASCIIPrintf(v, ",\n      %.3g us each (%" PetscInt_FMT " timed; the model uses them from %d, else the profile's)", (double)(1e6 * r->t_test_timed), r->tests_timed, PK_TESTS_TIMED_MIN));
    else if (S->ntests > 0) PetscCall(PetscViewerASCIIPrintf(v, ",\n      none timed"));
    if (r->posts_timed > 0) PetscCall(PetscViewerASCIIPrintf(v, ";\n      posting one (MPI_Iallreduce) %.3g us (all %" PetscInt_FMT " timed, every rank)", (double)(1e6 * r->t_post), r->posts_timed));
    PetscCall(PetscViewerASCIIPrintf(v, "\n"));
  } else if (r->model && r->theta_counts < 0 && PKSolverSplitReductions(r->config.kind)) {
    /* what the model takes instead: the profile's progress without calls */
    PetscReal share = PKModelAsyncShare(&r->eff, r->config.kind);
    PetscInt  i;

    PetscCall(PKMachineFieldIndexOf(r->machine, &r->machine->p.nbc_async, &i));
    if (share > 0)
      PetscCall(PetscViewerASCIIPrintf(v, "    overlap of PETSc's split reductions is not measured (no MPI_Test accounting): the MPI completes %.0f%% of them with no call (profile nbc_async), hidden up to their window\n", (double)(100 * share)));
    else
      PetscCall(PetscViewerASCIIPrintf(v, "    overlap of PETSc's split reductions is not measured (no MPI_Test accounting): assumed none (%s)\n", r->machine->src[i] == PK_SRC_NONE ? "the profile has no nbc_async: calibrate on 4 or more ranks" : "profile nbc_async 0: the MPI does not progress without calls"));
  }
  PetscFunctionReturn(0);
}

/* The machine's rows of the CSV report and the run's */
PetscErrorCode PKSecRunCSV(PetscViewer v, const PKSolveRecord *rec, const PKSecRun *r)
{
  const PKStats *S = rec->stats;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "machine,profile,%s,,%s\n", r->machine_is_default ? "embedded default" : "file", r->machine_is_default ? "no profile for this host: run pipekrylov-calibrate" : "profile"));
  if (r->onnode_default[0]) PetscCall(PetscViewerASCIIPrintf(v, "machine,onnode_communication,embedded default,,not in the profile\n"));
  PetscCall(PetscViewerASCIIPrintf(v, "run,type,%s,,%s\nrun,solve,%" PetscInt_FMT ",,\nrun,ranks,%d,,\nrun,nodes,%" PetscInt_FMT ",,\nrun,iterations,%" PetscInt_FMT ",,\n", r->type, r->ours ? "pipekrylov" : "petsc", S->solve, S->nranks, S->nnodes, S->nits));
  if (r->config.have_cost && (r->config.kind == PK_SOLVER_PIPECG || r->config.kind == PK_SOLVER_PIPE2CG)) {
    const PKSolverCost *c = &r->config.cost;
    PetscCall(PetscViewerASCIIPrintf(v, "run,passes_recomputed,%" PetscInt_FMT ",passes,measured\nrun,replacements,%" PetscInt_FMT ",,measured\nrun,gap_measurements,%" PetscInt_FMT ",,measured\nrun,recompute_on_at,%" PetscInt_FMT ",iteration,measured\n", c->nrecomputed, c->nreplaced, c->nprobed, c->recompute_on_at));
  }
  if (r->choice) {
    const PKTypeChoice *c = r->choice;
    PetscCall(PetscViewerASCIIPrintf(v, "choice,chosen,%s,,autocg\n", c->current >= 0 ? c->type[c->current] : "none"));
    PetscCall(PetscViewerASCIIPrintf(v, "choice,sync_gap,%.9e,s,measured\nchoice,sync_gap_q1,%.9e,s,measured\n", (double)c->pred.sync[0], (double)c->pred.sync[1]));
    for (PetscInt i = 0; i < c->n; i++) {
      PetscCall(PetscViewerASCIIPrintf(v, "choice.predicted_per_iteration,%s,%.9e,s,modelled\n", c->type[i], (double)c->pred.per_iteration[i]));
      if (c->measured[i] >= 0) PetscCall(PetscViewerASCIIPrintf(v, "choice.measured_per_iteration,%s,%.9e,s,measured\n", c->type[i], (double)c->measured[i]));
    }
  }
  PetscFunctionReturn(0);
}

/* The measured rows of the CSV report */
PetscErrorCode PKSecMeasuredCSV(PetscViewer v, const PKSolveRecord *rec, const PKSecRun *r)
{
  const PKStats *S = rec->stats;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "measured,ksp_solve,%.9e,s,measured\nmeasured,setup,%.9e,s,measured\nmeasured,finish,%.9e,s,measured\n", (double)r->measured, (double)S->setup_time, (double)S->finish_time));
  for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, "measured,phase.%s,%.9e,s,measured\n", PKPhaseNames[j], (double)r->phase[j]));
  /* time by activity, work done inside the overlap windows included (its MPI_Test calls under "overlap"): what the
     windows were filled with (bin/pipekrylov-plot --figure overlap draws it) */
  for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, "measured,work.%s,%.9e,s,measured\n", PKPhaseNames[j], (double)r->work[j]));
  /* the part of it done inside the windows, measured at the marks (their sum is the time charged to the windows, set-up
     and finish included) */
  for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, "measured,window.%s,%.9e,s,measured\n", PKPhaseNames[j], (double)r->win[j]));
  PetscCall(PetscViewerASCIIPrintf(v, "measured,reductions.nonblocking,%" PetscInt_FMT ",,measured\nmeasured,reductions.early,%" PetscInt_FMT ",,measured\nmeasured,tests,%" PetscInt_FMT ",,measured\n", S->nreductions, S->nearly, S->ntests));
  if (r->t_test > 0) PetscCall(PetscViewerASCIIPrintf(v, "measured,test_call,%.9e,s,measured\n", (double)r->t_test));
  if (r->t_post >= 0) PetscCall(PetscViewerASCIIPrintf(v, "measured,post_call,%.9e,s,measured\n", (double)r->t_post));
  /* the first applications (mean over ranks) and the set-up they held beyond the others (least over ranks) */
  for (int k = 0; k < 2; k++) {
    const char *what = k ? "pc" : "spmv";
    if (r->first[k] > 0) PetscCall(PetscViewerASCIIPrintf(v, "measured,first_%s,%.9e,s,measured\nmeasured,first_%s_extra,%.9e,s,measured\n", what, (double)r->first[k], what, (double)r->once[k]));
  }
  PetscFunctionReturn(0);
}

/* Where every machine parameter came from, last in the text report */
PetscErrorCode PKSecMachineView(PetscViewer v, PetscViewerFormat fmt, const PKSecRun *r)
{
  const PKMachine *m = r->machine;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  {
    /* the origin can be long (the default says where it was measured): wrap it at 96 columns */
    const char *s   = m->origin;
    size_t      len = strlen(s), first = 1;
    while (len) {
      size_t n = len;
      if (n > (first ? 78 : 92)) {
        n = first ? 78 : 92;
        while (n > 20 && s[n] != ' ') n--;
      }
      PetscCall(PetscViewerASCIIPrintf(v, "%s%.*s\n", first ? "  machine profile: " : "    ", (int)n, s));
      s += n;
      len -= n;
      while (len && *s == ' ') s++, len--;
      first = 0;
    }
  }
  if (r->onnode_default[0]) PetscCall(PetscViewerASCIIPrintf(v, "    NO ON-NODE COMMUNICATION PARAMETERS IN THE PROFILE (calibrated on one rank?): the embedded default's used:\n      %s\n", r->onnode_default));
  if (r->offnode_substituted) PetscCall(PetscViewerASCIIPrintf(v, "    no off-node parameters in the profile: on-node values used for off-node messages\n"));
  else if (r->offnode_filled[0]) PetscCall(PetscViewerASCIIPrintf(v, "    not in the profile, the on-node value used off node: %s\n", r->offnode_filled));
  if (fmt == PETSC_VIEWER_ASCII_INFO_DETAIL) {
    PetscCall(PKMachineView(m, v));
  } else {
    /* the parameters this report used most, with their provenance; the network's two (whether this run had a switch
       tree and counters is the network lines' to say) */
    static const char *keys[] = {"alpha_on_short", "beta_on_short", "alpha_off_short", "beta_off_short", "Rb_off", "RN", "gamma", "delta", "allreduce_alpha_on", "allreduce_alpha_off", "mem_bw", "hop_latency", "stall_time", NULL};
    for (PetscInt k = 0; keys[k]; k++) {
      PetscInt      i;
      const char   *key;
      PetscReal     val;
      PKParamSource src;
      if (PKMachineFieldIndex(keys[k], &i) || i < 0) continue;
      PetscCall(PKMachineGetField(m, i, &key, &val, &src));
      PetscCall(PetscViewerASCIIPrintf(v, "    %-22s %-12.4g %-8s [%s]\n", key, (double)val, PKMachineFields[i].unit, PKMachineSourceName(src)));
    }
    PetscCall(PetscViewerASCIIPrintf(v, "    (-ksp_perfmodel_view ::ascii_info_detail lists every parameter)\n"));
  }
  PetscFunctionReturn(0);
}

/* What -ksp_type autocg chose and why: every candidate's predicted time per iteration (and measured, for those run),
   the inputs the prediction measured; each line printed whole (a viewer with tabs indents every call) and within the
   report's 100 columns (PKSecRunWrapped; the candidates broken between entries, aligned under the first) */
PetscErrorCode PKReportTypeChoiceView(PetscViewer v, const PKTypeChoice *c)
{
  const PKPrediction *p    = &c->pred;
  const char          in[] = "    ", head[] = "per iteration, us:";
  char                text[512], line[128], piece[64];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(text, sizeof(text), "chosen by -ksp_type autocg: %s, %s", c->current >= 0 ? c->type[c->current] : "(none yet)", c->why));
  PetscCall(PKSecRunWrapped(v, "  ", text));
  PetscCall(PetscStrncpy(line, head, sizeof(line)));
  for (PetscInt i = 0; i < c->n; i++) {
    size_t n, m;
    if (c->measured[i] >= 0) PetscCall(PetscSNPrintf(piece, sizeof(piece), " %s %.3g (measured %.3g)", c->type[i], 1e6 * (double)p->per_iteration[i], 1e6 * (double)c->measured[i]));
    else PetscCall(PetscSNPrintf(piece, sizeof(piece), " %s %.3g", c->type[i], 1e6 * (double)p->per_iteration[i]));
    PetscCall(PetscStrlen(line, &n));
    PetscCall(PetscStrlen(piece, &m));
    if (n > sizeof(head) - 1 && sizeof(in) - 1 + n + m > 100) { /* the line is full: the next under the first entry */
      PetscCall(PetscViewerASCIIPrintf(v, "%s%s\n", in, line));
      PetscCall(PetscSNPrintf(line, sizeof(line), "%*s", (int)(sizeof(head) - 1), ""));
    }
    PetscCall(PetscStrlcat(line, piece, sizeof(line)));
  }
  PetscCall(PetscViewerASCIIPrintf(v, "%s%s\n", in, line));
  PetscCall(PetscSNPrintf(text, sizeof(text), "from: local SpMV %.3g us, MatMult %.3g us, PC %.3g us, vector stream %.3g us, halo %s%.3g us, synchronization gap %.3g us (Q1 %.3g); %" PetscInt_FMT " ranks on %" PetscInt_FMT " node(s); profile %s",
                          1e6 * (double)p->t_spmv, 1e6 * (double)p->t_matmul, 1e6 * (double)p->t_pc, 1e6 * (double)p->t_stream, p->halo_known ? "" : "unknown, ", 1e6 * (double)p->halo, 1e6 * (double)p->sync[0], 1e6 * (double)p->sync[1], p->P, p->nodes, p->origin));
  PetscCall(PKSecRunWrapped(v, in, text));
  PetscFunctionReturn(0);
}
