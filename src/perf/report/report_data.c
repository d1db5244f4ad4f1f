/*
   What -ksp_perfmodel_view needs from the run, gathered collectively at the end of the solve, and the models
   evaluated on rank 0 (src/perf/models/model_*.c, stochastic.c). The counts come from the run itself: ranks and nodes
   from the monitor's layout, the halo messages of every rank from the operator's actual scatter (classified on or
   off node), reductions from the solver's type, per-application SpMV and PC times and vector time from the
   recorder, the synchronization gap from the per-iteration compute times, the overlap from the reductions that
   completed before their wait. Parameters come from the machine profile (-ksp_perfmodel_machine) or the embedded
   default.
*/
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pipekrylov/private/pkperfimpl.h>
#include <pipekrylov/private/pkprofile.h>
#include <pipekrylov/private/pkamg.h>
#include <petsc/private/kspimpl.h>
#include <petsc/private/matimpl.h> /* ops->getinfo: whether the operator can count its nonzeros */
#include <petscsf.h>
#include <sched.h>
#include <unistd.h>

/* The model's profile, loaded once: -ksp_perfmodel_machine > this host's profile in the user's cache > the embedded
   default. Called at KSPSetFromOptions when a report is asked for (hooks.c), so that a broken profile, the cached
   one included, stops the run before its solve with its own error, and at the first report otherwise. Collective. */
PetscErrorCode PKReportLoadMachine(MPI_Comm comm, PKModelCtx *model)
{
  PKMachine *m = &model->machine;

  PetscFunctionBegin;
  if (model->machine_loaded && (!model->machine_path[0] || !model->machine_from_host)) PetscFunctionReturn(0);
  model->machine_from_host = PETSC_FALSE;
  if (model->machine_path[0]) PetscCall(PKMachineLoad(comm, model->machine_path, m));
  else {
    PetscBool cached, self;
    char      mine[PETSC_MAX_PATH_LEN];
    PetscCall(PKMachineLoadForHost(comm, m, &cached, mine, sizeof(mine)));
    if (cached) {
      char o[PETSC_MAX_PATH_LEN + 64];
      PetscCall(PetscStrcmp(mine, m->origin, &self));
      PetscCall(PetscSNPrintf(o, sizeof(o), "%s %s", self ? "this host's profile" : "the profile of another host with this processor,", m->origin));
      PetscCall(PetscStrncpy(m->origin, o, sizeof(m->origin)));
    }
    model->machine_from_host = PETSC_TRUE;
  }
  model->machine_loaded = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The profile of this KSP, with what it lacks filled in: a profile measured on one node has no off-node
   parameters; a run with off-node messages then uses the on-node ones and the report says so. */
static PetscErrorCode PKReportMachine(KSP ksp, PKPerfCtx *c, PKReportData *d)
{
  PKMachine *m = &c->model.machine;
  PetscInt   i, j;

  PetscFunctionBegin;
  PetscCall(PKReportLoadMachine(PetscObjectComm((PetscObject)ksp), &c->model));
  d->machine_is_default = (PetscBool)(!c->model.machine_path[0] && !strncmp(m->origin, "embedded default", 16));
  d->eff = m->p;
  { /* on-node communication the profile does not have (a profile calibrated on one rank has none): the embedded
       default's values, named in the report, never a free communication */
    PKMachine def;
    PetscCall(PKMachineDefault(&def));
    for (i = 0; i < PKMachineNFields; i++) {
      const char *key = PKMachineFields[i].key;
      size_t      off = PKMachineFields[i].offset, l;
      if (m->src[i] != PK_SRC_NONE || def.src[i] == PK_SRC_NONE || PKMachineFields[i].kind == PK_FIELD_COUNT) continue;
      if (!strstr(key, "_on") || strstr(key, "_off")) continue; /* on-node fields: alpha_on_*, beta_on_*, *_limit_on, Rb_on, allreduce_*_on */
      *(PetscReal *)((char *)&d->eff + off) = *(const PetscReal *)((const char *)&def.p + off);
      l = strlen(d->onnode_default);
      PetscCall(PetscSNPrintf(d->onnode_default + l, sizeof(d->onnode_default) - l, "%s%s", l ? ", " : "", key));
    }
  }
  for (int k = 0; k < PK_NPROTO; k++) {
    PetscCall(PKMachineFieldIndexOf(m, &m->p.alpha[PK_OFF_NODE][k], &i));
    PetscCall(PKMachineFieldIndexOf(m, &m->p.beta[PK_OFF_NODE][k], &j));
    if (m->src[i] == PK_SRC_NONE || m->src[j] == PK_SRC_NONE) {
      size_t l = strlen(d->offnode_missing);
      PetscCall(PetscSNPrintf(d->offnode_missing + l, sizeof(d->offnode_missing) - l, "%s%s", l ? ", " : "", k == PK_PROTO_SHORT ? "short" : k == PK_PROTO_EAGER ? "eager" : "rendezvous"));
      d->eff.alpha[PK_OFF_NODE][k] = d->eff.alpha[PK_ON_NODE][k];
      d->eff.beta[PK_OFF_NODE][k]  = d->eff.beta[PK_ON_NODE][k];
      d->offnode_substituted       = PETSC_TRUE;
    }
  }
  /* the rest of what off-node messages need; each one filled in from its on-node value is named in the report */
#define PK_FILL_OFF(field) \
  do { \
    PetscCall(PKMachineFieldIndexOf(m, &m->p.field[PK_OFF_NODE], &i)); \
    if (m->src[i] == PK_SRC_NONE) { \
      size_t l = strlen(d->offnode_filled); \
      d->eff.field[PK_OFF_NODE] = d->eff.field[PK_ON_NODE]; \
      PetscCall(PetscSNPrintf(d->offnode_filled + l, sizeof(d->offnode_filled) - l, "%s%s", l ? ", " : "", PKMachineFields[i].key)); \
    } \
  } while (0)
  PK_FILL_OFF(eager_limit);
  PK_FILL_OFF(rendezvous_limit);
  PK_FILL_OFF(Rb);
  PK_FILL_OFF(allreduce_alpha);
  PK_FILL_OFF(allreduce_beta);
#undef PK_FILL_OFF
  PetscCall(PKMachineFieldIndexOf(m, &m->p.RN, &i));
  if (m->src[i] == PK_SRC_NONE || d->eff.RN <= 0) { /* no node injection cap known */
    size_t l = strlen(d->offnode_filled);
    d->eff.RN = PETSC_MAX_REAL;
    PetscCall(PetscSNPrintf(d->offnode_filled + l, sizeof(d->offnode_filled) - l, "%sRN (no injection cap)", l ? ", " : ""));
  }
  PetscFunctionReturn(0);
}

/* The operator's chunked-SpMV structure (src/core): the solver's own for our types (asked through the composed
   "KSPPipeGetSpMV_C"), one built for the report otherwise */
static PetscErrorCode PKReportSpMV(KSP ksp, PKPerfCtx *c, PKSpMV *s)
{
  Mat A;
  PetscErrorCode (*getspmv)(KSP, PKSpMV *);

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  *s = NULL;
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetSpMV_C", &getspmv));
  if (getspmv) PetscCall((*getspmv)(ksp, s));
  if (*s) PetscFunctionReturn(0);
  if (c->report.mat != A) {
    PetscCall(PKSpMVDestroy(&c->report.spmv));
    PetscCall(PKSpMVCreate(A, &c->report.spmv));
    c->report.mat = A;
  }
  *s = c->report.spmv;
  PetscFunctionReturn(0);
}

/* This rank's modelled halo exchange (mine) and the slowest rank's (slowest, the same on every rank): the model of
   a whole exchange is its slowest rank's */
PetscErrorCode PKReportHaloSlowest(MPI_Comm comm, const PKMachineParams *eff, const PKHaloPattern *pat, PKCommCost *mine, PKCommCost *slowest)
{
  PKNetState  net;
  PetscMPIInt rank;
  struct {
    double v;
    int    r;
  } in, out;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PKNetStateUnknown(&net);
  PetscCall(PKModelHalo(eff, pat, &net, mine));
  in.v = (double)mine->total;
  in.r = rank;
  PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  *slowest = *mine;
  PetscCallMPI(MPI_Bcast(slowest, sizeof(PKCommCost), MPI_BYTE, out.r, comm));
  PetscFunctionReturn(0);
}

/* Every rank models its own halo exchange from the messages it sends; the slowest rank's terms go to the model */
static PetscErrorCode PKReportHalo(KSP ksp, PKPerfCtx *c, PKReportData *d)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt     rank, size;
  PKSpMV          s  = NULL;
  VecScatter      sf = NULL;
  PetscInt        nir = 0, n = 0, flag, gflag;
  const PetscInt *ioff = NULL, *iloc;
  const PetscMPIInt *iranks = NULL;
  PetscMPIInt      *kranks = NULL;
  PetscReal      *bytes = NULL;
  PKLocality     *loc   = NULL;
  PKHaloPattern   pat;
  PKCommCost      mine;
  PetscReal       sums[1 + 2 * PK_NLOC], gsums[1 + 2 * PK_NLOC];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMemzero(&d->in.halo, sizeof(d->in.halo)));
  if (size == 1) {
    d->have_halo = PETSC_TRUE; /* no halo at all */
    PetscFunctionReturn(0);
  }
  PetscCall(PKReportSpMV(ksp, c, &s));
  PetscCall(PKSpMVGetHalo(s, &sf));
  flag = sf ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&flag, &gflag, 1, MPIU_INT, MPI_MIN, comm));
  if (!gflag) {
    PetscCall(PetscSNPrintf(d->halo_why, sizeof(d->halo_why), "the operator is not MPIAIJ: its halo is not known"));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscSFSetUp(sf));
  PetscCall(PetscSFGetLeafRanks(sf, &nir, &iranks, &ioff, &iloc)); /* the ranks this rank sends to */
  PetscCall(PetscMalloc3(nir, &bytes, nir, &loc, nir, &kranks));
  { /* the scatter's ranks are ranks of the operator's communicator, the nodes are known by rank of the KSP's: the two
       differ when the operator lives on a reordered copy (a node-aware DMDA) */
    MPI_Comm  mcomm = PetscObjectComm((PetscObject)sf);
    MPI_Group mg, kg;
    int       cmp;
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
  }
  for (PetscInt i = 0; i < nir; i++) {
    if (kranks[i] == rank || kranks[i] == MPI_UNDEFINED) continue;
    bytes[n] = (PetscReal)(ioff[i + 1] - ioff[i]) * sizeof(PetscScalar);
    loc[n++] = c->mon.rank_node[kranks[i]] == c->mon.rank_node[rank] ? PK_ON_NODE : PK_OFF_NODE;
  }
  pat.n         = n;
  pat.bytes     = bytes;
  pat.loc       = loc;
  pat.ppn       = c->mon.ppn;
  pat.ppn_off   = 0;
  pat.pipelined = PETSC_TRUE;
  /* the slowest rank's terms and message counts; the average rank's counts */
  PetscCall(PKReportHaloSlowest(comm, &d->eff, &pat, &mine, &d->in.halo));
  PetscCall(PetscFree3(bytes, loc, kranks));
  sums[0] = mine.total;
  for (int l = 0; l < PK_NLOC; l++) {
    sums[1 + l]           = 0;
    sums[1 + PK_NLOC + l] = mine.bytes[l];
    for (int p = 0; p < PK_NPROTO; p++) sums[1 + l] += mine.nmsg[l][p];
  }
  PetscCallMPI(MPI_Allreduce(sums, gsums, 1 + 2 * PK_NLOC, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&n, &d->halo_max_posted, 1, MPIU_INT, MPI_MAX, comm));
  d->halo_avg_total = gsums[0] / size;
  for (int l = 0; l < PK_NLOC; l++) {
    d->halo_total_msgs[l]  = gsums[1 + l];
    d->halo_total_bytes[l] = gsums[1 + PK_NLOC + l];
    d->halo_msgs[0][l]  = gsums[1 + l] / size;
    d->halo_bytes[0][l] = gsums[1 + PK_NLOC + l] / size;
    d->halo_msgs[1][l]  = 0;
    for (int p = 0; p < PK_NPROTO; p++) d->halo_msgs[1][l] += d->in.halo.nmsg[l][p];
    d->halo_bytes[1][l] = d->in.halo.bytes[l];
  }
  d->have_halo = PETSC_TRUE;
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
   size) all off node. `how` says which. */
static PetscErrorCode PKReportHaloAtP(KSP ksp, const PKStats *S, PKReportData *d, PetscInt P, PKCommCost *h, const char **how)
{
  Mat             A;
  DM              dm = NULL;
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
      PetscCall(PKModelHaloGrid3d(&d->eff, &g, &d->in.net, &avg, h));
      *how = "the DMDA's grid in PETSc's default layout at each size (000 5.3)";
      PetscFunctionReturn(0);
    }
  }
  {
    PetscInt   n = 0;
    PetscReal  bytes = 0, *b;
    PKLocality *loc;
    PKHaloPattern pat;

    for (int l = 0; l < PK_NLOC; l++) {
      for (int p = 0; p < PK_NPROTO; p++) n += (PetscInt)(d->in.halo.nmsg[l][p] + 0.5);
      bytes += d->in.halo.bytes[l];
    }
    PetscCall(PetscMalloc2(PetscMax(n, 1), &b, PetscMax(n, 1), &loc));
    for (PetscInt i = 0; i < n; i++) {
      b[i]   = bytes / n;
      loc[i] = PK_OFF_NODE;
    }
    pat.n         = n;
    pat.bytes     = b;
    pat.loc       = loc;
    pat.ppn       = S->ppn;
    pat.ppn_off   = 0;
    pat.pipelined = PETSC_TRUE;
    PetscCall(PKModelHalo(&d->eff, &pat, &d->in.net, h));
    PetscCall(PetscFree2(b, loc));
    *how = "an upper bound: every halo message of the slowest rank off node (the operator has no DMDA grid)";
  }
  PetscFunctionReturn(0);
}

/* When the operator comes from a DMDA laid out as PETSc does by default and the nodes are equal, the node-aware
   layout of src/dm, and what it would save: the halo of both layouts by the grid model (000 5.3), the difference
   per SpMV on the slowest rank */
static PetscErrorCode PKReportPlacement(KSP ksp, const PKStats *S, PKReportData *d)
{
  Mat             A;
  DM              dm;
  PetscBool       isda;
  PetscInt        dim, M[3], procs[3], dof, sw, q[3];
  DMDAStencilType st;
  PKPlacement     pl;
  PKGrid3d        g;
  PKCommCost      avg, slow[2];

  PetscFunctionBegin;
  d->have_place = PETSC_FALSE;
  if (!d->have_halo || S->nnodes < 2 || S->ppn * S->nnodes != S->nranks || d->halo_total_bytes[PK_OFF_NODE] <= 0) PetscFunctionReturn(0);
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetDM(A, &dm));
  if (!dm) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (!isda) PetscFunctionReturn(0);
  PetscCall(DMDAGetInfo(dm, &dim, &M[0], &M[1], &M[2], &procs[0], &procs[1], &procs[2], &dof, &sw, NULL, NULL, NULL, &st));
  PetscCall(PKDMDAPlacementCompute(dim, M, st, sw, dof, S->nnodes, S->ppn, NULL, &pl));
  /* only a layout this run does not already have, that cuts what this run measured */
  if (!pl.placed || pl.bytes_off >= 0.99 * d->halo_total_bytes[PK_OFF_NODE]) PetscFunctionReturn(0);
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
    PetscCall(PKModelHaloGrid3d(&d->eff, &g, &d->in.net, &avg, &slow[k]));
  }
  /* suggested wherever it cuts off-node bytes; the predicted time is the slowest rank's halo in both layouts, which
     can stay the same (16 ranks on 4 nodes in 2-D: a rank at a corner of a 2 x 2 block has as many off-node
     neighbours as one in a 4 x 1 row); the report then says what the cut is for */
  d->have_place         = PETSC_TRUE;
  d->place_saving       = PetscMax(0, slow[0].total - slow[1].total);
  d->place_bytes_off[0] = d->halo_total_bytes[PK_OFF_NODE];
  d->place_bytes_off[1] = (PetscReal)pl.bytes_off;
  PetscCall(PetscSNPrintf(d->place_what, sizeof(d->place_what), "node-aware DMDA (off-node bytes %.0f->%.0f)", (double)d->place_bytes_off[0], (double)d->place_bytes_off[1]));
  {
    char grid[64], opts[96];
    if (dim == 3) {
      PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT, M[0], M[1], M[2]));
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-da_processors_x %" PetscInt_FMT " -da_processors_y %" PetscInt_FMT " -da_processors_z %" PetscInt_FMT, pl.procs[0], pl.procs[1], pl.procs[2]));
    } else if (dim == 2) {
      PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT "x%" PetscInt_FMT, M[0], M[1]));
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-da_processors_x %" PetscInt_FMT " -da_processors_y %" PetscInt_FMT, pl.procs[0], pl.procs[1]));
    } else {
      PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT, M[0]));
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-da_processors_x %" PetscInt_FMT, pl.procs[0]));
    }
    char extra[96] = ""; /* what differs from bin/pipekrylov-place's defaults (star, width 1, dof 1) */
    PetscCall(PetscSNPrintf(extra, sizeof(extra), "%s", st == DMDA_STENCIL_BOX ? " --stencil box" : ""));
    if (sw != 1) PetscCall(PetscSNPrintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " --width %" PetscInt_FMT, sw));
    if (dof != 1) PetscCall(PetscSNPrintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " --dof %" PetscInt_FMT, dof));
    char rfopt[64]; /* the rankfile option of the Open MPI this runs with (--rankfile, or Open MPI 5's --map-by) */
    PetscCall(PKMPIRankfileOption("ranks.txt", rfopt, sizeof(rfopt)));
    PetscCall(PetscSNPrintf(d->place_cmd, sizeof(d->place_cmd), "bin/pipekrylov-place --nodes %" PetscInt_FMT " --ppn %" PetscInt_FMT " --grid %s%s --rankfile ranks.txt\n      then: mpiexec -n %d %s <your application and its options> %s\n      (or DMDACreateNodeAware in the code)", S->nnodes, S->ppn, grid, extra, S->nranks, rfopt, opts));
  }
  PetscFunctionReturn(0);
}

/* The report's own operator structure, with the perf context */
PetscErrorCode PKReportFree(PKPerfCtx *c)
{
  PetscFunctionBegin;
  PetscCall(PKSpMVDestroy(&c->report.spmv));
  c->report.mat  = NULL;
  PetscFunctionReturn(0);
}

/* Ranks per core on the busiest host: the ranks of this host (MPI_COMM_TYPE_SHARED, whatever -ksp_perf_node_size
   says: this is about real cores) over the cores they may run on together, the union of their affinity masks.
   Each rank's own mask is not enough: mpiexec binds each rank to its own core by default, and nhost ranks over one
   core each would read as "nhost ranks share each core". */
PetscErrorCode PKReportRanksPerCore(MPI_Comm comm, PetscReal *rpc)
{
  MPI_Comm    host;
  PetscMPIInt nhost;
  PetscReal   mine, cores = 0;
  cpu_set_t   set, all;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  PetscCallMPI(MPI_Comm_size(host, &nhost));
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set)) CPU_ZERO(&set);
  PetscCallMPI(MPI_Allreduce(&set, &all, (PetscMPIInt)sizeof(set), MPI_BYTE, MPI_BOR, host));
  PetscCallMPI(MPI_Comm_free(&host));
  cores = CPU_COUNT(&all);
  if (cores <= 0) cores = (PetscReal)sysconf(_SC_NPROCESSORS_ONLN);
  mine = cores > 0 ? PetscMax(1.0, nhost / cores) : 1;
  PetscCallMPI(MPI_Allreduce(&mine, rpc, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscFunctionReturn(0);
}

/* Pearson correlation of two series: do two ranks slow down together? */
static PetscReal PKCorrelation(PetscInt n, const PetscReal *a, const PetscReal *b)
{
  PetscReal ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;

  for (PetscInt k = 0; k < n; k++) {
    ma += a[k];
    mb += b[k];
  }
  ma /= n;
  mb /= n;
  for (PetscInt k = 0; k < n; k++) {
    sab += (a[k] - ma) * (b[k] - mb);
    saa += (a[k] - ma) * (a[k] - ma);
    sbb += (b[k] - mb) * (b[k] - mb);
  }
  return (saa > 0 && sbb > 0) ? sab / PetscSqrtReal(saa * sbb) : 0.0;
}

/* Two-sample KS between selected ranks (rank 0 only: the series live there): the fastest against the slowest,
   the slowest against another rank of its node (do the ranks of a node move together?), rank 0 against the slowest */
static PetscErrorCode PKReportKS(const PKStats *S, PKReportData *d)
{
  PetscInt  K = S->nits, fast = 0, slow = 0, same = -1;
  PetscReal tot[16];

  PetscFunctionBegin;
  d->nks = 0;
  if (S->nsel < 2 || K < 4) PetscFunctionReturn(0);
  for (PetscInt j = 0; j < S->nsel && j < 16; j++) {
    tot[j] = 0;
    for (PetscInt k = 0; k < K; k++) tot[j] += S->series[j * K + k];
    if (tot[j] < tot[fast]) fast = j;
    if (tot[j] > tot[slow]) slow = j;
  }
  for (PetscInt j = 0; j < S->nsel && j < 16; j++)
    if (j != slow && S->sel[j] != S->sel[slow] && S->sel_node[j] == S->sel_node[slow] && j != fast) same = j;
  {
    PetscInt pairs[3][2] = {
      {fast, slow},
      {slow, same},
      {0,    slow}
    };
    for (int p = 0; p < 3; p++) {
      PetscInt a = pairs[p][0], b = pairs[p][1], dup = 0;
      if (a < 0 || b < 0 || S->sel[a] == S->sel[b]) continue;
      for (PetscInt q = 0; q < d->nks; q++)
        if ((d->ks_a[q] == S->sel[a] && d->ks_b[q] == S->sel[b]) || (d->ks_a[q] == S->sel[b] && d->ks_b[q] == S->sel[a])) dup = 1;
      if (dup) continue;
      PetscCall(PKKSTwoSample(K, S->series + a * K, K, S->series + b * K, &d->ks_D[d->nks]));
      d->ks_crit[d->nks]      = PKKSCritical(0.05, K, K);
      d->ks_corr[d->nks]      = PKCorrelation(K, S->series + a * K, S->series + b * K);
      d->ks_a[d->nks]         = S->sel[a];
      d->ks_b[d->nks]         = S->sel[b];
      d->ks_same_node[d->nks] = (PetscBool)(S->sel_node[a] == S->sel_node[b]);
      d->nks++;
    }
  }
  PetscFunctionReturn(0);
}

/* The models, on rank 0 */
/* What each of our solvers would cost on this problem, as the solver describes itself: a throwaway KSP of that type
   (not set up, on PETSC_COMM_SELF), with the run's restart length for pgmres */
static PetscErrorCode PKReportWhatIfConfigs(PKReportData *d)
{
  PetscFunctionBegin;
  for (int k = 0; k < PK_SOLVER_NOURS; k++) {
    KSP tmp;
    PetscErrorCode (*getcost)(KSP, PKSolverCost *);
    PKSolverCost cost;

    PetscCall(KSPCreate(PETSC_COMM_SELF, &tmp));
    PetscCall(KSPSetType(tmp, PKSolverKindNames[k]));
    if (k == PK_SOLVER_PGMRES && d->config.restart > 0) PetscCall(KSPGMRESSetRestart(tmp, d->config.restart));
    PetscCall(PetscObjectQueryFunction((PetscObject)tmp, "KSPPipeGetCost_C", &getcost));
    PetscCheck(getcost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pipekrylov's %s does not describe its cost (KSPPipeGetCost_C)", PKSolverKindNames[k]);
    PetscCall((*getcost)(tmp, &cost));
    PetscCall(PKSolverConfigFromCost(&cost, &d->wi_config[k]));
    PetscCall(KSPDestroy(&tmp));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PKReportModels(KSP ksp, const PKStats *S, PKReportData *d)
{
  PetscInt K = S->nits, nonblocking;
  PKSolverShape shape;

  PetscFunctionBegin;
  PetscCall(PKSolverShapeGet(&d->config, 1, &shape));
  nonblocking = shape.nonblocking;
  if (K > 0 && d->vec_modelled) {
    /* PETSc's types: their vector phase holds the waits of the blocking allreduces inside VecDot/VecNorm, which
       would count as compute imbalance; use the SpMV and PC phases alone (max and mean over ranks per iteration) */
    PetscReal *cmx, *cmd;
    PetscCall(PetscMalloc2(K, &cmx, K, &cmd));
    for (PetscInt k = 0; k < K; k++) {
      cmx[k] = S->phase_max[k * PK_PHASE_N + PK_PHASE_SPMV] + S->phase_max[k * PK_PHASE_N + PK_PHASE_PC];
      cmd[k] = S->phase_mean[k * PK_PHASE_N + PK_PHASE_SPMV] + S->phase_mean[k * PK_PHASE_N + PK_PHASE_PC];
    }
    PetscCall(PKModelSyncPenalty(K, cmx, K, cmd, PETSC_FALSE, &d->sync_raw[0]));
    PetscCall(PKModelSyncPenalty(K, cmx, K, cmd, PETSC_TRUE, &d->sync_raw[1]));
    PetscCall(PetscFree2(cmx, cmd));
    d->in.sync[0] = d->sync_raw[0];
    d->in.sync[1] = d->sync_raw[1];
  } else if (K > 0) {
    PetscCall(PKModelSyncPenalty(K, S->cmax, K, S->cmedian, PETSC_FALSE, &d->sync_raw[0]));
    PetscCall(PKModelSyncPenalty(K, S->cmax, K, S->cmedian, PETSC_TRUE, &d->sync_raw[1]));
    d->in.sync[0] = d->sync_raw[0];
    d->in.sync[1] = d->sync_raw[1];
  } else d->in.sync[0] = d->in.sync[1] = -1;
  PetscCall(PKModelSolve(&d->eff, &d->in, &d->model));
  if (d->in.halo_theta > 0) d->model.status[PK_TERM_HALO_OVERLAP] = PK_TERM_MEASURED; /* from the measured halo wait */
  /* every other solver on the same problem, pipekrylov's and PETSc's cg and gmres, from this run's counts. Within a
     method family (CG, GMRES) the iteration count is the same in exact arithmetic; across families it is not, and
     the report says so (per-iteration time, the total only at this run's count). The CG family needs an SPD
     operator and preconditioner, which a GMRES run does not tell */
  d->wi_nsolver = 0;
  {
    static const PKSolverKind targets[PK_WHATIF_SOLVERS] = {PK_SOLVER_PCG, PK_SOLVER_SAPCG, PK_SOLVER_NBPCG, PK_SOLVER_PIPECG, PK_SOLVER_PIPE2CG, PK_SOLVER_PGMRES, PK_SOLVER_PETSC_CG, PK_SOLVER_PETSC_GMRES};
    for (int k = 0; k < PK_WHATIF_SOLVERS; k++) {
      PKSolverConfig cfg;
      PKSolverKind   tk = targets[k];
      if (tk == d->config.kind) continue;
      if ((int)tk < PK_SOLVER_NOURS) cfg = d->wi_config[tk]; /* as the solver describes itself */
      else PKSolverConfigDefault(tk, &cfg);
      if (d->config.restart > 0 && (tk == PK_SOLVER_PGMRES || tk == PK_SOLVER_PETSC_GMRES) && !PKSolverItersComparable(d->config.kind, PK_SOLVER_PCG)) cfg.restart = d->config.restart;
      cfg.pc_fused = (PetscBool)(d->pc_diagonal && PKSolverCanFusePC(&cfg)); /* as each would, by its description */
      PetscCall(PKModelWhatIfSolver(&d->eff, &d->in, &cfg, &d->wi_solver[d->wi_nsolver]));
      d->wi_iters_differ[d->wi_nsolver] = (PetscBool)!PKSolverItersComparable(d->config.kind, tk);
      d->wi_kind[d->wi_nsolver++]       = tk;
    }
  }
  if (nonblocking && d->in.theta >= 0 && d->in.theta < 0.95) {
    PKSolveInput full = d->in;
    full.theta        = 1.0;
    PetscCall(PKModelSolve(&d->eff, &full, &d->chunks_full));
    d->have_chunks_full = PETSC_TRUE;
  }
  /* the stochastic model of 001 (docs/models.md §5) from the per-iteration times over ranks */
  PetscCall(PKReportKS(S, d));
  if (K >= 4 && S->npooled >= 16) {
    PKStochInput si;
    PetscBool    together = PETSC_FALSE;
    for (PetscInt p = 0; p < d->nks; p++)
      if (d->ks_same_node[p] && d->ks_corr[p] > 0.5) together = PETSC_TRUE;
    PetscCall(PetscMemzero(&si, sizeof(si)));
    si.K       = K;
    si.P       = S->nranks;
    si.Peff    = together ? (PetscReal)S->nnodes : (PetscReal)S->nranks; /* 001 section 4: a node moves as one */
    si.npooled = S->npooled;
    si.pooled  = S->pooled;
    si.tmin    = S->tmin;
    si.tmax    = S->tmax;
    si.nsim    = 8;
    si.seed    = 20260101;
    PetscCall(PKStochasticModel(&si, &d->stoch));
    d->have_stoch = PETSC_TRUE;
  }
  /* larger runs cross nodes: without measured off-node parameters there is nothing to predict them from (the
     on-node values in their place would make a flat, meaningless curve) */
  d->wi_ranks_refused = d->offnode_substituted;
  for (int w = 0; w < PK_WHATIF_RANKS && !d->wi_ranks_refused; w++) {
    PetscInt P = S->nranks;
    for (int j = 0; j <= w; j++) P *= 4;
    d->wi_P[w] = P;
    PKCommCost hP;
    PetscCall(PKReportHaloAtP(ksp, S, d, P, &hP, &d->wi_halo_how));
    PetscCall(PKModelWhatIfRanks(&d->eff, &d->in, P, d->have_halo ? &hP : NULL, &d->wi_ranks[w]));
    d->wi_ET[w] = d->wi_ETp[w] = -1;
    if (d->have_stoch) PetscCall(PKStochasticWhatIf(&d->stoch, K, d->stoch.Peff * P / S->nranks, &d->wi_ET[w], &d->wi_ETp[w]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKReportGather(KSP ksp, PKPerfCtx *c, const PKStats *S, PKReportData *d)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)ksp);
  PetscMPIInt    rank, size;
  PetscErrorCode (*ours)(KSP, PetscInt *);
  PetscErrorCode (*restart)(KSP, PetscInt *);
  PetscErrorCode (*getcost)(KSP, PKSolverCost *);
  PKRecHot      *h = &c->mon.rec.hot;
  PetscReal      w[2 * PK_PHASE_N], wsum[2 * PK_PHASE_N];
  Mat            A;
  MatInfo        info;
  PetscInt       K = S->nits, nloc;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(d, sizeof(*d)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(KSPGetType(ksp, &d->type));
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetChunks_C", &ours));
  d->ours = ours ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetCost_C", &getcost));
  if (getcost) { /* one of ours: the solver describes its own cost, with its live settings */
    PKSolverCost cost;
    PetscCall((*getcost)(ksp, &cost));
    PetscCall(PKSolverConfigFromCost(&cost, &d->config));
  } else { /* PETSc's types: the model's table */
    PetscCall(PKSolverKindFromType(d->type, &d->config.kind));
    PKSolverConfigDefault(d->config.kind, &d->config);
    PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPGMRESGetRestart_C", &restart));
    if (restart) PetscCall((*restart)(ksp, &d->config.restart));
    if (d->config.kind == PK_SOLVER_PETSC_CG) d->config.norm_separate = (PetscBool)(ksp->normtype == KSP_NORM_PRECONDITIONED || ksp->normtype == KSP_NORM_UNPRECONDITIONED);
  }
  PetscCall(PKReportWhatIfConfigs(d));
  PetscCall(PKReportMachine(ksp, c, d));
  /* the operator */
  PetscCall(PCGetOperators(ksp->pc, &A, NULL));
  PetscCall(MatGetSize(A, &d->nrows_global, NULL));
  PetscCall(MatGetLocalSize(A, &nloc, NULL));
  if (A->ops->getinfo) { /* a matrix-free operator (MATMFFD, MATSHELL) has no nonzero count: the report says so */
    PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
    d->nnz_global = (PetscInt)info.nz_used;
  } else d->nnz_global = -1;
  /* measured: per-application costs from the time by activity, averaged over ranks */
  for (int j = 0; j < PK_PHASE_N; j++) {
    w[j]              = h->work[j];
    w[PK_PHASE_N + j] = h->win[j];
  }
  PetscCallMPI(MPI_Allreduce(w, wsum, 2 * PK_PHASE_N, MPIU_REAL, MPIU_SUM, comm));
  for (int j = 0; j < PK_PHASE_N; j++) {
    d->work[j] = wsum[j] / size;
    d->win[j]  = wsum[PK_PHASE_N + j] / size;
  }
  d->nspmv    = h->nspmv;
  d->npc      = h->npc;
  d->measured = S->solve_time;
  PetscCall(PKReportNoiseGather(ksp, c, S, d)); /* collective: noise and slow ranks, for every type */
  if (d->config.kind == PK_SOLVER_UNKNOWN) PetscFunctionReturn(0); /* no model for this type: measured part only */
  /* A diagonal preconditioner applied inside the fused vector pass (pipecg, pipe2cg) is no PCApply: its cost is in
     the vector work, and only the applications left outside the pass are PC applications. The solver says whether
     its last solve did so (the pass applies it only after checking that it computes PCApply's bits) */
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp->pc, &d->pc_diagonal, PCJACOBI, PCNONE, ""));
  if (d->config.have_cost && d->config.cost.fused_last) d->config.pc_fused = PETSC_TRUE;
  d->in.solver = d->config;
  d->in.K      = K;
  d->in.layout.P     = S->nranks;
  d->in.layout.nodes = S->nnodes;
  d->in.layout.ppn   = S->ppn;
  d->in.t_spmv       = d->nspmv ? d->work[PK_PHASE_SPMV] / d->nspmv : 0;
  d->in.t_pc         = d->npc ? d->work[PK_PHASE_PC] / d->npc : 0;
  if (d->ours || size == 1) d->in.t_vec = K ? d->work[PK_PHASE_VEC] / K : 0;
  else {
    /* PETSc's VecDot/VecNorm include their MPI_Allreduce (not logged apart): model the vector work from the
       vector streams of the solver and the profile's memory bandwidth instead of double counting */
    /* ... at the bandwidth the SpMV reached in this very run (same cache regime; STREAM is out of cache):
       the SpMV moves 12 bytes per nonzero (value and column) and 20 per row (row pointer, x and y) */
    MatInfo   linfo;
    PetscReal b[2], gb[2];
    b[0] = (PetscReal)nloc;
    b[1] = 0;
    if (A->ops->getinfo) {
      PetscCall(MatGetInfo(A, MAT_LOCAL, &linfo));
      b[1] = (PetscReal)linfo.nz_used;
    }
    PetscCallMPI(MPI_Allreduce(b, gb, 2, MPIU_REAL, MPIU_SUM, comm));
    if (d->in.t_spmv > 0 && gb[1] > 0) d->in.t_vec = d->in.t_spmv * PKSolverStreams(&d->config) * sizeof(PetscScalar) * gb[0] / (12.0 * gb[1] + 20.0 * gb[0]);
    else d->in.t_vec = PKSolverStreams(&d->config) * b[0] * sizeof(PetscScalar) / d->eff.mem_bw;
    d->vec_modelled = PETSC_TRUE;
  }
  if (d->config.pc_fused) {
    PKSolverShape sh;
    PetscCall(PKSolverShapeGet(&d->config, 0, &sh));
    if ((PetscReal)d->npc < sh.init_pc + 4 + 0.25 * K * sh.npc / sh.its) {
      /* too few applications outside the pass (pipecg: the start-up's two, the first one slow) to time one: the
         other solvers' PCApply is modelled as a pass over the vectors, at this run's time per vector stream
         (jacobi: read x and the diagonal, write y; none: a copy) */
      PetscReal st = PKSolverStreams(&d->config);
      PetscBool isjacobi;
      PetscCall(PetscObjectTypeCompare((PetscObject)ksp->pc, PCJACOBI, &isjacobi));
      if (st > 0) {
        d->in.t_pc         = (isjacobi ? 3.0 : 2.0) * d->in.t_vec / st;
        d->pc_time_modelled = PETSC_TRUE;
      }
    }
  }
  d->in.t_init     = -1; /* modelled from the solver's start-up shape */
  d->in.halo_theta = 0;  /* set from the measured halo wait below (PKReportHalo first) */
  PKNetStateUnknown(&d->in.net);
  PetscCall(PKReportRanksPerCore(comm, &d->in.ranks_per_core));
  {
    PetscReal cpu = (PetscReal)(c->mon.cpuend - c->mon.cpubegin), gcpu;
    PetscCallMPI(MPI_Allreduce(&cpu, &gcpu, 1, MPIU_REAL, MPIU_SUM, comm));
    d->in.t_cpu = gcpu / size;
  }
  d->theta_counts = S->nreductions ? PKModelThetaFromCounts(S->nearly, S->nreductions) : -1;
  d->in.theta     = d->theta_counts;
  PetscCall(PKReportHalo(ksp, c, d));
  {
    /* How much of the halo exchange the SpMV's local rows hide, as measured: pipekrylov's chunked SpMV and PETSc's
       MatMult both post the exchange, multiply the rows they own, and only then wait for the ghost values. The
       wait measured on the rank that waited longest is what was exposed; 000's model (nothing hidden) charged the
       whole modelled exchange on top of the measured SpMV (across emulated nodes a fourth of pipecg's model). The
       hidden part is expressed as a fraction of the SpMV's compute, the capacity that carries over to another
       solver, which uses the same SpMV, and to larger runs, whose halo is modelled */
    PetscReal hw = (PetscReal)h->work[PK_PHASE_HALO], hmax;
    PetscCallMPI(MPI_Allreduce(&hw, &hmax, 1, MPIU_REAL, MPI_MAX, comm));
    d->halo_wait = d->nspmv > 0 ? hmax / d->nspmv : 0;
    if (d->have_halo && d->in.halo.total > 0 && d->in.t_spmv > 0) d->in.halo_theta = PetscMax(0, PetscMin(1, (d->in.halo.total - PetscMin(d->in.halo.total, d->halo_wait)) / d->in.t_spmv));
  }
  PetscCall(PKReportPlacement(ksp, S, d));
  /* AMG: the cycle model of 002 when the preconditioner is hypre BoomerAMG */
  PetscCall(PKAMGHierarchyFromPC(ksp->pc, PK_AMG_MAXLEVELS, d->amg_lev, &d->amg_L, &d->have_amg, d->amg_why, sizeof(d->amg_why)));
  if (!rank) {
    /* the iterations' elapsed time: the sum of per-iteration maxima would overstate it when the slowest rank
       changes from iteration to iteration */
    d->rows_time = PetscMax(0, S->solve_time - S->setup_time - S->finish_time);
    for (PetscInt k = 0; k < K; k++) {
      for (int j = 0; j < PK_PHASE_N; j++) d->phase[j] += S->phase_mean[k * PK_PHASE_N + j];
    }
    PetscCall(PKReportModels(ksp, S, d));
    PetscCall(PKReportNoiseModel(S, d));
    if (d->have_amg) {
      PKAMGInput ai;
      PetscCall(PetscMemzero(&ai, sizeof(ai)));
      ai.L             = d->amg_L;
      ai.lev           = d->amg_lev;
      ai.P             = S->nranks;
      ai.offnode       = (PetscBool)(S->nnodes > 1);
      ai.msgs_per_link = -1;
      {
        /* t_i: the calibrated time per model flop of a BoomerAMG cycle when the profile has it, else flop_time */
        PetscInt i;
        PetscCall(PKMachineFieldIndexOf(&c->model.machine, &c->model.machine.p.amg_flop_time, &i));
        if (c->model.machine.src[i] != PK_SRC_NONE && d->eff.amg_flop_time > 0)
          for (PetscInt l = 0; l < d->amg_L; l++) d->amg_lev[l].t = d->eff.amg_flop_time;
      }
      PetscCall(PKModelAMGCycle(&d->eff, &ai, &d->amg));
      d->amg_measured = d->in.t_pc;
    }
  }
  PetscFunctionReturn(0);
}
