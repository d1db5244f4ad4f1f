static const char help[] = "Paper 002 section V: the 3-D 7-point Laplacian, 50 x 50 x 25 points per rank, preconditioned by hypre\n"
                           "BoomerAMG, solved with pcg, nbpcg and pipecg. Prints each solver's measured time, then the AMG cycle\n"
                           "model (002 IV) per level beside the measured level kernels, and the measured PCApply beside the\n"
                           "modelled cycle.\n"
                           "  -local <nx,ny,nz>   points per rank (default 50,50,25); the ranks form an MPI_Dims_create grid\n"
                           "  -types <a,b,...>    solvers (default pcg,nbpcg,pipecg)\n"
                           "  -nsolves <k>        solves per solver, the first a warm-up (default 3); the median of the others\n"
                           "  -napply <k>         PCApply calls timed for the cycle (default 10)\n"
                           "  -machine <file>     machine profile for the model (also -ksp_perfmodel_machine; default: this host's\n"
                           "                      cached profile (bin/pipekrylov-calibrate), else the embedded one); checked before\n"
                           "                      any solve\n"
                           "Any -pc_hypre_boomeramg_* option applies; -ksp_perfmodel_view adds the full report of each solve.\n\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkamg.h>
#include <pipekrylov/private/pkprofile.h>
#include <petscdmda.h>
#include "machine_choice.h"

/* median over k of the slowest rank's time */
static PetscErrorCode MedianMax(MPI_Comm comm, PetscInt k, PetscReal t[], PetscReal *med)
{
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, t, (PetscMPIInt)k, MPIU_REAL, MPI_MAX, comm));
  *med = PKMedian(k, t);
  PetscFunctionReturn(0);
}

/* the 7-point Laplacian (Dirichlet: neighbours outside the domain left out) and b = A 1 */
static PetscErrorCode Assemble(DM da, Mat *A, Vec *b)
{
  PetscInt    xs, ys, zs, xm, ym, zm, M, N, P;
  Vec         one;
  MatStencil  row, col[7];
  PetscScalar v[7];

  PetscFunctionBegin;
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscInt n = 0;
        row.i      = i;
        row.j      = j;
        row.k      = k;
        col[n]     = row;
        v[n++]     = 6.0;
        if (i > 0) {
          col[n]   = row;
          col[n].i = i - 1;
          v[n++]   = -1.0;
        }
        if (i < M - 1) {
          col[n]   = row;
          col[n].i = i + 1;
          v[n++]   = -1.0;
        }
        if (j > 0) {
          col[n]   = row;
          col[n].j = j - 1;
          v[n++]   = -1.0;
        }
        if (j < N - 1) {
          col[n]   = row;
          col[n].j = j + 1;
          v[n++]   = -1.0;
        }
        if (k > 0) {
          col[n]   = row;
          col[n].k = k - 1;
          v[n++]   = -1.0;
        }
        if (k < P - 1) {
          col[n]   = row;
          col[n].k = k + 1;
          v[n++]   = -1.0;
        }
        PetscCall(MatSetValuesStencil(*A, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(DMCreateGlobalVector(da, b));
  PetscCall(VecDuplicate(*b, &one));
  PetscCall(VecSet(one, 1.0));
  PetscCall(MatMult(*A, one, *b));
  PetscCall(VecDestroy(&one));
  PetscFunctionReturn(0);
}

/* The median over reps of the slowest rank's time of one y = M x (or M^T x) */
static PetscErrorCode TimeMult(Mat M, PetscBool transpose, PetscInt reps, PetscReal t[], PetscReal *med)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)M);
  Vec      x, y;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(M, transpose ? &y : &x, transpose ? &x : &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(transpose ? MatMultTranspose(M, x, y) : MatMult(M, x, y)); /* warm-up */
  for (PetscInt r = 0; r < reps; r++) {
    PetscLogDouble t0, t1;
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(transpose ? MatMultTranspose(M, x, y) : MatMult(M, x, y));
    PetscCall(PetscTime(&t1));
    t[r] = t1 - t0;
  }
  PetscCall(MedianMax(comm, reps, t, med));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

#if defined(PETSC_HAVE_HYPRE)
/* Measured level kernels: per level, the time of one matvec with A_l times its matvec-equivalents, plus the
   restriction (P_l^T) and interpolation (P_l) matvecs; median of reps, slowest rank. The level matrices are those
   of a copy of the PC's set-up, as PETSc matrices (PKAMGLevelsCreate: the PC's own hierarchy stays untouched) */
static PetscErrorCode MeasureLevels(PC pc, const PKAMGLevel lev[], PetscInt L, PetscInt reps, PetscReal tlev[], PetscReal nA[])
{
  PKAMGLevels lv;
  PetscReal  *t;

  PetscFunctionBegin;
  PetscCall(PKAMGLevelsCreate(pc, &lv));
  PetscCheck(lv.L == L, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "the copy has %" PetscInt_FMT " levels, the model %" PetscInt_FMT, lv.L, L);
  PetscCall(PetscMalloc1(reps, &t));
  for (PetscInt l = 0; l < L; l++) {
    PetscReal ta, tp = 0, tr = 0;

    PetscCall(TimeMult(lv.A[l], PETSC_FALSE, reps, t, &ta));
    /* matvec-equivalents of the level's smoothing and residual in one V-cycle: the model's own count (a sweep is
       2 flops per nonzero, amg_hierarchy.c), so measurement and model count the same work */
    nA[l] = (lev[l].smooth > 0 ? lev[l].smooth : 6.0) / 2.0;
    if (l < L - 1) {
      PetscCall(TimeMult(lv.P[l], PETSC_FALSE, reps, t, &tp));
      PetscCall(TimeMult(lv.P[l], PETSC_TRUE, reps, t, &tr));
    }
    tlev[l] = nA[l] * ta + tp + tr;
  }
  PetscCall(PetscFree(t));
  PetscCall(PKAMGLevelsDestroy(&lv));
  PetscFunctionReturn(0);
}
#endif

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscMPIInt size;
  PetscInt    loc[3] = {50, 50, 25}, nloc = 3, ntypes = 8, nsolves = 3, napply = 10;
  char       *types[8], machine[PETSC_MAX_PATH_LEN] = "", mwhat[2 * PETSC_MAX_PATH_LEN + 64], mshort[PETSC_MAX_PATH_LEN];
  PKMachine   mach;
  int         dims[3] = {0, 0, 0};
  PetscBool   hypre   = PETSC_FALSE, lset;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
#if defined(PETSC_HAVE_HYPRE)
  hypre = PETSC_TRUE;
#endif
  if (!hypre) {
    PetscCall(PetscPrintf(comm, "amg: this PETSc has no hypre (PCHYPRE): the example needs BoomerAMG; nothing to do\n"));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-local", loc, &nloc, &lset));
  if (!lset) nloc = 3;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsolves", &nsolves, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-napply", &napply, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ksp_perfmodel_machine", machine, sizeof(machine), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-machine", machine, sizeof(machine), NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", types, &ntypes, NULL));
  if (!ntypes) {
    ntypes = 3;
    PetscCall(PetscStrallocpy("pcg", &types[0]));
    PetscCall(PetscStrallocpy("nbpcg", &types[1]));
    PetscCall(PetscStrallocpy("pipecg", &types[2]));
  }
  PetscCheck(nloc == 3 && loc[0] > 0 && loc[1] > 0 && loc[2] > 0 && nsolves >= 2 && napply >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-local needs 3 positive sizes, -nsolves >= 2, -napply >= 1");
  /* the model's machine profile before any solve: a profile that does not read stops here, not after the solves */
  PetscCall(PKExampleMachine(comm, machine, &mach, mwhat, sizeof(mwhat), mshort, sizeof(mshort)));
  PetscCallMPI(MPI_Dims_create(size, 3, dims));
  {
    DM         da;
    Mat        A;
    Vec        b, x;
    PetscInt   M = loc[0] * dims[0], N = loc[1] * dims[1], P = loc[2] * dims[2];
    PKAMGLevel lev[PK_AMG_MAXLEVELS];
    PetscInt   L = 0;
    PetscBool  found;
    char       why[256];
    PC         pc0 = NULL;

    PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, M, N, P, dims[0], dims[1], dims[2], 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(Assemble(da, &A, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(PetscPrintf(comm, "amg: 3-D 7-point Laplacian, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " points (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " per rank, %d ranks as %d x %d x %d), hypre BoomerAMG\n", M, N, P, loc[0], loc[1], loc[2], size, dims[0], dims[1], dims[2]));
    PetscCall(PetscPrintf(comm, "  machine profile of the model: %s\n", mwhat));
    PetscCall(PetscPrintf(comm, "  %-8s %10s %16s %18s %14s\n", "solver", "iterations", "KSPSolve (s)", "per iteration (s)", "reason"));
    for (PetscInt s = 0; s < ntypes; s++) {
      KSP                ksp;
      PC                 pc;
      PetscReal         *t, med;
      PetscInt           its;
      KSPConvergedReason reason;

      PetscCall(KSPCreate(comm, &ksp));
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(KSPSetType(ksp, types[s]));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCHYPRE));
      PetscCall(PCHYPRESetType(pc, "boomeramg"));
      PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(KSPSetType(ksp, types[s])); /* -ksp_type does not override the list */
      PetscCall(KSPSetUp(ksp));
      PetscCall(PetscMalloc1(nsolves, &t));
      for (PetscInt r = 0; r < nsolves; r++) {
        PetscLogDouble t0, t1;
        PetscCall(VecSet(x, 0.0));
        PetscCallMPI(MPI_Barrier(comm));
        PetscCall(PetscTime(&t0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(PetscTime(&t1));
        t[r] = t1 - t0;
      }
      PetscCall(MedianMax(comm, nsolves - 1, t + 1, &med));
      PetscCall(KSPGetIterationNumber(ksp, &its));
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCall(PetscPrintf(comm, "  %-8s %10" PetscInt_FMT " %16.4e %18.4e %14s\n", types[s], its, (double)med, (double)(its ? med / its : 0), KSPConvergedReasons[reason]));
      PetscCall(PetscFree(t));
      if (!pc0) {
        pc0 = pc;
        PetscCall(PetscObjectReference((PetscObject)pc0));
      }
      PetscCall(KSPDestroy(&ksp));
    }
    /* the cycle: model per level beside the measured level kernels, and the measured PCApply */
    PetscCall(PKAMGHierarchyFromPC(pc0, PK_AMG_MAXLEVELS, lev, &L, &found, why, sizeof(why)));
    if (!found) PetscCall(PetscPrintf(comm, "  AMG cycle model: %s\n", why));
    else {
#if defined(PETSC_HAVE_HYPRE)
      PKAMGInput  in;
      PKAMGResult res;
      PetscReal   tlev[PK_AMG_MAXLEVELS], nA[PK_AMG_MAXLEVELS], sum = 0, *t, tpc;
      Vec         y;

      PetscCall(PetscMemzero(&in, sizeof(in)));
      in.L             = L;
      in.lev           = lev;
      in.P             = size;
      in.offnode       = PETSC_FALSE;
      in.msgs_per_link = -1;
      (void)PKAMGLevelsFlopTime(&mach, L, lev); /* t_i as the report takes it */
      PetscCall(PKModelAMGCycle(&mach.p, &in, &res));
      PetscCall(MeasureLevels(pc0, lev, L, 20, tlev, nA));
      PetscCall(VecDuplicate(b, &y));
      PetscCall(PetscMalloc1(napply, &t));
      PetscCall(PCApply(pc0, b, y));
      for (PetscInt r = 0; r < napply; r++) {
        PetscLogDouble t0, t1;
        PetscCallMPI(MPI_Barrier(comm));
        PetscCall(PetscTime(&t0));
        PetscCall(PCApply(pc0, b, y));
        PetscCall(PetscTime(&t1));
        t[r] = t1 - t0;
      }
      PetscCall(MedianMax(comm, napply, t, &tpc));
      PetscCall(PetscFree(t));
      PetscCall(VecDestroy(&y));
      PetscCall(PetscPrintf(comm, "  AMG cycle model (002 IV, machine profile %s, t_i = %s) per level beside the measured level kernels\n", mshort, lev[0].t > 0 ? "amg_flop_time" : "flop_time"));
      PetscCall(PetscPrintf(comm, "  (measured: %s matvecs with A_l for the sweeps and the residual, one with P_l, one with P_l^T)\n", "k"));
      PetscCall(PetscPrintf(comm, "  %5s %10s %8s %5s %14s %14s %8s\n", "level", "rows", "nnz/row", "k", "model (s)", "measured (s)", "gap"));
      for (PetscInt l = 0; l < L; l++) {
        sum += tlev[l];
        PetscCall(PetscPrintf(comm, "  %5" PetscInt_FMT " %10.0f %8.2f %5.0f %14.3e %14.3e %+7.0f%%\n", l, (double)lev[l].C, (double)lev[l].s, (double)nA[l], (double)res.level[l], (double)tlev[l], (double)(tlev[l] > 0 ? 100 * (res.level[l] / tlev[l] - 1) : 0)));
      }
      PetscCall(
        PetscPrintf(comm, "  cycle: model %.3e s (compute %.2e, communication %.2e); measured level kernels %.3e s;\n    measured PCApply %.3e s (median of %" PetscInt_FMT "): model/measured %.2f\n", (double)res.total, (double)res.comp, (double)res.comm, (double)sum, (double)tpc, napply, (double)(tpc > 0 ? res.total / tpc : 0)));
#endif
    }
    PetscCall(PCDestroy(&pc0));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&da));
  }
  for (PetscInt s = 0; s < ntypes; s++) PetscCall(PetscFree(types[s]));
  PetscCall(PetscFinalize());
  return 0;
}
