static const char help[] = "Each solver's own cost description (KSPPipeGetCost_C, pkcost.h) as the performance model uses it.\n"
                           "1. On a bare typed KSP (KSPCreate, KSPSetType, no set-up) every pipekrylov type answers, as the pattern of\n"
                           "   its own name, with its live norm type (pipe2cg's natural norm reduces 9 values, not 11).\n"
                           "   -check_solves: each description against what its solver does in a solve of laplace2d through a counting\n"
                           "   shell operator and PC (MatMult, PCApply and reductions, start-up included, within a few).\n"
                           "   -check_type <type> [-check_rtol r] [-check_slack n]: the same for one type, with the command line's options\n"
                           "   (n: the applications the solve may make beyond the description, default 4).\n"
                           "2. A solve with the options given (e.g. -ksp_type pipe2cg -ksp_pipe2cg_replace 20) is modelled with the\n"
                           "   solver's live replacement period: -expect_replace <k> checks it and the modelled SpMV/PC per cycle.\n"
                           "Prints one line per check; exit status 1 on a mismatch.\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkmodel.h>
#include <pipekrylov/private/pkkspimpl.h>
#include "problems.h"

static PetscErrorCode GetCost(KSP ksp, PKSolverCost *cost, PetscBool *found)
{
  PetscErrorCode (*f)(KSP, PKSolverCost *);

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)ksp, "KSPPipeGetCost_C", &f));
  *found = f ? PETSC_TRUE : PETSC_FALSE;
  if (f) PetscCall((*f)(ksp, cost));
  PetscFunctionReturn(0);
}

/* The operator and the preconditioner wrapped in shells that count their applications (a shell PC is no diagonal
   PC: nothing is applied inside a fused vector pass) */
typedef struct {
  Mat      A;
  PetscInt n;
} Counted;

static PetscErrorCode CountedMult(Mat S, Vec x, Vec y)
{
  Counted *c;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &c));
  c->n++;
  PetscCall(MatMult(c->A, x, y));
  PetscFunctionReturn(0);
}

typedef struct {
  Vec      dinv;
  PetscInt n;
} CountedPC;

static PetscErrorCode CountedApply(PC pc, Vec x, Vec y)
{
  CountedPC *c;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &c));
  c->n++;
  PetscCall(VecPointwiseMult(y, c->dinv, x));
  PetscFunctionReturn(0);
}

/* Solve laplace2d with TYPE (and the command line's options) and compare what the solve did with what the type's
   description makes the model charge: operator and PC applications and reductions, start-up included. The
   pipelined types do a little more than the pattern (a true-residual check per convergence claim, the check at
   exit): `slack` applications. A description that is off by one application per iteration (e.g. a recompute not
   declared) is off by K. */
static PetscErrorCode CheckAgainstSolve(PKProblem *p, const char *type, PetscReal rtol, PetscInt slack)
{
  KSP            ksp;
  PC             pc;
  Mat            S;
  Vec            x;
  Counted        ca;
  CountedPC      cp;
  PKSolverCost   cost;
  PKSolverConfig own;
  PKSolverShape  sh;
  PetscBool      found;
  PetscInt       K, m, n, M, N, nred, ncycles;
  PetscReal      espmv, epc, ered;

  PetscFunctionBegin;
  ca.A = p->A;
  ca.n = 0;
  cp.n = 0;
  PetscCall(MatGetLocalSize(p->A, &m, &n));
  PetscCall(MatGetSize(p->A, &M, &N));
  PetscCall(MatCreateShell(PETSC_COMM_WORLD, m, n, M, N, &ca, &S));
  PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))CountedMult));
  PetscCall(MatSetOption(S, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatCreateVecs(p->A, &cp.dinv, &x));
  PetscCall(MatGetDiagonal(p->A, cp.dinv));
  PetscCall(VecReciprocal(cp.dinv));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, S, S));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPSetTolerances(ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, &cp));
  PetscCall(PCShellSetApply(pc, CountedApply));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  ca.n = cp.n = 0;
  PetscCall(KSPSolve(ksp, p->b, x));
  PetscCall(KSPGetIterationNumber(ksp, &K));
  nred = ((KSP_PK *)ksp->data)->red.nblocking + ((KSP_PK *)ksp->data)->red.nnonblock;
  PetscCall(GetCost(ksp, &cost, &found));
  PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s has no KSPPipeGetCost_C", type);
  PetscCall(PKSolverConfigFromCost(&cost, &own));
  /* the model's charge (as PKModelSolve counts it): the CG family K / its cycles and the start-up; the GMRES family
     K / m full cycles, one of the remaining steps, and the start-up (the restart residual) of every cycle */
  PetscCall(PKSolverShapeGet(&own, 0, &sh));
  if (own.restart > 0 && own.kind == PK_SOLVER_PGMRES) {
    PKSolverShape sr;
    PetscInt      nfull = K / sh.its, rest = K % sh.its;

    ncycles = nfull + (rest ? 1 : 0);
    espmv   = ncycles * sh.init_spmv + nfull * sh.nspmv;
    epc     = ncycles * sh.init_pc + nfull * sh.npc;
    ered    = ncycles * (sh.init_nvals > 0 ? 1 : 0) + nfull * sh.nred;
    if (rest) {
      PetscCall(PKSolverShapeGet(&own, rest, &sr));
      espmv += sr.nspmv;
      epc += sr.npc;
      ered += sr.nred;
    }
  } else {
    ncycles = (K + sh.its - 1) / sh.its;
    espmv   = sh.init_spmv + (PetscReal)K * sh.nspmv / sh.its;
    epc     = sh.init_pc + (PetscReal)K * sh.npc / sh.its;
    ered    = (sh.init_nvals > 0 ? 1 : 0) + (PetscReal)ncycles * sh.nred;
    { /* what a solve ending at max_it leaves out of its last pass */
      KSPConvergedReason why;
      PetscReal          es, ep;
      PetscCall(KSPGetConvergedReason(ksp, &why));
      PKSolverShapeEnd(&sh, K, (PetscBool)(why == KSP_DIVERGED_ITS), &es, &ep);
      espmv -= es;
      epc -= ep;
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s (pattern %s) rtol %g: %" PetscInt_FMT " iterations; MatMult %" PetscInt_FMT " (description %.1f), PCApply %" PetscInt_FMT " (%.1f), reductions %" PetscInt_FMT " (%.1f)\n", type, cost.pattern, (double)rtol, K, ca.n, (double)espmv, cp.n, (double)epc, nred, (double)ered));
  if (cost.recompute_spmv > 0) { /* the pipelined types: the counts behind the averages (pkcost.h), for the report */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: last solve %" PetscInt_FMT " iterations, %" PetscInt_FMT " passes recomputed (%g MatMult + %g PCApply each), %" PetscInt_FMT " replacements, %" PetscInt_FMT " gap measurements; recompute on at %" PetscInt_FMT "%s%s\n", type,
                          cost.its_last, cost.nrecomputed, (double)cost.recompute_spmv, (double)cost.recompute_pc, cost.nreplaced, cost.nprobed, cost.recompute_on_at, cost.recompute_why && cost.recompute_why[0] ? ": " : "", cost.recompute_why ? cost.recompute_why : ""));
    PetscCheck(cost.its_last == K && cost.nrecomputed >= 0 && cost.nrecomputed * cost.its <= K && (cost.nrecomputed > 0) == (cost.recompute_on_at >= 0), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the counts of the last solve do not match it", type);
  }
  PetscCheck(PetscAbsReal(ca.n - espmv) <= slack && PetscAbsReal(cp.n - epc) <= slack && PetscAbsReal(nred - ered) <= slack, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: its description does not match its solve (slack %" PetscInt_FMT ")", type, slack);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&S));
  PetscCall(VecDestroy(&cp.dinv));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  expect = -1;
  PetscBool found, check_solves = PETSC_FALSE, one = PETSC_FALSE;
  char      check_type[64] = "";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-expect_replace", &expect, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_solves", &check_solves, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-check_type", check_type, sizeof(check_type), &one));
  if (one) { /* one type, with the command line's options (e.g. its recompute) */
    PKProblem p;
    PetscReal rtol  = 1e-8;
    PetscInt  slack = 4;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-check_rtol", &rtol, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-check_slack", &slack, NULL));
    PetscCall(PKProblemCreate(PETSC_COMM_WORLD, "laplace2d", &p));
    PetscCall(CheckAgainstSolve(&p, check_type, rtol, slack));
    PetscCall(PKProblemDestroy(&p));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s's description matches its solve\n", check_type));
  }
  /* 1: every type answers on a bare typed KSP, as the pattern of its own name, with the live norm type */
  for (int k = 0; k < PK_SOLVER_NOURS; k++) {
    KSP            ksp;
    PKSolverCost   cost;
    PKSolverConfig own;

    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, PKSolverKindNames[k]));
    PetscCall(GetCost(ksp, &cost, &found));
    PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s has no KSPPipeGetCost_C", PKSolverKindNames[k]);
    PetscCall(PKSolverConfigFromCost(&cost, &own));
    PetscCheck(own.kind == (PKSolverKind)k, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s describes itself as pattern %s", PKSolverKindNames[k], cost.pattern);
    if (k == PK_SOLVER_PIPE2CG) { /* the live norm type: with the natural norm only the 9 products */
      PetscCheck(cost.red[0].nvals == 11, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "pipe2cg, preconditioned norm: %" PetscInt_FMT " values, expected 11", cost.red[0].nvals);
      PetscCall(KSPSetNormType(ksp, KSP_NORM_NATURAL));
      PetscCall(GetCost(ksp, &cost, &found));
      PetscCheck(cost.red[0].nvals == 9, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "pipe2cg, natural norm: the solver says %" PetscInt_FMT " values per cycle, expected 9", cost.red[0].nvals);
    }
    if (k == PK_SOLVER_PCG) { /* (r, z) and the norm in the second reduction; natural: (r, z) alone */
      PetscCheck(cost.red[1].nvals == 2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "pcg: %" PetscInt_FMT " values in its second reduction, expected 2", cost.red[1].nvals);
      PetscCall(KSPSetNormType(ksp, KSP_NORM_NATURAL));
      PetscCall(GetCost(ksp, &cost, &found));
      PetscCheck(cost.red[1].nvals == 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "pcg, natural norm: %" PetscInt_FMT " values, expected 1", cost.red[1].nvals);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: %" PetscInt_FMT " reductions per %" PetscInt_FMT " iterations (the first of %" PetscInt_FMT " values; GMRES: by step), %g streams, %g SpMV, %g PC; start-up %g SpMV, %g PC; replacement every %" PetscInt_FMT "\n", PKSolverKindNames[k],
                          cost.nred, cost.its, cost.red[0].nvals, (double)cost.streams, (double)cost.nspmv, (double)cost.npc, (double)cost.init_spmv, (double)cost.init_pc, cost.replace));
    PetscCall(KSPDestroy(&ksp));
  }
  /* 1b: each description against what its solver does */
  if (check_solves) {
    PKProblem p;
    PetscCall(PKProblemCreate(PETSC_COMM_WORLD, "laplace2d", &p));
    for (int k = 0; k < PK_SOLVER_NOURS; k++) PetscCall(CheckAgainstSolve(&p, PKSolverKindNames[k], 1e-8, 4));
    PetscCall(PKProblemDestroy(&p));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok every description matches its solve\n"));
  }
  { /* PETSc's types have no description: the table stays theirs */
    KSP          ksp;
    PKSolverCost cost;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(GetCost(ksp, &cost, &found));
    PetscCheck(!found, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PETSc's cg answers KSPPipeGetCost_C");
    PetscCall(KSPDestroy(&ksp));
  }
  /* 2: a solve with the options of the command line */
  if (expect >= 0) {
    PKProblem      p;
    KSP            ksp;
    Vec            x;
    PKSolverCost   cost;
    PKSolverConfig own;
    PKSolverShape  s;
    PetscInt       its;

    PetscCall(PKProblemCreate(PETSC_COMM_WORLD, "laplace2d", &p));
    PetscCall(VecDuplicate(p.b, &x));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, p.A, p.A));
    PetscCall(KSPSetType(ksp, KSPPKPIPE2CG));
    PetscCall(KSPSetFromOptions(ksp));
    /* before a solve: the period in force, as set */
    PetscCall(GetCost(ksp, &cost, &found));
    PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "no KSPPipeGetCost_C");
    PetscCheck(cost.replace == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "described replacement period %" PetscInt_FMT " before the solve, expected %" PetscInt_FMT, cost.replace, expect);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok before the solve: %s described with a replacement every %" PetscInt_FMT " iterations\n", cost.pattern, cost.replace));
    /* after it: the replacements it did (at most every `expect` iterations), spread over the iterations */
    PetscCall(KSPSolve(ksp, p.b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(GetCost(ksp, &cost, &found));
    PetscCall(PKSolverConfigFromCost(&cost, &own));
    PetscCall(PKSolverShapeGet(&own, 0, &s));
    PetscCheck(expect == 0 || cost.nreplaced >= its / (expect + expect % 2), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " replacements in %" PetscInt_FMT " iterations with a period of %" PetscInt_FMT, cost.nreplaced, its, expect);
    PetscCheck(cost.replace == (cost.nreplaced ? PetscMax(1, its / cost.nreplaced) : 0), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "modelled replacement period %" PetscInt_FMT " after %" PetscInt_FMT " replacements in %" PetscInt_FMT " iterations", cost.replace,
               cost.nreplaced, its);
    PetscCheck(!cost.replace || PetscAbsReal(s.nspmv - (cost.nspmv + cost.its * cost.replace_spmv / cost.replace)) < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "modelled SpMV per cycle %g", (double)s.nspmv);
    PetscCheck(!cost.replace || PetscAbsReal(s.npc - (cost.npc + cost.its * cost.replace_pc / cost.replace)) < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "modelled PC per cycle %g", (double)s.npc);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok solve: %s, %" PetscInt_FMT " iterations, %" PetscInt_FMT " replacements done, modelled: replacement every %" PetscInt_FMT " iterations, %g SpMV and %g PC per %" PetscInt_FMT " iterations\n", cost.pattern, its,
                          cost.nreplaced, cost.replace, (double)s.nspmv, (double)s.npc, s.its));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(PKProblemDestroy(&p));
  }
  PetscCall(PetscFinalize());
  return 0;
}
