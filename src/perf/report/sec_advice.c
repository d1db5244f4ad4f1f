/*
   Section "what would help" of the report: the term of the model that costs most with a plain-language hint; every
   other solver on this problem (pipekrylov's, PETSc's cg and gmres: within a method family with this run's iteration
   count, across families per iteration), full overlap of the reductions and a node-aware layout, ranked by
   predicted time; what-if predictions for 4x to 256x more ranks, only with measured off-node parameters.
*/
#include "report.h"
#include <petsc/private/kspimpl.h>

/* What each of our solvers would cost on this problem, as the solver describes itself: a throwaway KSP of that type
   (not set up, on PETSC_COMM_SELF), with the run's restart length for pgmres */
static PetscErrorCode PKSecAdviceConfigs(const PKSecRun *run, PKSecAdvice *ad)
{
  PetscFunctionBegin;
  for (int k = 0; k < PK_SOLVER_NOURS; k++) {
    KSP tmp;
    PetscErrorCode (*getcost)(KSP, PKSolverCost *);
    PKSolverCost cost;

    PetscCall(KSPCreate(PETSC_COMM_SELF, &tmp));
    PetscCall(KSPSetType(tmp, PKSolverKindNames[k]));
    if (k == PK_SOLVER_PGMRES && run->config.restart > 0) PetscCall(KSPGMRESSetRestart(tmp, run->config.restart));
    PetscCall(PetscObjectQueryFunction((PetscObject)tmp, "KSPPipeGetCost_C", &getcost));
    PetscCheck(getcost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pipekrylov's %s does not describe its cost (KSPPipeGetCost_C)", PKSolverKindNames[k]);
    PetscCall((*getcost)(tmp, &cost));
    PetscCall(PKSolverConfigFromCost(&cost, &ad->config[k]));
    PetscCall(KSPDestroy(&tmp));
  }
  PetscFunctionReturn(0);
}

/* With -info: a what-if's terms per iteration (us), for whoever asks why it ranks where it does */
static PetscErrorCode PKSecAdviceInfoTerms(const char name[], const PKModelResult *res, PetscInt its)
{
  char   buf[1024];
  size_t n = 0;

  PetscFunctionBegin;
  if (its <= 0) PetscFunctionReturn(0);
  for (int k = 0; k < PK_TERM_N && n + 48 < sizeof(buf); k++)
    if (res->t[k] != 0) n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %s %.3g", PKTermInfos[k].name, 1e6 * res->t[k] / its);
  buf[n] = 0;
  PetscCall(PetscInfo(NULL, "what-if -ksp_type %s, us per iteration:%s; total %.4g\n", name, buf, 1e6 * res->total / its));
  PetscFunctionReturn(0);
}

/* Every other solver on the same problem, from this run's counts. Within a method family (CG, GMRES) the iteration
   count is the same in exact arithmetic; across families it is not, and the report says so (per-iteration time,
   the total only at this run's count). The CG family needs an SPD operator and preconditioner, which a GMRES run
   does not tell */
static PetscErrorCode PKSecAdviceSolvers(const PKSecRun *run, const PKSecAnalytic *a, PetscInt its, PKSecAdvice *ad)
{
  static const PKSolverKind targets[PK_WHATIF_SOLVERS] = {PK_SOLVER_PCG, PK_SOLVER_SAPCG, PK_SOLVER_NBPCG, PK_SOLVER_PIPECG, PK_SOLVER_PIPE2CG, PK_SOLVER_PGMRES, PK_SOLVER_PETSC_CG, PK_SOLVER_PETSC_GMRES};

  PetscFunctionBegin;
  ad->nsolver = 0;
  for (int k = 0; k < PK_WHATIF_SOLVERS; k++) {
    PKSolverConfig cfg;
    PKSolverKind   tk = targets[k];
    if (tk == run->config.kind) continue;
    if ((int)tk < PK_SOLVER_NOURS) cfg = ad->config[tk]; /* as the solver describes itself */
    else PKSolverConfigDefault(tk, &cfg);
    if (run->config.restart > 0 && (tk == PK_SOLVER_PGMRES || tk == PK_SOLVER_PETSC_GMRES) && !PKSolverItersComparable(run->config.kind, PK_SOLVER_PCG)) cfg.restart = run->config.restart;
    cfg.pc_fused = (PetscBool)(run->pc_diagonal && PKSolverCanFusePC(&cfg));                                              /* as each would, by its description */
    if (cfg.have_cost && run->config.have_cost && run->config.cost.chunks > 0) cfg.cost.chunks = run->config.cost.chunks; /* this run's -ksp_pipe_chunks */
    PetscCall(PKModelWhatIfSolver(&run->eff, &a->in, &cfg, &ad->solver[ad->nsolver]));
    PetscCall(PKSecAdviceInfoTerms(PKSolverKindNames[tk], &ad->solver[ad->nsolver], its));
    ad->iters_differ[ad->nsolver] = (PetscBool)!PKSolverItersComparable(run->config.kind, tk);
    ad->kind[ad->nsolver++]       = tk;
  }
  PetscFunctionReturn(0);
}

/* Rank 0 */
PetscErrorCode PKSecAdviceModel(KSP ksp, const PKStats *S, const PKSecRun *run, const PKSecHalo *halo, const PKSecAnalytic *a, const PKSecStoch *st, PKSecAdvice *ad)
{
  PKSolverShape shape;
  PetscInt      K = S->nits;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(ad, sizeof(*ad)));
  PetscCall(PKSecAdviceConfigs(run, ad));
  PetscCall(PKSecAdviceSolvers(run, a, K, ad));
  PetscCall(PKSolverShapeGet(&run->config, 1, &shape));
  if (shape.nonblocking && a->in.theta >= 0 && a->in.theta < 0.95) {
    PKSolveInput full = a->in;
    full.theta        = 1.0;
    PetscCall(PKModelSolve(&run->eff, &full, &ad->full));
    ad->have_full = PETSC_TRUE;
  }
  /* larger runs cross nodes: without measured off-node parameters there is nothing to predict them from (the
     on-node values in their place would make a flat, meaningless curve) */
  ad->ranks_refused = run->offnode_substituted;
  for (int w = 0; w < PK_WHATIF_RANKS && !ad->ranks_refused; w++) {
    PetscInt   P = S->nranks;
    PKCommCost hP;
    for (int j = 0; j <= w; j++) P *= 4;
    ad->P[w] = P;
    PetscCall(PKSecHaloAtP(ksp, S, run, &a->in, P, &hP, &ad->halo_how));
    PetscCall(PKModelWhatIfRanks(&run->eff, &a->in, P, halo->have ? &hP : NULL, &ad->ranks[w]));
    ad->ET[w] = ad->ETp[w] = -1;
    if (st->have) PetscCall(PKStochasticWhatIf(&st->r, K, st->r.Peff * P / S->nranks, &ad->ET[w], &ad->ETp[w]));
  }
  PetscFunctionReturn(0);
}

typedef struct {
  char      what[96];
  PetscReal t;
} PKAdvice;

static int PKAdviceCmp(const void *a, const void *b)
{
  PetscReal x = ((const PKAdvice *)a)->t, y = ((const PKAdvice *)b)->t;
  return x < y ? -1 : x > y;
}

/* Ranked list of changes with a predicted time: other solvers, full overlap, the node-aware layout */
static PetscInt PKSecAdviceRank(const PKSecRun *run, const PKSecHalo *halo, const PKSecAnalytic *a, const PKSecAdvice *ad, PKAdvice adv[], PetscInt nmax)
{
  PetscInt n = 0;

  for (PetscInt i = 0; i < ad->nsolver && n < nmax; i++) {
    if (ad->iters_differ[i]) continue; /* another method family: its iteration count is not this run's */
    PetscSNPrintf(adv[n].what, sizeof(adv[n].what), "-ksp_type %s", PKSolverKindNames[ad->kind[i]]);
    adv[n++].t = ad->solver[i].total;
  }
  if (ad->have_full && n < nmax) {
    PetscSNPrintf(adv[n].what, sizeof(adv[n].what), "full overlap of the reductions (more -ksp_pipe_chunks)");
    adv[n++].t = ad->full.total;
  }
  if (halo->have_place && n < nmax) {
    PetscSNPrintf(adv[n].what, sizeof(adv[n].what), "%s", halo->place_what);
    adv[n++].t = PetscMax(0, a->model.total - run->nspmv * halo->place_saving);
  }
  if (halo->have_tplace && n < nmax) {
    PetscSNPrintf(adv[n].what, sizeof(adv[n].what), "%s", halo->tplace_what);
    adv[n++].t = PetscMax(0, a->model.total - run->nspmv * halo->tplace_saving);
  }
  qsort(adv, (size_t)n, sizeof(PKAdvice), PKAdviceCmp);
  return n;
}

/* The term of the model that costs most (communication and penalties, not the measured compute) */
static PetscInt PKLargestOverhead(const PKModelResult *r)
{
  PetscInt best = -1;

  for (PetscInt t = PK_TERM_HALO_POSTAL; t < PK_TERM_N; t++)
    if (r->t[t] > 0 && (best < 0 || r->t[t] > r->t[best])) best = t;
  return best;
}

/* One plain-language hint per term of the model (every term has one: the report prints it under "largest
   overhead"; at most 96 characters, the report's lines are at most 100 columns) */
static const char *PKHint(const PKSolveInput *in, PetscInt term)
{
  switch (term) {
  case PK_TERM_SPMV:
    return "the SpMV's own compute: more ranks for this problem, or a matrix format with less memory traffic";
  case PK_TERM_PC:
    return "the preconditioner's own compute: a cheaper one, if the iteration count allows";
  case PK_TERM_VEC:
    return "vector work: pipekrylov's types fuse their vector operations into fewer passes over memory";
  case PK_TERM_ALLR_COMM:
  case PK_TERM_ALLR_LOCAL:
  case PK_TERM_ALLR_HOPS:
  case PK_TERM_ALLR_CONGESTION:
    return in->theta >= 0 ? "overlap the reductions better (more -ksp_pipe_chunks) or use pipe2cg" : "a pipelined solver (pipecg, pipe2cg, pgmres) hides the reductions";
  case PK_TERM_SYNC:
    return "ranks wait for the slowest: non-blocking solvers (nbpcg, pipecg, pipe2cg) synchronize less";
  case PK_TERM_HALO_MAXRATE:
  case PK_TERM_HALO_CONTENTION:
  case PK_TERM_HALO_QUEUE:
  case PK_TERM_HALO_POSTAL:
  case PK_TERM_HALO_HOPS:
  case PK_TERM_HALO_CONGESTION:
    return "fewer off-node neighbours (node-aware process placement) or more rows per rank";
  case PK_TERM_HALO_PIPELINE:
  case PK_TERM_HALO_OVERLAP:
  case PK_TERM_OVERLAP:
    return "a credit: time the solver already hides behind other work";
  case PK_TERM_INIT:
    return "it is paid once per solve and matters only for short solves";
  case PK_TERM_OVERSUB:
    return "at most one rank per core (fewer ranks, or more cores): ranks sharing a core take turns";
  case PK_TERM_ARRIVAL:
    return "the work before KSPSolve is unbalanced (a report at every solve adds to it: use _summary)";
  default:
    return "see the analytic model above";
  }
}

/* ::ascii_info: the largest overhead and the best change */
PetscErrorCode PKSecAdviceViewShort(PetscViewer v, const PKSecRun *run, const PKSecHalo *halo, const PKSecAnalytic *a, const PKSecAdvice *ad)
{
  PKAdvice adv[PK_WHATIF_SOLVERS + 3];
  PetscInt big = PKLargestOverhead(&a->model), nadv;

  PetscFunctionBegin;
  if (big >= 0) PetscCall(PetscViewerASCIIPrintf(v, "  largest overhead: %s, %.1f%% of the model\n", PKTermInfos[big].label, (double)PKPct(a->model.t[big], a->model.total)));
  nadv = PKSecAdviceRank(run, halo, a, ad, adv, PK_WHATIF_SOLVERS + 3);
  if (nadv && adv[0].t < a->model.total) PetscCall(PetscViewerASCIIPrintf(v, "  best change: %s, predicted %.4e s (%.2fx)\n", adv[0].what, (double)adv[0].t, (double)(a->model.total / adv[0].t)));
  PetscFunctionReturn(0);
}

/* The other method family and the what-if for larger runs */
static PetscErrorCode PKSecAdviceViewOthers(PetscViewer v, const PKStats *S, const PKSecRun *run, const PKSecAnalytic *a, const PKSecStoch *st, const PKSecAdvice *ad)
{
  PetscInt nfam = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < ad->nsolver; i++) nfam += ad->iters_differ[i];
  if (nfam) {
    PetscCall(
      PetscViewerASCIIPrintf(v, "  the other method family (%s):\n    iterations differ, not ranked; time per iteration, and the total only if it took this run's\n    %" PetscInt_FMT " iterations (it will not):\n", PKSolverItersComparable(run->config.kind, PK_SOLVER_PCG) ? "GMRES: minimal residual, restarted" : "CG: needs an SPD operator and preconditioner", S->nits));
    for (PetscInt i = 0; i < ad->nsolver; i++)
      if (ad->iters_differ[i])
        PetscCall(PetscViewerASCIIPrintf(v, "        -ksp_type %-12s %10.3e s per iteration (%.3e s at %" PetscInt_FMT ")\n", PKSolverKindNames[ad->kind[i]], (double)ad->solver[i].per_iteration, (double)ad->solver[i].total, S->nits));
  }
  if (ad->ranks_refused) {
    /* larger runs cross nodes: no prediction from on-node values standing in for off-node ones */
    PetscCall(PetscViewerASCIIPrintf(v, "  what-if larger runs: not predicted. Larger runs send messages between nodes, and the machine\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "    profile has no off-node parameters\n      (alpha_off_*, beta_off_* of the %s protocols).\n", run->offnode_missing));
    PetscCall(PetscViewerASCIIPrintf(v, "    Measure them where the runs will be, 2 nodes x 2 ranks: on a real cluster\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "      mpiexec -n 4 --map-by ppr:2:node pipekrylov-calibrate -o cluster.profile\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "    or on emulated nodes of this machine (as root):\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "      bin/pipekrylov-cluster up 2\n      bin/pipekrylov-cluster run 4 2 bin/pipekrylov-calibrate -o cluster.profile\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "    then -ksp_perfmodel_machine cluster.profile\n"));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscViewerASCIIPrintf(v, "  what-if larger runs (weak scaling: same rows per rank and ranks per node):\n"));
  if (ad->halo_how) PetscCall(PetscViewerASCIIPrintf(v, "    halo exchange: %s\n", ad->halo_how));
  PetscCall(PetscViewerASCIIPrintf(v, "    %10s %14s %14s %14s\n", "ranks", "analytic (s)", "E[T] (s)", "E[T'] (s)"));
  PetscCall(PetscViewerASCIIPrintf(v, "    %10d %14.3e %14.3e %14.3e   (this run, modelled)\n", S->nranks, (double)a->model.total, st->have ? (double)st->r.ET : 0.0, st->have ? (double)st->r.ETp : 0.0));
  for (int w = 0; w < PK_WHATIF_RANKS; w++) PetscCall(PetscViewerASCIIPrintf(v, "    %10" PetscInt_FMT " %14.3e %14.3e %14.3e\n", ad->P[w], (double)ad->ranks[w].total, (double)ad->ET[w], (double)ad->ETp[w]));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecAdviceView(PetscViewer v, const PKStats *S, const PKSecRun *run, const PKSecHalo *halo, const PKSecAnalytic *a, const PKSecStoch *st, const PKSecAdvice *ad)
{
  PKAdvice adv[PK_WHATIF_SOLVERS + 3];
  PetscInt nadv, big = PKLargestOverhead(&a->model);

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  if (big >= 0) PetscCall(PetscViewerASCIIPrintf(v, "  largest overhead: %s, %.1f%% of the model:\n    %s\n", PKTermInfos[big].label, (double)PKPct(a->model.t[big], a->model.total), PKHint(&a->in, big)));
  nadv = PKSecAdviceRank(run, halo, a, ad, adv, PK_WHATIF_SOLVERS + 3);
  PetscCall(PetscViewerASCIIPrintf(v, "  predicted KSPSolve time of each change (same iterations; ranked):\n"));
  /* the same count holds in exact arithmetic; where the pipelined recurrences' rounding would delay convergence,
     pipecg and pipe2cg keep CG's count by recomputing (their policy, docs/pipelined-accuracy.md), at a price the
     what-if knows only for this run's own type (a throwaway KSP of another type has not solved anything) */
  if (PKSolverItersComparable(run->config.kind, PK_SOLVER_PCG))
    PetscCall(PetscViewerASCIIPrintf(v, "    (within the CG family; pipecg and pipe2cg recompute where CG runs longer than a tenth of the\n    unknowns, one SpMV more per iteration: priced here for this run's own type only)\n"));
  /* where the other types' vector work came from: their kernels timed on this machine, or their streams counted */
  if (PKSolverItersComparable(run->config.kind, PK_SOLVER_PCG)) {
    PetscBool cal = (PetscBool)(PKModelVecWork(&run->eff, run->config.kind, a->in.pc_diagonal, a->in.rows) > 0);
    if (cal) PetscCall(PetscViewerASCIIPrintf(v, "    (other CG types' vector work: this run's, scaled by their kernels as calibrated here)\n"));
    else if (PKModelVecCalibrates(run->config.kind)) PetscCall(PetscViewerASCIIPrintf(v, "    (other types' vector work: by their vector streams; pipekrylov-calibrate times their kernels)\n"));
  }
  for (PetscInt i = 0; i < nadv; i++) {
    /* a ratio >= 1 either way: "1.15x slower" for a change predicted at 1.15 times this run's model; one that
       prints as 1.00x has no direction: "same time" */
    PetscBool faster = (PetscBool)(adv[i].t < a->model.total);
    PetscReal ratio  = faster ? a->model.total / adv[i].t : adv[i].t / a->model.total;
    char      rs[32];
    PetscBool same;
    PetscCall(PetscSNPrintf(rs, sizeof(rs), "%5.2f", (double)ratio));
    PetscCall(PetscStrcmp(rs, " 1.00", &same));
    PetscCall(PetscViewerASCIIPrintf(v, "    %2" PetscInt_FMT ". %-55s %10.3e s  %sx %s\n", i + 1, adv[i].what, (double)adv[i].t, rs, same ? "same time" : faster ? "faster" : "slower"));
  }
  if (halo->have_place) {
    PetscCall(PetscViewerASCIIPrintf(v, "    node-aware layout:\n      %s\n", halo->place_cmd));
    if (halo->place_saving <= 0)
      PetscCall(PetscViewerASCIIPrintf(v, "      (the slowest rank keeps as many off-node messages, so the model predicts no time saved here; the\n      cut is in the traffic all ranks put on the network, which congests it at scale: 000 6.2)\n"));
  }
  if (halo->have_tplace)
    PetscCall(PetscViewerASCIIPrintf(v, "    %s layout (bytes on switch-to-switch links %.0f -> %.0f per SpMV, 000 6.3):\n      %s\n", strncmp(halo->tplace_what, "topology", 8) ? "node-aware" : "topology-aware", (double)halo->tplace_link[0],
                                     (double)halo->tplace_link[1], halo->tplace_cmd));
  PetscCall(PKSecAdviceViewOthers(v, S, run, a, st, ad));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecAdviceCSV(PetscViewer v, const PKSecAdvice *ad)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < ad->nsolver; i++) {
    if (ad->iters_differ[i]) PetscCall(PetscViewerASCIIPrintf(v, "whatif.solver_per_iteration,%s,%.9e,s,iterations differ\n", PKSolverKindNames[ad->kind[i]], (double)ad->solver[i].per_iteration));
    else PetscCall(PetscViewerASCIIPrintf(v, "whatif.solver,%s,%.9e,s,modelled\n", PKSolverKindNames[ad->kind[i]], (double)ad->solver[i].total));
  }
  if (ad->ranks_refused) PetscCall(PetscViewerASCIIPrintf(v, "whatif.ranks,refused,,,no off-node parameters in the profile\n"));
  else
    for (int w = 0; w < PK_WHATIF_RANKS; w++) PetscCall(PetscViewerASCIIPrintf(v, "whatif.ranks,%" PetscInt_FMT ",%.9e,s,modelled\n", ad->P[w], (double)ad->ranks[w].total));
  PetscFunctionReturn(0);
}
