static const char help[] = "Paper 003 section VII: hypre's own PCG with diagonal scaling (IJ interface, HYPRE_ParCSRPCG with\n"
                           "HYPRE_ParCSRDiagScale) against pipekrylov's pcg and nbpcg with Jacobi, through PETSc, on the 27-point\n"
                           "Poisson problem of 000 (the same matrix, right-hand side and initial guess). Prints iterations and\n"
                           "solve times side by side, and the analytic model's prediction beside each measurement: for ours from\n"
                           "its -ksp_perfmodel_view report (CSV form), for hypre's PCG the same model of a blocking CG with hypre's\n"
                           "counts per iteration (1 matvec, 1 diagonal scaling, 2 blocking 1-value inner products, 16 vector\n"
                           "streams) from hypre's kernels timed in this run.\n"
                           "  -rows_per_rank <k>  rows per rank (a cube of side k^(1/3); default 8000 = 20^3)\n"
                           "  -rtol <r>           relative tolerance of all three (default 1e-8), in the norm sqrt(r'Cr) hypre's\n"
                           "                      PCG uses by default (PETSc: -ksp_norm_type natural), so the counts compare\n"
                           "  -nsolves <k>        solves per side (default 3); the time printed is the median\n"
                           "  -machine <file>     machine profile of the models (also -ksp_perfmodel_machine; default: this host's\n"
                           "                      cached profile, else the embedded default, as the report chooses)\n"
                           "  Our two KSPs have the options prefixes pcg_ and nbpcg_ (e.g. -nbpcg_ksp_pipe_chunks 4).\n\n";

#include <pipekrylov.h>
#include "problems.h"
#include "report_csv.h"
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <HYPRE_krylov.h>
#include <_hypre_parcsr_ls.h>
#include <pipekrylov/private/pkmodel.h>
#include <pipekrylov/private/pkreport.h> /* the report's collective pieces: PKReportRanksPerCore, PKReportHaloSlowest */
#include "machine_choice.h"
#include <time.h>

#define HypreCall(call) \
  do { \
    HYPRE_Int _e = (call); \
    PetscCheck(!_e, PETSC_COMM_SELF, PETSC_ERR_LIB, "hypre: %s failed with error %d", #call, (int)_e); \
  } while (0)

/* hypre's own initialization, where hypre has one that is not done yet (*ours: this program did it, and finalizes) */
static PetscErrorCode HypreInitialize(PetscBool *ours)
{
  PetscFunctionBegin;
  *ours = PETSC_FALSE;
#if HYPRE_RELEASE_NUMBER >= 22900
  if (!HYPRE_Initialized()) {
    HypreCall(HYPRE_Initialize());
    *ours = PETSC_TRUE;
  }
#endif
  PetscFunctionReturn(0);
}

/* The PETSc matrix and vectors, copied row by row into hypre's IJ objects (the same global numbering) */
static PetscErrorCode ToHypre(Mat A, Vec b, HYPRE_IJMatrix *Aij, HYPRE_IJVector *bij, HYPRE_IJVector *xij)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  PetscInt           rs, re, ncols;
  const PetscInt    *cols;
  const PetscScalar *vals, *ba;
  HYPRE_BigInt       idx[64];
  HYPRE_Real         v[64];

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  HypreCall(HYPRE_IJMatrixCreate(comm, rs, re - 1, rs, re - 1, Aij));
  HypreCall(HYPRE_IJMatrixSetObjectType(*Aij, HYPRE_PARCSR));
  HypreCall(HYPRE_IJMatrixInitialize(*Aij));
  for (PetscInt i = rs; i < re; i++) {
    HYPRE_BigInt row = i;
    HYPRE_Int    nc;
    PetscCall(MatGetRow(A, i, &ncols, &cols, &vals));
    PetscCheck(ncols <= 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "Row %" PetscInt_FMT " has %" PetscInt_FMT " > 64 entries", i, ncols);
    for (PetscInt j = 0; j < ncols; j++) idx[j] = cols[j], v[j] = PetscRealPart(vals[j]);
    nc = (HYPRE_Int)ncols;
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, &vals));
    HypreCall(HYPRE_IJMatrixSetValues(*Aij, 1, &nc, &row, idx, v));
  }
  HypreCall(HYPRE_IJMatrixAssemble(*Aij));
  HypreCall(HYPRE_IJVectorCreate(comm, rs, re - 1, bij));
  HypreCall(HYPRE_IJVectorSetObjectType(*bij, HYPRE_PARCSR));
  HypreCall(HYPRE_IJVectorInitialize(*bij));
  HypreCall(HYPRE_IJVectorCreate(comm, rs, re - 1, xij));
  HypreCall(HYPRE_IJVectorSetObjectType(*xij, HYPRE_PARCSR));
  HypreCall(HYPRE_IJVectorInitialize(*xij));
  PetscCall(VecGetArrayRead(b, &ba));
  for (PetscInt i = rs; i < re; i++) {
    HYPRE_BigInt row = i;
    HYPRE_Real   bv = PetscRealPart(ba[i - rs]), zero = 0;
    HypreCall(HYPRE_IJVectorSetValues(*bij, 1, &row, &bv));
    HypreCall(HYPRE_IJVectorSetValues(*xij, 1, &row, &zero));
  }
  PetscCall(VecRestoreArrayRead(b, &ba));
  HypreCall(HYPRE_IJVectorAssemble(*bij));
  HypreCall(HYPRE_IJVectorAssemble(*xij));
  PetscFunctionReturn(0);
}

typedef struct {
  const char *name;
  PetscInt    its;
  double      t, model, err, measured_report; /* measured_report: the report's KSPSolve (ours), 0 for hypre */
  PetscBool   have_model;
} Side;

static double ProcessCPU(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* hypre's own PCG, modelled with the report's analytic model of a blocking CG (PKModelSolve, docs/models.md §3)
   with hypre's counts. One iteration of hypre_PCGSolve (hypre's krylov/pcg.c, 2.26; the defaults: two_norm 0,
   rtol 0, no recomputed residual, no flex) is
     s = A p (Matvec); sdotp = <s,p> (InnerProd: a blocking 1-value allreduce); x += alpha p, r -= alpha s (Axpy);
     ClearVector(s); s = C r (precond: HYPRE_ParCSRDiagScale); gamma = <r,s> (blocking 1-value allreduce; with the
     default norm it is also the convergence test's i_prod); p = beta p (ScaleVector), p += s (Axpy)
   so 1 matvec, 1 diagonal scaling, 2 blocking reductions of 1 value, and 2 + 3 + 3 + 1 + 2 + 2 + 3 = 16 vector
   streams (a dot 2, an AXPY 3, a scaling 2, a clear 1). Start-up: <Cb,b> (clear, scaling, dot), r = b - A x (copy,
   matvec), p = C r (clear, scaling), <r,p>: 1 matvec, 2 scalings, 8 streams and two exposed 1-value reductions
   (the model's start-up has one exposed reduction: it charges one). The solver kind is PETSc's cg (its reductions
   carry 1 value each) described with these counts, as a solver describes itself (pkcost.h), so that PKSolverShapeGet
   and PKSolverShapeReduction give hypre's cycle. */
static void HypreCGConfig(PKSolverConfig *cfg)
{
  PKSolverConfigDefault(PK_SOLVER_PETSC_CG, cfg);
  cfg->norm_separate     = PETSC_FALSE;
  cfg->have_cost         = PETSC_TRUE;
  cfg->cost.pattern      = "cg";
  cfg->cost.its          = 1;
  cfg->cost.nred         = 2;
  cfg->cost.red[0]       = (PKReductionCost){.nvals = 1, .blocking = PETSC_TRUE}; /* <s,p> */
  cfg->cost.red[1]       = (PKReductionCost){.nvals = 1, .blocking = PETSC_TRUE}; /* <r,s> */
  cfg->cost.nspmv        = 1;
  cfg->cost.npc          = 1;
  cfg->cost.streams      = 16;
  cfg->cost.init_spmv    = 1;
  cfg->cost.init_pc      = 2;
  cfg->cost.init_nvals   = 1;
  cfg->cost.init_streams = 8;
}

/* hypre's kernels of one PCG iteration, timed on each rank, reps times after a barrier (local work only: the
   matvec of the diagonal and off-diagonal blocks without the halo exchange, which the model adds; the inner
   products without their allreduce): t_spmv, t_pc, t_vec (per iteration) as the mean over ranks of each rank's
   median; S the synchronization gap of the blocking rule (PKModelSyncPenalty) from the per-rep compute times */
static PetscErrorCode HypreKernelTimes(MPI_Comm comm, HYPRE_ParCSRMatrix A, PetscInt reps, PetscReal *t_spmv, PetscReal *t_pc, PetscReal *t_vec, PetscReal *S)
{
  hypre_ParCSRMatrix *pA   = (hypre_ParCSRMatrix *)A;
  hypre_CSRMatrix    *diag = hypre_ParCSRMatrixDiag(pA), *offd = hypre_ParCSRMatrixOffd(pA);
  hypre_ParVector    *p = hypre_ParVectorInRangeOf(pA), *s = hypre_ParVectorInRangeOf(pA), *r = hypre_ParVectorInRangeOf(pA), *x = hypre_ParVectorInRangeOf(pA);
  hypre_Vector       *xext = hypre_SeqVectorCreate(hypre_CSRMatrixNumCols(offd));
  PetscReal          *tsp, *tpc, *tvec, *c, *cmax, *call, loc[3], glob[3];
  PetscMPIInt         size;
  volatile HYPRE_Real sink = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  hypre_SeqVectorInitialize(xext);
  hypre_SeqVectorSetConstantValues(xext, 1.0);
  hypre_ParVectorSetConstantValues(p, 1.0);
  hypre_ParVectorSetConstantValues(r, 1.0);
  hypre_ParVectorSetConstantValues(x, 0.0);
  PetscCall(PetscMalloc6(reps, &tsp, reps, &tpc, reps, &tvec, reps, &c, reps, &cmax, reps * size, &call));
  for (PetscInt k = -1; k < reps; k++) { /* k = -1: a warm-up */
    double t0, t1, t2, t3, t4;
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    hypre_CSRMatrixMatvec(1.0, diag, hypre_ParVectorLocalVector(p), 0.0, hypre_ParVectorLocalVector(s));
    if (hypre_CSRMatrixNumCols(offd)) hypre_CSRMatrixMatvec(1.0, offd, xext, 1.0, hypre_ParVectorLocalVector(s));
    t1 = MPI_Wtime();
    sink += hypre_SeqVectorInnerProd(hypre_ParVectorLocalVector(s), hypre_ParVectorLocalVector(p));
    hypre_ParVectorAxpy(1e-3, p, x);
    hypre_ParVectorAxpy(-1e-3, s, r);
    hypre_ParVectorSetConstantValues(s, 0.0);
    t2 = MPI_Wtime();
    HYPRE_ParCSRDiagScale(NULL, A, (HYPRE_ParVector)r, (HYPRE_ParVector)s);
    t3 = MPI_Wtime();
    sink += hypre_SeqVectorInnerProd(hypre_ParVectorLocalVector(r), hypre_ParVectorLocalVector(s));
    hypre_ParVectorScale(0.5, p);
    hypre_ParVectorAxpy(1.0, s, p);
    t4 = MPI_Wtime();
    if (k < 0) continue;
    tsp[k]  = t1 - t0;
    tpc[k]  = t3 - t2;
    tvec[k] = (t2 - t1) + (t4 - t3);
    c[k]    = t4 - t0;
  }
  (void)sink;
  PetscCall(PetscArraycpy(cmax, c, reps));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cmax, (PetscMPIInt)reps, MPIU_REAL, MPIU_MAX, comm));
  PetscCallMPI(MPI_Allgather(c, (PetscMPIInt)reps, MPIU_REAL, call, (PetscMPIInt)reps, MPIU_REAL, comm));
  PetscCall(PKModelSyncPenalty(reps, cmax, reps * size, call, PETSC_FALSE, S));
  loc[0] = PKMedian(reps, tsp);
  loc[1] = PKMedian(reps, tpc);
  loc[2] = PKMedian(reps, tvec);
  PetscCallMPI(MPI_Allreduce(loc, glob, 3, MPIU_REAL, MPIU_SUM, comm));
  *t_spmv = glob[0] / size;
  *t_pc   = glob[1] / size;
  *t_vec  = glob[2] / size;
  PetscCall(PetscFree6(tsp, tpc, tvec, c, cmax, call));
  hypre_SeqVectorDestroy(xext);
  hypre_ParVectorDestroy(p);
  hypre_ParVectorDestroy(s);
  hypre_ParVectorDestroy(r);
  hypre_ParVectorDestroy(x);
  PetscFunctionReturn(0);
}

/* The layout (ranks, nodes: MPI_COMM_TYPE_SHARED, ranks per node) and one halo exchange of hypre's matvec, from its
   communication package, modelled for every rank (PKReportHaloSlowest, as the report does for our operators); the
   slowest rank's cost. Also the ranks per core on the busiest host (PKReportRanksPerCore, as the report counts them) */
static PetscErrorCode HypreLayoutHalo(MPI_Comm comm, HYPRE_ParCSRMatrix A, const PKMachineParams *eff, PKLayout *layout, PKCommCost *halo, PetscReal *rpc)
{
  hypre_ParCSRMatrix  *pA = (hypre_ParCSRMatrix *)A;
  hypre_ParCSRCommPkg *pkg;
  PetscMPIInt          rank, size, *nid, nsize = 0;
  PetscInt             n = 0, nodes = 0, ppn;
  PetscReal           *bytes;
  PKLocality          *loc;
  PKHaloPattern        pat;
  PKCommCost           mine;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* the nodes, as the library groups ranks (PKCommGetNodes: MPI_COMM_TYPE_SHARED), and the ranks of the fullest */
  {
    PetscMPIInt nn, most, *count;
    PetscCall(PKCommGetNodes(comm, 0, &nn, &nid));
    PetscCall(PetscMalloc1(nn, &count));
    PetscCall(PKNodesGetSizes(size, nn, nid, count, &most));
    ppn   = most;
    nsize = count[nid[rank]]; /* the ranks of this rank's node */
    nodes = nn;
    PetscCall(PetscFree(count));
  }
  PetscCall(PetscMemzero(&pat, sizeof(pat)));
  PetscCall(PKReportRanksPerCore(comm, rpc));
  layout->P     = size;
  layout->nodes = nodes;
  layout->ppn   = ppn;
  PetscCall(PetscMemzero(halo, sizeof(*halo)));
  if (size > 1) {
    pkg = hypre_ParCSRMatrixCommPkg(pA);
    if (!pkg) {
      hypre_MatvecCommPkgCreate(pA);
      pkg = hypre_ParCSRMatrixCommPkg(pA);
    }
    PetscCall(PetscMalloc2(hypre_ParCSRCommPkgNumSends(pkg), &bytes, hypre_ParCSRCommPkgNumSends(pkg), &loc));
    for (HYPRE_Int i = 0; i < hypre_ParCSRCommPkgNumSends(pkg); i++) {
      HYPRE_Int to = hypre_ParCSRCommPkgSendProc(pkg, i);
      if (to == rank) continue;
      bytes[n] = (PetscReal)(hypre_ParCSRCommPkgSendMapStart(pkg, i + 1) - hypre_ParCSRCommPkgSendMapStart(pkg, i)) * sizeof(HYPRE_Complex);
      loc[n++] = nid[to] == nid[rank] ? PK_ON_NODE : PK_OFF_NODE;
    }
    pat.n         = n;
    pat.bytes     = bytes;
    pat.loc       = loc;
    pat.ppn       = nsize;
    pat.ppn_off   = 0;
    pat.pipelined = PETSC_TRUE;
    PetscCall(PKReportHaloSlowest(comm, eff, &pat, NULL, &mine, halo));
    PetscCall(PetscFree2(bytes, loc));
  }
  PetscCall(PetscFree(nid));
  PetscFunctionReturn(0);
}

/* The model of hypre's PCG solve of its iterations, from this run's kernel times, halo and profile */
static PetscErrorCode ModelHyprePCG(MPI_Comm comm, HYPRE_ParCSRMatrix A, PetscInt its, PetscReal t_cpu, const PKMachine *mach, PKSolveInput *in, PKModelResult *res)
{
  PKMachineParams eff;
  PetscReal       S;

  PetscFunctionBegin;
  PetscCall(PKMachineEffective(mach, &eff, NULL)); /* what the profile lacks filled in as the report does */
  PetscCall(PetscMemzero(in, sizeof(*in)));
  HypreCGConfig(&in->solver);
  in->K = its;
  PetscCall(HypreKernelTimes(comm, A, 20, &in->t_spmv, &in->t_pc, &in->t_vec, &S));
  PetscCall(HypreLayoutHalo(comm, A, &eff, &in->layout, &in->halo, &in->ranks_per_core));
  in->t_init     = -1;
  in->t_arrival  = -1; /* a model of hypre's solve, no recorded one */
  in->halo_theta = 0;
  PKNetStateUnknown(&in->net);
  in->sync[0] = in->sync[1] = in->layout.P > 1 ? S : -1;
  in->theta                 = -1;
  in->t_cpu                 = t_cpu;
  PetscCall(PKModelSolve(&eff, in, res));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateOurs(PKProblem *prob, const char type[], const char prefix[], PetscReal rtol, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, prob->A, prob->A));
  PetscCall(KSPSetType(*ksp, type));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_NATURAL));
  PetscCall(KSPSetTolerances(*ksp, rtol, 0.0, PETSC_DEFAULT, 100000));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(0);
}

/* Timed solves first (no report: its end-of-solve statistics would be timed too), then two more solves on a
   fresh KSP with the report in CSV form; the second's report is read back for the model */
static PetscErrorCode RunOurs(PKProblem *prob, const char type[], const char prefix[], PetscReal rtol, PetscInt nsolves, Side *s)
{
  MPI_Comm    comm = PETSC_COMM_WORLD;
  KSP         ksp;
  Vec         x;
  double     *t;
  PKReportCSV rep;
  PetscReal   v;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nsolves, &t));
  PetscCall(VecDuplicate(prob->b, &x));
  PetscCall(CreateOurs(prob, type, prefix, rtol, &ksp));
  for (PetscInt k = 0; k < nsolves; k++) {
    PetscLogDouble t0, t1;
    PetscCall(VecSet(x, 0.0));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, prob->b, x));
    PetscCall(PetscTime(&t1));
    t[k] = t1 - t0;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, t, (int)nsolves, MPI_DOUBLE, MPI_MAX, comm));
  s->name = type;
  s->t    = PKMedian(nsolves, t);
  PetscCall(KSPGetIterationNumber(ksp, &s->its));
  PetscCall(PKProblemError(prob, x, &v));
  s->err = v;
  PetscCall(KSPDestroy(&ksp));

  PetscCall(PKReportCSVBegin(comm, prefix, type, &rep));
  PetscCall(CreateOurs(prob, type, prefix, rtol, &ksp));
  for (PetscInt k = 0; k < 2; k++) { /* a warm-up, then the solve whose report is read (the file's last block) */
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, prob->b, x));
  }
  PetscCall(KSPDestroy(&ksp)); /* closes the report's file */
  PetscCall(PKReportCSVRead(comm, &rep));
  s->have_model      = PKReportCSVGet(&rep, "analytic,total", &v);
  s->model           = s->have_model ? v : 0;
  s->measured_report = PKReportCSVGet(&rep, "measured,ksp_solve", &v) ? v : 0;
  PetscCall(VecDestroy(&x));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  PKProblem          prob;
  PetscInt           nsolves = 3, n;
  PetscReal          rtol    = 1e-8;
  PetscMPIInt        size;
  HYPRE_IJMatrix     Aij;
  HYPRE_IJVector     bij, xij;
  HYPRE_ParCSRMatrix A;
  HYPRE_ParVector    b, x;
  HYPRE_Solver       solver;
  Side               sides[3];
  double            *t, cpu = 0;
  char               machine[PETSC_MAX_PATH_LEN] = "", mwhat[2 * PETSC_MAX_PATH_LEN + 64], mshort[PETSC_MAX_PATH_LEN];
  PKMachine          mach;
  PKSolveInput       hin;
  PKModelResult      hres;

  PetscBool hypre_ours = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsolves", &nsolves, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ksp_perfmodel_machine", machine, sizeof(machine), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-machine", machine, sizeof(machine), NULL));
  PetscCheck(nsolves >= 1 && rtol > 0 && rtol < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-nsolves must be >= 1 and -rtol in (0, 1)");
  /* one profile for the three models: hypre's here, ours in their reports (prefixes pcg_, nbpcg_) */
  PetscCall(PKExampleMachine(comm, machine, &mach, mwhat, sizeof(mwhat), mshort, sizeof(mshort)));
  if (machine[0]) {
    const char *opt[2] = {"-pcg_ksp_perfmodel_machine", "-nbpcg_ksp_perfmodel_machine"};
    for (int i = 0; i < 2; i++) {
      PetscBool set;
      PetscCall(PetscOptionsHasName(NULL, NULL, opt[i], &set));
      if (!set) PetscCall(PetscOptionsSetValue(NULL, opt[i], machine));
    }
  }
  PetscCall(PKProblemCreate(comm, NULL, &prob));
  PetscCall(VecGetSize(prob.b, &n));
  PetscCall(PetscMalloc1(nsolves, &t));

  /* hypre's PCG, diagonal scaling, its default norm sqrt(r'Cr) relative to sqrt(b'Cb). hypre 2.29 and later must be
     initialized before its first object (HYPRE_IJMatrixInitialize fails otherwise); PETSc does it only for its own
     hypre objects, and none was made yet */
  PetscCall(HypreInitialize(&hypre_ours));
  PetscCall(ToHypre(prob.A, prob.b, &Aij, &bij, &xij));
  HypreCall(HYPRE_IJMatrixGetObject(Aij, (void **)&A));
  HypreCall(HYPRE_IJVectorGetObject(bij, (void **)&b));
  HypreCall(HYPRE_IJVectorGetObject(xij, (void **)&x));
  HypreCall(HYPRE_ParCSRPCGCreate(comm, &solver));
  HypreCall(HYPRE_PCGSetTol(solver, rtol));
  HypreCall(HYPRE_PCGSetMaxIter(solver, 100000));
  HypreCall(HYPRE_PCGSetTwoNorm(solver, 0));
  HypreCall(HYPRE_PCGSetPrecond(solver, (HYPRE_PtrToSolverFcn)HYPRE_ParCSRDiagScale, (HYPRE_PtrToSolverFcn)HYPRE_ParCSRDiagScaleSetup, NULL));
  HypreCall(HYPRE_ParCSRPCGSetup(solver, A, b, x));
  for (PetscInt k = 0; k < nsolves; k++) {
    double t0, c0;
    HypreCall(HYPRE_ParVectorSetConstantValues(x, 0.0));
    PetscCallMPI(MPI_Barrier(comm));
    c0 = ProcessCPU();
    t0 = MPI_Wtime();
    HypreCall(HYPRE_ParCSRPCGSolve(solver, A, b, x));
    t[k] = MPI_Wtime() - t0;
    cpu += (ProcessCPU() - c0) / nsolves;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, t, (int)nsolves, MPI_DOUBLE, MPI_MAX, comm));
  {
    HYPRE_Int its;
    Vec       xp;
    PetscInt  rs, re;
    PetscReal err;
    HypreCall(HYPRE_PCGGetNumIterations(solver, &its));
    sides[0].name            = "hypre PCG";
    sides[0].its             = its;
    sides[0].t               = PKMedian(nsolves, t);
    sides[0].measured_report = 0;
    /* the model of hypre's PCG: its counts, hypre's kernels and halo of this run (mean CPU time per solve and rank
       for the oversubscription term, as the report takes it) */
    {
      PetscReal   gcpu, lcpu = (PetscReal)cpu;
      PetscMPIInt sz;
      PetscCallMPI(MPI_Comm_size(comm, &sz));
      PetscCallMPI(MPI_Allreduce(&lcpu, &gcpu, 1, MPIU_REAL, MPIU_SUM, comm));
      PetscCall(ModelHyprePCG(comm, A, its, gcpu / sz, &mach, &hin, &hres));
    }
    sides[0].have_model = PETSC_TRUE;
    sides[0].model      = hres.total;
    /* hypre's solution back into PETSc for the same error measure */
    PetscCall(VecDuplicate(prob.b, &xp));
    PetscCall(VecGetOwnershipRange(xp, &rs, &re));
    {
      PetscScalar *xa;
      PetscCall(VecGetArray(xp, &xa));
      for (PetscInt i = rs; i < re; i++) {
        HYPRE_BigInt row = i;
        HYPRE_Real   val;
        HypreCall(HYPRE_IJVectorGetValues(xij, 1, &row, &val));
        xa[i - rs] = val;
      }
      PetscCall(VecRestoreArray(xp, &xa));
    }
    PetscCall(PKProblemError(&prob, xp, &err));
    sides[0].err = err;
    PetscCall(VecDestroy(&xp));
  }
  HypreCall(HYPRE_ParCSRPCGDestroy(solver));
  HypreCall(HYPRE_IJMatrixDestroy(Aij));
  HypreCall(HYPRE_IJVectorDestroy(bij));
  HypreCall(HYPRE_IJVectorDestroy(xij));

  PetscCall(RunOurs(&prob, KSPPKPCG, "pcg_", rtol, nsolves, &sides[1]));
  PetscCall(RunOurs(&prob, KSPPKNBPCG, "nbpcg_", rtol, nsolves, &sides[2]));

  PetscCall(PetscPrintf(comm, "hypre_pcg (003 section VII): %s, %" PetscInt_FMT " unknowns on %d ranks, diagonal scaling, rtol %.0e in sqrt(r'Cr), x0 = 0; median of %" PetscInt_FMT " solves, slowest rank\n", prob.name, n, size, (double)rtol, nsolves));
  PetscCall(PetscPrintf(comm, "  machine profile of the models: %s\n", mwhat));
  PetscCall(PetscPrintf(comm, "  %-12s %6s %12s %12s %12s %12s %8s %11s\n", "solver", "its", "solve_s", "per_it_us", "report_s", "model_s", "gap", "rel_error"));
  for (int i = 0; i < 3; i++) {
    char ms[32] = "-", gs[32] = "-", rs[32] = "-";
    if (sides[i].measured_report > 0) snprintf(rs, sizeof(rs), "%.4e", sides[i].measured_report);
    if (sides[i].have_model) {
      /* ours: the model is of the report's own measurement of that solve, the gap is against it; hypre: against
         the median of its timed solves */
      double meas = i ? sides[i].measured_report : sides[i].t;
      snprintf(ms, sizeof(ms), "%.4e", sides[i].model);
      if (meas > 0) snprintf(gs, sizeof(gs), "%+.1f%%", 100.0 * (sides[i].model - meas) / meas);
    }
    PetscCall(PetscPrintf(comm, "  %-12s %6" PetscInt_FMT " %12.4e %12.2f %12s %12s %8s %11.3e\n", sides[i].name, sides[i].its, sides[i].t, sides[i].its ? 1e6 * sides[i].t / sides[i].its : 0.0, rs, ms, gs, sides[i].err));
  }
  {
    const PetscReal *tt = hres.t;
    PetscReal        K = (PetscReal)PetscMax(hres.K, 1), halo = 0, allr = 0;
    for (int k = PK_TERM_HALO_POSTAL; k <= PK_TERM_HALO_OVERLAP; k++) halo += tt[k];
    for (int k = PK_TERM_ALLR_COMM; k <= PK_TERM_ALLR_CONGESTION; k++) allr += tt[k];
    PetscCall(PetscPrintf(comm, "  model of hypre PCG (a blocking CG with hypre's counts: 1 matvec, 1 diagonal scaling, 2 blocking 1-value\n  inner products, 16 vector streams per iteration; its kernels timed in this run), per iteration in us:\n"));
    PetscCall(PetscPrintf(comm, "    matvec %.2f, scaling %.2f, vectors %.2f, halo %.2f, inner products %.2f, synchronization %.2f%s; start-up %.2f\n", 1e6 * tt[PK_TERM_SPMV] / K, 1e6 * tt[PK_TERM_PC] / K, 1e6 * tt[PK_TERM_VEC] / K, 1e6 * halo / K, 1e6 * allr / K, 1e6 * tt[PK_TERM_SYNC] / K, tt[PK_TERM_OVERSUB] > 0 ? ", ranks sharing a core" : "", 1e6 * tt[PK_TERM_INIT]));
  }
  PetscCall(PetscPrintf(comm, "  ours/hypre per iteration: pcg %.2f, nbpcg %.2f\n  (solve_s: timed solves without the monitor; for ours report_s, model_s, gap: a later solve with -ksp_perfmodel_view (after\n  a warm-up), its measured KSPSolve and the analytic model's prediction of it; for hypre model_s and gap against solve_s)\n",
                        (sides[1].t / PetscMax(sides[1].its, 1)) / (sides[0].t / PetscMax(sides[0].its, 1)), (sides[2].t / PetscMax(sides[2].its, 1)) / (sides[0].t / PetscMax(sides[0].its, 1))));
  PetscCall(PetscFree(t));
  PetscCall(PKProblemDestroy(&prob));
  if (hypre_ours) HypreCall(HYPRE_Finalize());
  PetscCall(PetscFinalize());
  return 0;
}
