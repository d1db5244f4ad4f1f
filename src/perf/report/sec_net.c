/*
   Section "network" of the report: what the machine's topology and its network counters tell the model.

   The switch tree: -ksp_perfmodel_topology FILE, a Slurm topology.conf (src/topology/topology.c), read once per KSP;
   without it, under srun, the tree of the tasks' SLURM_TOPOLOGY_ADDR (src/topology/slurmtopo.c). Every rank finds
   its node in it by MPI_Get_processor_name (by Slurm's name for it with Slurm's tree); the halo section routes each off-node message on it (hops,
   link loads, the busiest switch-to-switch link: 004's l), and the allreduce's off-node rounds are priced by the
   farthest pair of each round of recursive doubling.
   The sockets: each rank's CPU binding placed on its node's hwloc topology (src/topology/locality.c), so that an on-node
   message between sockets takes the profile's cross-socket parameters (004 section 3).
   The counters: the first rank of every node read its port before and after the solve (src/perf/monitor/netwatch.c);
   summed over the nodes, stalls per byte sent is 000 5.7's n_stalls / n_bytes, priced with the profile's stall_time.
*/
#include "report.h"
#include <pipekrylov/private/pktopo.h>
#include <pipekrylov/private/pklocality.h>

/*
   PKReportLoadTopology - the switch tree of -ksp_perfmodel_topology, read once (PKTopoLoad: every rank gets it or
   the same error); without the option, the tree Slurm gives its tasks (PKTopoLoadSlurm), if every rank is one.
   Collective.
*/
PetscErrorCode PKReportLoadTopology(MPI_Comm comm, PKModelCtx *model)
{
  PetscFunctionBegin;
  if (model->topo_tried) PetscFunctionReturn(0);
  model->topo_tried = PETSC_TRUE;
  if (model->topology_path[0]) PetscCall(PKTopoLoad(comm, model->topology_path, &model->topo));
  else { /* no file: Slurm's tree, where every rank is a task that knows its place in it */ PetscCall(PKTopoLoadSlurm(comm, &model->topo, model->slurm_node, sizeof(model->slurm_node)));
    model->topo_slurm = (PetscBool)(model->topo != NULL);
  }
  PetscFunctionReturn(0);
}

/* What the model context holds beyond the profile */
PetscErrorCode PKModelFree(PKModelCtx *model)
{
  PetscFunctionBegin;
  PetscCall(PKTopoDestroy(&model->topo));
  PetscFunctionReturn(0);
}

/* Once per KSP: every rank's node in the tree (rep->where), and one node the tree does not list */
static PetscErrorCode PKSecNetWhere(MPI_Comm comm, const PKModelCtx *model, PKReportCtx *rep)
{
  PKTopo      topo = model->topo;
  char        name[MPI_MAX_PROCESSOR_NAME + 1];
  int         len;
  PetscMPIInt size, first = -1;
  PetscInt    me;

  PetscFunctionBegin;
  if (rep->where) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (model->topo_slurm) PetscCall(PetscStrncpy(name, model->slurm_node, sizeof(name))); /* Slurm's name for it */
  else {
    PetscCallMPI(MPI_Get_processor_name(name, &len));
    name[PetscMax(0, PetscMin(len, MPI_MAX_PROCESSOR_NAME))] = 0;
  }
  PetscCall(PKTopoFindNode(topo, name, &me));
  PetscCall(PetscMalloc1(size, &rep->where));
  PetscCallMPI(MPI_Allgather(&me, 1, MPIU_INT, rep->where, 1, MPIU_INT, comm));
  rep->nmissing = 0;
  for (PetscMPIInt r = size - 1; r >= 0; r--)
    if (rep->where[r] < 0) {
      rep->nmissing++;
      first = r;
    }
  if (first >= 0) {
    PetscCall(PetscStrncpy(rep->missing, name, sizeof(rep->missing)));
    PetscCallMPI(MPI_Bcast(rep->missing, sizeof(rep->missing), MPI_CHAR, first, comm));
  }
  PetscFunctionReturn(0);
}

/* Once per KSP with several ranks per node: every rank's socket (rep->package; -1: bound to more than one). hwloc is
   loaded once per rank for it. Any failure leaves the sockets unknown (the on-node parameters are used). */
static PetscErrorCode PKSecNetSockets(MPI_Comm comm, PKReportCtx *rep)
{
  PetscMPIInt size;
  PetscInt    pkg = -1, numa = -1, npk = 0, nnuma, npu;
  PKNodeTopo  nt = NULL;
  char       *list;

  PetscFunctionBegin;
  if (rep->package) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc1(PK_CPULIST_MAX, &list));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (!PKNodeTopoCreate(NULL, &nt) && !PKNodeTopoGetSizes(nt, &npk, &nnuma, &npu) && !PKNodeTopoGetBinding(nt, list, PK_CPULIST_MAX)) {
    const char *l = list;
    if (PKNodeTopoPlace(nt, 1, &l, &pkg, &numa)) pkg = -1;
  }
  (void)PKNodeTopoDestroy(&nt);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscFree(list));
  PetscCall(PetscMalloc1(size, &rep->package));
  PetscCallMPI(MPI_Allgather(&pkg, 1, MPIU_INT, rep->package, 1, MPIU_INT, comm));
  PetscCallMPI(MPI_Allreduce(&npk, &rep->npackages, 1, MPIU_INT, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

/* The counters of the nodes' ports over the solve, summed (the first rank of each node read them); rank 0 always
   reads (it is the first of its node), so its reason stands for the run's when none were read */
static PetscErrorCode PKSecNetCounters(MPI_Comm comm, const PKSolveRecord *rec, PKSecNet *n)
{
  PetscReal loc[3 + PK_NETCTR_N], sum[3 + PK_NETCTR_N];

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(loc, 3 + PK_NETCTR_N));
  if (rec->net_read) {
    loc[0] = 1;
    loc[1] = rec->net_delta->have[PK_NETCTR_STALLS] && rec->net_delta->have[PK_NETCTR_XMIT_BYTES] ? 1 : 0;
    for (int k = 0; k < PK_NETCTR_N; k++) loc[3 + k] = rec->net_delta->have[k] ? rec->net_delta->value[k] : 0;
    if (!loc[1]) loc[3 + PK_NETCTR_STALLS] = 0;
  } else if (rec->net_missing && rec->net_missing[0]) loc[2] = 1;
  PetscCallMPI(MPI_Allreduce(loc, sum, 3 + PK_NETCTR_N, MPIU_REAL, MPIU_SUM, comm));
  n->nread  = (PetscInt)sum[0];
  n->nstall = (PetscInt)sum[1];
  n->nport  = (PetscInt)sum[2];
  for (int k = 0; k < PK_NETCTR_N; k++) n->sum[k] = sum[3 + k];
  if (rec->net_read) {
    PetscCall(PetscStrncpy(n->port, rec->net_port, sizeof(n->port)));
    if (!rec->net_delta->have[PK_NETCTR_STALLS]) PetscCall(PetscStrncpy(n->why, rec->net_delta->missing, sizeof(n->why)));
  } else if (rec->net_missing) PetscCall(PetscStrncpy(n->why, rec->net_missing, sizeof(n->why)));
  PetscFunctionReturn(0);
}

/* Collective: the tree, the sockets and the counters, and the network state the model's allreduces take */
PetscErrorCode PKSecNetGather(KSP ksp, const PKSolveRecord *rec, const PKSecRun *run, PKModelCtx *model, PKReportCtx *rep, PKSecNet *n)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)ksp);
  const PKStats *S    = rec->stats;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(n, sizeof(*n)));
  PKNetStateUnknown(&n->net);
  PetscCall(PKReportLoadTopology(comm, model));
  if (model->topo) {
    PetscInt *node_where;

    PetscCall(PKSecNetWhere(comm, model, rep));
    n->have_tree = PETSC_TRUE;
    n->topo      = model->topo;
    n->tree_file = model->topo_slurm ? "Slurm's topology.conf" : model->topology_path;
    n->slurm     = model->topo_slurm;
    n->where     = rep->where;
    n->nmissing  = rep->nmissing;
    n->missing   = rep->missing;
    /* the allreduce: one rank per node talks off node; each node's place in the tree is its first rank's */
    PetscCall(PetscMalloc1(S->nnodes, &node_where));
    for (PetscInt k = 0; k < S->nnodes; k++) node_where[k] = -1;
    for (PetscMPIInt r = S->nranks - 1; r >= 0; r--) node_where[rec->rank_node[r]] = rep->where[r];
    PetscCall(PKTopoRecursiveDoublingHops(model->topo, S->nnodes, node_where, &n->allr_links, &n->allr_rounds));
    PetscCall(PetscFree(node_where));
    if (n->allr_rounds > 0 && n->allr_links > 1) n->net.hops = n->allr_links - 1; /* switches traversed */
  }
  if (rec->ppn > 1) {
    PetscCall(PKSecNetSockets(comm, rep));
    n->package      = rep->package;
    n->have_sockets = (PetscBool)(rep->npackages > 1);
  }
  PetscCall(PKSecNetCounters(comm, rec, n));
  if (n->nstall > 0) {
    n->net.stalls_per_byte = n->sum[PK_NETCTR_XMIT_BYTES] > 0 ? n->sum[PK_NETCTR_STALLS] / n->sum[PK_NETCTR_XMIT_BYTES] : 0;
    n->net.t_stall         = run->eff.stall_time; /* 0 where the profile has none: the term says "not calibrated" */
  }
  PetscFunctionReturn(0);
}

/* The network's lines of the text report (inside the analytic model's part, after the halo's) */
PetscErrorCode PKSecNetView(PetscViewer v, const PKStats *S, const PKSecRun *run, const PKSecNet *n)
{
  PetscFunctionBegin;
  if (S->nnodes <= 1) PetscFunctionReturn(0); /* no network */
  if (!n->have_tree) PetscCall(PetscViewerASCIIPrintf(v, "    network: no switch tree (-ksp_perfmodel_topology topology.conf gives the hops and link loads)\n"));
  else {
    PetscInt nsw, nnd, depth;
    PetscCall(PKTopoGetSizes(n->topo, &nsw, &nnd, NULL, &depth));
    PetscCall(PetscViewerASCIIPrintf(v, "    network: switch tree from %s (%" PetscInt_FMT " switches, %" PetscInt_FMT " nodes, depth %" PetscInt_FMT ")\n", n->slurm ? "Slurm (the tasks' SLURM_TOPOLOGY_ADDR)" : n->tree_file, nsw, nnd, depth));
    if (n->nmissing) PetscCall(PetscViewerASCIIPrintf(v, "    network: %" PetscInt_FMT " of %" PetscInt_FMT " ranks on nodes %s does not list (%s among them): their messages are not routed\n", n->nmissing, S->nranks, n->tree_file, n->missing));
    if (n->allr_rounds) PetscCall(PetscViewerASCIIPrintf(v, "    allreduce's off-node rounds: %.2f hops on average for the farthest pair of a round (%" PetscInt_FMT " rounds)\n", (double)n->allr_links, n->allr_rounds));
  }
  if (n->nstall > 0)
    PetscCall(PetscViewerASCIIPrintf(v, "    network counters of %" PetscInt_FMT " node%s' ports (%s, ...): %.3g stalls per byte sent (%.3g stalls, %.3g bytes)%s\n", n->nread, n->nread == 1 ? "" : "s", n->port, (double)n->net.stalls_per_byte,
                                     (double)n->sum[PK_NETCTR_STALLS], (double)n->sum[PK_NETCTR_XMIT_BYTES], run->eff.stall_time > 0 ? "" : ";\n      the profile has no stall_time (s per stall tick): congestion not priced"));
  else PetscCall(PetscViewerASCIIPrintf(v, "    network counters: no stall counter read (%s)\n", n->why[0] ? n->why : "no reading"));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSecNetCSV(PetscViewer v, const PKSecNet *n)
{
  PetscFunctionBegin;
  if (n->have_tree) PetscCall(PetscViewerASCIIPrintf(v, "net,ranks_not_in_tree,%" PetscInt_FMT ",ranks,switch tree\nnet,allreduce_hops,%.4g,hops,switch tree\n", n->nmissing, (double)n->allr_links));
  if (n->nstall > 0)
    PetscCall(PetscViewerASCIIPrintf(v, "net,nodes_counted,%" PetscInt_FMT ",nodes,network counters\nnet,stalls,%.6g,ticks,network counters\nnet,bytes_sent,%.6g,bytes,network counters\nnet,stalls_per_byte,%.6g,1/byte,network counters\n", n->nread,
                                     (double)n->sum[PK_NETCTR_STALLS], (double)n->sum[PK_NETCTR_XMIT_BYTES], (double)n->net.stalls_per_byte));
  PetscFunctionReturn(0);
}
