/*
   Network counters around each solve (000 5.7): with the report on, the first rank of every node reads
   its node's network port (netcounters.c) just before the solve's clock starts and just after it stops, and the
   record carries the difference. One rank per node, twice per solve, a handful of small sysfs files each time:
   nothing inside the timed solve. The root of the files is /sys unless -ksp_perfmodel_netcounters gives another; a
   "%h" in it is this node's name (MPI_Get_processor_name), so one option serves a cluster whose counters are
   mirrored per node (the emulated cluster's $PK_CLUSTER_DIR/counters/%h).
*/
#include <pipekrylov/private/pkmonitor.h>

/*
   PKNetWatchSetUp - which rank reads its node's counters (the lowest rank of each node) and which port; once per KSP,
   after the layout is known. A node without a port the reader recognises is not an error: the record says what
   was looked for. Not collective.
*/
PetscErrorCode PKNetWatchSetUp(MPI_Comm comm, PKMonitorCtx *c)
{
  PetscMPIInt rank, r;
  char        name[MPI_MAX_PROCESSOR_NAME + 1];
  int         nlen;
  PetscBool   found;

  PetscFunctionBegin;
  c->net_state = PK_NET_NOT_READER;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  for (r = 0; r < rank && c->rank_node[r] != c->rank_node[rank]; r++) { }
  if (r < rank) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Get_processor_name(name, &nlen));
  name[PetscMax(0, PetscMin(nlen, MPI_MAX_PROCESSOR_NAME))] = 0;
  PetscCall(PKNetRootExpand(c->net_root, name, "-ksp_perfmodel_netcounters", c->net_root_expanded, sizeof(c->net_root_expanded)));
  PetscCall(PKNetPortFind(c->net_root_expanded, &c->net_port, &found));
  if (found) c->net_state = PK_NET_READER;
  else {
    c->net_state = PK_NET_NO_PORT;
    PetscCall(PetscSNPrintf(c->net_missing, sizeof(c->net_missing), "no active InfiniBand port under %s/class/infiniband and no network interface that is up under %s/class/net", c->net_root_expanded[0] ? c->net_root_expanded : "/sys", c->net_root_expanded[0] ? c->net_root_expanded : "/sys"));
  }
  PetscFunctionReturn(0);
}

/* PKNetWatchBegin - the reading before the solve (the node's reader only) */
PetscErrorCode PKNetWatchBegin(PKMonitorCtx *c)
{
  PetscFunctionBegin;
  c->net_have = PETSC_FALSE;
  if (c->net_state == PK_NET_READER) PetscCall(PKNetCountersRead(c->net_root_expanded, &c->net_port, &c->net_before));
  PetscFunctionReturn(0);
}

/* PKNetWatchEnd - the reading after the solve and what the counters counted in between */
PetscErrorCode PKNetWatchEnd(PKMonitorCtx *c)
{
  PKNetCounters after;

  PetscFunctionBegin;
  if (c->net_state != PK_NET_READER) PetscFunctionReturn(0);
  PetscCall(PKNetCountersRead(c->net_root_expanded, &c->net_port, &after));
  PetscCall(PKNetCountersDelta(&c->net_before, &after, &c->net_delta));
  c->net_have = PETSC_TRUE;
  PetscFunctionReturn(0);
}
