/*
   000 5.7's congestion penalty from network counter deltas (docs/models.md §7). Plain functions of their
   inputs; the counters come from src/perf/monitor/netcounters.c.
*/
#include <pipekrylov/private/pknet.h>

/* ------------------------------------------------------------------------------------------------------------ */
/* Congestion from network counters (000 5.7) */

const char *const PKNetCounterNames[] = {"stalls", "xmit_bytes", "rcv_bytes", "drops"};

/*@C
   PKNetCountersDelta - What the counters counted between two readings.

   Not Collective

   Input Parameters:
+  before - the reading before (src/perf/monitor/netcounters.c)
-  after  - the reading after

   Output Parameter:
.  delta - after - before for each counter both readings have; a counter that went down (reset, or a 32-bit
           counter wrapped) is not had, and missing says which

   Level: developer

.seealso: `PKNetStateFromCounters()`, `PKModelCongestionCounters()`
@*/
PetscErrorCode PKNetCountersDelta(const PKNetCounters *before, const PKNetCounters *after, PKNetCounters *delta)
{
  PKNetCounters d;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&d, sizeof(d)));
  PetscCall(PetscStrncpy(d.missing, after->missing[0] ? after->missing : before->missing, sizeof(d.missing)));
  for (PetscInt k = 0; k < PK_NETCTR_N; k++) {
    d.have[k] = before->have[k] && after->have[k] ? PETSC_TRUE : PETSC_FALSE;
    if (!d.have[k]) continue;
    d.value[k] = after->value[k] - before->value[k];
    if (d.value[k] < 0) {
      d.have[k]  = PETSC_FALSE;
      d.value[k] = 0;
      if (!d.missing[0]) PetscCall(PetscSNPrintf(d.missing, sizeof(d.missing), "counter %s went down from %.17g to %.17g (reset or wrapped)", PKNetCounterNames[k], (double)before->value[k], (double)after->value[k]));
    }
  }
  *delta = d;
  PetscFunctionReturn(0);
}

/*@C
   PKNetStateFromCounters - The network state of 000 5.7's congestion penalty from counter deltas.

   Not Collective

   Input Parameters:
+  delta   - counter deltas over the solve (of one port, or summed over the nodes' ports: then stalls per byte is
             the traffic-weighted mean)
.  t_stall - seconds per stall (000: 0.120 ns on Gemini; for InfiniBand's port_xmit_wait, one tick)
-  hops    - the average hops of an off-node message (PKTopoLoads hops_avg), 0 if unknown

   Output Parameter:
.  net - stalls_per_byte = stalls / bytes sent, or -1 (not measured) without a stall counter, a byte counter, or
         bytes sent

   Level: developer

.seealso: `PKModelCongestion()`, `PKModelCongestionCounters()`
@*/
PetscErrorCode PKNetStateFromCounters(const PKNetCounters *delta, PetscReal t_stall, PetscReal hops, PKNetState *net)
{
  PetscFunctionBegin;
  PetscCheck(t_stall >= 0 && hops >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Seconds per stall %g and hops %g must be >= 0", (double)t_stall, (double)hops);
  PKNetStateUnknown(net);
  net->hops    = hops;
  net->t_stall = t_stall;
  if (delta->have[PK_NETCTR_STALLS] && delta->have[PK_NETCTR_XMIT_BYTES] && delta->value[PK_NETCTR_XMIT_BYTES] > 0) net->stalls_per_byte = delta->value[PK_NETCTR_STALLS] / delta->value[PK_NETCTR_XMIT_BYTES];
  PetscFunctionReturn(0);
}

/*@C
   PKModelCongestionCounters - 000 5.7's congestion penalty of one message from counter deltas:
   T_congest = (n_stalls / n_bytes) n n_cores T_stall, times the hops when they are known (T_congest n_hops).

   Not Collective

   Input Parameters:
+  delta   - counter deltas (PKNetCountersDelta())
.  n       - the message's bytes
.  ncores  - ranks of the node sending at once
.  t_stall - seconds per stall
-  hops    - hops of the message (0: unknown, the penalty is not multiplied)

   Output Parameters:
+  t        - the penalty in seconds (0 if not measured)
-  measured - whether the counters gave a stall rate

   Level: developer

.seealso: `PKNetStateFromCounters()`, `PKModelCongestion()`
@*/
PetscErrorCode PKModelCongestionCounters(const PKNetCounters *delta, PetscReal n, PetscReal ncores, PetscReal t_stall, PetscReal hops, PetscReal *t, PetscBool *measured)
{
  PKNetState net;

  PetscFunctionBegin;
  PetscCall(PKNetStateFromCounters(delta, t_stall, hops, &net));
  *t        = PKModelCongestion(&net, n, ncores);
  *measured = net.stalls_per_byte >= 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}
