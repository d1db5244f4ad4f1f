/*
   Model problems (see problems.h). Each is assembled on a DMDA with MatSetValuesStencil, so that the operator is
   MPIAIJ (SeqAIJ on one rank) with the DMDA's natural halo.
*/
#include "problems.h"
#include <pipekrylov.h>

/* -nodeaware: the DMDA is created node-aware (DMDACreateNodeAware: each node a compact block of the process grid,
   on a reordered communicator; the global sizes stay those of the default layout) */
static PetscBool pk_nodeaware = PETSC_FALSE;

/* Cube root, rounded, of the rows per rank: the paper sizes poisson27 as k x k x k points per rank */
static PetscInt PKCubeSide(PetscInt rows)
{
  PetscInt s = (PetscInt)(PetscPowReal((PetscReal)rows, 1.0 / 3.0) + 0.5);
  return PetscMax(s, 2);
}

/* The 3-D 27-point Poisson operator of 000 section 3: 26 on the diagonal, -1 for each of the 26 neighbours,
   Dirichlet boundary rows kept as 26 * identity-like rows so that the operator stays SPD. */
static PetscErrorCode PKAssemblePoisson27(MPI_Comm comm, PKProblem *p, PetscInt rows_per_rank)
{
  PetscMPIInt size;
  PetscInt    side, xs, ys, zs, xm, ym, zm, M, N, P, m = PETSC_DECIDE, n = PETSC_DECIDE, q = PETSC_DECIDE;
  MatStencil  row, col[27];
  PetscScalar v[27];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  side = PKCubeSide(rows_per_rank);
  {
    /* a process grid as cubic as possible, then each process owns side^3 points */
    PetscMPIInt dims[3] = {0, 0, 0};
    PetscCallMPI(MPI_Dims_create(size, 3, dims));
    m = dims[2];
    n = dims[1];
    q = dims[0];
  }
  M = side * m;
  N = side * n;
  P = side * q;
  if (pk_nodeaware) PetscCall(DMDACreateNodeAware(comm, 3, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, M, N, P, 1, 1, &p->da));
  else {
    PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, M, N, P, m, n, q, 1, 1, NULL, NULL, NULL, &p->da));
    PetscCall(DMSetFromOptions(p->da));
    PetscCall(DMSetUp(p->da));
  }
  PetscCall(DMCreateMatrix(p->da, &p->A));
  PetscCall(DMDAGetCorners(p->da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetInfo(p->da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscInt nc = 0;
        row.i       = i;
        row.j       = j;
        row.k       = k;
        row.c       = 0;
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              PetscInt ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= M || jj >= N || kk >= P) continue;
              col[nc].i = ii;
              col[nc].j = jj;
              col[nc].k = kk;
              col[nc].c = 0;
              v[nc++]   = (di || dj || dk) ? -1.0 : 26.0;
            }
        PetscCall(MatSetValuesStencil(p->A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscFunctionReturn(0);
}

/* 2-D five-point operators on an n x n grid: coefficient k(x,y) for diffusion, optional shift, skew and wind */
typedef struct {
  PetscReal contrast; /* varcoef: k jumps between 1 and contrast in horizontal layers */
  PetscReal sigma;    /* indefinite: subtract sigma * h^2-scaled identity */
  PetscReal eps;      /* convdiff: diffusion */
  PetscReal wind;     /* convdiff: wind speed; nonsym: skew strength */
  PetscBool upwind;
  PetscBool rotating; /* convdiff: recirculating wind instead of the default turning one */
} PK2DParams;

/* varcoef: k = contrast in every other one of 8 horizontal layers and in one vertical strip, 1 elsewhere */
static PetscReal PKKappa(const PK2DParams *prm, PetscReal x, PetscReal y)
{
  if (prm->contrast <= 1.0) return 1.0;
  if (((PetscInt)(8.0 * y)) % 2 || (x > 0.4 && x < 0.6)) return prm->contrast;
  return 1.0;
}

static PetscErrorCode PKAssemble2D(MPI_Comm comm, PKProblem *p, PetscInt nside, const PK2DParams *prm)
{
  PetscInt    xs, ys, xm, ym;
  PetscReal   h = 1.0 / (nside + 1);
  MatStencil  row, col[5];
  PetscScalar v[5];

  PetscFunctionBegin;
  if (pk_nodeaware) PetscCall(DMDACreateNodeAware(comm, 2, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, nside, nside, 1, 1, 1, &p->da));
  else {
    PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, nside, nside, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &p->da));
    PetscCall(DMSetFromOptions(p->da));
    PetscCall(DMSetUp(p->da));
  }
  PetscCall(DMCreateMatrix(p->da, &p->A));
  PetscCall(DMDAGetCorners(p->da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      PetscReal x = (i + 1) * h, y = (j + 1) * h, kc = PKKappa(prm, x, y);
      PetscReal kw = 0.5 * (kc + PKKappa(prm, x - h, y)), ke = 0.5 * (kc + PKKappa(prm, x + h, y));
      PetscReal ks = 0.5 * (kc + PKKappa(prm, x, y - h)), kn = 0.5 * (kc + PKKappa(prm, x, y + h));
      PetscReal d  = prm->eps > 0 ? prm->eps : 1.0;
      PetscReal cw = -d * kw, ce = -d * ke, cs = -d * ks, cn = -d * kn, cc = d * (kw + ke + ks + kn) - prm->sigma;
      PetscInt  nc = 0;
      if (prm->eps > 0) { /* convection, first-order upwind: an M-matrix, non-symmetric */
        /* default: a wind that turns across the domain without recirculating, so that GMRES(30) with Jacobi
           converges in a few hundred iterations at n = 64 (the recirculating one needs thousands) */
        PetscReal wx = prm->wind * (0.5 + y), wy = prm->wind * (0.25 + 0.5 * x);
        if (prm->rotating) {
          wx = prm->wind * (y - 0.5);
          wy = -prm->wind * (x - 0.5);
        }
        if (wx > 0) {
          cw -= wx * h;
          cc += wx * h;
        } else {
          ce += wx * h;
          cc -= wx * h;
        }
        if (wy > 0) {
          cs -= wy * h;
          cc += wy * h;
        } else {
          cn += wy * h;
          cc -= wy * h;
        }
      } else if (prm->wind != 0) { /* nonsym: a skew-symmetric part */
        cw -= prm->wind * h;
        ce += prm->wind * h;
      }
      row.i     = i;
      row.j     = j;
      row.k     = 0;
      row.c     = 0;
      col[nc].i = i;
      col[nc].j = j;
      v[nc++]   = cc;
      if (i > 0) {
        col[nc].i = i - 1;
        col[nc].j = j;
        v[nc++]   = cw;
      }
      if (i < nside - 1) {
        col[nc].i = i + 1;
        col[nc].j = j;
        v[nc++]   = ce;
      }
      if (j > 0) {
        col[nc].i = i;
        col[nc].j = j - 1;
        v[nc++]   = cs;
      }
      if (j < nside - 1) {
        col[nc].i = i;
        col[nc].j = j + 1;
        v[nc++]   = cn;
      }
      for (PetscInt c = 0; c < nc; c++) col[c].k = col[c].c = 0;
      PetscCall(MatSetValuesStencil(p->A, 1, &row, nc, col, v, INSERT_VALUES));
    }
  PetscFunctionReturn(0);
}

/* A smooth exact solution with nonzero values everywhere, so that errors are visible on every rank */
static PetscErrorCode PKSetExact(PKProblem *p)
{
  PetscInt     dim, xs, ys, zs, xm, ym, zm, M, N, P;
  PetscScalar *x;
  PetscInt     idx = 0;

  PetscFunctionBegin;
  PetscCall(DMCreateGlobalVector(p->da, &p->xexact));
  PetscCall(VecDuplicate(p->xexact, &p->b));
  PetscCall(DMDAGetInfo(p->da, &dim, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(p->da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(p->xexact, &x));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscReal X = (i + 1.0) / (M + 1), Y = (j + 1.0) / (N + 1), Z = dim == 3 ? (k + 1.0) / (P + 1) : 0.5;
        x[idx++] = PetscSinReal(PETSC_PI * X) * PetscSinReal(2 * PETSC_PI * Y) * (1.0 + Z) + 0.1 * X * Y;
      }
  PetscCall(VecRestoreArray(p->xexact, &x));
  PetscCall(MatMult(p->A, p->xexact, p->b));
  PetscFunctionReturn(0);
}

/*
   PKProblemCreate - builds the problem named by -<prefix>problem (default poisson27) with its options.
*/
PetscErrorCode PKProblemCreate(MPI_Comm comm, const char prefix[], PKProblem *p)
{
  PetscInt   n = 64, rows = 8000;
  PK2DParams prm = {0, 0, 0, 0, PETSC_TRUE, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(PetscStrcpy(p->name, "poisson27"));
  PetscOptionsBegin(comm, prefix, "pipekrylov model problem", "");
  PetscCall(PetscOptionsString("-problem", "poisson27, laplace2d, varcoef, convdiff, indefinite, nonsym", "", p->name, p->name, sizeof(p->name), NULL));
  PetscCall(PetscOptionsInt("-n", "grid points per direction (2-D problems)", "", n, &n, NULL));
  PetscCall(PetscOptionsInt("-rows_per_rank", "rows per rank (poisson27; a cube of side its cube root)", "", rows, &rows, NULL));
  prm.contrast = 1e4;
  PetscCall(PetscOptionsReal("-contrast", "coefficient contrast (varcoef)", "", prm.contrast, &prm.contrast, NULL));
  prm.sigma = 0.5;
  PetscCall(PetscOptionsReal("-sigma", "shift (indefinite)", "", prm.sigma, &prm.sigma, NULL));
  prm.eps = 0.01;
  PetscCall(PetscOptionsReal("-eps", "diffusion (convdiff)", "", prm.eps, &prm.eps, NULL));
  prm.wind = 1.0;
  PetscCall(PetscOptionsReal("-wind", "wind (convdiff) or skew part (nonsym)", "", prm.wind, &prm.wind, NULL));
  PetscCall(PetscOptionsBool("-rotating", "recirculating wind w = wind (y - 1/2, 1/2 - x) (convdiff; much harder for GMRES)", "", prm.rotating, &prm.rotating, NULL));
  pk_nodeaware = PETSC_FALSE;
  PetscCall(PetscOptionsBool("-nodeaware", "node-aware DMDA (each node a compact block; the objects live on a reordered communicator: PetscObjectComm(A))", "DMDACreateNodeAware", pk_nodeaware, &pk_nodeaware, NULL));
  PetscOptionsEnd();
  PetscCheck(n > 1 && rows > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must exceed 1 and -rows_per_rank must be positive");
  p->spd = PETSC_TRUE;
  if (!strcmp(p->name, "poisson27")) PetscCall(PKAssemblePoisson27(comm, p, rows));
  else if (!strcmp(p->name, "laplace2d")) {
    PK2DParams q = {0, 0, 0, 0, PETSC_TRUE, PETSC_FALSE};
    PetscCall(PKAssemble2D(comm, p, n, &q));
  } else if (!strcmp(p->name, "varcoef")) {
    PK2DParams q = {prm.contrast, 0, 0, 0, PETSC_TRUE, PETSC_FALSE};
    PetscCall(PKAssemble2D(comm, p, n, &q));
  } else if (!strcmp(p->name, "convdiff")) {
    PK2DParams q = {0, 0, prm.eps, prm.wind, PETSC_TRUE, prm.rotating};
    PetscCall(PKAssemble2D(comm, p, n, &q));
    p->spd = PETSC_FALSE;
  } else if (!strcmp(p->name, "indefinite")) {
    /* the 5-point Laplacian has eigenvalues 8 sin^2 down to ~2 pi^2 h^2: a shift of sigma * 8 puts some below 0 */
    PK2DParams q = {0, 8.0 * prm.sigma, 0, 0, PETSC_TRUE, PETSC_FALSE};
    PetscCall(PKAssemble2D(comm, p, n, &q));
    p->spd = PETSC_FALSE;
  } else if (!strcmp(p->name, "nonsym")) {
    PK2DParams q = {0, 0, 0, prm.wind * (n + 1), PETSC_TRUE, PETSC_FALSE};
    PetscCall(PKAssemble2D(comm, p, n, &q));
    p->spd = PETSC_FALSE;
  } else SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -problem %s: poisson27, laplace2d, varcoef, convdiff, indefinite or nonsym", p->name);
  PetscCall(MatAssemblyBegin(p->A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(p->A, MAT_FINAL_ASSEMBLY));
  PetscCall(PKSetExact(p));
  PetscFunctionReturn(0);
}

PetscErrorCode PKProblemDestroy(PKProblem *p)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&p->A));
  PetscCall(VecDestroy(&p->b));
  PetscCall(VecDestroy(&p->xexact));
  PetscCall(DMDestroy(&p->da));
  PetscFunctionReturn(0);
}

/* ||x - xexact|| / ||xexact|| */
PetscErrorCode PKProblemError(PKProblem *p, Vec x, PetscReal *err)
{
  Vec       e;
  PetscReal nx;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(x, &e));
  PetscCall(VecWAXPY(e, -1.0, p->xexact, x));
  PetscCall(VecNorm(e, NORM_2, err));
  PetscCall(VecNorm(p->xexact, NORM_2, &nx));
  *err /= nx;
  PetscCall(VecDestroy(&e));
  PetscFunctionReturn(0);
}
