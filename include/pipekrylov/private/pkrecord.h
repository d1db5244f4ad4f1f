/*
   What the monitor measured in one solve, handed to the report at its end: the one way from the monitor to the
   report. The monitor fills it (src/perf/monitor/record.c, PKMonitorRecord); the package's hooks hand it to
   PKPerfReport; the report reads nothing else of the monitor and calls nothing of it (tests/layers.sh).
   Pointers into the monitor's storage stay valid until the KSP's next solve.
*/
#ifndef PKRECORD_H
#define PKRECORD_H

#include <pipekrylov.h>
#include <pipekrylov/private/pkrecimpl.h>
#include <pipekrylov/private/pknet.h>

typedef struct {
  const PKStats *stats; /* the cross-rank statistics (the per-iteration arrays on rank 0 only) */
  /* this rank, over the whole solve: time by activity (work done inside overlap windows included) and the part of
     it inside the windows of non-blocking reductions; SpMV and PC applications; the process's CPU time */
  PetscReal work[PK_PHASE_N], win[PK_PHASE_N];
  PetscInt  nspmv, npc;
  PetscReal first[2]; /* this rank's first SpMV and first PC application (0: no second one to compare with) */
  PetscReal cpu;
  /* placement: the node of every rank of the KSP's communicator, ranks per node at most */
  const PetscMPIInt *rank_node;
  PetscInt           ppn;
  /* this rank's busy time per iteration: its time less its halo and reduction waits (inside overlap windows too);
     for PETSc's types its SpMV and PC time (their vector phase holds the allreduce waits) */
  PetscInt         nbusy;
  const PetscReal *busy;
  /* noise injection in this solve: on, this rank injects, detour length (s) and rate (Hz); this rank's detours and
     their time by the injector's clock */
  PetscBool noise_active, noise_here;
  PetscReal noise_duration, noise_freq, noise_wall;
  PetscInt  noise_n;
  /* the noise-free reference of a noisy solve: time per iteration (<= 0: none), its pooled sample (on rank 0 only;
     m = 0: none), and where it comes from */
  PetscReal        quiet_per_it;
  PetscInt         quiet_m;
  const PetscReal *quiet_x;
  const char      *quiet_src;
  /* network counters: this rank read its node's port (net_delta: what they counted over the solve); or it was to and
     found no port (net_missing says what it looked for); the port's name */
  PetscBool            net_read;
  const PKNetCounters *net_delta;
  const char          *net_missing, *net_port;
  /* PAPI: why the default events are not recorded on this machine ("" when they are), and the library's reason */
  const char *papi_unavailable, *papi_reason;
} PKSolveRecord;

#endif
