/*
   Chunked SpMV with MPI_Test progress.

   For MATSEQAIJ and MATMPIAIJ the product is computed here, on PETSc's own CSR arrays, in row chunks with an
   MPI_Test between chunks, so that a non-blocking reduction that is outstanding keeps moving. For MPIAIJ the halo
   exchange is driven here too (a scatter built from MatMPIAIJGetSeqAIJ's column map): start it, multiply the
   diagonal block in chunks, wait for the halo (charged to the halo phase), add the off-diagonal block in chunks.

   The row kernels walk two or four rows at once; which is faster depends on the processor and on whether the matrix
   stays in cache (AMD EPYC, poisson27: four rows 2-4% faster in cache, up to 37% slower out of it), so the first
   applications of each operator alternate the two, timed, and the faster is kept (PK_SPMV_TRIALS each).

   The arithmetic is PETSc's: each row sums its products left to right starting from 0, and the off-diagonal part
   is added to the finished diagonal part, as MatMult_SeqAIJ / MatMultAdd_SeqAIJ do. Matrices whose MatMult uses a
   different kernel (inodes, GPU, other formats) would not match bit for bit, so at set-up one product on a random
   vector is compared with MatMult; on any difference, and for every other matrix type, PKSpMVApply calls MatMult
   with an MPI_Test before and after.
*/
#include <petsc/private/petscimpl.h>
#include <pipekrylov/private/pkcore.h>

struct _p_PKSpMV {
  Mat              A;        /* the operator (a reference) */
  PetscBool        chunked;  /* our kernel is used */
  char             why[160]; /* why not, for -ksp_view */
  PetscObjectState nzstate;  /* nonzero state the structure below was built for */
  Mat              Ad, Ao;   /* diagonal and off-diagonal blocks (Ao NULL for SeqAIJ) */
  PetscInt         m;        /* local rows */
  PetscInt         nghost;   /* halo values received */
  PetscInt         noff;     /* rows of Ao with entries */
  PetscInt        *offrows;  /* those rows */
  Vec              lvec;     /* halo values */
  VecScatter       halo;     /* global x -> lvec */
  PetscLogDouble   flops;    /* per product */
  int              width;    /* rows per step of the row kernels, 2 or 4; 0: still timing both */
  PetscInt         ntrial;   /* timed applications so far */
  PetscLogDouble   trial[2]; /* the fastest diagonal-block time of each width (2, 4) */
};

/* CSR arrays of a SeqAIJ block, borrowed for one product */
typedef struct {
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
} PKCSR;

static PetscErrorCode PKCSRGet(Mat B, PKCSR *c)
{
  PetscInt  n;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &n, &c->ia, &c->ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ failed on an AIJ block");
  PetscCall(MatSeqAIJGetArrayRead(B, &c->aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKCSRRestore(Mat B, PKCSR *c)
{
  PetscInt  n;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJRestoreArrayRead(B, &c->aa));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &n, &c->ia, &c->ja, &done));
  PetscFunctionReturn(0);
}

/*
   The row kernels walk two or four rows at once. A row's sum is one serial chain of additions, so a one-row loop
   waits on the adder's latency; independent sums keep it busy. Four rows were about 15% faster than MatMult_SeqAIJ
   on poisson27 in cache on one machine, and out of cache on another up to 37% slower than it, where two rows were
   as fast as MatMult or faster at every size (the choice is timed per operator: PKSpMVApply). Within each row the
   additions keep their order (0, then left to right), so every y[i] is MatMult's, bit for bit, with either width.
*/

/* Two rows' sums at once, each continued left to right from *s0, *s1: the nonzeros [k0, e0) and [k1, e1) */
static inline void PKSum2(const PetscInt *PETSC_RESTRICT ja, const PetscScalar *PETSC_RESTRICT aa, const PetscScalar *PETSC_RESTRICT x, PetscInt k0, PetscInt e0, PetscInt k1, PetscInt e1, PetscScalar *s0, PetscScalar *s1)
{
  const PetscInt n = PetscMin(e0 - k0, e1 - k1);
  PetscScalar    a = *s0, b = *s1;

  for (PetscInt k = 0; k < n; k++) {
    a += aa[k0 + k] * x[ja[k0 + k]];
    b += aa[k1 + k] * x[ja[k1 + k]];
  }
  for (PetscInt k = k0 + n; k < e0; k++) a += aa[k] * x[ja[k]];
  for (PetscInt k = k1 + n; k < e1; k++) b += aa[k] * x[ja[k]];
  *s0 = a;
  *s1 = b;
}

/* The same, four rows: the nonzeros [k[r], e[r]) of row r, its sum continued from s[r] */
static inline void PKSum4(const PetscInt *PETSC_RESTRICT ja, const PetscScalar *PETSC_RESTRICT aa, const PetscScalar *PETSC_RESTRICT x, const PetscInt k[4], const PetscInt e[4], PetscScalar s[4])
{
  const PetscInt n  = PetscMin(PetscMin(e[0] - k[0], e[1] - k[1]), PetscMin(e[2] - k[2], e[3] - k[3]));
  PetscScalar    s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];

  for (PetscInt j = 0; j < n; j++) {
    s0 += aa[k[0] + j] * x[ja[k[0] + j]];
    s1 += aa[k[1] + j] * x[ja[k[1] + j]];
    s2 += aa[k[2] + j] * x[ja[k[2] + j]];
    s3 += aa[k[3] + j] * x[ja[k[3] + j]];
  }
  for (PetscInt j = k[0] + n; j < e[0]; j++) s0 += aa[j] * x[ja[j]];
  for (PetscInt j = k[1] + n; j < e[1]; j++) s1 += aa[j] * x[ja[j]];
  for (PetscInt j = k[2] + n; j < e[2]; j++) s2 += aa[j] * x[ja[j]];
  for (PetscInt j = k[3] + n; j < e[3]; j++) s3 += aa[j] * x[ja[j]];
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
}

/* y[i] = sum_k a_ik x_k for rows [r0, r1), summed left to right from 0 as MatMult_SeqAIJ does, two rows per step */
static inline void PKRowsMult2(const PKCSR *c, const PetscScalar *PETSC_RESTRICT x, PetscScalar *PETSC_RESTRICT y, PetscInt r0, PetscInt r1)
{
  const PetscInt *ia = c->ia;
  PetscInt        i  = r0;

  for (; i + 2 <= r1; i += 2) {
    PetscScalar s0 = 0.0, s1 = 0.0;
    PKSum2(c->ja, c->aa, x, ia[i], ia[i + 1], ia[i + 1], ia[i + 2], &s0, &s1);
    y[i]     = s0;
    y[i + 1] = s1;
  }
  if (i < r1) { /* the last row: its sum alone (the second range empty) */
    PetscScalar s0 = 0.0, s1 = 0.0;
    PKSum2(c->ja, c->aa, x, ia[i], ia[i + 1], ia[i + 1], ia[i + 1], &s0, &s1);
    y[i] = s0;
  }
}

/* The same, four rows per step (the last rows two and one at a time) */
static inline void PKRowsMult4(const PKCSR *c, const PetscScalar *PETSC_RESTRICT x, PetscScalar *PETSC_RESTRICT y, PetscInt r0, PetscInt r1)
{
  const PetscInt *ia = c->ia;
  PetscInt        i  = r0;

  for (; i + 4 <= r1; i += 4) {
    PetscScalar s[4] = {0.0, 0.0, 0.0, 0.0};
    PKSum4(c->ja, c->aa, x, ia + i, ia + i + 1, s);
    y[i]     = s[0];
    y[i + 1] = s[1];
    y[i + 2] = s[2];
    y[i + 3] = s[3];
  }
  PKRowsMult2(c, x, y, i, r1); /* the last rows, fewer than four */
}

/* y[i] += sum_k a_ik x_k for the listed rows, continuing y[i]'s sum as MatMultAdd_SeqAIJ does, two rows per step */
static inline void PKRowsMultAdd2(const PKCSR *c, const PetscInt *PETSC_RESTRICT rows, const PetscScalar *PETSC_RESTRICT x, PetscScalar *PETSC_RESTRICT y, PetscInt j0, PetscInt j1)
{
  const PetscInt *ia = c->ia;
  PetscInt        j  = j0;

  for (; j + 2 <= j1; j += 2) {
    const PetscInt i0 = rows[j], i1 = rows[j + 1];
    PetscScalar    s0 = y[i0], s1 = y[i1];
    PKSum2(c->ja, c->aa, x, ia[i0], ia[i0 + 1], ia[i1], ia[i1 + 1], &s0, &s1);
    y[i0] = s0;
    y[i1] = s1;
  }
  if (j < j1) { /* the last row alone */
    const PetscInt i  = rows[j];
    PetscScalar    s0 = y[i], s1 = 0.0;
    PKSum2(c->ja, c->aa, x, ia[i], ia[i + 1], ia[i + 1], ia[i + 1], &s0, &s1);
    y[i] = s0;
  }
}

/* The same, four rows per step (the last rows two and one at a time) */
static inline void PKRowsMultAdd4(const PKCSR *c, const PetscInt *PETSC_RESTRICT rows, const PetscScalar *PETSC_RESTRICT x, PetscScalar *PETSC_RESTRICT y, PetscInt j0, PetscInt j1)
{
  const PetscInt *ia = c->ia;
  PetscInt        j  = j0;

  for (; j + 4 <= j1; j += 4) {
    const PetscInt i[4] = {rows[j], rows[j + 1], rows[j + 2], rows[j + 3]};
    const PetscInt k[4] = {ia[i[0]], ia[i[1]], ia[i[2]], ia[i[3]]}, e[4] = {ia[i[0] + 1], ia[i[1] + 1], ia[i[2] + 1], ia[i[3] + 1]};
    PetscScalar    s[4] = {y[i[0]], y[i[1]], y[i[2]], y[i[3]]};
    PKSum4(c->ja, c->aa, x, k, e, s);
    for (int r = 0; r < 4; r++) y[i[r]] = s[r];
  }
  PKRowsMultAdd2(c, rows, x, y, j, j1); /* the last rows, fewer than four */
}

/* The product with rows of `width` per kernel step; *tk (may be NULL) the time of the diagonal block's kernels alone */
static PetscErrorCode PKSpMVApplyChunked(PKSpMV s, Vec xx, Vec yy, PetscInt nchunks, PKReduce *red, PKRec rec, int width, PetscLogDouble *tk)
{
  PKCSR              d, o;
  const PetscScalar *x, *xg;
  PetscScalar       *y;
  PetscInt           c, m = s->m, nc;
  PetscLogDouble     t0, t1;

  PetscFunctionBegin;
  if (tk) *tk = 0;
  if (s->Ao) PetscCall(VecScatterBegin(s->halo, xx, s->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PKCSRGet(s->Ad, &d));
  PetscCall(VecGetArrayRead(xx, &x));
  PetscCall(VecGetArray(yy, &y));
  nc = PetscMax(1, PetscMin(nchunks, m));
  for (c = 0; c < nc; c++) {
    if (c) PetscCall(PKReduceTest(red));
    if (tk) PetscCall(PetscTime(&t0));
    if (width == 2) PKRowsMult2(&d, x, y, (m * c) / nc, (m * (c + 1)) / nc);
    else PKRowsMult4(&d, x, y, (m * c) / nc, (m * (c + 1)) / nc);
    if (tk) {
      PetscCall(PetscTime(&t1));
      *tk += t1 - t0;
    }
  }
  PetscCall(VecRestoreArrayRead(xx, &x));
  PetscCall(PKCSRRestore(s->Ad, &d));
  if (s->Ao) {
    PetscCall(PKReduceTest(red));
    PKRecPhase(rec, PK_PHASE_HALO);
    PetscCall(VecScatterEnd(s->halo, xx, s->lvec, INSERT_VALUES, SCATTER_FORWARD));
    PKRecPhase(rec, PK_PHASE_SPMV);
    PetscCall(PKCSRGet(s->Ao, &o));
    PetscCall(VecGetArrayRead(s->lvec, &xg));
    nc = PetscMax(1, PetscMin(nchunks, s->noff));
    for (c = 0; c < nc; c++) {
      if (c) PetscCall(PKReduceTest(red));
      if (width == 2) PKRowsMultAdd2(&o, s->offrows, xg, y, (s->noff * c) / nc, (s->noff * (c + 1)) / nc);
      else PKRowsMultAdd4(&o, s->offrows, xg, y, (s->noff * c) / nc, (s->noff * (c + 1)) / nc);
    }
    PetscCall(VecRestoreArrayRead(s->lvec, &xg));
    PetscCall(PKCSRRestore(s->Ao, &o));
  }
  PetscCall(VecRestoreArray(yy, &y));
  PetscCall(PetscLogFlops(s->flops));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKSpMVClear(PKSpMV s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(s->offrows));
  PetscCall(VecDestroy(&s->lvec));
  PetscCall(VecScatterDestroy(&s->halo));
  s->Ad = s->Ao = NULL;
  s->noff = s->nghost = 0;
  s->chunked          = PETSC_FALSE;
  s->width            = 0; /* a new structure: time both widths again */
  s->ntrial           = 0;
  PetscFunctionReturn(0);
}

/* Compare our product with MatMult on a vector of scattered values in [-1, 1) (a multiplicative hash of the global
   index: no PetscRandom to create, the same vector on any rank count); all ranks agree on the outcome */
static PetscErrorCode PKSpMVSelfCheck(PKSpMV s, PetscBool *same)
{
  Vec                x, y1, y2;
  PetscScalar       *xa;
  const PetscScalar *a1, *a2;
  PetscInt           n, lo;
  PetscBool          ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(s->A, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(VecGetOwnershipRange(x, &lo, NULL));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt i = 0; i < n; i++) xa[i] = (PetscReal)(((uint64_t)(lo + i + 1) * 2654435761u) % 1048576u) / 524288.0 - 1.0;
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscCall(MatMult(s->A, x, y1));
  PetscCall(VecGetLocalSize(y1, &n));
  for (int width = 2; width <= 4 && ok; width += 2) { /* both row-kernel widths, each on a cleared y2 */
    PetscCall(VecZeroEntries(y2));
    PetscCall(PKSpMVApplyChunked(s, x, y2, 3, NULL, NULL, width, NULL));
    PetscCall(VecGetArrayRead(y1, &a1));
    PetscCall(VecGetArrayRead(y2, &a2));
    for (PetscInt i = 0; i < n; i++)
      if (a1[i] != a2[i]) {
        ok = PETSC_FALSE;
        break;
      }
    PetscCall(VecRestoreArrayRead(y1, &a1));
    PetscCall(VecRestoreArrayRead(y2, &a2));
  }
  PetscCallMPI(MPI_Allreduce(&ok, same, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)s->A)));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscFunctionReturn(0);
}

/* (Re)build the structure for the current nonzero pattern of A */
static PetscErrorCode PKSpMVBuild(PKSpMV s)
{
  PetscBool       isseq, ismpi, same;
  const PetscInt *garray;
  PetscInt        nzd = 0, nzo = 0, nrowsnz = 0, mo;

  PetscFunctionBegin;
  PetscCall(PKSpMVClear(s));
  PetscCall(MatGetNonzeroState(s->A, &s->nzstate));
  PetscCall(PetscObjectTypeCompare((PetscObject)s->A, MATSEQAIJ, &isseq));
  PetscCall(PetscObjectTypeCompare((PetscObject)s->A, MATMPIAIJ, &ismpi));
  if (!isseq && !ismpi) {
    PetscCall(PetscSNPrintf(s->why, sizeof(s->why), "matrix type %s is not chunked: MatMult with MPI_Test before and after", ((PetscObject)s->A)->type_name));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGetLocalSize(s->A, &s->m, NULL));
  if (isseq) s->Ad = s->A;
  else {
    IS       from;
    Vec      xg;
    PKCSR    o;
    PetscInt i;

    PetscCall(MatMPIAIJGetSeqAIJ(s->A, &s->Ad, &s->Ao, &garray));
    PetscCall(MatGetSize(s->Ao, &mo, &s->nghost));
    PetscCall(PKCSRGet(s->Ao, &o));
    for (i = 0; i < s->m; i++)
      if (o.ia[i + 1] > o.ia[i]) s->noff++;
    PetscCall(PetscMalloc1(s->noff, &s->offrows));
    for (s->noff = 0, i = 0; i < s->m; i++)
      if (o.ia[i + 1] > o.ia[i]) s->offrows[s->noff++] = i;
    nzo = o.ia[s->m];
    PetscCall(PKCSRRestore(s->Ao, &o));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, s->nghost, garray, PETSC_COPY_VALUES, &from));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, s->nghost, &s->lvec));
    PetscCall(MatCreateVecs(s->A, &xg, NULL));
    PetscCall(VecScatterCreate(xg, from, s->lvec, NULL, &s->halo));
    PetscCall(VecDestroy(&xg));
    PetscCall(ISDestroy(&from));
  }
  {
    PKCSR d;
    PetscCall(PKCSRGet(s->Ad, &d));
    nzd = d.ia[s->m];
    for (PetscInt i = 0; i < s->m; i++)
      if (d.ia[i + 1] > d.ia[i]) nrowsnz++;
    PetscCall(PKCSRRestore(s->Ad, &d));
  }
  s->flops   = 2.0 * (nzd + nzo) - nrowsnz; /* as PETSc logs MatMult_SeqAIJ plus MatMultAdd_SeqAIJ */
  s->chunked = PETSC_TRUE;
  PetscCall(PKSpMVSelfCheck(s, &same));
  if (!same) {
    s->chunked = PETSC_FALSE; /* keep the halo scatter: the model still reads its neighbours */
    PetscCall(PetscSNPrintf(s->why, sizeof(s->why), "this matrix's MatMult kernel (e.g. inodes) differs from plain CSR: MatMult with MPI_Test before and after"));
  } else s->why[0] = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode PKSpMVCreate(Mat A, PKSpMV *s)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(s));
  PetscCall(PetscObjectReference((PetscObject)A));
  (*s)->A = A;
  PetscCall(PKSpMVBuild(*s));
  PetscFunctionReturn(0);
}

PetscErrorCode PKSpMVDestroy(PKSpMV *s)
{
  PetscFunctionBegin;
  if (!*s) PetscFunctionReturn(0);
  PetscCall(PKSpMVClear(*s));
  PetscCall(MatDestroy(&(*s)->A));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(0);
}

/* y = A x, in nchunks pieces with PKReduceTest between them (red may be NULL or idle) */
PetscErrorCode PKSpMVApply(PKSpMV s, Vec x, Vec y, PetscInt nchunks, PKReduce *red, PKRec rec)
{
  PetscObjectState nz;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(s->A, &nz));
  if (nz != s->nzstate) PetscCall(PKSpMVBuild(s)); /* new nonzero pattern: new halo and rows */
  PKRecApply(rec, PK_PHASE_SPMV);
  if (s->chunked) {
    /* the first applications alternate the row-kernel widths, 4 first, timed; then the faster one is kept */
    const int      width = s->width ? s->width : (s->ntrial % 2 ? 2 : 4);
    PetscLogDouble tk;
    PetscCall(PetscLogEventBegin(PK_Event_SpMV, s->A, x, y, 0));
    PetscCall(PKSpMVApplyChunked(s, x, y, nchunks, red, rec, width, s->width ? NULL : &tk));
    PetscCall(PetscLogEventEnd(PK_Event_SpMV, s->A, x, y, 0));
    if (!s->width) {
      PetscLogDouble *best = &s->trial[width == 4];
      *best                = s->ntrial < 2 ? tk : PetscMin(*best, tk);
      if (++s->ntrial >= 2 * PK_SPMV_TRIALS) s->width = s->trial[0] <= s->trial[1] ? 2 : 4;
    }
  } else {
    PetscCall(PKReduceTest(red));
    PetscCall(MatMult(s->A, x, y));
    PetscCall(PKReduceTest(red));
  }
  PKRecPhase(rec, PK_PHASE_VEC);
  PetscFunctionReturn(0);
}

PetscErrorCode PKSpMVIsChunked(PKSpMV s, PetscBool *chunked)
{
  PetscFunctionBegin;
  *chunked = s->chunked;
  PetscFunctionReturn(0);
}

/* The halo exchange (a PetscSF; NULL when the operator is not MPIAIJ), for the model's neighbour counts */
PetscErrorCode PKSpMVGetHalo(PKSpMV s, VecScatter *halo)
{
  PetscFunctionBegin;
  *halo = s->halo;
  PetscFunctionReturn(0);
}

PetscErrorCode PKSpMVGetReason(PKSpMV s, const char **why)
{
  PetscFunctionBegin;
  *why = s->why;
  PetscFunctionReturn(0);
}

/* The row-kernel width kept (0: still timing) and the fastest diagonal-block time of each width (s; 0: not timed) */
PetscErrorCode PKSpMVGetWidth(PKSpMV s, PetscInt *width, PetscReal t[2])
{
  PetscFunctionBegin;
  *width = s->width;
  t[0]   = s->ntrial > 1 ? (PetscReal)s->trial[0] : 0;
  t[1]   = s->ntrial > 0 ? (PetscReal)s->trial[1] : 0;
  PetscFunctionReturn(0);
}

/*@
   MatMultPipeChunked - y = A x computed as pipekrylov's solvers compute it: for MATSEQAIJ and MATMPIAIJ in row
   chunks (with the halo exchange driven by pipekrylov), bit-for-bit equal to MatMult; for other matrices MatMult.

   Collective

   Input Parameters:
+  A       - the matrix
.  x       - the vector to multiply
-  nchunks - the number of row chunks (any positive number; more chunks than rows is allowed)

   Output Parameters:
+  y       - the product
-  chunked - PETSC_TRUE if the chunked kernel was used (may be NULL)

   Notes:
   Builds the chunked structure on every call; the solvers build it once per operator. Meant for testing and for
   checking that an operator is handled by the chunked kernel.

   Level: developer

.seealso: `KSPPipeSetChunks()`
@*/
PetscErrorCode MatMultPipeChunked(Mat A, Vec x, Vec y, PetscInt nchunks, PetscBool *chunked)
{
  PKSpMV s;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCheck(nchunks >= 1, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "nchunks must be at least 1, not %" PetscInt_FMT, nchunks);
  PetscCall(PKSpMVCreate(A, &s));
  PetscCall(PKSpMVApply(s, x, y, nchunks, NULL, NULL));
  if (chunked) *chunked = s->chunked;
  PetscCall(PKSpMVDestroy(&s));
  PetscFunctionReturn(0);
}
