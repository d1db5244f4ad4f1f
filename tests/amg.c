static const char help[] = "PKAMGHierarchyFromPC on poisson27: the BoomerAMG levels of a set-up PCHYPRE, checked against the operator\n"
                           "and against an identical PC the function never touched; the AMG cycle model (002 IV) on those levels\n"
                           "with the embedded default machine against the measured time of one PCApply.\n"
                           "  -pc_type ...          the PC (hypre: expect a hierarchy; anything else: expect found = false)\n"
                           "  -napply <n>           timed PCApply calls after one warm-up (default 8; 0: no timing)\n"
                           "  -ratio_factor <f>     model/measured must lie in [1/f, f] (default 0: printed, not checked; a timed check\n"
                           "                        fails on a loaded machine, where one PCApply took more than 20x the model)\n"
                           "  -rows_per_rank <k>    poisson27 size (default 8000)\n"
                           "Prints one 'amg level' line per level (rows, nonzeros, interpolation nonzeros per row) for the\n"
                           "suite to compare with -pc_hypre_boomeramg_print_statistics, and 'amg ratio' with both times.\n\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkamg.h>
#include <pipekrylov/private/pkprofile.h>
#include <problems.h>

static PetscErrorCode Fail(MPI_Comm comm, const char msg[])
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(comm, "FAIL %s\n", msg));
  SETERRQ(comm, PETSC_ERR_PLIB, "%s", msg);
}

#define CHECK(cond, msg) \
  do { \
    if (!(cond)) PetscCall(Fail(comm, msg)); \
  } while (0)

static PetscErrorCode PCFromOptions(PKProblem *prob, PC *pc)
{
  PetscFunctionBegin;
  PetscCall(PCCreate(PETSC_COMM_WORLD, pc));
  PetscCall(PCSetOperators(*pc, prob->A, prob->A));
  PetscCall(PCSetFromOptions(*pc));
  PetscFunctionReturn(0);
}

static int CmpReal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PKProblem   prob;
  PC          pc, pc2;
  PetscMPIInt size;
  PKAMGLevel  lev[PK_AMG_MAXLEVELS], lev2[PK_AMG_MAXLEVELS];
  PetscInt    L = 0, L2 = 0, napply = 8, M, N, P;
  PetscBool   found, found2, ishypre;
  char        why[256];
  PetscReal   ratio_factor = 0;
  Vec         y0, y1, y2;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-napply", &napply, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ratio_factor", &ratio_factor, NULL));
  PetscCall(PKProblemCreate(comm, NULL, &prob));
  PetscCall(DMDAGetInfo(prob.da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(PCFromOptions(&prob, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHYPRE, &ishypre));

  /* before PCSetUp: never a hierarchy */
  PetscCall(PKAMGHierarchyFromPC(pc, PK_AMG_MAXLEVELS, lev, &L, &found, why, sizeof(why)));
  PetscCall(PetscPrintf(comm, "amg before setup: found %s (%s)\n", found ? "yes" : "no", why));
  CHECK(!found && L == 0 && why[0], "a hierarchy before PCSetUp");
  PetscCall(PCSetUp(pc));

  PetscCall(PKAMGHierarchyFromPC(pc, PK_AMG_MAXLEVELS, lev, &L, &found, why, sizeof(why)));
  if (!found) {
    const char *htype  = NULL;
    PetscBool   boomer = PETSC_FALSE;

    PetscCall(PetscPrintf(comm, "amg found no (%s)\n", why));
#if defined(PETSC_HAVE_HYPRE)
    if (ishypre) PetscCall(PCHYPREGetType(pc, &htype));
#else
    (void)ishypre; /* a PETSc without hypre (e.g. Debian's complex build): PCHYPRE does not exist, never boomeramg */
#endif
    PetscCall(PetscStrcmp(htype, "boomeramg", &boomer));
    CHECK(!boomer, "no hierarchy from a set-up hypre boomeramg PC");
    CHECK(why[0] && L == 0, "found = false without a reason");
  } else {
    PetscReal nnz0 = (PetscReal)(3 * M - 2) * (3 * N - 2) * (3 * P - 2), rows0 = (PetscReal)M * N * P;

    PetscCall(PetscPrintf(comm, "amg found yes: %" PetscInt_FMT " levels on %d ranks\n", L, size));
    PetscCall(PetscPrintf(comm, "amg %5s %10s %12s %8s %7s %4s %8s %4s %8s\n", "level", "rows", "nonzeros", "s", "shat", "p", "n", "phat", "nhat"));
    for (PetscInt i = 0; i < L; i++)
      PetscCall(PetscPrintf(comm, "amg level %2" PetscInt_FMT " %10.0f %12.0f %8.3f %7.3f %4.0f %8.0f %4.0f %8.0f\n", i, (double)lev[i].C, (double)(lev[i].s * lev[i].C), (double)lev[i].s, (double)lev[i].shat, (double)lev[i].p, (double)lev[i].n,
                            (double)lev[i].phat, (double)lev[i].nhat));
    CHECK(L >= 2, "fewer than 2 levels");
    CHECK(lev[0].C == rows0, "C[0] is not the operator's global rows");
    CHECK(PetscAbsReal(lev[0].s - nnz0 / rows0) <= 1e-12 * nnz0 / rows0, "s[0] is not the 27-point operator's nonzeros per row");
    for (PetscInt i = 0; i < L; i++) {
      CHECK(lev[i].C > 0 && lev[i].s >= 1 && lev[i].t == 0, "a level without rows or diagonal, or t != 0");
      CHECK(i == 0 || lev[i].C < lev[i - 1].C, "level sizes do not decrease");
      CHECK(i == L - 1 ? lev[i].shat == 0 && lev[i].phat == 0 && lev[i].nhat == 0 : lev[i].shat > 0, "interpolation counts wrong (shat > 0 above the coarsest, 0 on it)");
      CHECK(lev[i].p >= 0 && lev[i].n >= lev[i].p && lev[i].nhat >= lev[i].phat, "fewer doubles than messages");
      if (size == 1) CHECK(lev[i].p == 0 && lev[i].n == 0 && lev[i].phat == 0 && lev[i].nhat == 0, "messages on one rank");
    }
    if (size > 1) CHECK(lev[0].p > 0 && lev[0].n > 0 && lev[0].phat > 0, "no messages on the finest level on several ranks");

    /* too small an array: not found, with the reason */
    PetscCall(PKAMGHierarchyFromPC(pc, L - 1, lev2, &L2, &found2, why, sizeof(why)));
    PetscCall(PetscPrintf(comm, "amg maxlevels %" PetscInt_FMT ": found %s (%s)\n", L - 1, found2 ? "yes" : "no", why));
    CHECK(!found2 && L2 == 0 && strstr(why, "more than maxlevels"), "more levels than maxlevels accepted");

    /* hypre's state is unchanged: the same levels again, and the same PCApply as an identical PC never read */
    PetscCall(PKAMGHierarchyFromPC(pc, PK_AMG_MAXLEVELS, lev2, &L2, &found2, NULL, 0));
    CHECK(found2 && L2 == L && !memcmp(lev, lev2, (size_t)L * sizeof(lev[0])), "a second call gives other levels");
    PetscCall(PCFromOptions(&prob, &pc2));
    PetscCall(PCSetUp(pc2));
    PetscCall(VecDuplicate(prob.b, &y0));
    PetscCall(VecDuplicate(prob.b, &y1));
    PetscCall(VecDuplicate(prob.b, &y2));
    PetscCall(PCApply(pc2, prob.b, y0));
    PetscCall(PCApply(pc, prob.b, y1));
    PetscCall(PKAMGHierarchyFromPC(pc, PK_AMG_MAXLEVELS, lev2, &L2, &found2, NULL, 0));
    PetscCall(PCApply(pc, prob.b, y2));
    {
      PetscBool e1, e2;
      PetscCall(VecEqual(y0, y1, &e1));
      PetscCall(VecEqual(y1, y2, &e2));
      PetscCall(PetscPrintf(comm, "amg PCApply unchanged by the reading: %s\n", e1 && e2 ? "yes (bitwise)" : "NO"));
      CHECK(e1 && e2, "PCApply differs from an untouched identical PC");
    }
    PetscCall(PCDestroy(&pc2));

    /* the levels are kept on the PC: read again only after its matrix changed (-info says "read from a copy" once
       per reading) */
    PetscCall(MatScale(prob.A, 2.0));
    PetscCall(PCSetUp(pc));
    PetscCall(PKAMGHierarchyFromPC(pc, PK_AMG_MAXLEVELS, lev2, &L2, &found2, NULL, 0));
    CHECK(found2 && L2 == L && lev2[0].C == lev[0].C && lev2[0].s == lev[0].s, "the scaled operator gives other levels");
    PetscCall(MatScale(prob.A, 0.5));
    PetscCall(PCSetUp(pc));

    if (napply > 0) {
      PKMachine   mach;
      PKAMGInput  in;
      PKAMGResult res;
      PetscReal  *dt, *dtmax, tmin, tmed, ratio;

      PetscCall(PetscMalloc2(napply, &dt, napply, &dtmax));
      for (PetscInt k = 0; k < napply; k++) {
        PetscLogDouble t0, t1;
        PetscCallMPI(MPI_Barrier(comm));
        PetscCall(PetscTime(&t0));
        PetscCall(PCApply(pc, prob.b, y1));
        PetscCall(PetscTime(&t1));
        dt[k] = (PetscReal)(t1 - t0);
      }
      /* a PCApply lasts as long as its slowest rank */
      PetscCallMPI(MPI_Allreduce(dt, dtmax, (PetscMPIInt)napply, MPIU_REAL, MPI_MAX, comm));
      qsort(dtmax, (size_t)napply, sizeof(PetscReal), CmpReal);
      tmin = dtmax[0];
      tmed = dtmax[napply / 2];

      PetscCall(PKMachineDefault(&mach));
      PetscCall(PetscMemzero(&in, sizeof(in)));
      in.L             = L;
      in.lev           = lev;
      in.P             = size;
      in.offnode       = PETSC_FALSE; /* one node here */
      in.msgs_per_link = -1;
      PetscCall(PKModelAMGCycle(&mach.p, &in, &res));
      ratio = res.total / tmin;
      PetscCall(PetscPrintf(comm, "amg model: cycle %.3e s = comp %.3e + comm %.3e (flop_time %.2e s, embedded default)\n", (double)res.total, (double)res.comp, (double)res.comm, (double)mach.p.flop_time));
      PetscCall(PetscPrintf(comm, "amg ratio np %d: model %.3e s, measured PCApply min %.3e s median %.3e s (%" PetscInt_FMT " calls), model/measured %.3f\n", size, (double)res.total, (double)tmin, (double)tmed, napply, (double)ratio));
      CHECK(res.total > 0 && tmin > 0, "a cycle time that is not positive");
      if (ratio_factor > 0) CHECK(ratio <= ratio_factor && ratio >= 1 / ratio_factor, "model and measured PCApply differ by more than -ratio_factor");
      PetscCall(PetscFree2(dt, dtmax));
    }
    PetscCall(VecDestroy(&y0));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
  }
  PetscCall(PCDestroy(&pc));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscPrintf(comm, "amg test done\n"));
  PetscCall(PetscFinalize());
  return 0;
}
