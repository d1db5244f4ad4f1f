/*
   The BoomerAMG hierarchy of a PCHYPRE, the per-level inputs of the AMG cycle model (docs/models.md §4).

   How the hierarchy is reached. PETSc's PC_HYPRE is private, and the one accessor that returned hypre's own solver
   handle (PCHYPREGetSolver) is exported by PETSc 3.18 but not by 3.22. PETSc's public PCGetCoarseOperators() and
   PCGetInterpolations() give the levels of a BoomerAMG PC as PETSc matrices, but they take the matrices out of
   hypre's hierarchy (PETSc owns them afterwards and hypre's next V-cycle crashes: checked on 3.18 and 3.22), so they
   are never called on the application's PC. They are called on a copy: a PCHYPRE of type boomeramg built on the
   same preconditioning matrix, with the same options prefix and options database, set up, read and destroyed.
   BoomerAMG's set-up is deterministic for the same matrix, options and ranks, so the copy's levels are the
   application's; tests/suites/46-amg.sh checks them against the levels hypre itself prints
   (-pc_hypre_boomeramg_print_statistics) for the application's PC. The smoother comes from the PC's own view
   (its "Sweeps ..." and "Relax ..." lines), which names what PETSc set hypre to.

   The copy costs one more BoomerAMG set-up. It is made once per set-up of the application's PC: the answer is kept
   on the PC, tagged with the preconditioning matrix's state, and made again only when that matrix has changed.

   MPI. Everything here is collective on the PC's communicator; every decision is made the same on all ranks.
*/
#include <pipekrylov.h>
#include <pipekrylov/private/pkamg.h>
#include <pipekrylov/private/pkcompat.h>
#include <petsc/private/pcimpl.h>
#include <stdarg.h>

static PetscErrorCode PKAMGWhy(char why[], size_t len, const char fmt[], ...)
{
  va_list ap;
  size_t  used;

  PetscFunctionBegin;
  if (!why || !len) PetscFunctionReturn(0);
  va_start(ap, fmt);
  PetscCall(PetscVSNPrintf(why, len, fmt, &used, ap));
  va_end(ap);
  PetscFunctionReturn(0);
}

#if defined(PETSC_HAVE_HYPRE)
/* The value after `label` on the line of the view that has it, as a word; "" if none */
static PetscErrorCode PKAMGViewWord(const char *view, const char *label, char word[], size_t len)
{
  const char *p = strstr(view, label);
  size_t      n = 0;

  PetscFunctionBegin;
  word[0] = 0;
  if (!p) PetscFunctionReturn(0);
  p += strlen(label);
  while (*p == ' ') p++;
  while (p[n] && p[n] != '\n' && p[n] != ' ' && n + 1 < len) n++;
  PetscCall(PetscStrncpy(word, p, n + 1));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKAMGViewRelax(const char *view, const char *sweeps_label, const char *relax_label, PKAMGRelax *r)
{
  char word[64];

  PetscFunctionBegin;
  r->sweeps    = 1;
  r->symmetric = PETSC_FALSE;
  r->direct    = PETSC_FALSE;
  PetscCall(PKAMGViewWord(view, sweeps_label, word, sizeof(word)));
  if (word[0]) r->sweeps = (PetscInt)strtol(word, NULL, 10);
  PetscCall(PKAMGViewWord(view, relax_label, word, sizeof(word)));
  /* hypre's relax types 6 (hybrid symmetric Gauss-Seidel) and 8 (l1 symmetric): a forward and a backward sweep;
     9 (Gaussian elimination) and its kin: a direct solve */
  r->symmetric = (PetscBool)(!strcmp(word, "symmetric-SOR/Jacobi") || !strcmp(word, "l1scaled-SOR/Jacobi"));
  r->direct    = (PetscBool)(strstr(word, "Gaussian-elimination") != NULL);
  PetscFunctionReturn(0);
}

/*
   Flops per nonzero of a level's operator in one V-cycle for smoothing and the residual: a sweep costs 2 flops per
   nonzero, a symmetric one 4; the residual 2. The coarsest level solved directly counts as one application of its
   operator.
*/
static PetscReal PKAMGSmoothFlops(const PKAMGRelax *down, const PKAMGRelax *up, const PKAMGRelax *coarse, PetscBool coarsest)
{
  if (coarsest) return coarse->direct ? 2.0 : 2.0 * coarse->sweeps * (coarse->symmetric ? 2 : 1);
  return 2.0 * down->sweeps * (down->symmetric ? 2 : 1) + 2.0 * up->sweeps * (up->symmetric ? 2 : 1) + 2.0;
}

/* The smoother of the application's PC, from its view */
static PetscErrorCode PKAMGSmoother(PC pc, PKAMGRelax *down, PKAMGRelax *up, PKAMGRelax *coarse)
{
  PetscViewer v;
  char       *buf;
  size_t      len = 16384;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(len, &buf));
  PetscCall(PetscViewerStringOpen(PETSC_COMM_SELF, buf, len, &v));
  PetscCall(PCView(pc, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PKAMGViewRelax(buf, "Sweeps down", "Relax down", down));
  PetscCall(PKAMGViewRelax(buf, "Sweeps up", "Relax up", up));
  PetscCall(PKAMGViewRelax(buf, "Sweeps on coarse", "Relax on coarse", coarse));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

/* Options that would make the copy print (hypre's statistics of every cycle): off while the copy is set up */
static const char *pk_amg_quiet[] = {"pc_hypre_boomeramg_print_statistics", "pc_hypre_boomeramg_print_debug"};
  #define PK_AMG_NQUIET 2

typedef struct {
  char      name[PK_AMG_NQUIET][256];
  char      value[PK_AMG_NQUIET][256];
  PetscBool set[PK_AMG_NQUIET];
} PKAMGQuiet;

static PetscErrorCode PKAMGQuietBegin(PetscOptions opts, const char *prefix, PKAMGQuiet *q)
{
  PetscFunctionBegin;
  for (int i = 0; i < PK_AMG_NQUIET; i++) {
    PetscCall(PetscSNPrintf(q->name[i], sizeof(q->name[i]), "-%s%s", prefix ? prefix : "", pk_amg_quiet[i]));
    PetscCall(PetscOptionsGetString(opts, NULL, q->name[i], q->value[i], sizeof(q->value[i]), &q->set[i]));
    if (q->set[i]) PetscCall(PetscOptionsSetValue(opts, q->name[i], "0"));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PKAMGQuietEnd(PetscOptions opts, PKAMGQuiet *q)
{
  PetscFunctionBegin;
  for (int i = 0; i < PK_AMG_NQUIET; i++)
    if (q->set[i]) PetscCall(PetscOptionsSetValue(opts, q->name[i], q->value[i][0] ? q->value[i] : NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode PKAMGLevelsCreate(PC pc, PKAMGLevels *lv)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PC          copy;
  Mat         Amat, Pmat, *ops = NULL, *interp = NULL;
  PetscInt    nops = 0, ninterp = 0;
  const char *prefix, *htype    = NULL;
  PKAMGQuiet  q;
  PetscBool   same;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(lv, sizeof(*lv)));
  PetscCall(PKAMGSmoother(pc, &lv->down, &lv->up, &lv->coarse));
  PetscCall(PCGetOperators(pc, &Amat, &Pmat));
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PCCreate(comm, &copy));
  PetscCall(PetscObjectSetOptions((PetscObject)copy, ((PetscObject)pc)->options));
  PetscCall(PCSetOptionsPrefix(copy, prefix));
  PetscCall(PCSetType(copy, PCHYPRE));
  PetscCall(PCHYPRESetType(copy, "boomeramg"));
  PetscCall(PCSetOperators(copy, Pmat, Pmat));
  PetscCall(PKAMGQuietBegin(((PetscObject)pc)->options, prefix, &q));
  PetscCall(PCSetFromOptions(copy));
  PetscCall(PKAMGQuietEnd(((PetscObject)pc)->options, &q));
  PetscCall(PCHYPREGetType(copy, &htype));
  PetscCall(PetscStrcmp(htype, "boomeramg", &same));
  PetscCheck(same, comm, PETSC_ERR_ARG_WRONGSTATE, "The options of the PC (prefix %s) no longer make a hypre BoomerAMG preconditioner: its hierarchy cannot be read", prefix ? prefix : "none");
  PetscCall(PCSetUp(copy));
  /* coarsest first: ops[j] is level L-1-j, interp[j] interpolates level L-1-j to L-2-j */
  PetscCall(PCGetCoarseOperators(copy, &nops, &ops));
  PetscCall(PCGetInterpolations(copy, &ninterp, &interp));
  PetscCall(PCDestroy(&copy));
  PetscCheck(nops == ninterp && nops >= 1, comm, PETSC_ERR_LIB, "BoomerAMG gave %" PetscInt_FMT " levels of operators and %" PetscInt_FMT " of interpolations", nops, ninterp);
  lv->L = nops;
  PetscCall(PetscCalloc2(lv->L, &lv->A, lv->L, &lv->P));
  PetscCall(PetscObjectReference((PetscObject)Pmat));
  lv->A[0] = Pmat;
  for (PetscInt i = 1; i < lv->L; i++) lv->A[i] = ops[lv->L - 1 - i];
  for (PetscInt i = 0; i < lv->L - 1; i++) lv->P[i] = interp[lv->L - 2 - i];
  PetscCall(PetscFree(ops));
  PetscCall(PetscFree(interp));
  PetscFunctionReturn(0);
}

PetscErrorCode PKAMGLevelsDestroy(PKAMGLevels *lv)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < lv->L; i++) {
    PetscCall(MatDestroy(&lv->A[i]));
    PetscCall(MatDestroy(&lv->P[i]));
  }
  PetscCall(PetscFree2(lv->A, lv->P));
  lv->L = 0;
  PetscFunctionReturn(0);
}

/* Messages and doubles this rank sends in one product with M: the maximum over ranks */
static PetscErrorCode PKAMGSends(Mat M, const PetscMPIInt node[], PetscReal *msgs, PetscReal *doubles)
{
  PKHaloCounts hc;
  PetscInt64   mine[2], mx[2];

  PetscFunctionBegin;
  PetscCall(PKMatGetHaloCounts(M, node, &hc));
  mine[0] = hc.send_msgs_on + hc.send_msgs_off;
  mine[1] = (hc.send_bytes_on + hc.send_bytes_off) / (PetscInt64)sizeof(PetscScalar);
  PetscCallMPI(MPIU_Allreduce(mine, mx, 2, MPIU_INT64, MPI_MAX, PetscObjectComm((PetscObject)M)));
  *msgs    = (PetscReal)mx[0];
  *doubles = (PetscReal)mx[1];
  PetscFunctionReturn(0);
}

static PetscErrorCode PKAMGRead(PC pc, PetscInt maxlevels, PKAMGLevel lev[], PetscInt *L, PetscBool *found, char why[], size_t whylen)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)pc);
  PKAMGLevels  lv;
  PetscMPIInt *node = NULL, nnodes;

  PetscFunctionBegin;
  PetscCall(PKAMGLevelsCreate(pc, &lv));
  if (lv.L > maxlevels) {
    PetscCall(PKAMGWhy(why, whylen, "BoomerAMG has %" PetscInt_FMT " levels, more than maxlevels %" PetscInt_FMT, lv.L, maxlevels));
    PetscCall(PKAMGLevelsDestroy(&lv));
    PetscFunctionReturn(0);
  }
  PetscCall(PKCommGetNodes(comm, PETSC_DETERMINE, &nnodes, &node));
  for (PetscInt i = 0; i < lv.L; i++) {
    MatInfo  info;
    PetscInt rows;

    PetscCall(MatGetSize(lv.A[i], &rows, NULL));
    PetscCall(MatGetInfo(lv.A[i], MAT_GLOBAL_SUM, &info));
    lev[i].C = (PetscReal)rows;
    lev[i].s = rows > 0 ? (PetscReal)info.nz_used / rows : 0;
    PetscCall(PKAMGSends(lv.A[i], node, &lev[i].p, &lev[i].n));
    lev[i].shat = lev[i].phat = lev[i].nhat = 0;
    if (i < lv.L - 1) {
      PetscCall(MatGetInfo(lv.P[i], MAT_GLOBAL_SUM, &info));
      lev[i].shat = rows > 0 ? (PetscReal)info.nz_used / rows : 0;
      PetscCall(PKAMGSends(lv.P[i], node, &lev[i].phat, &lev[i].nhat));
    }
    lev[i].t      = 0;
    lev[i].smooth = PKAMGSmoothFlops(&lv.down, &lv.up, &lv.coarse, (PetscBool)(i == lv.L - 1));
  }
  PetscCall(PetscFree(node));
  PetscCall(PetscInfo(pc, "BoomerAMG: %" PetscInt_FMT " levels, read from a copy of its set-up\n", lv.L));
  *L     = lv.L;
  *found = PETSC_TRUE;
  PetscCall(PKAMGLevelsDestroy(&lv));
  PetscFunctionReturn(0);
}

/* The levels kept on the PC, with the state of the preconditioning matrix they were read for */
typedef struct {
  PetscObjectState state;
  PetscObjectId    id;
  PetscInt         L;
  PKAMGLevel       lev[PK_AMG_MAXLEVELS];
} PKAMGCache;

static PetscErrorCode PKAMGCacheDestroy(void *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKAMGCached(PC pc, PetscBool store, PKAMGCache **cache)
{
  PetscContainer cont;
  Mat            Pmat;
  PKAMGCache    *c = NULL;

  PetscFunctionBegin;
  *cache = NULL;
  PetscCall(PCGetOperators(pc, NULL, &Pmat));
  PetscCall(PetscObjectQuery((PetscObject)pc, "PKAMGLevels", (PetscObject *)&cont));
  if (cont) PetscCall(PetscContainerGetPointer(cont, (void **)&c));
  else if (store) {
    PetscCall(PetscNew(&c));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &cont));
    PetscCall(PetscContainerSetPointer(cont, c));
    PetscCall(PetscContainerSetUserDestroy(cont, PKAMGCacheDestroy));
    PetscCall(PetscObjectCompose((PetscObject)pc, "PKAMGLevels", (PetscObject)cont));
    PetscCall(PetscContainerDestroy(&cont));
  }
  if (!c) PetscFunctionReturn(0);
  if (store) {
    PetscCall(PetscObjectStateGet((PetscObject)Pmat, &c->state));
    PetscCall(PetscObjectGetId((PetscObject)Pmat, &c->id));
    *cache = c;
  } else {
    PetscObjectState state;
    PetscObjectId    id;

    PetscCall(PetscObjectStateGet((PetscObject)Pmat, &state));
    PetscCall(PetscObjectGetId((PetscObject)Pmat, &id));
    if (state == c->state && id == c->id && c->L > 0) *cache = c;
  }
  PetscFunctionReturn(0);
}
#endif

PetscErrorCode PKAMGHierarchyFromPC(PC pc, PetscInt maxlevels, PKAMGLevel lev[], PetscInt *L, PetscBool *found, char why[], size_t whylen)
{
  PetscBool   ishypre;
  const char *pctype = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PKAssertPointer(L, 4);
  PKAssertPointer(found, 5);
  *L     = 0;
  *found = PETSC_FALSE;
  if (why && whylen) why[0] = 0;
  PetscCheck(maxlevels >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "maxlevels %" PetscInt_FMT " < 0", maxlevels);
  if (maxlevels > 0) PKAssertPointer(lev, 3);
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHYPRE, &ishypre));
  if (!ishypre) {
    PetscCall(PCGetType(pc, &pctype));
    PetscCall(PKAMGWhy(why, whylen, "the preconditioner is %s, not hypre", pctype ? pctype : "not set"));
    PetscFunctionReturn(0);
  }
#if !defined(PETSC_HAVE_HYPRE)
  PetscCall(PKAMGWhy(why, whylen, "pipekrylov was built against a PETSc without hypre"));
#else
  const char *htype = NULL;
  PetscBool   isboomer;
  PKAMGCache *cache;

  PetscCall(PCHYPREGetType(pc, &htype));
  if (!htype) {
    PetscCall(PKAMGWhy(why, whylen, "the hypre preconditioner has no type yet (PCSetUp makes it boomeramg)"));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscStrcmp(htype, "boomeramg", &isboomer));
  if (!isboomer) {
    PetscCall(PKAMGWhy(why, whylen, "the hypre preconditioner is %s, not boomeramg", htype));
    PetscFunctionReturn(0);
  }
  if (!pc->setupcalled) {
    PetscCall(PKAMGWhy(why, whylen, "the hypre BoomerAMG preconditioner is not set up (PCSetUp or KSPSetUp first)"));
    PetscFunctionReturn(0);
  }
  PetscCall(PKAMGCached(pc, PETSC_FALSE, &cache));
  if (cache) {
    if (cache->L > maxlevels) PetscCall(PKAMGWhy(why, whylen, "BoomerAMG has %" PetscInt_FMT " levels, more than maxlevels %" PetscInt_FMT, cache->L, maxlevels));
    else {
      PetscCall(PetscArraycpy(lev, cache->lev, cache->L));
      *L     = cache->L;
      *found = PETSC_TRUE;
    }
    PetscFunctionReturn(0);
  }
  {
    PKAMGLevel all[PK_AMG_MAXLEVELS];
    PetscInt   n = 0;

    PetscCall(PKAMGRead(pc, PK_AMG_MAXLEVELS, all, &n, found, why, whylen));
    if (!*found) PetscFunctionReturn(0);
    PetscCall(PKAMGCached(pc, PETSC_TRUE, &cache));
    cache->L = n;
    PetscCall(PetscArraycpy(cache->lev, all, n));
    if (n > maxlevels) {
      *found = PETSC_FALSE;
      PetscCall(PKAMGWhy(why, whylen, "BoomerAMG has %" PetscInt_FMT " levels, more than maxlevels %" PetscInt_FMT, n, maxlevels));
    } else {
      PetscCall(PetscArraycpy(lev, all, n));
      *L = n;
    }
  }
#endif
  PetscFunctionReturn(0);
}
