static const char help[] = "Each solver's own cost description (KSPPipeGetCost_C, pkcost.h) as the performance model uses it.\n"
                           "1. On a bare typed KSP (KSPCreate, KSPSetType, no set-up) every pipekrylov type answers, and with the\n"
                           "   default settings the model's cycle (PKSolverShapeGet) is the same as from the model's table, but for the\n"
                           "   SpMVs a solver says it adds to the pattern (pipecg's recompute of w = A u); the values the model reduces\n"
                           "   per cycle are the solver's own count (with its norm type: pipe2cg's natural norm reduces 9, not 11).\n"
                           "2. A solve with the options given (e.g. -ksp_type pipe2cg -ksp_pipe2cg_replace 20) is modelled with the\n"
                           "   solver's live replacement period: -expect_replace <k> checks it and the modelled SpMV/PC per cycle.\n"
                           "Prints one line per check; exit status 1 on a mismatch.\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkmodel.h>
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

static PetscErrorCode SameShape(const char *what, const PKSolverShape *a, const PKSolverShape *b)
{
  PetscFunctionBegin;
  PetscCheck(a->its == b->its && a->nspmv == b->nspmv && a->npc == b->npc && a->streams == b->streams && a->nred == b->nred && a->nonblocking == b->nonblocking && a->init_spmv == b->init_spmv && a->init_pc == b->init_pc && a->init_nvals == b->init_nvals, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s: the solver's cycle (its %" PetscInt_FMT " spmv %g pc %g streams %g nred %" PetscInt_FMT ") differs from the table's (its %" PetscInt_FMT " spmv %g pc %g streams %g nred %" PetscInt_FMT ")", what, a->its, (double)a->nspmv, (double)a->npc, (double)a->streams, a->nred, b->its, (double)b->nspmv, (double)b->npc, (double)b->streams, b->nred);
  PetscFunctionReturn(0);
}

/* the values the model reduces in a full cycle, summed over its reductions */
static PetscErrorCode ModelledValues(const PKSolverConfig *cfg, PetscInt *nv)
{
  PKSolverShape   s;
  PKReductionSpec r;

  PetscFunctionBegin;
  *nv = 0;
  PetscCall(PKSolverShapeGet(cfg, 0, &s));
  for (PetscInt i = 0; i < s.nred; i++) {
    PetscCall(PKSolverShapeReduction(cfg, &s, i, &r));
    *nv += r.nvals;
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  expect = -1;
  PetscBool found;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-expect_replace", &expect, NULL));
  /* 1: bare typed KSPs against the table */
  for (int k = 0; k < PK_SOLVER_NOURS; k++) {
    KSP            ksp;
    PKSolverCost   cost;
    PKSolverConfig tab, own;
    PKSolverShape  st, so;
    PetscInt       nv;

    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, PKSolverKindNames[k]));
    PetscCall(GetCost(ksp, &cost, &found));
    PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s has no KSPPipeGetCost_C", PKSolverKindNames[k]);
    PKSolverConfigDefault((PKSolverKind)k, &tab);
    PetscCall(PKSolverConfigFromCost(&cost, &own));
    PetscCheck(own.kind == (PKSolverKind)k, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s describes itself as pattern %s", PKSolverKindNames[k], cost.pattern);
    for (PetscInt steps = 0; steps < 3; steps++) {
      PetscCall(PKSolverShapeGet(&tab, steps, &st));
      PetscCall(PKSolverShapeGet(&own, steps, &so));
      so.nspmv -= cost.ovl_extra_spmv; /* the table has the pattern; the solver declares what it adds to it */
      so.npc -= cost.ovl_extra_pc;
      PetscCall(SameShape(PKSolverKindNames[k], &so, &st));
    }
    PetscCheck(PKSolverStreams(&tab) == PKSolverStreams(&own), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: streams differ", PKSolverKindNames[k]);
    PetscCall(ModelledValues(&own, &nv));
    PetscCheck(nv == cost.nvals, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the model reduces %" PetscInt_FMT " values per cycle, the solver says %" PetscInt_FMT, PKSolverKindNames[k], nv, cost.nvals);
    if (k == PK_SOLVER_PIPE2CG) { /* the live norm type: with the natural norm only the 9 products */
      PetscCall(KSPSetNormType(ksp, KSP_NORM_NATURAL));
      PetscCall(GetCost(ksp, &cost, &found));
      PetscCall(PKSolverConfigFromCost(&cost, &own));
      PetscCall(ModelledValues(&own, &nv));
      PetscCheck(cost.nvals == 9 && nv == 9, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "pipe2cg, natural norm: the solver says %" PetscInt_FMT " values per cycle, the model reduces %" PetscInt_FMT ", expected 9", cost.nvals, nv);
      PetscCall(KSPSetNormType(ksp, KSP_NORM_PRECONDITIONED));
      PetscCall(GetCost(ksp, &cost, &found));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: %" PetscInt_FMT " reductions of %" PetscInt_FMT " values per %" PetscInt_FMT " iterations, %g streams, %g SpMV, %g PC; start-up %g SpMV, %g PC; replacement every %" PetscInt_FMT "\n", PKSolverKindNames[k], cost.nred, cost.nvals, cost.its, (double)cost.streams, (double)cost.nspmv, (double)cost.npc, (double)cost.init_spmv, (double)cost.init_pc, cost.replace));
    PetscCall(KSPDestroy(&ksp));
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
    PetscCall(KSPSolve(ksp, p.b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(GetCost(ksp, &cost, &found));
    PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "no KSPPipeGetCost_C");
    PetscCall(PKSolverConfigFromCost(&cost, &own));
    PetscCall(PKSolverShapeGet(&own, 0, &s));
    PetscCheck(cost.replace == expect && own.replace == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "modelled replacement period %" PetscInt_FMT ", expected %" PetscInt_FMT, cost.replace, expect);
    PetscCheck(expect == 0 || PetscAbsReal(s.nspmv - (cost.nspmv + cost.its * cost.replace_spmv / expect)) < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "modelled SpMV per cycle %g", (double)s.nspmv);
    PetscCheck(expect == 0 || PetscAbsReal(s.npc - (cost.npc + cost.its * cost.replace_pc / expect)) < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "modelled PC per cycle %g", (double)s.npc);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok solve: %s, %" PetscInt_FMT " iterations, %" PetscInt_FMT " replacements done, modelled: replacement every %" PetscInt_FMT " iterations, %g SpMV and %g PC per %" PetscInt_FMT " iterations (%g replacements over the solve)\n", cost.pattern, its, cost.nreplaced, own.replace, (double)s.nspmv, (double)s.npc, s.its, expect ? (double)its / expect : 0.0));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(PKProblemDestroy(&p));
  }
  PetscCall(PetscFinalize());
  return 0;
}
