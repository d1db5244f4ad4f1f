/*
   The record of a solve (pkrecord.h): what the monitor measured, handed to the report at the end of the solve by the
   package's hooks. The only way from the monitor to the report: the report reads nothing else of the monitor and
   calls nothing of it.
*/
#include <pipekrylov/private/pkmonitor.h>

PetscErrorCode PKMonitorRecord(KSP ksp, PKMonitorCtx *c, PKSolveRecord *r)
{
  const PKRecHot *h = &c->rec.hot;
  PetscInt        K = c->n;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->stats = &c->stats;
  for (int j = 0; j < PK_PHASE_N; j++) {
    r->work[j] = (PetscReal)h->work[j];
    r->win[j]  = (PetscReal)h->win[j];
  }
  r->nspmv       = h->nspmv;
  r->npc         = h->npc;
  r->first[0]    = (PetscReal)h->first[0];
  r->first[1]    = (PetscReal)h->first[1];
  r->cpu         = (PetscReal)(c->cpuend - c->cpubegin);
  r->rank_node   = c->rank_node;
  r->net_read    = c->net_have;
  r->net_delta   = &c->net_delta;
  r->net_missing = c->net_state == PK_NET_NO_PORT ? c->net_missing : "";
  r->net_port    = c->net_port.name;
  r->ppn         = c->ppn;
  /* busy time per iteration: the row's time less its waits (PETSc's types: their blocking VecDot and VecNorm, local
     sums with their allreduces, are waits, src/perf/hooks.c) */
  if (K > c->nbusy) {
    PetscCall(PetscFree(c->busy));
    PetscCall(PetscMalloc1(K, &c->busy));
    c->nbusy = K;
  }
  for (PetscInt k = 0; k < K; k++) {
    const PetscLogDouble *ph  = c->rows[k].ph;
    PetscReal             row = 0;
    for (int j = 0; j < PK_PHASE_N; j++) row += ph[j];
    c->busy[k] = row - c->rows[k].wait;
  }
  r->nbusy = K;
  r->busy  = c->busy;
  /* noise */
  r->noise_active   = c->noise.active;
  r->noise_here     = c->noise.here;
  r->noise_duration = c->noise.duration;
  r->noise_freq     = c->noise.freq;
  r->noise_wall     = c->noise.wall;
  r->noise_n        = c->noise.n;
  r->quiet_per_it   = -1;
  if (c->noise.active) PetscCall(PKNoiseQuietReference(ksp, c, &r->quiet_per_it, &r->quiet_m, &r->quiet_x, &r->quiet_src));
  r->papi_unavailable = PKPapiUnavailable();
  r->papi_reason      = PKPapiUnavailableReason();
  PetscFunctionReturn(0);
}
