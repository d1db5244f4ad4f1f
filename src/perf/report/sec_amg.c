/*
   Section "AMG" of the report: the AMG solve-cycle model of 002 section IV when the preconditioner is hypre
   BoomerAMG, per level from the PC's hierarchy (src/perf/report/amg_hierarchy.c), its time per flop calibrated on a
   BoomerAMG cycle where the profile has it, beside the measured time per PC application.
*/
#include "report.h"
#include <pipekrylov/private/pkamg.h>
#include <petsc/private/kspimpl.h>

/* Collective: the hierarchy (read from a copy of the PC's set-up, once per matrix) */
PetscErrorCode PKSecAMGGather(KSP ksp, PKSecAMG *g)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscCall(PKAMGHierarchyFromPC(ksp->pc, PK_AMG_MAXLEVELS, g->lev, &g->L, &g->have, g->why, sizeof(g->why)));
  PetscFunctionReturn(0);
}

/* Rank 0 */
PetscErrorCode PKSecAMGModel(const PKStats *S, const PKSecRun *run, const PKSecAnalytic *a, PKSecAMG *g)
{
  PKAMGInput ai;

  PetscFunctionBegin;
  if (!g->have) PetscFunctionReturn(0);
  PetscCall(PetscMemzero(&ai, sizeof(ai)));
  ai.L             = g->L;
  ai.lev           = g->lev;
  ai.P             = S->nranks;
  ai.offnode       = (PetscBool)(S->nnodes > 1);
  ai.msgs_per_link = -1;
  (void)PKAMGLevelsFlopTime(run->machine, g->L, g->lev);
  PetscCall(PKModelAMGCycle(&run->eff, &ai, &g->r));
  g->measured = a->in.t_pc;
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecAMGView(PetscViewer v, PetscViewerFormat fmt, const PKSecAMG *g)
{
  const PKAMGResult *r = &g->r;

  PetscFunctionBegin;
  if (!g->have) {
    if (g->why[0] && fmt == PETSC_VIEWER_ASCII_INFO_DETAIL) PetscCall(PetscViewerASCIIPrintf(v, "  AMG cycle model: %s\n", g->why));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscViewerASCIIPrintf(v, PK_RULE));
  PetscCall(PetscViewerASCIIPrintf(v, "  AMG cycle model (002 IV), hypre BoomerAMG, %" PetscInt_FMT " levels: %.3e s per cycle\n    measured PC application %.3e s (gap %+.1f%%)\n", g->L, (double)r->total, (double)g->measured, (double)PKGap(r->total, g->measured)));
  PetscCall(PetscViewerASCIIPrintf(v, "    compute %.2e s, communication %.2e s\n    penalties: distance %.2e s, bandwidth %.2e s, contention %.2e s\n", (double)r->comp, (double)r->comm, (double)r->distance, (double)r->bandwidth, (double)r->contention));
  PetscCall(PetscViewerASCIIPrintf(v, "    t_i = %s\n", g->lev[0].t > 0 ? "amg_flop_time: measured on a BoomerAMG hierarchy by pipekrylov-calibrate" : "flop_time of an SpMV (the profile has no amg_flop_time: recalibrate)"));
  if (fmt == PETSC_VIEWER_ASCII_INFO_DETAIL)
    for (PetscInt l = 0; l < g->L; l++) {
      PetscCall(PetscViewerASCIIPrintf(v, "    level %2" PetscInt_FMT ": %10.0f rows, %5.1f nnz/row, %4.0f msgs, %8.0f doubles sent: %.3e s\n", l, (double)g->lev[l].C, (double)g->lev[l].s, (double)g->lev[l].p, (double)g->lev[l].n, (double)r->level[l]));
      PetscCall(PetscViewerASCIIPrintf(v, "      smoother %.2e + %.2e s, restriction %.2e + %.2e s, interpolation %.2e + %.2e s (compute + comm)\n", (double)r->smooth_comp[l], (double)r->smooth_comm[l], (double)r->restrict_comp[l], (double)r->restrict_comm[l],
                                       (double)r->interp_comp[l], (double)r->interp_comm[l]));
    }
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecAMGCSV(PetscViewer v, const PKSecAMG *g)
{
  PetscFunctionBegin;
  if (g->have) PetscCall(PetscViewerASCIIPrintf(v, "amg,cycle,%.9e,s,modelled\namg,pc_apply,%.9e,s,measured\n", (double)g->r.total, (double)g->measured));
  PetscFunctionReturn(0);
}
