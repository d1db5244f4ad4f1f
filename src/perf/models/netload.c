/*
   What a list of messages puts on the links of a switch tree (issue 21; docs/models.md §7): bytes and
   messages per link direction, hop counts, the busiest link (004's contention l), and 000 5.7's congestion penalty
   from network counter deltas. Plain functions of their inputs; the tree comes from topology.c, the counters from
   src/perf/report/netcounters.c.
*/
#include <pipekrylov/private/pktopo.h>

/* ------------------------------------------------------------------------------------------------------------ */
/* Link loads */

/*@C
   PKTopoLoadsCreate - Empty link loads for a tree.

   Not Collective

   Input Parameter:
.  topo - the tree

   Output Parameter:
.  loads - zero loads on each of its nswitches + nnodes links; free with PKTopoLoadsDestroy()

   Level: developer

.seealso: `PKTopoLoadsAdd()`, `PKTopoLoadsSummarize()`
@*/
PetscErrorCode PKTopoLoadsCreate(PKTopo topo, PKTopoLoads *loads)
{
  PetscInt nsw, nnode;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(topo, &nsw, &nnode, NULL, NULL));
  PetscCall(PetscMemzero(loads, sizeof(*loads)));
  loads->nlinks = nsw + nnode;
  PetscCall(PetscCalloc1(2 * loads->nlinks, &loads->bytes));
  PetscCall(PetscCalloc1(2 * loads->nlinks, &loads->nmsg));
  loads->busiest.link     = -1;
  loads->busiest_net.link = -1;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLoadsAdd - Adds the bytes of a list of messages to the links they cross.

   Not Collective

   Input Parameters:
+  topo  - the tree
.  n     - the number of messages
.  src   - the sending node of each (PKTopoFindNode(); < 0: a node the topology does not list)
.  dst   - the receiving node of each
-  bytes - the size of each (>= 0)

   Input/Output Parameter:
.  loads - bytes and messages per link direction, message counts and hop sums (see PKTopoLoads)

   Notes:
   A message between two ranks of one node crosses no link (n_on). A message with an unlisted node, or between two
   roots' trees, is counted in n_unknown and crosses nothing. The others follow PKTopoRoute(). Each rank may add
   its own messages and the sums be reduced across ranks (hops_max with a maximum) before PKTopoLoadsSummarize().

   Level: developer

.seealso: `PKTopoLoadsCreate()`, `PKTopoLoadsSummarize()`, `PKTopoRoute()`
@*/
PetscErrorCode PKTopoLoadsAdd(PKTopo topo, PetscInt n, const PetscInt src[], const PetscInt dst[], const PetscReal bytes[], PKTopoLoads *loads)
{
  PKTopoLink links[PK_TOPO_MAX_ROUTE];
  PetscInt   nsw, nnode;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(topo, &nsw, &nnode, NULL, NULL));
  PetscCheck(loads->nlinks == nsw + nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Loads of %" PetscInt_FMT " links, not made for this tree of %" PetscInt_FMT, loads->nlinks, nsw + nnode);
  for (PetscInt m = 0; m < n; m++) {
    PetscInt nl;

    PetscCheck(bytes[m] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Message %" PetscInt_FMT ": negative size %g", m, (double)bytes[m]);
    PetscCheck(src[m] < nnode && dst[m] < nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Message %" PetscInt_FMT ": node %" PetscInt_FMT " or %" PetscInt_FMT " not in the tree's %" PetscInt_FMT " nodes", m, src[m], dst[m], nnode);
    if (src[m] < 0 || dst[m] < 0) {
      loads->n_unknown++;
      continue;
    }
    if (src[m] == dst[m]) {
      loads->n_on++;
      continue;
    }
    PetscCall(PKTopoRoute(topo, src[m], dst[m], &nl, links));
    if (nl < 0) {
      loads->n_unknown++;
      continue;
    }
    for (PetscInt k = 0; k < nl; k++) {
      loads->bytes[2 * links[k].link + links[k].dir] += bytes[m];
      loads->nmsg[2 * links[k].link + links[k].dir]++;
    }
    loads->n_off++;
    loads->bytes_off += bytes[m];
    loads->hops_sum += nl;
    loads->hops_bytes += nl * bytes[m];
    loads->hops_max = PetscMax(loads->hops_max, nl);
  }
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLoadsSummarize - The averages and the busiest links of accumulated link loads.

   Not Collective

   Input Parameter:
.  topo - the tree

   Input/Output Parameter:
.  loads - on output hops_avg (per off-node message: 000 5.6's n_hops), hops_byte_avg (per byte: 004 4.2's h),
           busiest (the link direction with the most bytes) and busiest_net (the same among switch-to-switch links:
           004's l of the contention term delta l), with their bytes and messages

   Notes:
   Links are full duplex: each direction is a link of its own. Ties go to the lowest link index, up before down
   (switch uplinks come before host links), so the result is deterministic. A busiest link of no bytes has link -1.
   The contention term uses busiest_net: traffic on a host link is the node's own injection, priced by the postal
   and max-rate terms; a switch-to-switch link is where messages of different nodes queue behind each other.

   Level: developer

.seealso: `PKTopoLoadsAdd()`, `PKModelContentionLoad()`, `PKTopoLinkName()`
@*/
PetscErrorCode PKTopoLoadsSummarize(PKTopo topo, PKTopoLoads *loads)
{
  PetscInt nsw, nnode;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(topo, &nsw, &nnode, NULL, NULL));
  PetscCheck(loads->nlinks == nsw + nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Loads of %" PetscInt_FMT " links, not made for this tree of %" PetscInt_FMT, loads->nlinks, nsw + nnode);
  loads->hops_avg      = loads->n_off ? loads->hops_sum / loads->n_off : 0;
  loads->hops_byte_avg = loads->bytes_off > 0 ? loads->hops_bytes / loads->bytes_off : 0;
  loads->busiest       = (PKTopoLink){-1, PK_TOPO_UP};
  loads->busiest_net   = (PKTopoLink){-1, PK_TOPO_UP};
  loads->busiest_bytes = loads->busiest_net_bytes = 0;
  loads->busiest_nmsg = loads->busiest_net_nmsg = 0;
  for (PetscInt l = 0; l < loads->nlinks; l++) {
    for (PetscInt d = 0; d < 2; d++) {
      PetscReal b = loads->bytes[2 * l + d];
      if (b > loads->busiest_bytes) {
        loads->busiest       = (PKTopoLink){l, (PKTopoDir)d};
        loads->busiest_bytes = b;
        loads->busiest_nmsg  = loads->nmsg[2 * l + d];
      }
      if (l < nsw && b > loads->busiest_net_bytes) {
        loads->busiest_net       = (PKTopoLink){l, (PKTopoDir)d};
        loads->busiest_net_bytes = b;
        loads->busiest_net_nmsg  = loads->nmsg[2 * l + d];
      }
    }
  }
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLoadsDestroy - Frees link loads.

   Not Collective

   Input Parameter:
.  loads - the loads

   Level: developer

.seealso: `PKTopoLoadsCreate()`
@*/
PetscErrorCode PKTopoLoadsDestroy(PKTopoLoads *loads)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(loads->bytes));
  PetscCall(PetscFree(loads->nmsg));
  loads->nlinks = 0;
  PetscFunctionReturn(0);
}

/*@C
   PKModelContentionLoad - 004's contention term T_c = delta l (eq 5) with l counted on the tree: the bytes on the
   busiest switch-to-switch link direction (PKTopoLoads busiest_net_bytes), in place of eq 7's estimate
   2 h^3 b ppn for a torus whose partition is unknown.

   Not Collective

   Input Parameters:
+  m          - the machine profile (delta: s per byte waiting for a link)
-  link_bytes - l

   Level: developer

.seealso: `PKTopoLoadsSummarize()`, `PKModelContention()`
@*/
PetscReal PKModelContentionLoad(const PKMachineParams *m, PetscReal link_bytes)
{
  return m->delta * PetscMax(link_bytes, 0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Congestion from network counters (000 5.7) */

const char *const PKNetCounterNames[] = {"stalls", "xmit_bytes", "rcv_bytes", "drops"};

/*@C
   PKNetCountersDelta - What the counters counted between two readings.

   Not Collective

   Input Parameters:
+  before - the reading before (src/perf/report/netcounters.c)
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
