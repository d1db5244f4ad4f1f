/*
   Per-solver iteration models (000 5.3 "PCG postal model", generalised to each solver with the counts of
   docs/algorithms.md §0-6), synchronization ([000] §5.8) and overlap ([000] §5.9) terms, and the what-if predictions.

   The paper reads the compute times from the run and models the communication; so do we: T_spmv, T_pc per
   application and the vector time per iteration are inputs, and every communication term comes from the profile.
*/
#include <pipekrylov/private/pkmodel.h>
#include <string.h>

const char *const PKSolverKindNames[] = {"pcg", "sapcg", "nbpcg", "pipecg", "pipe2cg", "pgmres", "cg", "groppcg", "petsc_pipecg", "gmres", "petsc_pgmres", "unknown"};

const char *const PKTermStatusNames[] = {"measured", "modelled", "not measured", "topology unknown", "n/a", "switch tree", "network counters", "not calibrated"};

const PKTermInfo PKTermInfos[] = {
  {"spmv",            "SpMV local compute (measured)",                 "000 5.3"        },
  {"pc",              "preconditioner compute (measured)",             "000 5.3"        },
  {"vec",             "vector operations (measured)",                  "000 5.3"        },
  {"halo.postal",     "halo exchange, postal per protocol",            "000 5.1-5.3"    },
  {"halo.maxrate",    "halo exchange, max-rate penalty",               "000 5.5, 004 3" },
  {"halo.queue",      "halo exchange, queue search gamma n^2",         "004 4.1"        },
  {"halo.contention", "halo exchange, contention delta l",             "004 4.2"        },
  {"halo.hops",       "halo exchange, hops penalty",                   "000 5.6"        },
  {"halo.congestion", "halo exchange, congestion penalty",             "000 5.7"        },
  {"halo.pipeline",   "halo exchange, pipelined short/eager messages", "000 5.9"        },
  {"halo.overlap",    "halo exchange hidden by SpMV compute",          "000 5.9"        },
  {"allr.comm",       "allreduce, recursive-doubling rounds",          "000 5.3"        },
  {"allr.local",      "allreduce, local reduction flops",              "000 5.3"        },
  {"allr.hops",       "allreduce, hops penalty",                       "000 5.6"        },
  {"allr.congestion", "allreduce, congestion penalty",                 "000 5.7"        },
  {"sync",            "synchronization penalty",                       "000 5.8"        },
  {"overlap",         "reductions hidden by overlapped work",          "000 5.9, ALG 11"},
  {"tests",           "progress: MPI_Iallreduce, MPI_Test calls",      "000 4.1"        },
  {"init",            "start-up before the first iteration",           "000 5.3 T_init" },
  {"oversub",         "ranks sharing a core (oversubscription)",       "pipekrylov"     },
  {"arrival",         "ranks entering the solve apart (measured)",     "pipekrylov"     },
};

/* PKAccumulateCycle maps the halo cost terms onto the PK_TERM_HALO_* block by offset */
_Static_assert(PK_TERM_HALO_POSTAL + PK_CT_MAXRATE == PK_TERM_HALO_MAXRATE && PK_TERM_HALO_POSTAL + PK_CT_PIPELINE == PK_TERM_HALO_PIPELINE, "PKTermId halo block must follow PKCommTermId");
_Static_assert(sizeof(PKTermInfos) / sizeof(PKTermInfos[0]) == PK_TERM_N, "one PKTermInfo per term");

PetscErrorCode PKSolverKindFromType(const char type[], PKSolverKind *kind)
{
  static const struct {
    const char  *type;
    PKSolverKind kind;
  } map[] = {
    {"pcg",          PK_SOLVER_PCG          },
    {"sapcg",        PK_SOLVER_SAPCG        },
    {"nbpcg",        PK_SOLVER_NBPCG        },
    {"pipecg",       PK_SOLVER_PIPECG       },
    {"pipe2cg",      PK_SOLVER_PIPE2CG      },
    {"pgmres",       PK_SOLVER_PGMRES       },
    {"cg",           PK_SOLVER_PETSC_CG     },
    {"groppcg",      PK_SOLVER_PETSC_GROPPCG},
    {"petsc_pipecg", PK_SOLVER_PETSC_PIPECG },
    {"gmres",        PK_SOLVER_PETSC_GMRES  },
    {"fgmres",       PK_SOLVER_PETSC_GMRES  },
    {"petsc_pgmres", PK_SOLVER_PETSC_PGMRES },
  };
  PetscBool eq;

  PetscFunctionBegin;
  *kind = PK_SOLVER_UNKNOWN;
  for (size_t i = 0; type && i < sizeof(map) / sizeof(map[0]); i++) {
    PetscCall(PetscStrcmp(type, map[i].type, &eq));
    if (eq) {
      *kind = map[i].kind;
      break;
    }
  }
  PetscFunctionReturn(0);
}

void PKSolverConfigDefault(PKSolverKind kind, PKSolverConfig *cfg)
{
  memset(cfg, 0, sizeof(*cfg)); /* no solver description: the table (PETSc's types) */
  cfg->kind          = kind;
  cfg->restart       = 30;
  cfg->norm_separate = kind == PK_SOLVER_PETSC_CG ? PETSC_TRUE : PETSC_FALSE;
  cfg->pc_fused      = PETSC_FALSE;
}

/* Whether the solver can apply a diagonal preconditioner inside its fused vector pass, as it says (pipekrylov's
   pipecg and pipe2cg without their recompute; PETSc's pipecg calls PCApply every iteration) */
PetscBool PKSolverCanFusePC(const PKSolverConfig *cfg)
{
  return (PetscBool)(cfg->have_cost && cfg->cost.fuse_pc > 0);
}

static PetscBool PKIsGMRES(PKSolverKind k)
{
  return (k == PK_SOLVER_PGMRES || k == PK_SOLVER_PETSC_GMRES || k == PK_SOLVER_PETSC_PGMRES) ? PETSC_TRUE : PETSC_FALSE;
}

PetscErrorCode PKSolverConfigFromCost(const PKSolverCost *cost, PKSolverConfig *cfg)
{
  PKSolverKind kind;

  PetscFunctionBegin;
  PetscCall(PKSolverKindFromType(cost->pattern, &kind));
  PKSolverConfigDefault(kind, cfg);
  PetscCheck(kind != PK_SOLVER_UNKNOWN, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Cost description of an unknown pattern '%s'", cost->pattern ? cost->pattern : "(null)");
  PetscCheck(PKIsGMRES(kind) || (cost->nred >= 1 && cost->nred <= PK_COST_MAXRED), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A CG-family cost description lists 1 to %d reductions, not %" PetscInt_FMT, PK_COST_MAXRED, cost->nred);
  if (cost->restart > 0) cfg->restart = cost->restart;
  cfg->have_cost = PETSC_TRUE;
  cfg->cost      = *cost;
  PetscFunctionReturn(0);
}

static PetscBool PKIsPGMRES(PKSolverKind k)
{
  return (k == PK_SOLVER_PGMRES || k == PK_SOLVER_PETSC_PGMRES) ? PETSC_TRUE : PETSC_FALSE;
}

/*
   A solver's cycle: from its own description (pipekrylov's types, pkcost.h), else from the table, which holds only
   PETSc's own types, whose patterns the model knows by name (they describe nothing):
     cg            (p,s) 2, x 3, r 3, (r,z) 2, norm 1, p 3 = 14 streams (natural norm: 13)
     groppcg       Gropp's non-blocking PCG (our nbpcg's pattern)                           = 20
     petsc_pipecg  Ghysels-Vanroose (our pipecg's pattern, PCApply every iteration)         = 29
     gmres         step j: MDot j+2, MAXPY j+3, norm 1, scale 2; x += V y m+2                = m^2+8m+2
     pgmres        the p(1) pattern: cycle of m steps, pass it>=1 MAXPY it+3, CGS it+2, norm 1, MDot it+2, 2
                   scalings 4; pass 0 MDot 2; x += V y  m+2                                  = 2m^2+15m+4
   Vector streams are reads + writes of one vector length, unfused: AXPY/AYPX 3, AXPBYPCZ 4, dot 2, norm 1.
   The GMRES family's cycle depends on the steps it reaches (a solve that converges inside a cycle), so pgmres too
   describes its pattern and restart and the cycle of k steps is the pattern's (the same as PETSc's pgmres).
*/
PetscErrorCode PKSolverShapeGet(const PKSolverConfig *cfg, PetscInt steps, PKSolverShape *s)
{
  PetscInt m = cfg->restart > 0 ? cfg->restart : 30;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  if (cfg->have_cost && !PKIsGMRES(cfg->kind)) { /* the solver's own counts (a GMRES cycle's shape depends on steps) */
    const PKSolverCost *c = &cfg->cost;
    s->its                = c->its;
    s->nspmv              = c->nspmv;
    s->npc                = c->npc;
    s->streams            = c->streams;
    s->nred               = c->nred;
    s->nonblocking        = PETSC_FALSE;
    for (PetscInt i = 0; i < c->nred; i++)
      if (!c->red[i].blocking) s->nonblocking = PETSC_TRUE;
    s->init_spmv  = c->init_spmv;
    s->init_pc    = c->init_pc;
    s->init_nvals = c->init_nvals;
    s->end_spmv   = c->end_spmv;
    s->end_pc     = c->end_pc;
    if (cfg->pc_fused && c->fuse_pc > 0) { /* the diagonal PC inside the vector pass: its cost is vector streams */
      s->npc -= c->fuse_pc;
      s->streams += c->fuse_pc_streams;
    }
    if (c->replace > 0) { /* one replacement every `replace` iterations, its applications spread over the cycles */
      s->nspmv += (PetscReal)c->its * c->replace_spmv / c->replace;
      s->npc += (PetscReal)c->its * c->replace_pc / c->replace;
    }
    PetscFunctionReturn(0);
  }
  s->its   = 1;
  s->nspmv = 1;
  s->npc   = 1;
  switch (cfg->kind) {
  case PK_SOLVER_PETSC_CG:
    s->streams    = cfg->norm_separate ? 14 : 13; /* the natural norm is sqrt((r,z)): no norm pass */
    s->nred       = cfg->norm_separate ? 3 : 2;
    s->init_spmv  = 1;
    s->init_pc    = 1;
    s->init_nvals = 1;
    break;
  case PK_SOLVER_PETSC_GROPPCG:
    s->streams     = 20;
    s->nred        = 2;
    s->nonblocking = PETSC_TRUE;
    s->init_spmv   = 2;
    s->init_pc     = 1;
    s->init_nvals  = 2;
    break;
  case PK_SOLVER_PETSC_PIPECG:
    /* the start-up includes the lagging pass whose norm is tested one pass late (docs/algorithms.md §4) */
    s->streams     = 29;
    s->nred        = 1;
    s->nonblocking = PETSC_TRUE;
    s->init_spmv   = 3;
    s->init_pc     = 2;
    s->init_nvals  = 3;
    break;
  case PK_SOLVER_PGMRES:
  case PK_SOLVER_PETSC_PGMRES:
  case PK_SOLVER_PETSC_GMRES: {
    PetscInt k = (steps > 0 && steps < m) ? steps : m;
    s->its     = k;
    if (PKIsPGMRES(cfg->kind)) { /* k+1 passes, each one split reduction */
      /* Ops: PETSc's pgmres one per pass; pipekrylov's one per step, and a cycle ended by convergence has applied
         the Op of the two steps after the last (the look-ahead of the pipeline; counted in tests/cost.c) */
      s->nspmv       = cfg->kind == PK_SOLVER_PETSC_PGMRES ? k + 1 : (k < m ? PetscMin(k + 2, m) : m);
      s->npc         = s->nspmv;
      s->nred        = k + 1;
      s->nonblocking = PETSC_TRUE;
      /* counted by operations, not by memory traffic: pipekrylov's fused pass per step (PKVecMaxpyMDot) reads each
         vector once, but with it + 2 vectors its multiply-adds, not memory, bound it (measured on poisson27: about 3.5
         it stream-equivalents per pass, where the traffic is it + 5), so the operation count of the unfused kernels
         stands for it, as for PETSc's pgmres */
      s->streams = 2.0 * k * k + 15.0 * k + 4;
    } else { /* per step one Op, a blocking MDot and a blocking norm */
      s->nspmv   = k;
      s->npc     = k;
      s->nred    = 2 * k;
      s->streams = (PetscReal)k * k + 8.0 * k + 2;
    }
    /* the residual of every cycle: the first is the start-up, the others are charged by PKModelSolve */
    s->init_spmv  = 1;
    s->init_pc    = 1;
    s->init_nvals = 1;
  } break;
  default: /* pipekrylov's CG types describe themselves (KSPPipeGetCost_C): the table has no copy of them */
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No analytic model for solver kind %s without its cost description", PKSolverKindNames[PetscMin(PetscMax((int)cfg->kind, 0), (int)PK_SOLVER_UNKNOWN)]);
  }
  PetscFunctionReturn(0);
}

/*
   PKSolverShapeEnd - the applications a solve of K iterations makes fewer than K / its cycles of the shape: none,
   but where it ends at max_it and the solver says what its last pass leaves out (pipecg, pipe2cg: the next pass's
   overlapped work, less the exit's true-residual check). A cycle of its > 1 iterations that the solve ends inside
   is counted in part by K / its already: the part the last pass does not make is taken from what it leaves out.
   Never more than a cycle's applications.

   Measured with tests/cost (-check_type, laplace2d, max_it 29 to 31): pipecg without a norm makes K + 2 SpMVs for
   the K + 3 of the cycles and start-up, pipe2cg K + 2 for K + 4 (K even) and K + 3 for K + 4 (K odd).

   Level: developer
*/
void PKSolverShapeEnd(const PKSolverShape *s, PetscInt K, PetscBool at_max_it, PetscReal *spmv, PetscReal *pc)
{
  PetscReal part = s->its > 1 ? (PetscReal)(K % s->its) / s->its : 0; /* of a cycle counted, the solve ending inside */

  *spmv = *pc = 0;
  if (!at_max_it || K < s->its) return;
  *spmv = PetscMin(s->nspmv, PetscMax(0, s->end_spmv - part * s->nspmv));
  *pc   = PetscMin(s->npc, PetscMax(0, s->end_pc - part * s->npc));
}

PetscErrorCode PKSolverShapeReduction(const PKSolverConfig *cfg, const PKSolverShape *s, PetscInt i, PKReductionSpec *r)
{
  PetscFunctionBegin;
  PetscCheck(i >= 0 && i < s->nred, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Reduction %" PetscInt_FMT " of %" PetscInt_FMT, i, s->nred);
  PetscCall(PetscMemzero(r, sizeof(*r)));
  if (cfg->have_cost && !PKIsGMRES(cfg->kind)) { /* as the solver describes the reduction */
    const PKReductionCost *c = &cfg->cost.red[i];
    r->nvals                 = c->nvals;
    r->blocking              = c->blocking;
    r->w_spmv                = c->w_spmv;
    r->w_pc                  = c->w_pc - (cfg->pc_fused ? c->w_pc_fused : 0); /* the fused pass made it before the reduction */
    PetscFunctionReturn(0);
  }
  r->blocking = PETSC_TRUE;
  r->nvals    = 1;
  switch (cfg->kind) {
  case PK_SOLVER_PETSC_CG:
    r->nvals = 1;
    break;
  case PK_SOLVER_PETSC_GROPPCG:
    r->blocking = PETSC_FALSE;
    if (i == 0) { /* (p,s) behind S = M s */
      r->nvals = 1;
      r->w_pc  = 1;
    } else { /* (r,z), norm behind Z = A z */
      r->nvals  = 2;
      r->w_spmv = 1;
    }
    break;
  case PK_SOLVER_PETSC_PIPECG:
    r->blocking = PETSC_FALSE;
    r->nvals    = 3;
    r->w_spmv   = 1; /* n = A m */
    r->w_pc     = 1; /* m = M w */
    break;
  case PK_SOLVER_PGMRES:
  case PK_SOLVER_PETSC_PGMRES:
    /* pass it = i: it+1 dots and (it > 0) the norm of V[it]; completed in the next pass behind its Op. PETSc's
       pgmres: an Op in every pass but the last; pipekrylov's: the Op of V[i+1], which exists for i + 1 < m */
    r->blocking = PETSC_FALSE;
    r->nvals    = i == 0 ? 1 : i + 2;
    if (cfg->kind == PK_SOLVER_PETSC_PGMRES ? i < s->nred - 1 : i + 1 < (cfg->restart > 0 ? cfg->restart : 30)) {
      r->w_spmv = 1;
      r->w_pc   = 1;
    }
    break;
  case PK_SOLVER_PETSC_GMRES:
    r->nvals = (i % 2 == 0) ? i / 2 + 1 : 1; /* step j = i/2: MDot of j+1 values, then the norm */
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No analytic model for solver kind %s without its cost description", PKSolverKindNames[PetscMin(PetscMax((int)cfg->kind, 0), (int)PK_SOLVER_UNKNOWN)]);
  }
  PetscFunctionReturn(0);
}

/*
   PKSolverGapReduction - which of a cycle's non-blocking reductions meets the synchronization gap as a blocking one,
   or -1: in a one-iteration cycle the ranks drift apart in the SpMV and meet at the first reduction posted after it,
   the one whose window holds no SpMV (nbpcg: (p, A p) behind the PC application; its (r, z) is behind A z). Its
   window hides no drift, so the gap it meets is the blocking rule's (the median), and only its window hides it. -1
   where every window holds an SpMV (pipecg) or the cycle is longer (pipe2cg, pgmres): the first quartile's rule of a
   non-blocking solver, shared by its reductions. j counts the non-blocking reductions only.
*/
PetscErrorCode PKSolverGapReduction(const PKSolverConfig *cfg, const PKSolverShape *s, PetscInt *j)
{
  PetscInt nnb = 0, k = -1;

  PetscFunctionBegin;
  *j = -1;
  if (s->its != 1 || !s->nonblocking) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < s->nred; i++) {
    PKReductionSpec r;
    PetscCall(PKSolverShapeReduction(cfg, s, i, &r));
    if (r.blocking) continue;
    if (k < 0 && !(r.w_spmv > 0)) k = nnb;
    nnb++;
  }
  if (nnb > 1) *j = k;
  PetscFunctionReturn(0);
}

/* PKSolverSyncRule - the synchronization gap's rule for a solver's cycle: 0, the median's (blocking solvers, and a
   non-blocking one whose gap a reduction meets as a blocking wait, PKSolverGapReduction), 1 the first quartile's */
PetscErrorCode PKSolverSyncRule(const PKSolverConfig *cfg, const PKSolverShape *s, PetscInt *rule)
{
  PetscInt j;

  PetscFunctionBegin;
  PetscCall(PKSolverGapReduction(cfg, s, &j));
  *rule = s->nonblocking && j < 0 ? 1 : 0;
  PetscFunctionReturn(0);
}

static PetscReal PKInitStreams(const PKSolverConfig *cfg)
{
  if (cfg->have_cost) return cfg->cost.init_streams;
  switch (cfg->kind) {
  case PK_SOLVER_PETSC_CG:
    return 7; /* r = b - Ax 3, (r,z)+norm 2, p = z 2 */
  case PK_SOLVER_PETSC_GROPPCG:
    return 9;
  case PK_SOLVER_PETSC_PIPECG:
    return 12;
  default:
    return 6; /* GMRES: r = b - Ax 3, norm 1, V[0] = r/|r| 2 */
  }
}

PetscReal PKSolverStreams(const PKSolverConfig *cfg)
{
  PKSolverShape s;

  if (PKSolverShapeGet(cfg, 0, &s)) return 0;
  if (PKIsGMRES(cfg->kind)) return (s.streams + PKInitStreams(cfg)) / s.its; /* a restart per cycle */
  return s.streams / s.its;
}

/*
   PKSolverReduceStreams - the vector streams per iteration (of PKSolverStreams) of the local sums of the blocking
   reductions that PETSc logs with their MPI_Allreduce (VecDot, VecNorm, VecMDot), which the hooks charge to the
   reduce phase: PETSc's cg (p,s) 2, (r,z) 2 and its norm 1 when the norm is its own reduction; PETSc's gmres per
   cycle of m steps the MDots sum_j (j+2) and m norms, and the restart's norm. 0 for every other type (pipekrylov's
   mark their phases; PETSc's split reductions log their MPI apart).

   Level: developer
*/
PetscReal PKSolverReduceStreams(const PKSolverConfig *cfg)
{
  PetscReal m = cfg->restart > 0 ? cfg->restart : 30;

  if (cfg->have_cost) return 0;
  switch (cfg->kind) {
  case PK_SOLVER_PETSC_CG:
    return cfg->norm_separate ? 5 : 4;
  case PK_SOLVER_PETSC_GMRES:
    return (m * (m - 1) / 2 + 3 * m + 1) / m;
  default:
    return 0;
  }
}

/*
   PKModelBlockingMPI - the MPI time of K iterations' blocking reductions and their start-up's, as PKModelSolve
   charges it: the cycle's allreduces per iteration and the synchronization gap `sync` (s per iteration) once per
   iteration and once at the start-up. What the reduce phase of PETSc's blocking types held beyond it is their local
   sums (PKModelTimesFromMeasured).

   Level: developer
*/
PetscErrorCode PKModelBlockingMPI(const PKMachineParams *m, const PKSolverConfig *cfg, const PKLayout *lay, const PKNetState *net, PetscInt K, PetscReal sync, PetscReal *mpi)
{
  PKSolverShape   sh;
  PKAllreduceCost a;
  PetscReal       cycle = 0;

  PetscFunctionBegin;
  *mpi = 0;
  if (K <= 0) PetscFunctionReturn(0);
  PetscCall(PKSolverShapeGet(cfg, 0, &sh));
  for (PetscInt i = 0; i < sh.nred; i++) {
    PKReductionSpec r;
    PetscCall(PKSolverShapeReduction(cfg, &sh, i, &r));
    PetscCall(PKModelAllreduce(m, lay, r.nvals, net, &a));
    cycle += a.total;
  }
  *mpi = K * (cycle / sh.its + sync);
  if (sh.init_nvals > 0) {
    PetscCall(PKModelAllreduce(m, lay, sh.init_nvals, net, &a));
    *mpi += a.total + sync;
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */

PetscErrorCode PKModelSyncPenalty(PetscInt K, const PetscReal cmax[], PetscInt n, const PetscReal c[], PetscBool nonblocking, PetscReal *S)
{
  PetscReal *a, *b, hi, typ;

  PetscFunctionBegin;
  *S = 0;
  if (K <= 0 || n <= 0) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(K, &a, n, &b));
  PetscCall(PetscArraycpy(a, cmax, K));
  PetscCall(PetscArraycpy(b, c, n));
  PetscCall(PetscSortReal(K, a));
  PetscCall(PetscSortReal(n, b));
  hi  = PKQuantileSorted(K, a, nonblocking ? 0.25 : 0.5);
  typ = PKQuantileSorted(n, b, 0.5);
  *S  = PetscMax(0, hi - typ);
  PetscCall(PetscFree2(a, b));
  PetscFunctionReturn(0);
}

PetscReal PKModelThetaFromWait(PetscReal t_allr, PetscReal W, PetscReal t_wait)
{
  if (W <= 0) return 0;
  return PetscMin(1, PetscMax(0, (t_allr - t_wait) / W));
}

/*
   The part of a non-blocking reduction of cost C hidden behind overlapped work W, when a fraction theta of the
   reductions was complete at its wait (PKModelThetaFromCounts). theta is a probability, not a fraction of W: a
   reduction found complete cost nothing, whatever C and W the model gives it (the model's C is the one that is
   wrong then: it is hidden in full); one found incomplete was hidden as far as theta W reaches (000 5.9's
   max(0, C - theta W)). So hidden = theta C + (1 - theta) min(C, theta W). The old form min(C, theta W) charged the
   reductions found complete the same exposure as the late ones: where C > theta W (across nodes), the pipelined
   solvers were under-credited by theta (C - theta W) per reduction. Nothing overlapped (W = 0): nothing hidden.
*/
PetscReal PKModelOverlapHidden(PetscReal C, PetscReal W, PetscReal theta)
{
  theta = PetscMax(0, PetscMin(1, theta));
  if (W <= 0 || C <= 0) return 0;
  return theta * C + (1 - theta) * PetscMin(C, theta * W);
}

/* The part of a non-blocking reduction of cost C (its blocking cost) hidden behind the work W of a solver that polls
   it, where a reduction polled back to back takes t_poll to complete (the profile's; on a TCP network much longer
   than a blocking one: each poll is a system call and the collective's schedule moves one step per poll): during W
   the fraction W / t_poll of it is done, the rest is waited for at the blocking rate. Without t_poll: 000's full
   overlap, min(C, W). */
PetscReal PKModelOverlapPolled(PetscReal C, PetscReal W, PetscReal t_poll)
{
  if (W <= 0 || C <= 0) return 0;
  if (!(t_poll > 0)) return PetscMin(C, W);
  return C * PetscMin(1, W / PetscMax(t_poll, C));
}

/* One MPI_Test after each of the nmax pieces of W until the reduction is seen complete: t_poll (the time it takes
   polled back to back) covered by pieces and calls, seen half a step late on average; at least one call, at most
   nmax */
PetscReal PKModelTestsPerReduction(PetscReal t_poll, PetscReal W, PetscReal nmax, PetscReal t_test)
{
  const PetscReal step = (nmax > 0 ? W / nmax : W) + t_test;

  if (nmax < 1) nmax = 1;
  if (!(t_poll > 0) || !(step > 0)) return 1;
  return PetscMax(1, PetscMin(nmax, t_poll / step + 0.5));
}

/* The t_poll with which the solver's non-blocking reductions of one cycle would make `tests` calls each on average
   (the count a run measured), by bisection: the count grows with t_poll. < 0 if the solver does not poll */
PetscErrorCode PKModelPollFromTests(const PKSolverConfig *cfg, PetscReal t_spmv, PetscReal t_pc, PetscReal t_test, PetscReal tests, PetscReal *t_poll)
{
  PKSolverShape sh;
  PetscReal     lo = 0, hi = 1.0, W[2 * PK_COST_MAXRED + 64], nmax[2 * PK_COST_MAXRED + 64];
  PetscInt      n = 0;

  PetscFunctionBegin;
  *t_poll = -1;
  PetscCall(PKSolverShapeGet(cfg, 0, &sh));
  for (PetscInt i = 0; i < sh.nred && n < (PetscInt)(sizeof(W) / sizeof(W[0])); i++) {
    PKReductionSpec r;
    PetscCall(PKSolverShapeReduction(cfg, &sh, i, &r));
    if (PKSolverTestsMax(cfg, &r) <= 0) continue;
    W[n]      = r.w_spmv * t_spmv + r.w_pc * t_pc;
    nmax[n++] = PKSolverTestsMax(cfg, &r);
  }
  if (!n || !(t_test > 0) || !(tests >= 0)) PetscFunctionReturn(0);
  for (int it = 0; it < 60; it++) {
    PetscReal mid = 0.5 * (lo + hi), sum = 0;
    for (PetscInt i = 0; i < n; i++) sum += PKModelTestsPerReduction(mid, W[i], nmax[i], t_test);
    if (sum / n < tests) lo = mid;
    else hi = mid;
  }
  *t_poll = 0.5 * (lo + hi);
  PetscFunctionReturn(0);
}

/*
   PKModelRecvFromTests - what receiving one message cost inside the progress calls of a run that polled: the calls'
   time (calls x t_test, per rank over the solve) less what they cost with nothing arriving (t_idle each), over the
   messages they received: halo_msgs for each SpMV inside a polled window, one per round of each non-blocking
   reduction (the rounds of the layout's recursive doubling), K iterations of the solver's cycle. < 0 where it
   cannot be told. On a TCP network the receiving is work that a blocking type does in its halo wait.

   Level: developer
*/
PetscReal PKModelRecvFromTests(const PKSolverConfig *cfg, const PKLayout *lay, PetscReal halo_msgs, PetscReal K, PetscReal calls, PetscReal t_test, PetscReal t_idle)
{
  PKSolverShape s;
  PetscReal     npolled = 0, nnb = 0, msgs, rounds = 0;

  if (!(calls > 0) || !(t_test > t_idle) || !(t_idle > 0) || !(K > 0) || lay->P <= 1) return -1;
  if (PKSolverShapeGet(cfg, 0, &s) || s.its <= 0) return -1;
  for (PetscInt i = 0; i < s.nred; i++) {
    PKReductionSpec r;
    if (PKSolverShapeReduction(cfg, &s, i, &r) || r.blocking || PKSolverTestsMax(cfg, &r) <= 0) continue;
    npolled += r.w_spmv;
    nnb += 1;
  }
  for (PetscInt p = 1; p < lay->P; p *= 2) rounds++;
  msgs = K / s.its * (PetscMin(npolled, s.nspmv) * PetscMax(0, halo_msgs) + nnb * rounds);
  return msgs > 0 ? calls * (t_test - t_idle) / msgs : -1;
}

/* The messages of one exchange (all localities and protocols) */
PetscReal PKCommCostMessages(const PKCommCost *c)
{
  PetscReal n = 0;
  for (PetscInt l = 0; l < PK_NLOC; l++)
    for (PetscInt p = 0; p < PK_NPROTO; p++) n += c->nmsg[l][p];
  return n;
}

/* The share of the synchronization gap that a halo exchange exposes whatever the reductions overlap. A message whose
   sender waits for a late receiver (a rendezvous: larger than the profile's sync_limit, PKModelSyncLimit) completes
   only when both ends have reached MPI: each rank waits there for the slowest of itself and its n neighbours, the
   expected maximum of n + 1 of the P ranks' spreads against all P's (a normal law, as the what-if for P ranks scales
   the gap). Other messages are sent whether or not the receiver is there, and its interior rows absorb a
   neighbour's lateness: 0. Two ranks that exchange such a halo wait for each other every iteration (1), as the
   blocking reductions would */
PetscErrorCode PKModelSyncHaloShare(const PKCommCost *halo, PetscInt P, PetscReal *f)
{
  PetscReal nsync = 0, n = PKCommCostMessages(halo), e_nb, e_all;

  PetscFunctionBegin;
  *f = 0;
  for (PetscInt l = 0; l < PK_NLOC; l++) nsync += halo->nsync[l];
  if (P <= 1 || !(nsync > 0)) PetscFunctionReturn(0);
  PetscCall(PKEMaxNormal(0, 1, PetscMin((PetscReal)P, PetscCeilReal(n) + 1), &e_nb));
  PetscCall(PKEMaxNormal(0, 1, P, &e_all));
  *f = e_all > 0 ? PetscMin(1, PetscMax(0, e_nb / e_all)) : 0;
  PetscFunctionReturn(0);
}

/* The MPI_Test calls a reduction's window can hold: an SpMV tests between its chunks of local rows, once before the
   halo's end and between the chunks of its off-process rows (src/core/spmv.c); a preconditioner application before
   and after (src/ksp/utils/common.c). 0: the solver does not poll */
PetscReal PKSolverTestsMax(const PKSolverConfig *cfg, const PKReductionSpec *r)
{
  const PetscInt chunks = cfg->have_cost ? cfg->cost.chunks : 1;

  if (r->blocking || chunks <= 1 || !(cfg->kind == PK_SOLVER_NBPCG || cfg->kind == PK_SOLVER_PIPECG || cfg->kind == PK_SOLVER_PIPE2CG || cfg->kind == PK_SOLVER_PGMRES)) return 0;
  return PetscMax(1, r->w_spmv * (2 * chunks) + r->w_pc * 2);
}

PetscReal PKModelThetaFromCounts(PetscInt nearly, PetscInt nreductions)
{
  if (nreductions <= 0) return -1;
  return PetscMin(1, PetscMax(0, (PetscReal)nearly / nreductions));
}

/*
   PKModelThetaByWindow - the measured fraction theta of non-blocking reductions complete before their wait, spread
   over the n reductions of a cycle by their windows W[] (the work each is overlapped with): the longest windows
   first, equal windows alike, theta n reductions' worth in all. A reduction behind a longer window is the likelier
   to complete: nbpcg overlaps one reduction with an SpMV and one with a preconditioner application, and across two
   emulated nodes (theta 0.49) the late half waited about their whole cost (22 us of 24) where a theta shared alike
   would have hidden them (docs/models.md §2.3).

   Level: developer
*/
PetscErrorCode PKModelThetaByWindow(PetscInt n, const PetscReal W[], PetscReal theta, PetscReal th[])
{
  PetscInt *idx;
  PetscReal budget = PetscMax(0, PetscMin(1, theta)) * n;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n, &idx));
  for (PetscInt i = 0; i < n; i++) idx[i] = i;
  PetscCall(PetscSortRealWithPermutation(n, W, idx)); /* ascending: walked from the end */
  for (PetscInt hi = n - 1; hi >= 0;) {
    PetscInt  lo = hi, m;
    PetscReal t;
    while (lo > 0 && W[idx[lo - 1]] == W[idx[hi]]) lo--;
    m = hi - lo + 1;
    t = PetscMax(0, PetscMin(1, budget / m));
    for (PetscInt k = lo; k <= hi; k++) th[idx[k]] = t;
    budget -= m * t;
    hi = lo - 1;
  }
  PetscCall(PetscFree(idx));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */

/* pipekrylov's non-blocking solvers poll their reductions with MPI_Test (progress chunking); PETSc's split
   reductions (groppcg, petsc_pipecg, petsc_pgmres) do not */
static PetscBool PKPolls(PKSolverKind k)
{
  return (k == PK_SOLVER_NBPCG || k == PK_SOLVER_PIPECG || k == PK_SOLVER_PIPE2CG || k == PK_SOLVER_PGMRES) ? PETSC_TRUE : PETSC_FALSE;
}

/* PETSc's types whose reductions are split (VecXxxBegin/End): an MPI_Iallreduce posted, no MPI call until its wait,
   and the MPI logged apart from the vector work (VecReduceComm, VecReduceEnd) */
PetscBool PKSolverSplitReductions(PKSolverKind k)
{
  return (k == PK_SOLVER_PETSC_GROPPCG || k == PK_SOLVER_PETSC_PIPECG || k == PK_SOLVER_PETSC_PGMRES) ? PETSC_TRUE : PETSC_FALSE;
}

/* The share of a solver's non-blocking reductions its MPI completes while the ranks compute and make no call: the
   profile's nbc_async for PETSc's split reductions; none for pipekrylov's, whose recursive doubling moves only when
   called (and for the blocking types, which have no such reduction) */
PetscReal PKModelAsyncShare(const PKMachineParams *m, PKSolverKind k)
{
  return PKSolverSplitReductions(k) ? PetscMin(1, PetscMax(0, m->nbc_async)) : 0;
}

typedef struct {
  const PKMachineParams *m;
  const PKSolveInput    *in;
  PetscReal              t_stream;           /* s per vector stream (from the measured solver) */
  PetscReal              halo_hidden;        /* of each SpMV's halo, as measured (less what receiving moves there) */
  PetscReal              halo_hidden_polled; /* of an SpMV's in a polled window (more, where receiving moves there) */
  PetscReal              sync;               /* synchronization gap per iteration, by the solver's rule */
  PetscReal              sync_halo;          /* of it, what the halo exchanges expose, which no reduction's overlap hides */
  PetscReal              theta;
  PetscBool              ideal; /* theta not measured, a solver that polls: 000's full overlap, min(C, W) */
  PetscReal              async; /* PETSc's split reductions: the share the MPI completes with no call */
  PetscReal              allr_max;
} PKSolveCtx;

/* Charge `mult` copies of the cycle `s` to t[] */
static PetscErrorCode PKAccumulateCycle(PKSolveCtx *ctx, const PKSolverShape *s, PetscReal mult, PetscReal t[])
{
  const PKSolveInput *in  = ctx->in;
  PetscInt            nnb = 0, j = 0, gapw;
  PetscReal           sync_hideable = s->its * PetscMax(0, ctx->sync - ctx->sync_halo), *Wc, *th, npolled = 0;

  PetscFunctionBegin;
  if (mult <= 0) PetscFunctionReturn(0);
  t[PK_TERM_SPMV] += mult * s->nspmv * in->t_spmv;
  t[PK_TERM_PC] += mult * s->npc * in->t_pc;
  t[PK_TERM_VEC] += mult * s->streams * ctx->t_stream;
  for (PetscInt k = 0; k < PK_CT_N; k++) t[PK_TERM_HALO_POSTAL + k] += mult * s->nspmv * in->halo.t[k];
  /* the gap: what the halo exposes, and the rest, which the non-blocking reductions' windows may hide */
  t[PK_TERM_SYNC] += mult * (s->its * ctx->sync_halo + sync_hideable);
  /* the non-blocking reductions' windows, and the measured theta by window: which of them were the early ones; the
     SpMVs in windows that poll */
  PetscCall(PetscMalloc2(s->nred, &Wc, s->nred, &th));
  for (PetscInt i = 0; i < s->nred; i++) {
    PKReductionSpec r;
    PetscCall(PKSolverShapeReduction(&in->solver, s, i, &r));
    if (!r.blocking) Wc[nnb++] = r.w_spmv * in->t_spmv + r.w_pc * in->t_pc;
    if (!r.blocking && PKSolverTestsMax(&in->solver, &r) > 0) npolled += r.w_spmv;
  }
  npolled = PetscMin(npolled, s->nspmv);
  t[PK_TERM_HALO_OVERLAP] -= mult * ((s->nspmv - npolled) * ctx->halo_hidden + npolled * ctx->halo_hidden_polled);
  /* which window the gap meets (PKSolverGapReduction): nbpcg's (p, A p), behind the PC application alone; else
     shared evenly among the non-blocking reductions */
  PetscCall(PKSolverGapReduction(&in->solver, s, &gapw));
  if (!ctx->ideal) PetscCall(PKModelThetaByWindow(nnb, Wc, ctx->theta, th));
  for (PetscInt i = 0; i < s->nred; i++) {
    PKReductionSpec r;
    PKAllreduceCost a;

    PetscCall(PKSolverShapeReduction(&in->solver, s, i, &r));
    PetscCall(PKModelAllreduce(ctx->m, &in->layout, r.nvals, &in->net, &a));
    ctx->allr_max = PetscMax(ctx->allr_max, a.total);
    t[PK_TERM_ALLR_COMM] += mult * a.comm;
    t[PK_TERM_ALLR_LOCAL] += mult * a.local;
    t[PK_TERM_ALLR_HOPS] += mult * a.hops;
    t[PK_TERM_ALLR_CONGESTION] += mult * a.congestion;
    if (!r.blocking) {
      /* the reduction and its share of the waiting for the slowest rank can hide behind the overlapped work, which
         includes the progress calls made during it */
      PetscReal W = Wc[j], C = a.total + (gapw < 0 ? sync_hideable / nnb : (j == gapw ? sync_hideable : 0)), nmax = PKSolverTestsMax(&in->solver, &r), tests = 0;
      /* posting it: a call that may send (TCP: a system call), charged with the progress calls; only the types that
         poll, whose posts the recorder times (PETSc's split reductions post inside their measured vector work), also
         with -ksp_pipe_chunks 1 (no calls); one rank's reductions complete at once: no post, no call */
      if (in->layout.P <= 1) nmax = 0;
      if (in->layout.P > 1 && PKPolls(in->solver.kind) && in->t_post > 0) t[PK_TERM_TESTS] += mult * in->t_post;
      if (nmax > 0 && in->t_test > 0) {
        tests = in->tests_red >= 0 ? PetscMin(nmax, in->tests_red) : PKModelTestsPerReduction(in->t_poll, W, nmax, in->t_test);
        t[PK_TERM_TESTS] += mult * tests * in->t_test;
        W += tests * in->t_test;
      }
      if (ctx->ideal) t[PK_TERM_OVERLAP] -= mult * PKModelOverlapPolled(C, W, nmax > 0 ? in->t_poll : 0);
      else t[PK_TERM_OVERLAP] -= mult * PetscMax(PKModelOverlapHidden(C, W, th[j]), ctx->async * PetscMin(C, W));
      j++;
    }
  }
  PetscCall(PetscFree2(Wc, th));
  PetscFunctionReturn(0);
}

/* The start-up unit: its SpMVs, PCs, vector streams and one exposed reduction (GMRES: the restart residual) */
static PetscErrorCode PKInitCost(PKSolveCtx *ctx, const PKSolverShape *s, PetscReal mult, PetscReal t[])
{
  const PKSolveInput *in = ctx->in;
  PKAllreduceCost     a;

  PetscFunctionBegin;
  if (mult <= 0) PetscFunctionReturn(0);
  t[PK_TERM_SPMV] += mult * s->init_spmv * in->t_spmv;
  t[PK_TERM_PC] += mult * s->init_pc * in->t_pc;
  t[PK_TERM_VEC] += mult * PKInitStreams(&in->solver) * ctx->t_stream;
  for (PetscInt k = 0; k < PK_CT_N; k++) t[PK_TERM_HALO_POSTAL + k] += mult * s->init_spmv * in->halo.t[k];
  t[PK_TERM_HALO_OVERLAP] -= mult * s->init_spmv * ctx->halo_hidden;
  if (s->init_nvals > 0) {
    PetscCall(PKModelAllreduce(ctx->m, &in->layout, s->init_nvals, &in->net, &a));
    t[PK_TERM_ALLR_COMM] += mult * a.comm;
    t[PK_TERM_ALLR_LOCAL] += mult * a.local;
    t[PK_TERM_ALLR_HOPS] += mult * a.hops;
    t[PK_TERM_ALLR_CONGESTION] += mult * a.congestion;
    t[PK_TERM_SYNC] += mult * ctx->sync;
  }
  PetscFunctionReturn(0);
}

/* vector time per stream, from the solver whose t_vec was measured */
static PetscReal PKStreamTime(const PKSolveInput *in)
{
  PetscReal st = PKSolverStreams(&in->solver);
  return st > 0 ? in->t_vec / st : 0;
}

/* The network penalties' statuses: where their inputs came from, or what is missing. Hops and contention come from
   the switch tree (contention may also be 004 eq 7's estimate from the hops, for runs larger than this one: modelled);
   congestion from the network counters; each needs its profile parameter (hop_latency, delta, stall_time) */
static void PKNetTermStatus(const PKMachineParams *m, PetscReal t_stall, PetscBool hops, PetscBool l_counted, PetscBool counters, PKTermStatus *sh, PKTermStatus *sc, PKTermStatus *sg)
{
  *sh = !hops ? PK_TERM_NO_TOPOLOGY : (m->hop_latency > 0 ? PK_TERM_TREE : PK_TERM_NOT_CALIBRATED);
  if (l_counted) *sc = m->delta > 0 ? PK_TERM_TREE : PK_TERM_NOT_CALIBRATED;
  else *sc = hops ? (m->delta > 0 ? PK_TERM_MODELLED : PK_TERM_NOT_CALIBRATED) : PK_TERM_NO_TOPOLOGY;
  *sg = !counters ? PK_TERM_NOT_MEASURED : (t_stall > 0 ? PK_TERM_COUNTERS : PK_TERM_NOT_CALIBRATED);
}

/* Why each term that does not arise here does not: every report lists every term, with this reason where it is n/a */
static void PKTermWhyNotApplicable(const PKSolveInput *in, PetscBool blocking, PKModelResult *res)
{
  const char *one_rank = "one rank", *one_node = "one node"; /* short: the report's lines stay within 100 columns */

  for (PetscInt k = 0; k < PK_TERM_N; k++) {
    res->na_why[k] = NULL;
    if (res->status[k] != PK_TERM_NOT_APPLICABLE) continue;
    switch ((PKTermId)k) {
    case PK_TERM_HALO_OVERLAP:
      res->na_why[k] = in->layout.P <= 1 ? one_rank : "none hidden";
      break;
    case PK_TERM_SYNC:
    case PK_TERM_ALLR_COMM:
    case PK_TERM_ALLR_LOCAL:
      res->na_why[k] = one_rank;
      break;
    case PK_TERM_OVERLAP:
      res->na_why[k] = blocking ? "blocking" : one_rank;
      break;
    case PK_TERM_TESTS:
      res->na_why[k] = in->layout.P <= 1 ? one_rank : "no polling";
      break;
    case PK_TERM_OVERSUB:
      res->na_why[k] = "a core each";
      break;
    case PK_TERM_ARRIVAL:
      res->na_why[k] = in->layout.P <= 1 ? one_rank : "not measured";
      break;
    default:
      res->na_why[k] = in->layout.P <= 1 ? one_rank : one_node;
    }
  }
}

static PetscErrorCode PKModelSolve_Private(const PKMachineParams *m, const PKSolveInput *in, PetscReal t_stream, PetscBool ideal, PKModelResult *res)
{
  PKSolveCtx    ctx;
  PKSolverShape s;
  PetscReal     tinit[PK_TERM_N];
  PetscBool     gm = PKIsGMRES(in->solver.kind), blocking;
  PetscInt      K  = in->K, rule;

  PetscFunctionBegin;
  PetscCheck(in->K >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative iteration count %" PetscInt_FMT, in->K);
  PetscCheck(in->t_spmv >= 0 && in->t_pc >= 0 && in->t_vec >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative compute time (spmv %g, pc %g, vec %g)", (double)in->t_spmv, (double)in->t_pc, (double)in->t_vec);
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(PetscMemzero(tinit, sizeof(tinit)));
  PetscCall(PKSolverShapeGet(&in->solver, 0, &s));
  blocking               = s.nonblocking ? PETSC_FALSE : PETSC_TRUE;
  ctx.m                  = m;
  ctx.in                 = in;
  ctx.t_stream           = t_stream;
  ctx.halo_hidden        = PetscMin(in->halo.total, PetscMax(0, PetscMin(1, in->halo_theta)) * in->t_spmv);
  ctx.halo_hidden_polled = PetscMin(in->halo.total, ctx.halo_hidden + PetscMax(0, in->halo_recv_moved));
  ctx.halo_hidden        = PetscMax(0, ctx.halo_hidden + PetscMin(0, in->halo_recv_moved));
  PetscCall(PKSolverSyncRule(&in->solver, &s, &rule));
  ctx.sync      = in->layout.P > 1 ? PetscMax(0, in->sync[rule]) : 0;
  ctx.theta     = PetscMax(0, PetscMin(1, in->theta));
  ctx.ideal     = ideal;
  ctx.async     = PKModelAsyncShare(m, in->solver.kind);
  ctx.allr_max  = 0;
  res->kind     = in->solver.kind;
  res->K        = K;
  res->P        = in->layout.P;
  ctx.sync_halo = 0;
  if (!blocking && in->layout.P > 1 && in->sync[0] >= 0) {
    PetscReal f;
    PetscCall(PKModelSyncHaloShare(&in->halo, in->layout.P, &f));
    ctx.sync_halo = f * in->sync[0]; /* a point-to-point wait: the blocking rule's gap */
  }

  if (gm) {
    PetscInt m_ = s.its, nfull = K / m_, rest = K % m_, ncycles = nfull + (rest ? 1 : 0);
    PetscCall(PKAccumulateCycle(&ctx, &s, nfull, res->t));
    if (rest) {
      PKSolverShape sp;
      PetscCall(PKSolverShapeGet(&in->solver, rest, &sp));
      PetscCall(PKAccumulateCycle(&ctx, &sp, 1, res->t));
    }
    PetscCall(PKInitCost(&ctx, &s, ncycles - 1, res->t)); /* the restarts after the first cycle */
  } else {
    PetscReal es, ep;
    PetscCall(PKAccumulateCycle(&ctx, &s, (PetscReal)K / s.its, res->t));
    /* the last pass's work that a solve ending at max_it does not make: the applications and their halo (in a polled
       window) */
    PKSolverShapeEnd(&s, K, in->at_max_it, &es, &ep);
    res->t[PK_TERM_SPMV] -= es * in->t_spmv;
    res->t[PK_TERM_PC] -= ep * in->t_pc;
    for (PetscInt k = 0; k < PK_CT_N; k++) res->t[PK_TERM_HALO_POSTAL + k] -= es * in->halo.t[k];
    res->t[PK_TERM_HALO_OVERLAP] += es * ctx.halo_hidden_polled;
  }
  if (in->t_init >= 0) {
    res->t[PK_TERM_INIT]      = in->t_init;
    res->status[PK_TERM_INIT] = PK_TERM_MEASURED;
  } else {
    PetscCall(PKInitCost(&ctx, &s, 1, tinit));
    for (PetscInt k = 0; k < PK_TERM_N; k++) res->t[PK_TERM_INIT] += tinit[k];
    res->t[PK_TERM_INIT] += PetscMax(0, in->t_once); /* the first applications' set-up, as measured */
    res->status[PK_TERM_INIT] = PK_TERM_MODELLED;
  }

  /* k ranks per core: the core also runs the other k - 1 ranks' compute in every iteration and start-up */
  if (in->ranks_per_core > 1) {
    PetscReal compute       = res->t[PK_TERM_SPMV] + res->t[PK_TERM_PC] + res->t[PK_TERM_VEC] + tinit[PK_TERM_SPMV] + tinit[PK_TERM_PC] + tinit[PK_TERM_VEC];
    res->t[PK_TERM_OVERSUB] = in->t_cpu >= 0 ? PetscMax(0, in->ranks_per_core * in->t_cpu - compute) : (in->ranks_per_core - 1) * compute;
  }

  /* the first rank waits in the set-up for the last one to enter the solve: the same for any solver or rank count
     (the application's work before the solve), so every what-if keeps it */
  if (in->layout.P > 1 && in->t_arrival >= 0) { /* < 0: not measured (a prediction before any solve) */
    res->t[PK_TERM_ARRIVAL]      = in->t_arrival;
    res->status[PK_TERM_ARRIVAL] = PK_TERM_MEASURED;
  } else res->status[PK_TERM_ARRIVAL] = PK_TERM_NOT_APPLICABLE;

  /* statuses: say which terms rest on data this run does not have */
  res->status[PK_TERM_SPMV] = res->status[PK_TERM_PC] = res->status[PK_TERM_VEC] = PK_TERM_MEASURED;
  for (PetscInt k = PK_TERM_HALO_POSTAL; k <= PK_TERM_ALLR_CONGESTION; k++) res->status[k] = PK_TERM_MODELLED;
  PKNetTermStatus(m, in->net.t_stall, in->halo.hops_known, in->halo.contention_counted, in->halo.congestion_measured, &res->status[PK_TERM_HALO_HOPS], &res->status[PK_TERM_HALO_CONTENTION], &res->status[PK_TERM_HALO_CONGESTION]);
  if (in->layout.nodes <= 1) res->status[PK_TERM_HALO_HOPS] = res->status[PK_TERM_HALO_CONTENTION] = res->status[PK_TERM_HALO_CONGESTION] = PK_TERM_NOT_APPLICABLE;
  if (in->halo_theta <= 0) res->status[PK_TERM_HALO_OVERLAP] = PK_TERM_NOT_APPLICABLE;
  if (in->halo.total == 0 && in->layout.P == 1)
    for (PetscInt k = PK_TERM_HALO_POSTAL; k <= PK_TERM_HALO_OVERLAP; k++) res->status[k] = PK_TERM_NOT_APPLICABLE;
  {
    PKTermStatus unused;
    PKNetTermStatus(m, in->net.t_stall, (PetscBool)(in->net.hops > 0), PETSC_FALSE, (PetscBool)(in->net.stalls_per_byte >= 0), &res->status[PK_TERM_ALLR_HOPS], &unused, &res->status[PK_TERM_ALLR_CONGESTION]);
  }
  if (in->layout.nodes <= 1) res->status[PK_TERM_ALLR_HOPS] = res->status[PK_TERM_ALLR_CONGESTION] = PK_TERM_NOT_APPLICABLE;
  if (in->layout.P <= 1) res->status[PK_TERM_ALLR_COMM] = res->status[PK_TERM_ALLR_LOCAL] = PK_TERM_NOT_APPLICABLE;
  res->status[PK_TERM_SYNC]    = in->layout.P <= 1 ? PK_TERM_NOT_APPLICABLE : (in->sync[rule] < 0 ? PK_TERM_NOT_MEASURED : PK_TERM_MEASURED);
  res->status[PK_TERM_OVERLAP] = blocking ? PK_TERM_NOT_APPLICABLE : ((in->theta < 0 && !ideal && !(ctx.async > 0)) ? PK_TERM_NOT_MEASURED : PK_TERM_MODELLED);
  {
    PKReductionSpec r0 = {0, PETSC_TRUE, 0, 0};
    for (PetscInt i = 0; i < s.nred && r0.blocking; i++) PetscCall(PKSolverShapeReduction(&in->solver, &s, i, &r0));
    if (r0.blocking || PKSolverTestsMax(&in->solver, &r0) == 0 || in->layout.P <= 1) res->status[PK_TERM_TESTS] = PK_TERM_NOT_APPLICABLE;
    else if (!(in->t_test > 0)) res->status[PK_TERM_TESTS] = PK_TERM_NOT_CALIBRATED;
    else res->status[PK_TERM_TESTS] = in->tests_red >= 0 ? PK_TERM_MEASURED : PK_TERM_MODELLED;
    /* posts without calls (-ksp_pipe_chunks 1), or without a calibrated call: the term is the posts' */
    if (res->t[PK_TERM_TESTS] > 0 && (res->status[PK_TERM_TESTS] == PK_TERM_NOT_APPLICABLE || res->status[PK_TERM_TESTS] == PK_TERM_NOT_CALIBRATED)) res->status[PK_TERM_TESTS] = PK_TERM_MODELLED;
  }
  res->status[PK_TERM_OVERSUB] = in->ranks_per_core > 1 ? PK_TERM_MODELLED : PK_TERM_NOT_APPLICABLE;
  PKTermWhyNotApplicable(in, blocking, res);

  res->total = 0;
  for (PetscInt k = 0; k < PK_TERM_N; k++) res->total += res->t[k];
  res->per_iteration = K > 0 ? (res->total - res->t[PK_TERM_INIT] - res->t[PK_TERM_ARRIVAL]) / K : 0;
  res->allreduce_one = ctx.allr_max;
  res->halo_one      = in->halo.total;
  PetscFunctionReturn(0);
}

PetscErrorCode PKModelSolve(const PKMachineParams *m, const PKSolveInput *in, PKModelResult *res)
{
  PetscFunctionBegin;
  PetscCall(PKModelSolve_Private(m, in, PKStreamTime(in), PETSC_FALSE, res));
  PetscFunctionReturn(0);
}

PetscBool PKSolverItersComparable(PKSolverKind a, PKSolverKind b)
{
  return PKIsGMRES(a) == PKIsGMRES(b) ? PETSC_TRUE : PETSC_FALSE;
}

/* The index of a kind in the profile's vec_row[] (PK_VEC_NTYPES), -1 for a type not calibrated */
static PetscInt PKVecTypeIndex(PKSolverKind k)
{
  switch (k) {
  case PK_SOLVER_PCG:
    return 0;
  case PK_SOLVER_SAPCG:
    return 1;
  case PK_SOLVER_NBPCG:
    return 2;
  case PK_SOLVER_PIPECG:
    return 3;
  case PK_SOLVER_PIPE2CG:
    return 4;
  case PK_SOLVER_PETSC_CG:
    return 5;
  default:
    return -1;
  }
}

/* Whether pipekrylov-calibrate times this type's vector kernels (PKModelVecRatio) */
PetscBool PKModelVecCalibrates(PKSolverKind k)
{
  return PKVecTypeIndex(k) >= 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* A type's calibrated vector work per row at `rows`: log-log between the two nearest sizes measured, the nearest
   one's beyond them; 0 if none was measured */
static PetscReal PKVecRowAt(const PKMachineParams *m, PetscInt t, PetscInt pc, PetscReal rows)
{
  const PetscReal n[PK_VEC_NSIZES] = {4096, 32768, 262144}; /* the vec_* fields' sizes (machine.c) */
  PetscInt        lo = -1, hi = -1;

  for (PetscInt i = 0; i < PK_VEC_NSIZES; i++) {
    if (!(m->vec_row[t][pc][i] > 0)) continue;
    if (n[i] <= rows) lo = i;
    else if (hi < 0) hi = i;
  }
  if (lo < 0 && hi < 0) return 0;
  if (lo < 0) return m->vec_row[t][pc][hi];
  if (hi < 0) return m->vec_row[t][pc][lo];
  {
    PetscReal f = PetscLogReal(rows / n[lo]) / PetscLogReal(n[hi] / n[lo]);
    return PetscExpReal((1 - f) * PetscLogReal(m->vec_row[t][pc][lo]) + f * PetscLogReal(m->vec_row[t][pc][hi]));
  }
}

/*
   PKModelVecRatio - how much more vector work per iteration a CG type `to` does than `from` on this machine, from
   the profile's calibration of each type's own kernels (bin/pipekrylov-calibrate: each type solving a 27-point
   Poisson problem alone on every rank): the fused passes differ in more than their vector streams (the dots'
   arithmetic, the passes' count, a diagonal PC inside the pass). 0 where either type was not calibrated or rows is
   unknown (the caller counts vector streams instead).

   Level: developer
*/
PetscReal PKModelVecRatio(const PKMachineParams *m, PKSolverKind from, PKSolverKind to, PetscBool pc_diagonal, PetscReal rows)
{
  PetscReal va = PKModelVecWork(m, from, pc_diagonal, rows), vb = PKModelVecWork(m, to, pc_diagonal, rows);

  return (va > 0 && vb > 0) ? vb / va : 0;
}

/*
   PKModelVecWork - a CG type's vector work per iteration on this machine at `rows` rows per rank, as calibrated
   (PKModelVecRatio); 0 where the type was not calibrated or rows is unknown.

   Level: developer
*/
PetscReal PKModelVecWork(const PKMachineParams *m, PKSolverKind kind, PetscBool pc_diagonal, PetscReal rows)
{
  PetscInt t = PKVecTypeIndex(kind);

  return (t < 0 || !(rows > 0)) ? 0 : rows * PKVecRowAt(m, t, pc_diagonal ? 0 : 1, rows);
}

/* The same problem with another solver: same K, per-application SpMV/PC times, vector time per stream */
PetscErrorCode PKModelWhatIfSolver(const PKMachineParams *m, const PKSolveInput *in, const PKSolverConfig *target, PKModelResult *res)
{
  PKSolveInput w  = *in;
  PetscReal    ts = PKStreamTime(in), st = PKSolverStreams(target);

  PetscFunctionBegin;
  w.solver = *target;
  w.t_init = -1;
  /* the target's time per vector stream: the run's, or, where both types' kernels were calibrated on this machine,
     the run's vector time scaled by the ratio of the two types' calibrated vector work */
  /* (the calibration ran each type as it runs by default: a run that fused its diagonal PC otherwise, e.g.
     -ksp_pipecg_fused 0, keeps the stream count) */
  if (target->kind != in->solver.kind && st > 0 && in->solver.pc_fused == (PetscBool)(in->pc_diagonal && PKSolverCanFusePC(&in->solver))) {
    PetscReal ratio = PKModelVecRatio(m, in->solver.kind, target->kind, in->pc_diagonal, in->rows);
    if (ratio > 0) ts = in->t_vec * ratio / st;
  }
  w.t_vec = ts * st;
  /* the target's progress calls: from the time a reduction took to complete in this run's polling, where it polled
     (the count measured, its pieces' length), else from the profile's */
  w.tests_red = -1;
  if (in->tests_red >= 0 && in->t_test > 0) {
    PetscReal tp;
    PetscCall(PKModelPollFromTests(&in->solver, in->t_spmv, in->t_pc, in->t_test, in->tests_red, &tp));
    if (tp > 0) w.t_poll = tp;
  }
  /* the overlap: the measured theta where the run is of the target's type; else a target that polls gets the
     polled-progress overlap (PKModelOverlapPolled; another type's theta says nothing of the target's windows: nbpcg
     overlaps one of its two reductions with a PC application alone), one that does not (PETSc's split reductions: no
     progress) none */
  if (target->kind != in->solver.kind) w.theta = -1;
  if (w.theta < 0 && !PKPolls(target->kind)) w.theta = 0;
  /* a run whose SpMVs were not polled received its halo's messages in its waits; a target that polls receives them
     in its progress calls, which t_test prices as a polled solve pays them: its windowed SpMVs hide that much more.
     The other way, a run that polled received its halo in its calls, and a target that does not poll waits for it
     in each SpMV: the run's hidden share less its messages' receiving */
  w.halo_recv_moved = 0;
  if (PKPolls(in->solver.kind) != PKPolls(target->kind) && in->t_recv > 0) w.halo_recv_moved = (PKPolls(target->kind) ? 1 : -1) * PKCommCostMessages(&in->halo) * in->t_recv;
  PetscCall(PKModelSolve_Private(m, &w, ts, (PetscBool)(w.theta < 0 && PKPolls(target->kind)), res));
  if (target->kind != in->solver.kind) res->status[PK_TERM_VEC] = PK_TERM_MODELLED;
  PetscFunctionReturn(0);
}

/* Weak scaling to P ranks: per-rank work constant, ppn unchanged, more nodes and allreduce rounds, the
   synchronization gap grows like the expected maximum of P standard normals */
PetscErrorCode PKModelWhatIfRanks(const PKMachineParams *m, const PKSolveInput *in, PetscInt P, const PKCommCost *halo_at_P, PKModelResult *res)
{
  PKSolveInput w = *in;
  PetscReal    e0, e1;

  PetscFunctionBegin;
  PetscCheck(P >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rank count %" PetscInt_FMT " < 1", P);
  w.layout.P     = P;
  w.layout.ppn   = PetscMin(PetscMax(in->layout.ppn, 1), P);
  w.layout.nodes = (P + w.layout.ppn - 1) / w.layout.ppn;
  w.t_init       = -1;
  if (halo_at_P) w.halo = *halo_at_P;
  if (P != in->layout.P) {
    if (in->layout.P > 1) {
      PetscCall(PKEMaxNormal(0, 1, in->layout.P, &e0));
      PetscCall(PKEMaxNormal(0, 1, P, &e1));
      for (PetscInt r = 0; r < 2; r++)
        if (in->sync[r] >= 0) w.sync[r] = in->sync[r] * e1 / e0;
    } else w.sync[0] = w.sync[1] = -1; /* one rank shows no spread to scale */
    /* a reduction over more ranks takes more rounds, and a solver that polls sees it complete after more progress
       calls: the run's measured calls per reduction and fraction found complete belong to its own rank count, so
       the target's come from the polled-progress model with the profile's time for the new layout */
    if (PKPolls(in->solver.kind)) {
      PetscReal tp = PKModelPollTime(m, &w.layout);
      if (tp > 0) w.t_poll = tp;
      w.tests_red = -1;
      w.theta     = -1;
    }
  }
  PetscCall(PKModelSolve_Private(m, &w, PKStreamTime(in), (PetscBool)(w.theta < 0 && PKPolls(in->solver.kind)), res));
  PetscFunctionReturn(0);
}
