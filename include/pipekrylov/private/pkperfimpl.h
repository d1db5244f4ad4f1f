/*
   The perf package: the logging monitor that records every KSPSolve, the trace, and the end-of-solve report, and
   the package level that ties them together (the files directly in src/perf):
     perf.c         registration; installs the event hooks when a perf option is present
     hooks.c        the hooks: KSP_Solve begin/end of any KSP (the monitor records; at the end the monitor's record
                    goes to the report), and for PETSc's own types the events that split their iterations into
                    phases; the per-KSP context and its options
     monitor_api.c  the public monitor interface (KSPPerfMonitorSet ...)
     noise_api.c    the public noise interface (KSPPerfNoiseSet ...)
     autocg.c       -ksp_type autocg: the CG type the model predicts fastest (the report's PKReportPredict)
   Below it, side by side: src/perf/monitor (pkmonitor.h) and src/perf/report (pkreport.h), which meet only in the
   record of a solve (pkrecord.h); src/perf/models (pkmodel.h) is below both.
*/
#ifndef PKPERFIMPL_H
#define PKPERFIMPL_H

#include <pipekrylov/private/pkmonitor.h>
#include <pipekrylov/private/pkreport.h>

PETSC_INTERN PetscErrorCode PKPerfInitializePackage(void);
PETSC_INTERN PetscErrorCode PKPerfFinalizePackage(void);

/* Everything the perf package keeps for one KSP: composed with it (PetscContainer "PKPerf"), destroyed with it */
typedef struct {
  PKMonitorCtx mon; /* first: a recorder's priv is both */
  PKModelCtx   model;
  PKReportCtx  report;
  PKSummary    summary;        /* -ksp_perfmodel_summary */
  void        *summary_next;   /* the live contexts with a summary to print, for PetscFinalize (hooks.c) */
  PetscBool    net_this_solve; /* the network counters are read around the solve under way (for its report) */
} PKPerfCtx;

/* -ksp_type autocg (autocg.c): the CG type the model predicts fastest, then the one measured fastest */
PETSC_INTERN PetscErrorCode KSPCreate_AUTOCG(KSP);

PETSC_INTERN PetscErrorCode PKPerfHooksInstall(void);
PETSC_INTERN PetscErrorCode PKPerfAddHandler(KSP);
PETSC_INTERN PetscErrorCode PKPerfHooksRemove(void);
PETSC_INTERN PetscErrorCode PKPerfCtxGet(KSP, PetscBool, PKPerfCtx **);
PETSC_INTERN PetscErrorCode PKPerfGetRec(KSP, PKRec *);
PETSC_INTERN PetscErrorCode PKPerfView(KSP, PetscViewer);
PETSC_INTERN PetscErrorCode PKPerfInstallIfRequested(KSP);

#endif
