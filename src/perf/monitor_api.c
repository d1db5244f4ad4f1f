/*
   The public interface of the logging monitor.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <petsc/private/kspimpl.h>

/*@
   KSPPerfMonitorSet - Turns pipekrylov's logging monitor on or off for a KSP: per-iteration, per-rank times split
   into phases, PAPI counters, and their cross-rank statistics at the end of every KSPSolve().

   Logically Collective

   Input Parameters:
+  ksp - the Krylov solver (any type: pipekrylov's own give the full phase split, PETSc's types get it from
         PETSc's events)
-  flg - PETSC_TRUE to record, PETSC_FALSE to record nothing even if options ask for it

   Options Database Keys (read at the first KSPSolve(), with the KSP's options prefix):
+  -ksp_perf_monitor - record (statistics only)
.  -ksp_perf_trace <file> - record and write the per-iteration per-rank trace (CSV, see docs/trace.md)
.  -ksp_perfmodel_view [viewer] - record and print the report at the end of each solve
.  -ksp_perfmodel_summary [viewer] - record, and print one summary over all the solves when the KSP is destroyed
                                    (or at PetscFinalize): totals, and the report of the 1st, 2nd, 4th, ... solve,
                                    the latest made; for runs that solve many times
.  -ksp_perfmodel_machine <file> - the report's machine profile, from bin/pipekrylov-calibrate (default: this host's
                                   profile in $XDG_CACHE_HOME/pipekrylov/, else the embedded one)
.  -ksp_perfmodel_topology <file> - the cluster's switch tree (a Slurm topology.conf, node names as
                                    MPI_Get_processor_name() gives them) for the hops, contention and congestion
                                    terms and the topology-aware placement suggestion (default: none, terms say n/a)
.  -ksp_perfmodel_netcounters <root> - where the first rank of each node reads its network port's counters around
                                       each solve: a directory in sysfs's layout (default /sys:
                                       class/infiniband/<device>/ports/<port>/counters, else the interface's
                                       class/net/<if>/statistics); %h in it is the node's name
.  -ksp_perf_papi_events <list> - PAPI events per iteration: a comma list, default (PAPI_TOT_CYC,PAPI_TOT_INS where
                                  available, else none: the software events cost a system call per iteration) or none
-  -ksp_perf_node_size <k> - treat every k consecutive ranks as one node (default: MPI_COMM_TYPE_SHARED)

   Notes:
   Without any of these options and without this call, nothing is installed and nothing is recorded. With them,
   the monitor sees every KSPSolve through PETSc's event hooks, in front of -log_view's (its output is unchanged).
   Inside the iteration loop it reads the clock once per phase mark and PAPI once per iteration, and never
   communicates or writes; the statistics are reduced at the end of each solve. The PAPI event set is one per
   process (its first recorded KSP's list); each KSP records the events all its ranks count. Errors of these
   options are raised at KSPSetFromOptions() or, for a KSP never given it, at its first KSPSolve().
   docs/architecture.md describes the hooks and their cost.

   Level: intermediate

.seealso: `KSPPerfMonitorGetStats()`, `KSPPerfMonitorGetTimes()`
@*/
PetscErrorCode KSPPerfMonitorSet(KSP ksp, PetscBool flg)
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscCall(PKPerfCtxGet(ksp, PETSC_TRUE, &c));
  c->mon.code_on = flg ? 1 : 0;
  if (flg) PetscCall(PKPerfHooksInstall());
  PetscFunctionReturn(0);
}

/*@C
   KSPPerfMonitorGetStats - The cross-rank statistics of the last recorded solve of a KSP.

   Not Collective

   Input Parameter:
.  ksp - the Krylov solver

   Output Parameter:
.  stats - the statistics (PKStats, in pipekrylov.h), or NULL if no solve of this KSP
           was recorded; owned by the KSP, valid until its next solve or its destruction

   Notes:
   The scalars (iterations, ranks, nodes, KSPSolve, set-up and finish times, reduction counts) are valid on every
   rank; the per-iteration arrays only on rank 0 of the KSP's communicator.

   Level: advanced

.seealso: `KSPPerfMonitorSet()`, `KSPPerfMonitorGetTimes()`
@*/
PetscErrorCode KSPPerfMonitorGetStats(KSP ksp, const PKStats **stats)
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PKAssertPointer(stats, 2);
  PetscCall(PKPerfCtxGet(ksp, PETSC_FALSE, &c));
  *stats = (c && c->mon.solve > 0) ? &c->mon.stats : NULL;
  PetscFunctionReturn(0);
}

/*@
   KSPPerfMonitorGetTimes - This rank's split of the last recorded solve of a KSP: iteration rows, set-up (before
   the first row: KSPSolve's preliminaries and the initial residual), iterations, and finish (after the last row).

   Not Collective

   Input Parameter:
.  ksp - the Krylov solver

   Output Parameters:
+  nits       - rows recorded, equal to KSPGetIterationNumber() (may be NULL)
.  setup      - set-up time in seconds (may be NULL)
.  iterations - time of all rows in seconds (may be NULL)
-  finish     - finish time in seconds (may be NULL)

   Notes:
   setup + iterations + finish is this rank's recorded KSPSolve time. All are 0 if no solve was recorded.

   Level: intermediate

.seealso: `KSPPerfMonitorSet()`, `KSPPerfMonitorGetStats()`
@*/
PetscErrorCode KSPPerfMonitorGetTimes(KSP ksp, PetscInt *nits, PetscReal *setup, PetscReal *iterations, PetscReal *finish)
{
  PKPerfCtx     *c;
  PetscBool      done;
  PetscLogDouble last;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscCall(PKPerfCtxGet(ksp, PETSC_FALSE, &c));
  done = (PetscBool)(c && c->mon.solve > 0);
  last = done ? PKRowStart(&c->mon, c->mon.n) : 0;
  if (nits) *nits = done ? c->mon.n : 0;
  if (setup) *setup = done ? c->mon.trow0 - c->mon.tbegin : 0;
  if (iterations) *iterations = done ? last - c->mon.trow0 : 0;
  if (finish) *finish = done ? c->mon.tend - last : 0;
  PetscFunctionReturn(0);
}
