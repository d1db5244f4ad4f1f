/*
   Fused vector kernels: a list of updates w <- a x + b y + c w followed by local dot products, done in one pass
   over memory. The vectors are walked in blocks small enough to stay in L1 cache; within a block every update
   and then every dot is an ordinary vectorisable loop. So each vector is read from memory once per call, which is
   what makes the pipelined solvers (8 updates and 3 dots per iteration for pipecg) cheap on one node.

   When a non-blocking reduction is outstanding, the pass is split into chunks with an MPI_Test between them.
*/
#include <pipekrylov/private/pkkspimpl.h>
#include <pipekrylov/private/pksimd.h>

/* GCC's -O2 cost model ("very cheap") leaves these loops scalar because their trip counts need a remainder loop;
   vectorised they are 20-35% faster here (poisson27, 64000 rows). Element-wise updates and the four separate
   partial sums below give the same bits either way (no reassociation, no FMA contraction without -mfma). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
  #pragma GCC optimize("vect-cost-model=dynamic")
#endif

#define PK_BLOCK PK_DOT_BLOCK /* doubles per vector and block: 4 KiB, a dozen vectors fit in L1/L2 */

typedef struct {
  PetscScalar       *w;
  const PetscScalar *x, *y;
  PetscScalar        a, b, c;
} PKRawOp;

typedef struct {
  const PetscScalar *x, *y;
} PKRawDot;

typedef struct {
  PetscInt    nops, ndots;
  PKRawOp     op[PK_FUSED_MAX];
  PKRawDot    dot[PK_FUSED_MAX];
  PetscScalar sum[PK_FUSED_MAX];
} PKFusedCtx;

static inline void PKOpBlock(const PKRawOp *o, PetscInt i0, PetscInt i1)
{
  PetscScalar *PETSC_RESTRICT       w = o->w;
  const PetscScalar *PETSC_RESTRICT x = o->x, *PETSC_RESTRICT y = o->y;
  const PetscScalar a = o->a, b = o->b, c = o->c;

  /* c == 0 and y == NULL never read w or y: a NaN left in w must not leak into the result. c == 1 (the axpy
     form of most updates) skips a multiplication that is exact anyway: same result, bit for bit. */
  if (y && c == 1.0)
    for (PetscInt i = i0; i < i1; i++) w[i] = a * x[i] + b * y[i] + w[i];
  else if (y && c != 0.0)
    for (PetscInt i = i0; i < i1; i++) w[i] = a * x[i] + b * y[i] + c * w[i];
  else if (y)
    for (PetscInt i = i0; i < i1; i++) w[i] = a * x[i] + b * y[i];
  else if (c == 1.0)
    for (PetscInt i = i0; i < i1; i++) w[i] = a * x[i] + w[i];
  else if (c != 0.0)
    for (PetscInt i = i0; i < i1; i++) w[i] = a * x[i] + c * w[i];
  else
    for (PetscInt i = i0; i < i1; i++) w[i] = a * x[i];
}

/* Local (x, y) over [i0, i1) with four partial sums: one running sum is a serial chain of additions that waits
   on the adder's latency (it made the dots 60% of the fused kernel's time in pcg); four chains run in parallel.
   The rounding differs from a single left-to-right sum, as PETSc's own VecDot (BLAS) differs from both. */
static inline PetscScalar PKDotBlock(const PetscScalar *PETSC_RESTRICT x, const PetscScalar *PETSC_RESTRICT y, PetscInt i0, PetscInt i1)
{
  PetscScalar s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  PetscInt    i = i0;

  for (; i + 4 <= i1; i += 4) {
    s0 += x[i] * PetscConj(y[i]);
    s1 += x[i + 1] * PetscConj(y[i + 1]);
    s2 += x[i + 2] * PetscConj(y[i + 2]);
    s3 += x[i + 3] * PetscConj(y[i + 3]);
  }
  for (; i < i1; i++) s0 += x[i] * PetscConj(y[i]);
  return (s0 + s1) + (s2 + s3);
}

static PetscErrorCode PKFusedKernel(PetscInt start, PetscInt end, void *vctx)
{
  PKFusedCtx *ctx = (PKFusedCtx *)vctx;

  for (PetscInt b0 = start; b0 < end; b0 += PK_BLOCK) {
    const PetscInt b1 = PetscMin(end, b0 + PK_BLOCK);
    for (PetscInt k = 0; k < ctx->nops; k++) PKOpBlock(&ctx->op[k], b0, b1);
    for (PetscInt k = 0; k < ctx->ndots; k++) ctx->sum[k] += PKDotBlock(ctx->dot[k].x, ctx->dot[k].y, b0, b1);
  }
  return 0;
}

/* The distinct vectors of a fused call, each borrowed once (for writing if any update writes it) */
typedef struct {
  PetscInt     n;
  Vec          v[3 * PK_FUSED_MAX + 2 * PK_FUSED_MAX];
  PetscBool    write[3 * PK_FUSED_MAX + 2 * PK_FUSED_MAX];
  PetscScalar *a[3 * PK_FUSED_MAX + 2 * PK_FUSED_MAX];
} PKVecSet;

static PetscInt PKVecSetAdd(PKVecSet *s, Vec v, PetscBool write)
{
  for (PetscInt i = 0; i < s->n; i++)
    if (s->v[i] == v) {
      s->write[i] = (PetscBool)(s->write[i] || write);
      return i;
    }
  s->v[s->n]     = v;
  s->write[s->n] = write;
  return s->n++;
}

/*
   PKVecFused - for k = 0..nops-1 in order, w_k <- a_k x_k + b_k y_k + c_k w_k; then out[j] = local (x_j, y_j)
   for j = 0..ndots-1 (on the updated vectors, not reduced across ranks). One pass over memory; chunked with
   MPI_Test when pk's reduction is outstanding.
*/
PetscErrorCode PKVecFused(KSP_PK *pk, PetscInt nops, const PKAxpbypcz ops[], PetscInt ndots, const PKDot dots[], PetscScalar out[])
{
  PKFusedCtx ctx;
  PKVecSet   set;
  PetscInt   idx[PK_FUSED_MAX][3], didx[PK_FUSED_MAX][2], n, nchunks;

  PetscFunctionBegin;
  PetscCheck(nops <= PK_FUSED_MAX && ndots <= PK_FUSED_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Too many fused operations");
  set.n = 0;
  for (PetscInt k = 0; k < nops; k++) {
    idx[k][0] = PKVecSetAdd(&set, ops[k].w, PETSC_TRUE);
    idx[k][1] = PKVecSetAdd(&set, ops[k].x, PETSC_FALSE);
    idx[k][2] = ops[k].y ? PKVecSetAdd(&set, ops[k].y, PETSC_FALSE) : -1;
  }
  for (PetscInt k = 0; k < ndots; k++) {
    didx[k][0] = PKVecSetAdd(&set, dots[k].x, PETSC_FALSE);
    didx[k][1] = PKVecSetAdd(&set, dots[k].y, PETSC_FALSE);
  }
  for (PetscInt i = 0; i < set.n; i++) {
    if (set.write[i]) PetscCall(VecGetArray(set.v[i], &set.a[i]));
    else PetscCall(VecGetArrayRead(set.v[i], (const PetscScalar **)&set.a[i]));
  }
  ctx.nops  = nops;
  ctx.ndots = ndots;
  for (PetscInt k = 0; k < nops; k++) {
    ctx.op[k].w = set.a[idx[k][0]];
    ctx.op[k].x = set.a[idx[k][1]];
    ctx.op[k].y = idx[k][2] >= 0 ? set.a[idx[k][2]] : NULL;
    ctx.op[k].a = ops[k].a;
    ctx.op[k].b = ops[k].y ? ops[k].b : 0.0;
    ctx.op[k].c = ops[k].c;
  }
  for (PetscInt k = 0; k < ndots; k++) {
    ctx.dot[k].x = set.a[didx[k][0]];
    ctx.dot[k].y = set.a[didx[k][1]];
    ctx.sum[k]   = 0.0;
  }
  PetscCall(VecGetLocalSize(set.v[0], &n));
  nchunks = (pk->red.active && !pk->red.done) ? pk->chunks : 1;
  PetscCall(PetscLogEventBegin(PK_Event_VecFused, 0, 0, 0, 0));
  PetscCall(PKChunkRun(n, nchunks, &pk->red, PKFusedKernel, &ctx));
  PetscCall(PetscLogEventEnd(PK_Event_VecFused, 0, 0, 0, 0));
  PetscCall(PetscLogFlops((3.0 * nops + 2.0 * ndots) * n));
  for (PetscInt i = 0; i < set.n; i++) {
    if (set.write[i]) PetscCall(VecRestoreArray(set.v[i], &set.a[i]));
    else PetscCall(VecRestoreArrayRead(set.v[i], (const PetscScalar **)&set.a[i]));
  }
  for (PetscInt k = 0; k < ndots; k++) out[k] = ctx.sum[k];
  PetscFunctionReturn(0);
}

/* Run kernel over [0, n) in nchunks pieces with a PKReduceTest between pieces */
PetscErrorCode PKChunkRun(PetscInt n, PetscInt nchunks, PKReduce *red, PKChunkKernel kernel, void *ctx)
{
  PetscInt nc;

  PetscFunctionBegin;
  nc = (red && red->active && !red->done) ? PetscMax(1, PetscMin(nchunks, n)) : 1;
  for (PetscInt c = 0; c < nc; c++) {
    if (c) PetscCall(PKReduceTest(red));
    PetscCall(kernel((n * c) / nc, (n * (c + 1)) / nc, ctx));
  }
  PetscFunctionReturn(0);
}
