/*
   The BoomerAMG hierarchy of a PCHYPRE, the per-level inputs of the AMG cycle model (docs/models.md §4).

   How the hierarchy is reached. PETSc 3.18's PC_HYPRE is private and is not mirrored here. libpetsc exports
   PCHYPREGetSolver(PC, HYPRE_Solver *): no installed header declares it, PETSc's own PCHMG declares and calls it the
   same way, and it returns the HYPRE_Solver that PCHYPRE created and set up. For boomeramg that handle is hypre's
   hypre_ParAMGData, whose levels are read with the accessors of hypre's installed _hypre_parcsr_ls.h. So the levels
   are those of the hierarchy hypre actually cycles on, not a shadow hierarchy rebuilt from the options.
   PCHYPREGetSolver does not check the PC's type (it reads pc->data as PCHYPRE's), so it is called only once the PC is
   known to be PCHYPRE, of hypre type boomeramg, and set up; and the answer is checked against the PC: the finest
   level must have the operator's global rows and live on a communicator congruent with the PC's.
   PCGetInterpolations() and PCGetCoarseOperators() are not used: for BoomerAMG they move the matrices out of hypre's
   hierarchy (hypre cannot use them afterwards); they exist for PCHMG.

   MPI. The reductions here run on the PC's communicator. hypre's matrices live on a duplicate of it (-info says
   which: "congruent" is a duplicate, a separate context), so the messages of a communication package created here
   for a level that has none yet cannot match ours or PETSc's. Every decision is made the same on all ranks (the
   local checks are reduced first), so no rank enters a collective the others skip.
*/
#include <pipekrylov/private/pkamg.h>
#include <petsc/private/pcimpl.h>
#include <stdarg.h>
#if defined(PETSC_HAVE_HYPRE)
  #include <_hypre_parcsr_ls.h>
/* exported by libpetsc, declared in no installed header (see above) */
PETSC_EXTERN PetscErrorCode PCHYPREGetSolver(PC, HYPRE_Solver *);
#endif

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
/* stored entries of one rank's diagonal or off-diagonal block */
static PetscInt64 PKCSRNnz(hypre_CSRMatrix *M)
{
  if (!M) return 0;
  #if defined(PETSC_HAVE_HYPRE_DEVICE)
  /* the row pointers may live on the device */
  return (PetscInt64)hypre_CSRMatrixNumNonzeros(M);
  #else
  {
    HYPRE_Int  nr = hypre_CSRMatrixNumRows(M);
    HYPRE_Int *rp = hypre_CSRMatrixI(M);
    return (rp && nr > 0) ? (PetscInt64)(rp[nr] - rp[0]) : 0;
  }
  #endif
}

/* messages and doubles this rank sends in one matvec y = A x (a transposed matvec sends what this one receives) */
static void PKCSRSends(hypre_ParCSRMatrix *A, PetscInt64 *msgs, PetscInt64 *doubles)
{
  hypre_ParCSRCommPkg *pkg = hypre_ParCSRMatrixCommPkg(A);
  HYPRE_Int            ns  = pkg ? hypre_ParCSRCommPkgNumSends(pkg) : 0;

  *msgs    = ns;
  *doubles = ns > 0 ? (PetscInt64)hypre_ParCSRCommPkgSendMapStarts(pkg)[ns] : 0;
}

typedef enum {
  PK_AMG_OK,
  PK_AMG_NO_HIERARCHY,
  PK_AMG_TOO_MANY,
  PK_AMG_ROWS,
  PK_AMG_COMM,
  PK_AMG_NULL_LEVEL
} PKAMGCheck;

/*
   Flops per nonzero of a level's operator in one V-cycle for smoothing and the residual, from the smoother hypre
   really uses (hypre_ParAMGDataGridRelaxType/NumGridSweeps: [1] down, [2] up, [3] coarsest): a sweep costs 2 flops
   per nonzero, a symmetric one (hybrid symmetric Gauss-Seidel 6, l1 symmetric 8) 4; the residual 2. The coarsest
   level solved directly (9, 19, 98, 99) counts as one application of its operator.
*/
static PetscReal PKAMGSmoothFlops(hypre_ParAMGData *amg, PetscBool coarsest)
{
  HYPRE_Int *type = hypre_ParAMGDataGridRelaxType(amg), *sweeps = hypre_ParAMGDataNumGridSweeps(amg);
  PetscReal  f    = 0;

  if (!type || !sweeps) return 6.0;
  if (coarsest) {
    HYPRE_Int t = type[3];
    if (t == 9 || t == 19 || t == 98 || t == 99) return 2.0;
    return 2.0 * sweeps[3] * ((t == 6 || t == 8) ? 2 : 1);
  }
  for (int c = 1; c <= 2; c++) f += 2.0 * sweeps[c] * ((type[c] == 6 || type[c] == 8) ? 2 : 1);
  return f + 2.0;
}

static PetscErrorCode PKAMGRead(PC pc, PetscInt maxlevels, PKAMGLevel lev[], PetscInt *L, PetscBool *found, char why[], size_t whylen)
{
  MPI_Comm             comm = PetscObjectComm((PetscObject)pc);
  HYPRE_Solver         hs   = NULL;
  hypre_ParAMGData    *amg;
  hypre_ParCSRMatrix **A = NULL, **P = NULL;
  PetscInt             nl = 0;
  PetscMPIInt          size, code = PK_AMG_OK, gcode, cmp = MPI_UNEQUAL;
  PetscInt64          *sum, *mx, *gsum, *gmx;
  Mat                  pmat;
  PetscInt             M = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PCHYPREGetSolver(pc, &hs));
  amg = (hypre_ParAMGData *)hs;
  if (!amg || !hypre_ParAMGDataAArray(amg) || hypre_ParAMGDataNumLevels(amg) < 1 || !hypre_ParAMGDataAArray(amg)[0]) code = PK_AMG_NO_HIERARCHY;
  else {
    A  = hypre_ParAMGDataAArray(amg);
    P  = hypre_ParAMGDataPArray(amg);
    nl = hypre_ParAMGDataNumLevels(amg);
    PetscCall(PCGetOperators(pc, NULL, &pmat));
    PetscCall(MatGetSize(pmat, &M, NULL));
    PetscCallMPI(MPI_Comm_compare(hypre_ParCSRMatrixComm(A[0]), comm, &cmp));
    if (nl > maxlevels) code = PK_AMG_TOO_MANY;
    else if ((PetscInt)hypre_ParCSRMatrixGlobalNumRows(A[0]) != M) code = PK_AMG_ROWS;
    else if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT) code = PK_AMG_COMM;
    else
      for (PetscInt i = 0; i < nl; i++)
        if (!A[i] || (i < nl - 1 && (!P || !P[i]))) code = PK_AMG_NULL_LEVEL;
  }
  PetscCallMPI(MPI_Allreduce(&code, &gcode, 1, MPI_INT, MPI_MAX, comm));
  switch (gcode) {
  case PK_AMG_OK:
    break;
  case PK_AMG_NO_HIERARCHY:
    PetscCall(PKAMGWhy(why, whylen, "BoomerAMG holds no hierarchy (its setup has not run)"));
    PetscFunctionReturn(0);
  case PK_AMG_TOO_MANY:
    PetscCall(PKAMGWhy(why, whylen, "BoomerAMG has %" PetscInt_FMT " levels, more than maxlevels %" PetscInt_FMT, nl, maxlevels));
    PetscFunctionReturn(0);
  case PK_AMG_ROWS:
    PetscCall(PKAMGWhy(why, whylen, "BoomerAMG's finest level has %" PetscInt_FMT " rows, the PC's operator %" PetscInt_FMT " (stale setup?)", A ? (PetscInt)hypre_ParCSRMatrixGlobalNumRows(A[0]) : -1, M));
    PetscFunctionReturn(0);
  case PK_AMG_COMM:
    PetscCall(PKAMGWhy(why, whylen, "BoomerAMG's communicator is not congruent with the PC's"));
    PetscFunctionReturn(0);
  default:
    PetscCall(PKAMGWhy(why, whylen, "BoomerAMG has a missing level matrix on some rank"));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscInfo(pc, "BoomerAMG: %" PetscInt_FMT " levels; hypre's communicator is %s the PC's\n", nl, cmp == MPI_IDENT ? "identical to" : "congruent with (a duplicate of)"));

  /* sums: [0,nl) nnz(A_i), [nl,2nl) nnz(P_i), [2nl,3nl) ranks lacking A_i's comm package, [3nl,4nl) same for P_i */
  PetscCall(PetscCalloc4(4 * nl, &sum, 4 * nl, &gsum, 4 * nl, &mx, 4 * nl, &gmx));
  for (PetscInt i = 0; i < nl; i++) {
    sum[i]          = PKCSRNnz(hypre_ParCSRMatrixDiag(A[i])) + PKCSRNnz(hypre_ParCSRMatrixOffd(A[i]));
    sum[2 * nl + i] = hypre_ParCSRMatrixCommPkg(A[i]) ? 0 : 1;
    if (i < nl - 1) {
      sum[nl + i]     = PKCSRNnz(hypre_ParCSRMatrixDiag(P[i])) + PKCSRNnz(hypre_ParCSRMatrixOffd(P[i]));
      sum[3 * nl + i] = hypre_ParCSRMatrixCommPkg(P[i]) ? 0 : 1;
    }
  }
  PetscCallMPI(MPI_Allreduce(sum, gsum, 4 * (PetscMPIInt)nl, MPIU_INT64, MPI_SUM, comm));
  for (PetscInt i = 0; i < 2 * nl; i++) {
    hypre_ParCSRMatrix *X = i < nl ? A[i] : (i - nl < nl - 1 ? P[i - nl] : NULL);
    PetscInt64          lacking = gsum[2 * nl + i];

    if (!X || !lacking) continue;
    if (lacking != size) { /* cannot happen with hypre's collective setup; creating on some ranks only would hang */
      PetscCall(PKAMGWhy(why, whylen, "BoomerAMG level %" PetscInt_FMT ": %" PetscInt64_FMT " of %d ranks lack the %s's communication package", i % nl, lacking, size, i < nl ? "operator" : "interpolation"));
      PetscCall(PetscFree4(sum, gsum, mx, gmx));
      PetscFunctionReturn(0);
    }
    /* what hypre's first matvec with X would do; collective on X's communicator, uniformly entered (lacking == size) */
    PetscCheck(!hypre_MatvecCommPkgCreate(X), PETSC_COMM_SELF, PETSC_ERR_LIB, "hypre_MatvecCommPkgCreate failed on BoomerAMG level %" PetscInt_FMT, i % nl);
    PetscCall(PetscInfo(pc, "BoomerAMG level %" PetscInt_FMT ": created the %s's matvec communication package\n", i % nl, i < nl ? "operator" : "interpolation"));
  }
  /* maxima: [0,nl) messages of A_i, [nl,2nl) doubles of A_i, [2nl,3nl) messages of P_i, [3nl,4nl) doubles of P_i */
  for (PetscInt i = 0; i < nl; i++) {
    PKCSRSends(A[i], &mx[i], &mx[nl + i]);
    if (i < nl - 1) PKCSRSends(P[i], &mx[2 * nl + i], &mx[3 * nl + i]);
  }
  PetscCallMPI(MPI_Allreduce(mx, gmx, 4 * (PetscMPIInt)nl, MPIU_INT64, MPI_MAX, comm));
  for (PetscInt i = 0; i < nl; i++) {
    PetscReal C = (PetscReal)hypre_ParCSRMatrixGlobalNumRows(A[i]);

    lev[i].C    = C;
    lev[i].s    = C > 0 ? (PetscReal)gsum[i] / C : 0;
    lev[i].shat = (i < nl - 1 && C > 0) ? (PetscReal)gsum[nl + i] / C : 0;
    lev[i].p    = (PetscReal)gmx[i];
    lev[i].n    = (PetscReal)gmx[nl + i];
    lev[i].phat = (PetscReal)gmx[2 * nl + i];
    lev[i].nhat = (PetscReal)gmx[3 * nl + i];
    lev[i].t    = 0;
    lev[i].smooth = PKAMGSmoothFlops(amg, i == nl - 1);
  }
  PetscCall(PetscFree4(sum, gsum, mx, gmx));
  *L     = nl;
  *found = PETSC_TRUE;
  PetscFunctionReturn(0);
}
#endif

PetscErrorCode PKAMGHierarchyFromPC(PC pc, PetscInt maxlevels, PKAMGLevel lev[], PetscInt *L, PetscBool *found, char why[], size_t whylen)
{
  PetscBool   ishypre;
  const char *pctype = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidIntPointer(L, 4);
  PetscValidBoolPointer(found, 5);
  *L     = 0;
  *found = PETSC_FALSE;
  if (why && whylen) why[0] = 0;
  PetscCheck(maxlevels >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "maxlevels %" PetscInt_FMT " < 0", maxlevels);
  if (maxlevels > 0) PetscValidPointer(lev, 3);
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
  PetscCall(PKAMGRead(pc, maxlevels, lev, L, found, why, whylen));
#endif
  PetscFunctionReturn(0);
}
