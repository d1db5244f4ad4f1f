/*
   -ksp_type autocg: the CG type the model predicts fastest for this operator, preconditioner, machine and rank
   count, and, between solves, the one measured fastest.

   At KSPSetUp it times one local SpMV, one MatMult, one preconditioner application and one vector stream, reads the
   operator's halo and the machine profile (the report's PKReportPredict), predicts each candidate's time per
   iteration with the analytic model, and becomes the fastest: KSPSetType to it, its options read, its set-up run.
   From then on the KSP is that type (KSPGetType says which); what was chosen and why is composed with it
   ("PKTypeChoice") and printed by -ksp_perfmodel_view and -ksp_view.
   Every later KSPSolve measures its time per iteration (a monitor: first to last iteration, the slowest rank).
   Before the next one, a candidate not yet run whose prediction, scaled by the model's error on the types measured,
   comes within -ksp_autocg_explore of the fastest measured one is run once; otherwise the fastest measured type
   runs. A single solve runs the model's choice.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <petsc/private/kspimpl.h>

#define PK_AUTOCG_TYPES "pcg,sapcg,nbpcg,pipecg,pipe2cg,cg"

/* what the choice keeps for the KSP, composed with it: the choice first (the report reads it) */
typedef struct {
  PKTypeChoice c;
  PKModelCtx   model;
  PKReportCtx  rep;
  PetscBool    hooked;       /* monitor and pre/post-solve hooks installed */
  PetscBool    from_options; /* KSPSetFromOptions was called: the chosen type reads its options too */
  char         list[256];    /* -ksp_autocg_types */
} PKAutoState;

static PetscErrorCode PKAutoStateDestroy(void *p)
{
  PKAutoState *s = (PKAutoState *)p;

  PetscFunctionBegin;
  PetscCall(PKModelFree(&s->model));
  PetscCall(PKReportFree(&s->rep));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKAutoStateGet(KSP ksp, PetscBool create, PKAutoState **s)
{
  PetscContainer cont;

  PetscFunctionBegin;
  *s = NULL;
  PetscCall(PetscObjectQuery((PetscObject)ksp, "PKTypeChoice", (PetscObject *)&cont));
  if (cont) {
    PetscCall(PetscContainerGetPointer(cont, (void **)s));
    PetscFunctionReturn(0);
  }
  if (!create) PetscFunctionReturn(0);
  PetscCall(PetscNew(s));
  (*s)->c.current = -1;
  (*s)->c.margin  = 0.1;
  (*s)->c.explore = PETSC_TRUE;
  PetscCall(PetscStrncpy((*s)->list, PK_AUTOCG_TYPES, sizeof((*s)->list)));
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)ksp), &cont));
  PetscCall(PetscContainerSetPointer(cont, *s));
  PetscCall(PetscContainerSetUserDestroy(cont, PKAutoStateDestroy));
  PetscCall(PetscObjectCompose((PetscObject)ksp, "PKTypeChoice", (PetscObject)cont));
  PetscCall(PetscContainerDestroy(&cont));
  PetscFunctionReturn(0);
}

/* The candidates' model descriptions: a KSP of each type, never set up, asked for its counts (with the KSP's options
   when it was configured from them) */
static PetscErrorCode PKAutoConfigs(KSP ksp, PKAutoState *s, PKSolverConfig cfg[])
{
  char       *list, *tok, *save = NULL;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscStrallocpy(s->list, &list));
  s->c.n = 0;
  for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    KSP tmp;
    PetscErrorCode (*create)(KSP);

    PetscCheck(s->c.n < PK_PREDICT_MAX, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_autocg_types lists more than %d types", PK_PREDICT_MAX);
    PetscCheck(strlen(tok) < sizeof(s->c.type[0]), PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_autocg_types: type name too long");
    PetscCall(PetscFunctionListFind(KSPList, tok, &create));
    PetscCheck(create, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_UNKNOWN_TYPE, "-ksp_autocg_types: unknown KSP type '%s'", tok);
    PetscCheck(strcmp(tok, "autocg"), PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONG, "-ksp_autocg_types cannot list autocg itself");
    PetscCall(KSPCreate(PetscObjectComm((PetscObject)ksp), &tmp));
    PetscCall(KSPSetOptionsPrefix(tmp, prefix));
    PetscCall(KSPSetType(tmp, tok));
    tmp->normtype = ksp->normtype;
    if (s->from_options) {
      PetscObjectOptionsBegin((PetscObject)tmp);
      PetscTryTypeMethod(tmp, setfromoptions, PetscOptionsObject);
      PetscOptionsEnd();
    }
    PetscCall(PKReportSolverConfig(tmp, tok, &cfg[s->c.n]));
    PetscCall(KSPDestroy(&tmp));
    PetscCheck(cfg[s->c.n].kind != PK_SOLVER_UNKNOWN, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "-ksp_autocg_types: the model has no description of '%s'", tok);
    PetscCheck(PKSolverItersComparable(cfg[s->c.n].kind, PK_SOLVER_PETSC_CG), PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "-ksp_autocg_types: '%s' is not a CG method (autocg chooses among types with the same iterates)", tok);
    PetscCall(PetscStrncpy(s->c.type[s->c.n], tok, sizeof(s->c.type[0])));
    s->c.measured[s->c.n] = -1;
    s->c.n++;
  }
  PetscCall(PetscFree(list));
  PetscCheck(s->c.n > 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONG, "-ksp_autocg_types lists no type");
  PetscFunctionReturn(0);
}

/* The type for the next solve: the fastest measured, unless a candidate not yet run may be faster (its prediction
   scaled by the model's error on the measured types, within the margin: run it once); before any measurement, the
   fastest predicted. The same on every rank (all inputs are). */
static PetscInt PKAutoPick(PKTypeChoice *c)
{
  PetscInt  best = -1, next = -1;
  PetscReal scale = 0, nscale = 0, est = PETSC_MAX_REAL;

  for (PetscInt i = 0; i < c->n; i++) {
    if (c->measured[i] < 0) continue;
    if (best < 0 || c->measured[i] < c->measured[best]) best = i;
    if (c->pred.per_iteration[i] > 0) {
      scale += c->measured[i] / c->pred.per_iteration[i];
      nscale++;
    }
  }
  if (best < 0) {
    for (PetscInt i = 0; i < c->n; i++)
      if (next < 0 || c->pred.per_iteration[i] < c->pred.per_iteration[next]) next = i;
    (void)PetscSNPrintf(c->why, sizeof(c->why), "the model's fastest: %.3g us per iteration predicted", 1e6 * (double)c->pred.per_iteration[next]);
    return next;
  }
  scale = nscale > 0 ? scale / nscale : 1;
  if (c->explore)
    for (PetscInt i = 0; i < c->n; i++) {
      PetscReal e = c->pred.per_iteration[i] * scale;
      if (c->measured[i] < 0 && e < c->measured[best] * (1 + c->margin) && e < est) {
        est  = e;
        next = i;
      }
    }
  if (next >= 0) {
    (void)PetscSNPrintf(c->why, sizeof(c->why), "tried: predicted %.3g us per iteration (model scaled by its error here, x%.2f), within %.0f%% of %s's measured %.3g", 1e6 * (double)est, (double)scale, 100 * (double)c->margin, c->type[best],
                        1e6 * (double)c->measured[best]);
    return next;
  }
  (void)PetscSNPrintf(c->why, sizeof(c->why), "the fastest measured: %.3g us per iteration over %" PetscInt_FMT " solve%s", 1e6 * (double)c->measured[best], c->nsolves[best], c->nsolves[best] == 1 ? "" : "s");
  return best;
}

/* Become candidate i: its type, its options, its set-up when asked (inside KSPSetUp; from the pre-solve hook KSPSolve's
   own KSPSetUp follows) */
static PetscErrorCode PKAutoBecome(KSP ksp, PKAutoState *s, PetscInt i, PetscBool setup)
{
  PetscBool   from_options = s->from_options;
  KSPNormType norm         = ksp->normtype;
  PCSide      side         = ksp->pc_side;

  PetscFunctionBegin;
  s->c.current = i;
  PetscCall(PetscInfo(ksp, "autocg runs %s: %s\n", s->c.type[i], s->c.why));
  PetscCall(KSPSetType(ksp, s->c.type[i])); /* destroys autocg's data, not the composed state */
  if (from_options) {
    PetscObjectOptionsBegin((PetscObject)ksp);
    PetscTryTypeMethod(ksp, setfromoptions, PetscOptionsObject);
    PetscOptionsEnd();
  }
  /* KSPSetType reset the norm and side to those the application set; KSPSetUp had resolved them already, with
     the table every candidate supports */
  ksp->normtype = norm;
  ksp->pc_side  = side;
  if (setup) PetscUseTypeMethod(ksp, setup);
  PetscFunctionReturn(0);
}

/* the solve's first and last iterations' times */
static PetscErrorCode PKAutoMonitor(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  PKTypeChoice  *c = (PKTypeChoice *)ctx;
  PetscLogDouble t;

  PetscFunctionBegin;
  (void)ksp;
  (void)rnorm;
  PetscCall(PetscTime(&t));
  if (it == 0 || c->it_first < 0) {
    c->t_first  = t;
    c->it_first = it;
  }
  c->t_last  = t;
  c->it_last = it;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKAutoPreSolve(KSP ksp, Vec b, Vec x, void *ctx)
{
  PKAutoState *s = (PKAutoState *)ctx;
  PetscInt     i;

  PetscFunctionBegin;
  s->c.it_first = -1;
  s->c.it_last  = -1;
  i             = s->c.n > 0 && s->c.current >= 0 ? PKAutoPick(&s->c) : -1;
  if (i >= 0) {
    PetscBool ours;
    /* the application set another type since (KSPSetType): its choice stands, autocg no longer switches */
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, s->c.type[s->c.current], &ours));
    if (!ours) {
      s->c.explore = PETSC_FALSE;
      s->c.current = -1;
      i            = -1;
    }
  }
  if (i >= 0 && i != s->c.current) PetscCall(PKAutoBecome(ksp, s, i, PETSC_FALSE));
  else if (i >= 0) PetscCall(PetscInfo(ksp, "autocg keeps %s: %s\n", s->c.type[i], s->c.why));
  if (s->c.presolve) PetscCall((*s->c.presolve)(ksp, b, x, s->c.prectx));
  PetscFunctionReturn(0);
}

/* the solve's time per iteration, on the slowest rank, into the mean of the type's solves */
static PetscErrorCode PKAutoPostSolve(KSP ksp, Vec b, Vec x, void *ctx)
{
  PKAutoState *s = (PKAutoState *)ctx;
  PetscReal    t = -1, tmax;
  PetscInt     i = s->c.current;

  PetscFunctionBegin;
  if (s->c.it_first >= 0 && s->c.it_last > s->c.it_first) t = (PetscReal)(s->c.t_last - s->c.t_first) / (s->c.it_last - s->c.it_first);
  PetscCallMPI(MPI_Allreduce(&t, &tmax, 1, MPIU_REAL, MPI_MAX, PetscObjectComm((PetscObject)ksp)));
  if (i >= 0 && tmax > 0) {
    s->c.measured[i] = s->c.measured[i] < 0 ? tmax : (s->c.measured[i] * s->c.nsolves[i] + tmax) / (s->c.nsolves[i] + 1);
    s->c.nsolves[i]++;
  }
  if (s->c.postsolve) PetscCall((*s->c.postsolve)(ksp, b, x, s->c.postctx));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_AUTOCG(KSP ksp)
{
  PKAutoState   *s;
  PKSolverConfig cfg[PK_PREDICT_MAX];
  PetscInt       i;

  PetscFunctionBegin;
  PetscCall(PKAutoStateGet(ksp, PETSC_TRUE, &s));
  if (s->c.n == 0) {
    PetscCall(PKAutoConfigs(ksp, s, cfg));
    PetscCall(PKReportPredict(ksp, &s->model, &s->rep, s->c.n, cfg, &s->c.pred));
  }
  if (!s->hooked) {
    PetscCall(KSPMonitorSet(ksp, PKAutoMonitor, &s->c, NULL));
    s->c.presolve  = ksp->presolve;
    s->c.prectx    = ksp->prectx;
    s->c.postsolve = ksp->postsolve;
    s->c.postctx   = ksp->postctx;
    PetscCall(KSPSetPreSolve(ksp, PKAutoPreSolve, s));
    PetscCall(KSPSetPostSolve(ksp, PKAutoPostSolve, s));
    s->hooked = PETSC_TRUE;
  }
  i = PKAutoPick(&s->c);
  PetscCall(PKAutoBecome(ksp, s, i, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetFromOptions_AUTOCG(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
  PKAutoState *s;

  PetscFunctionBegin;
  PetscCall(PKAutoStateGet(ksp, PETSC_TRUE, &s));
  s->from_options = PETSC_TRUE;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP autocg options");
  PetscCall(PetscOptionsString("-ksp_autocg_types", "The CG types autocg chooses from", "KSPAUTOCG", s->list, s->list, sizeof(s->list), NULL));
  PetscCall(PetscOptionsBool("-ksp_autocg_switch", "Between solves, run a type whose scaled prediction comes within -ksp_autocg_explore of the fastest measured one, then keep the fastest measured", "KSPAUTOCG", s->c.explore, &s->c.explore, NULL));
  PetscCall(PetscOptionsReal("-ksp_autocg_explore", "Margin (a fraction) within which a type not yet run is tried", "KSPAUTOCG", s->c.margin, &s->c.margin, NULL));
  PetscCheck(s->c.margin >= 0 && s->c.margin <= 1000, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "-ksp_autocg_explore %g: a fraction from 0 to 1000", (double)s->c.margin);
  PetscCall(PetscOptionsString("-ksp_perfmodel_machine", "Machine profile for the model (from bin/pipekrylov-calibrate); default: this host's profile, else the embedded one", "KSPAUTOCG", s->model.machine_path, s->model.machine_path, sizeof(s->model.machine_path), NULL));
  PetscOptionsHeadEnd();
  s->c.n = 0; /* the list or the machine may have changed: predict again at set-up */
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_AUTOCG(KSP ksp, PetscViewer v)
{
  PKAutoState *s;
  PetscBool    ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &ascii));
  PetscCall(PKAutoStateGet(ksp, PETSC_FALSE, &s));
  if (ascii) PetscCall(PetscViewerASCIIPrintf(v, "  chooses among %s at set-up (model), then between solves (measured)\n", s ? s->list : PK_AUTOCG_TYPES));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSolve_AUTOCG(KSP ksp)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)ksp), PETSC_ERR_ORDER, "autocg becomes the type it chooses at KSPSetUp; its own solve is never run");
}

static PetscErrorCode KSPDestroy_AUTOCG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(0);
}

/*MC
   KSPAUTOCG - "autocg": the conjugate gradient type the performance model predicts fastest for this operator,
   preconditioner, machine and rank count, chosen at KSPSetUp; between solves, the one measured fastest.

   At set-up it times a local SpMV, a MatMult, a preconditioner application and a vector update, reads the operator's
   halo and the machine profile (-ksp_perfmodel_machine, else this host's, else the embedded one), and becomes the
   candidate with the smallest predicted time per iteration (KSPGetType() then returns it). Each solve's time per
   iteration is measured; before the next solve a candidate not yet run is tried once when its prediction, scaled by
   the model's error on the types measured, comes within the margin of the fastest measured; otherwise the fastest
   measured runs. All candidates are CG methods with the same iterates in exact arithmetic.

   Options Database Keys:
+  -ksp_autocg_types <list> - the candidates (default pcg,sapcg,nbpcg,pipecg,pipe2cg,cg)
.  -ksp_autocg_switch <bool> - choose between solves from measured times (default true)
.  -ksp_autocg_explore <f> - margin within which a candidate not yet run is tried (default 0.1, at most 1000)
-  -ksp_perfmodel_machine <file> - the machine profile of the model

   Notes:
   What was chosen and why appears in -ksp_view and -ksp_perfmodel_view; -info lists every switch.

   Level: intermediate

.seealso: [](chapter_ksp), `KSPCreate()`, `KSPSetType()`, `KSPCG`, `KSPPipeGetChunks()`
M*/
PetscErrorCode KSPCreate_AUTOCG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(PKSetCGNorms(ksp)); /* the norms every CG candidate supports */
  ksp->ops->setup          = KSPSetUp_AUTOCG;
  ksp->ops->solve          = KSPSolve_AUTOCG;
  ksp->ops->setfromoptions = KSPSetFromOptions_AUTOCG;
  ksp->ops->view           = KSPView_AUTOCG;
  ksp->ops->destroy        = KSPDestroy_AUTOCG;
  PetscFunctionReturn(0);
}
