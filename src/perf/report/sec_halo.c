/*
   Section "halo" of the report: the halo exchange of one SpMV, read from the operator's actual scatter (every rank's
   messages classified on or off node), the slowest rank's modelled exchange (000 5.1-5.7), the measured wait for the
   ghost values; the halo of larger runs for the what-if; and a node-aware layout of the operator's DMDA (src/dm)
   that would cut off-node bytes, with the commands that make it.
*/
#include "report.h"
#include <petsc/private/kspimpl.h>
#include <petscsf.h>
#include <pipekrylov/private/pkplace.h>

/* The operator's chunked-SpMV structure (src/core): the solver's own for our types (asked through the composed
   "KSPPipeGetSpMV_C"), one built for the report otherwise */
static PetscErrorCode PKSecHaloSpMV(KSP ksp, PKReportCtx *rep, PKSpMV *s)
{
  Mat A;
  PetscErrorCode (*getspmv)(KSP, PKSpMV *);

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  *s = NULL;
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetSpMV_C", &getspmv));
  if (getspmv) PetscCall((*getspmv)(ksp, s));
  if (*s) PetscFunctionReturn(0);
  if (rep->mat != A) {
    PetscCall(PKSpMVDestroy(&rep->spmv));
    PetscCall(PKSpMVCreate(A, &rep->spmv));
    rep->mat = A;
  }
  *s = rep->spmv;
  PetscFunctionReturn(0);
}

/* The report's own operator structure, with the perf context */
PetscErrorCode PKReportFree(PKReportCtx *rep)
{
  PetscFunctionBegin;
  PetscCall(PKSpMVDestroy(&rep->spmv));
  rep->mat = NULL;
  PetscCall(PetscFree(rep->where));
  PetscCall(PetscFree(rep->package));
  PetscFunctionReturn(0);
}

/* This rank's modelled halo exchange (mine) and the slowest rank's (slowest, the same on every rank): the model of
   a whole exchange is its slowest rank's. net: the network's state (counters), or NULL */
PetscErrorCode PKReportHaloSlowest(MPI_Comm comm, const PKMachineParams *eff, const PKHaloPattern *pat, const PKNetState *net, PKCommCost *mine, PKCommCost *slowest)
{
  PetscMPIInt rank;
  struct {
    double v;
    int    r;
  } in, out;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PKModelHalo(eff, pat, net, mine)); /* net NULL: no topology, no counters */
  in.v = (double)mine->total;
  in.r = rank;
  PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  *slowest = *mine;
  PetscCallMPI(MPI_Bcast(slowest, sizeof(PKCommCost), MPI_BYTE, out.r, comm));
  PetscFunctionReturn(0);
}

/* The ranks this rank sends to in one SpMV, as ranks of the KSP's communicator: the scatter's ranks are ranks of the
   operator's communicator, the nodes are known by rank of the KSP's; the two differ when the operator lives on a
   reordered copy (a node-aware DMDA) */
static PetscErrorCode PKSecHaloTargets(MPI_Comm comm, VecScatter sf, PetscInt nir, const PetscMPIInt iranks[], PetscMPIInt kranks[])
{
  MPI_Comm  mcomm = PetscObjectComm((PetscObject)sf);
  MPI_Group mg, kg;
  int       cmp;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_compare(mcomm, comm, &cmp));
  if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT) {
    for (PetscInt i = 0; i < nir; i++) kranks[i] = iranks[i];
  } else {
    PetscCallMPI(MPI_Comm_group(mcomm, &mg));
    PetscCallMPI(MPI_Comm_group(comm, &kg));
    PetscCallMPI(MPI_Group_translate_ranks(mg, (PetscMPIInt)nir, iranks, kg, kranks));
    PetscCallMPI(MPI_Group_free(&mg));
    PetscCallMPI(MPI_Group_free(&kg));
  }
  PetscFunctionReturn(0);
}

/* The tree's view of this rank's messages (sec_net.c's tree and sockets): per message its switches traversed (0 for
   an unrouted one) and whether an on-node one crosses sockets; the link loads of all ranks' messages summed, so
   that every rank has the busiest switch-to-switch link's bytes (004's l) and rank 0 the hop statistics.
   Collective. */
static PetscErrorCode PKSecHaloOnTree(MPI_Comm comm, const PKSecNet *net, PetscMPIInt rank, PetscInt n, const PetscMPIInt dst[], const PKLocality loc[], const PetscReal bytes[], PetscReal hops[], PetscBool xs[], PKSecHalo *h)
{
  PKTopoLoads L;
  PetscInt   *src, *to, noff = 0, nl;
  PetscReal  *b, sums[5], gsums[5];

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    hops[i] = 0;
    xs[i]   = (PetscBool)(loc[i] == PK_ON_NODE && net->package && net->package[rank] >= 0 && net->package[dst[i]] >= 0 && net->package[rank] != net->package[dst[i]]);
  }
  if (!net->have_tree) PetscFunctionReturn(0);
  PetscCall(PetscMalloc3(PetscMax(n, 1), &src, PetscMax(n, 1), &to, PetscMax(n, 1), &b));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt links = -1;
    if (loc[i] != PK_OFF_NODE) continue;
    if (net->where[rank] >= 0 && net->where[dst[i]] >= 0) PetscCall(PKTopoHops(net->topo, net->where[rank], net->where[dst[i]], &links));
    hops[i]   = links > 1 ? (PetscReal)(links - 1) : 0; /* switches traversed */
    src[noff] = net->where[rank];
    to[noff]  = net->where[dst[i]];
    b[noff++] = bytes[i];
  }
  PetscCall(PKTopoLoadsCreate(net->topo, &L));
  PetscCall(PKTopoLoadsAdd(net->topo, noff, src, to, b, &L));
  PetscCall(PetscFree3(src, to, b));
  nl = 2 * L.nlinks;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, L.bytes, (PetscMPIInt)nl, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, L.nmsg, (PetscMPIInt)nl, MPIU_INT, MPI_SUM, comm));
  sums[0] = (PetscReal)L.n_off;
  sums[1] = (PetscReal)L.n_unknown;
  sums[2] = L.bytes_off;
  sums[3] = L.hops_sum;
  sums[4] = L.hops_bytes;
  PetscCallMPI(MPI_Allreduce(sums, gsums, 5, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &L.hops_max, 1, MPIU_INT, MPI_MAX, comm));
  L.n_off      = (PetscInt)gsums[0];
  L.n_unknown  = (PetscInt)gsums[1];
  L.bytes_off  = gsums[2];
  L.hops_sum   = gsums[3];
  L.hops_bytes = gsums[4];
  PetscCall(PKTopoLoadsSummarize(net->topo, &L));
  h->have_tree     = PETSC_TRUE;
  h->hops_avg      = L.hops_avg;
  h->hops_max      = L.hops_max;
  h->n_unrouted    = L.n_unknown;
  h->busiest_bytes = L.busiest_net_bytes;
  if (L.busiest_net.link >= 0) PetscCall(PKTopoLinkName(net->topo, L.busiest_net, h->busiest, sizeof(h->busiest)));
  else PetscCall(PetscStrncpy(h->busiest, "none (one leaf switch)", sizeof(h->busiest)));
  PetscCall(PKTopoLoadsDestroy(&L));
  PetscFunctionReturn(0);
}

/* The messages this rank sends in one halo exchange of the KSP's operator (its scatter): their destination ranks
   in the KSP's communicator, sizes and localities (rank_node: every rank's node). *known is false on every rank where
   some rank's operator has no known halo (not MPIAIJ: matrix-free, shell); then n = 0. Free with PetscFree3(dst,
   bytes, loc). Collective. */
PetscErrorCode PKReportHaloMessages(KSP ksp, PKReportCtx *rep, const PetscMPIInt rank_node[], PetscBool *known, PetscInt *n, PetscMPIInt **dst, PetscReal **bytes, PKLocality **loc)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt        rank;
  PKSpMV             s      = NULL;
  VecScatter         sf     = NULL;
  PetscInt           nir    = 0, flag, gflag;
  const PetscInt    *ioff   = NULL, *iloc;
  const PetscMPIInt *iranks = NULL;
  PetscMPIInt       *kranks = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  *n     = 0;
  *known = PETSC_FALSE;
  PetscCall(PKSecHaloSpMV(ksp, rep, &s));
  PetscCall(PKSpMVGetHalo(s, &sf));
  flag = sf ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&flag, &gflag, 1, MPIU_INT, MPI_MIN, comm));
  if (gflag) {
    PetscCall(PetscSFSetUp(sf));
    PetscCall(PetscSFGetLeafRanks(sf, &nir, &iranks, &ioff, &iloc)); /* the ranks this rank sends to */
  }
  PetscCall(PetscMalloc3(PetscMax(nir, 1), dst, PetscMax(nir, 1), bytes, PetscMax(nir, 1), loc));
  if (!gflag) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(PetscMax(nir, 1), &kranks));
  PetscCall(PKSecHaloTargets(comm, sf, nir, iranks, kranks));
  for (PetscInt i = 0; i < nir; i++) {
    if (kranks[i] == rank || kranks[i] == MPI_UNDEFINED) continue;
    (*bytes)[*n]   = (PetscReal)(ioff[i + 1] - ioff[i]) * sizeof(PetscScalar);
    (*dst)[*n]     = kranks[i];
    (*loc)[(*n)++] = rank_node[kranks[i]] == rank_node[rank] ? PK_ON_NODE : PK_OFF_NODE;
  }
  PetscCall(PetscFree(kranks));
  *known = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Every rank models its own halo exchange from the messages it sends; the slowest rank's terms go to the model.
   Collective. */
PetscErrorCode PKSecHaloGather(KSP ksp, const PKSolveRecord *rec, const PKSecRun *run, const PKSecNet *net, PKReportCtx *rep, PKSecHalo *h)
{
  MPI_Comm      comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt   rank, size;
  PetscInt      n     = 0;
  PetscReal    *bytes = NULL, *hops = NULL;
  PKLocality   *loc = NULL;
  PetscMPIInt  *dst = NULL;
  PetscBool    *xs  = NULL, known;
  PKHaloPattern pat;
  PKCommCost    mine;
  PetscReal     sums[1 + 2 * PK_NLOC], gsums[1 + 2 * PK_NLOC], hw = rec->work[PK_PHASE_HALO], hmax;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(h, sizeof(*h)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* the wait for the ghost values per SpMV, on the rank that waited longest: what the exchange exposed */
  PetscCallMPI(MPI_Allreduce(&hw, &hmax, 1, MPIU_REAL, MPI_MAX, comm));
  h->wait = run->nspmv > 0 ? hmax / run->nspmv : 0;
  if (size == 1) {
    h->have = PETSC_TRUE; /* no halo at all */
    PetscFunctionReturn(0);
  }
  PetscCall(PKReportHaloMessages(ksp, rep, rec->rank_node, &known, &n, &dst, &bytes, &loc));
  if (!known) {
    PetscCall(PetscFree3(dst, bytes, loc));
    PetscCall(PetscSNPrintf(h->why, sizeof(h->why), "the operator is not MPIAIJ: its halo is not known"));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc2(PetscMax(n, 1), &hops, PetscMax(n, 1), &xs));
  PetscCall(PKSecHaloOnTree(comm, net, rank, n, dst, loc, bytes, hops, xs, h));
  PetscCall(PetscMemzero(&pat, sizeof(pat)));
  pat.n         = n;
  pat.bytes     = bytes;
  pat.loc       = loc;
  pat.ppn       = rec->ppn;
  pat.ppn_off   = 0;
  pat.pipelined = PETSC_TRUE;
  pat.xsocket   = net->have_sockets ? xs : NULL;
  if (h->have_tree) {
    pat.hops   = hops;
    pat.have_l = PETSC_TRUE;
    pat.l      = h->busiest_bytes;
  }
  /* the slowest rank's terms and message counts; the average rank's counts */
  PetscCall(PKReportHaloSlowest(comm, &run->eff, &pat, &net->net, &mine, &h->cost));
  PetscCall(PetscFree3(dst, bytes, loc));
  PetscCall(PetscFree2(hops, xs));
  sums[0] = mine.total;
  for (int l = 0; l < PK_NLOC; l++) {
    sums[1 + l]           = 0;
    sums[1 + PK_NLOC + l] = mine.bytes[l];
    for (int p = 0; p < PK_NPROTO; p++) sums[1 + l] += mine.nmsg[l][p];
  }
  PetscCallMPI(MPI_Allreduce(sums, gsums, 1 + 2 * PK_NLOC, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&n, &h->max_posted, 1, MPIU_INT, MPI_MAX, comm));
  h->avg_total = gsums[0] / size;
  for (int l = 0; l < PK_NLOC; l++) {
    h->total_msgs[l]  = gsums[1 + l];
    h->total_bytes[l] = gsums[1 + PK_NLOC + l];
    h->msgs[0][l]     = gsums[1 + l] / size;
    h->bytes[0][l]    = gsums[1 + PK_NLOC + l] / size;
    h->msgs[1][l]     = 0;
    for (int p = 0; p < PK_NPROTO; p++) h->msgs[1][l] += h->cost.nmsg[l][p];
    h->bytes[1][l] = h->cost.bytes[l];
  }
  h->have = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Node blocks of PETSc's default layout (ranks x-fastest, ppn consecutive ranks per node) when they are boxes */
static PetscBool PKDefaultNodeBlock(const PetscInt procs[3], PetscInt ppn, PetscInt q[3])
{
  q[0] = q[1] = q[2] = 1;
  if (procs[0] % ppn == 0) q[0] = ppn;
  else if (ppn % procs[0] == 0 && procs[1] % (ppn / procs[0]) == 0) {
    q[0] = procs[0];
    q[1] = ppn / procs[0];
  } else if (ppn % (procs[0] * procs[1]) == 0 && procs[2] % (ppn / (procs[0] * procs[1])) == 0) {
    q[0] = procs[0];
    q[1] = procs[1];
    q[2] = ppn / (procs[0] * procs[1]);
  } else return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The slowest rank's halo exchange in a weak-scaled run of P ranks (this run's rows per rank and ranks per node):
   for an operator of a DMDA, the grid model (000 5.3) of PETSc's default layout of P ranks, each with this run's
   subdomain; for any other operator an upper bound, the slowest rank's messages of this run (their count and mean
   size) all off node. `how` says which. Rank 0, no communication. */
PetscErrorCode PKSecHaloAtP(KSP ksp, const PKStats *S, const PKSecRun *run, const PKSolveInput *in, PetscInt P, PKCommCost *h, const char **how)
{
  Mat             A;
  DM              dm   = NULL;
  PetscBool       isda = PETSC_FALSE;
  PetscInt        dim, M[3], procs[3], dof, sw, pP[3], q[3];
  DMDAStencilType st;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetDM(A, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscCall(DMDAGetInfo(dm, &dim, &M[0], &M[1], &M[2], &procs[0], &procs[1], &procs[2], &dof, &sw, NULL, NULL, NULL, &st));
    PetscCall(PKModelDimsCreate(P, dim, pP));
    for (PetscInt j = dim; j < 3; j++) pP[j] = 1;
    if (PKDefaultNodeBlock(pP, PetscMin(S->ppn, P), q)) {
      PKGrid3d   g;
      PKCommCost avg;

      PetscCall(PetscMemzero(&g, sizeof(g)));
      g.dof          = dof * sw;
      g.stencil      = st == DMDA_STENCIL_BOX ? 27 : 7;
      g.scalar_bytes = sizeof(PetscScalar);
      g.pipelined    = PETSC_TRUE;
      for (int j = 0; j < 3; j++) {
        g.pgrid[j] = pP[j];
        g.qnode[j] = q[j];
        g.m[j]     = j < dim ? PetscMax(1, M[j] / procs[j]) : 1;
      }
      PetscCall(PKModelHaloGrid3d(&run->eff, &g, &in->net, &avg, h));
      *how = "the DMDA's grid in PETSc's default layout at each size (000 5.3)";
      PetscFunctionReturn(0);
    }
  }
  {
    PetscInt      n     = 0;
    PetscReal     bytes = 0, *b;
    PKLocality   *loc;
    PKHaloPattern pat;

    for (int l = 0; l < PK_NLOC; l++) {
      for (int p = 0; p < PK_NPROTO; p++) n += (PetscInt)(in->halo.nmsg[l][p] + 0.5);
      bytes += in->halo.bytes[l];
    }
    PetscCall(PetscMalloc2(PetscMax(n, 1), &b, PetscMax(n, 1), &loc));
    for (PetscInt i = 0; i < n; i++) {
      b[i]   = bytes / n;
      loc[i] = PK_OFF_NODE;
    }
    PetscCall(PetscMemzero(&pat, sizeof(pat)));
    pat.n         = n;
    pat.bytes     = b;
    pat.loc       = loc;
    pat.ppn       = S->ppn;
    pat.ppn_off   = 0;
    pat.pipelined = PETSC_TRUE;
    PetscCall(PKModelHalo(&run->eff, &pat, &in->net, h));
    PetscCall(PetscFree2(b, loc));
    *how = "an upper bound: every halo message of the slowest rank off node (the operator has no DMDA grid)";
  }
  PetscFunctionReturn(0);
}

/* The commands that make the node-aware layout: bin/pipekrylov-place's and the rankfile option of the Open MPI in use;
   with a tree (tree, hosts not NULL), the topology-aware one */
static PetscErrorCode PKSecHaloPlaceCommand(PetscInt dim, const PetscInt M[3], DMDAStencilType st, PetscInt sw, PetscInt dof, const PKStats *S, const PKPlacement *pl, const char tree[], const char hosts[], char cmd[], size_t len)
{
  char grid[64], opts[96], extra[96] = "", rfopt[64];

  PetscFunctionBegin;
  if (dim == 3) {
    PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT, M[0], M[1], M[2]));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-da_processors_x %" PetscInt_FMT " -da_processors_y %" PetscInt_FMT " -da_processors_z %" PetscInt_FMT, pl->procs[0], pl->procs[1], pl->procs[2]));
  } else if (dim == 2) {
    PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT "x%" PetscInt_FMT, M[0], M[1]));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-da_processors_x %" PetscInt_FMT " -da_processors_y %" PetscInt_FMT, pl->procs[0], pl->procs[1]));
  } else {
    PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT, M[0]));
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-da_processors_x %" PetscInt_FMT, pl->procs[0]));
  }
  /* what differs from bin/pipekrylov-place's defaults (star, width 1, dof 1) */
  PetscCall(PetscSNPrintf(extra, sizeof(extra), "%s", st == DMDA_STENCIL_BOX ? " --stencil box" : ""));
  if (sw != 1) PetscCall(PetscSNPrintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " --width %" PetscInt_FMT, sw));
  if (dof != 1) PetscCall(PetscSNPrintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " --dof %" PetscInt_FMT, dof));
  PetscCall(PKMPIRankfileOption("ranks.txt", rfopt, sizeof(rfopt)));
  if (tree)
    PetscCall(PetscSNPrintf(cmd, len, "bin/pipekrylov-place --nodes %" PetscInt_FMT " --ppn %" PetscInt_FMT " --grid %s%s --topology %s\n        --hosts %s --rankfile ranks.txt\n      then: mpiexec -n %d %s <your application and its options> %s\n      (or DMDACreateNodeAware with -da_node_aware_topology %s in the code)", S->nnodes, S->ppn, grid, extra, tree, hosts, S->nranks, rfopt, opts, tree));
  else
    PetscCall(PetscSNPrintf(cmd, len, "bin/pipekrylov-place --nodes %" PetscInt_FMT " --ppn %" PetscInt_FMT " --grid %s%s --rankfile ranks.txt\n      then: mpiexec -n %d %s <your application and its options> %s\n      (or DMDACreateNodeAware in the code)", S->nnodes, S->ppn, grid, extra, S->nranks, rfopt, opts));
  PetscFunctionReturn(0);
}

/* When the operator comes from a DMDA laid out as PETSc does by default and the nodes are equal, the node-aware
   layout of src/dm, and what it would save: the halo of both layouts by the grid model (000 5.3), the difference
   per SpMV on the slowest rank. Rank 0, no communication. */
PetscErrorCode PKSecHaloPlacement(KSP ksp, const PKSolveRecord *rec, const PKSecRun *run, const PKSolveInput *in, PKSecHalo *h)
{
  const PKStats  *S = rec->stats;
  Mat             A;
  DM              dm;
  PetscBool       isda;
  PetscInt        dim, M[3], procs[3], dof, sw, q[3];
  DMDAStencilType st;
  PKPlacement     pl;
  PKGrid3d        g;
  PKCommCost      avg, slow[2];

  PetscFunctionBegin;
  h->have_place = PETSC_FALSE;
  if (!h->have || S->nnodes < 2 || S->ppn * S->nnodes != S->nranks || h->total_bytes[PK_OFF_NODE] <= 0) PetscFunctionReturn(0);
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetDM(A, &dm));
  if (!dm) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (!isda) PetscFunctionReturn(0);
  PetscCall(DMDAGetInfo(dm, &dim, &M[0], &M[1], &M[2], &procs[0], &procs[1], &procs[2], &dof, &sw, NULL, NULL, NULL, &st));
  PetscCall(PKDMDAPlacementCompute(dim, M, st, sw, dof, S->nnodes, S->ppn, NULL, &pl));
  /* only a layout this run does not already have, that cuts what this run measured */
  if (!pl.placed || pl.bytes_off >= 0.99 * h->total_bytes[PK_OFF_NODE]) PetscFunctionReturn(0);
  if (procs[0] != pl.def_procs[0] || procs[1] != pl.def_procs[1] || procs[2] != pl.def_procs[2] || !PKDefaultNodeBlock(procs, S->ppn, q)) PetscFunctionReturn(0);
  PetscCall(PetscMemzero(&g, sizeof(g)));
  g.dof          = dof * sw; /* a halo of width w carries w layers */
  g.stencil      = st == DMDA_STENCIL_BOX ? 27 : 7;
  g.scalar_bytes = sizeof(PetscScalar);
  g.pipelined    = PETSC_TRUE;
  for (int k = 0; k < 2; k++) {
    const PetscInt *pg = k ? pl.procs : procs, *qn = k ? pl.block : q;
    for (int j = 0; j < 3; j++) {
      g.pgrid[j] = j < dim ? pg[j] : 1;
      g.qnode[j] = j < dim ? qn[j] : 1;
      g.m[j]     = j < dim ? PetscMax(1, M[j] / g.pgrid[j]) : 1;
    }
    PetscCall(PKModelHaloGrid3d(&run->eff, &g, &in->net, &avg, &slow[k]));
  }
  /* suggested wherever it cuts off-node bytes; the predicted time is the slowest rank's halo in both layouts, which
     can stay the same (16 ranks on 4 nodes in 2-D: a rank at a corner of a 2 x 2 block has as many off-node
     neighbours as one in a 4 x 1 row); the report then says what the cut is for */
  h->have_place         = PETSC_TRUE;
  h->place_saving       = PetscMax(0, slow[0].total - slow[1].total);
  h->place_bytes_off[0] = h->total_bytes[PK_OFF_NODE];
  h->place_bytes_off[1] = (PetscReal)pl.bytes_off;
  PetscCall(PetscSNPrintf(h->place_what, sizeof(h->place_what), "node-aware DMDA (off-node bytes %.0f->%.0f)", (double)h->place_bytes_off[0], (double)h->place_bytes_off[1]));
  PetscCall(PKSecHaloPlaceCommand(dim, M, st, sw, dof, S, &pl, NULL, NULL, h->place_cmd, sizeof(h->place_cmd)));
  PetscFunctionReturn(0);
}

/* The hosts of the nodes in the run's order, as pipekrylov-place --hosts takes them (the tree's names); a placeholder
   when they would not fit a line */
static PetscErrorCode PKSecHaloHosts(PetscInt nnodes, const char *const names[], char hosts[], size_t len)
{
  size_t n = 0;

  PetscFunctionBegin;
  hosts[0] = 0;
  for (PetscInt i = 0; i < nnodes; i++) {
    size_t l = strlen(names[i]);
    if (n + l + 2 > PetscMin(len, 160)) {
      PetscCall(PetscStrncpy(hosts, "<the nodes' names, in the order of their ranks>", len));
      PetscFunctionReturn(0);
    }
    PetscCall(PetscSNPrintf(hosts + n, len - n, "%s%s", i ? "," : "", names[i]));
    n = strlen(hosts);
  }
  PetscFunctionReturn(0);
}

/* With a switch tree and an operator from a DMDA on equal nodes: the topology-aware layout (the node-aware blocks
   ordered on the tree, src/dm/topoplace.c), when it would put fewer bytes on the busiest switch-to-switch link than
   this run did (its contention l, counted from the operator's scatter). Its saving per SpMV: the node-aware
   layout's where this run does not have it, plus delta times the cut in l (the hops of the farthest message are
   left as they are: a conservative estimate). When the tree keeps the node-aware order, the cut is the node-aware
   layout's: it is added to that suggestion (or made one, if the off-node bytes alone did not call for it).
   Rank 0, no communication. */
PetscErrorCode PKSecHaloTopoPlacement(KSP ksp, const PKSolveRecord *rec, const PKSecRun *run, const PKSecNet *net, PKSecHalo *h)
{
  const PKStats  *S = rec->stats;
  Mat             A;
  DM              dm   = NULL;
  PetscBool       isda = PETSC_FALSE;
  PetscInt        dim, M[3], procs[3], dof, sw;
  DMDAStencilType st;
  PKPlacement     pl;
  PKTopoPlacement tp;
  const char    **names;
  char            hosts[256];

  PetscFunctionBegin;
  h->have_tplace = PETSC_FALSE;
  if (!h->have_tree || !net->have_tree || S->nnodes < 2 || S->ppn * S->nnodes != S->nranks || h->busiest_bytes <= 0) PetscFunctionReturn(0);
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetDM(A, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (!isda) PetscFunctionReturn(0);
  PetscCall(DMDAGetInfo(dm, &dim, &M[0], &M[1], &M[2], &procs[0], &procs[1], &procs[2], &dof, &sw, NULL, NULL, NULL, &st));
  PetscCall(PKDMDAPlacementCompute(dim, M, st, sw, dof, S->nnodes, S->ppn, NULL, &pl));
  PetscCall(PetscCalloc1(S->nnodes, &names));
  for (PetscMPIInt r = S->nranks - 1; r >= 0; r--) {
    PetscInt leaf;
    names[rec->rank_node[r]] = "";
    if (net->where[r] >= 0) PetscCall(PKTopoGetNode(net->topo, net->where[r], &names[rec->rank_node[r]], &leaf));
  }
  PetscCall(PKDMDAPlacementComputeTopology(&pl, rec->rank_node, net->topo, names, PETSC_DEFAULT, &tp));
  PetscCall(PetscInfo(ksp, "topology-aware layout: %s (busiest switch link %g bytes now, %g placed)\n", tp.note, (double)h->busiest_bytes, (double)tp.topo.busiest_bytes));
  if (tp.usable && tp.topo.busiest_bytes < 0.99 * h->busiest_bytes) {
    PetscReal dl = run->eff.delta * (h->busiest_bytes - tp.topo.busiest_bytes); /* the contention term's cut */
    if (!tp.placed && h->have_place) {                                          /* the node-aware layout already suggested makes the cut: say so there */
      size_t l = strlen(h->place_what);
      h->place_saving += dl;
      PetscCall(PetscSNPrintf(h->place_what + l, sizeof(h->place_what) - l, ", switch link %.0f->%.0f", (double)h->busiest_bytes, (double)tp.topo.busiest_bytes));
    } else {
      h->have_tplace    = PETSC_TRUE;
      h->tplace_l[0]    = h->busiest_bytes;
      h->tplace_l[1]    = tp.topo.busiest_bytes;
      h->tplace_link[0] = tp.def.link_bytes;
      h->tplace_link[1] = tp.topo.link_bytes;
      h->tplace_saving  = (h->have_place ? h->place_saving : 0) + dl;
      PetscCall(PetscSNPrintf(h->tplace_what, sizeof(h->tplace_what), "%s DMDA (busiest link %.0f->%.0f B)", tp.placed ? "topology-aware" : "node-aware", (double)h->tplace_l[0], (double)h->tplace_l[1]));
      PetscCall(PKSecHaloHosts(S->nnodes, names, hosts, sizeof(hosts)));
      PetscCall(PKSecHaloPlaceCommand(dim, M, st, sw, dof, S, &pl, tp.placed ? net->tree_file : NULL, hosts, h->tplace_cmd, sizeof(h->tplace_cmd)));
    }
  }
  PetscCall(PKTopoPlacementDestroy(&tp));
  PetscCall(PetscFree(names));
  PetscFunctionReturn(0);
}

/* The halo's lines of the text report (inside the analytic model's part) */
PetscErrorCode PKSecHaloView(PetscViewer v, const PKStats *S, const PKSecHalo *h, const PKSolveInput *in)
{
  PetscFunctionBegin;
  if (h->have && S->nranks > 1)
    PetscCall(PetscViewerASCIIPrintf(v, "    halo per SpMV, slowest rank: %.0f on-node + %.0f off-node messages, %.0f + %.0f bytes\n      (average rank %.1f + %.1f messages; all ranks %.0f + %.0f messages, %.0f + %.0f bytes;\n      at most %" PetscInt_FMT " messages posted by one rank)\n",
                                     (double)h->msgs[1][PK_ON_NODE], (double)h->msgs[1][PK_OFF_NODE], (double)h->bytes[1][PK_ON_NODE], (double)h->bytes[1][PK_OFF_NODE], (double)h->msgs[0][PK_ON_NODE], (double)h->msgs[0][PK_OFF_NODE], (double)h->total_msgs[PK_ON_NODE],
                                     (double)h->total_msgs[PK_OFF_NODE], (double)h->total_bytes[PK_ON_NODE], (double)h->total_bytes[PK_OFF_NODE], h->max_posted));
  else if (!h->have) PetscCall(PetscViewerASCIIPrintf(v, "    halo: %s\n", h->why));
  if (h->have_tree)
    PetscCall(PetscViewerASCIIPrintf(v, "    on the switch tree: off-node messages %.2f hops on average, %" PetscInt_FMT " at most%s; busiest\n      switch-to-switch link %s: %.0f bytes per SpMV (contention's l)\n", (double)h->hops_avg, h->hops_max, h->n_unrouted ? " (some not routed: nodes not in the tree)" : "", h->busiest,
                                     (double)h->busiest_bytes));
  if (h->have && in->halo.total > 0)
    PetscCall(PetscViewerASCIIPrintf(v, "    halo exchange per SpMV: modelled %.2e s, measured wait %.2e s (the longest); the rest\n      is hidden behind the SpMV's own rows, %.0f%% of its compute (halo.overlap)\n", (double)in->halo.total, (double)h->wait,
                                     100.0 * (double)in->halo_theta));
  PetscFunctionReturn(0);
}

/* The operator's actual scatter, one SpMV: sums over ranks, and the most one rank posts */
PetscErrorCode PKSecHaloCSV(PetscViewer v, const PKSecHalo *h)
{
  PetscFunctionBegin;
  if (h->have_tree)
    PetscCall(PetscViewerASCIIPrintf(v, "halo,offnode_hops_avg,%.4g,hops,switch tree\nhalo,offnode_hops_max,%" PetscInt_FMT ",hops,switch tree\nhalo,busiest_link_bytes,%.0f,bytes,switch tree\n", (double)h->hops_avg, h->hops_max, (double)h->busiest_bytes));
  if (h->have)
    PetscCall(PetscViewerASCIIPrintf(v, "halo,onnode_msgs_total,%.0f,messages,measured\nhalo,offnode_msgs_total,%.0f,messages,measured\nhalo,onnode_bytes_total,%.0f,bytes,measured\nhalo,offnode_bytes_total,%.0f,bytes,measured\nhalo,max_msgs_per_rank,%" PetscInt_FMT ",messages,measured\n",
                                     (double)h->total_msgs[PK_ON_NODE], (double)h->total_msgs[PK_OFF_NODE], (double)h->total_bytes[PK_ON_NODE], (double)h->total_bytes[PK_OFF_NODE], h->max_posted));
  PetscFunctionReturn(0);
}
