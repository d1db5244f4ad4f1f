/*
   Multi-vector kernels: several y <- alpha y + sum_k a_k x_k updates (MAXPY over many vectors), applied in order,
   then several local multi-dots out[k] = (x, y_k), all in one pass over memory. This is the shape of a
   Gram-Schmidt step: pgmres orthogonalises one basis vector, corrects the next one and computes the dots of the
   following reduction with every basis vector streamed from memory once (PETSc's VecMAXPY, VecMAXPY, VecNorm and
   VecMDot would read the basis three times).

   The vectors are walked in blocks that stay in L1 cache; within a block, updates are done in the order given,
   so an update may read a vector that an earlier update of the same call has written (its new value), and the
   dots see every update. When a non-blocking reduction is outstanding the pass is split into chunks with an
   MPI_Test between them (PKChunkRun).
*/
#include <pipekrylov/private/pkkspimpl.h>

#define PK_MBLOCK 512 /* doubles per vector and block */

typedef struct {
  PetscScalar              *y;
  PetscScalar               alpha;
  PetscInt                  n;
  const PetscScalar        *a;
  const PetscScalar *const *x;
} PKRawMaxpy;

typedef struct {
  const PetscScalar        *x;
  PetscInt                  n;
  const PetscScalar *const *y;
  PetscScalar              *out;
} PKRawMDot;

typedef struct {
  PetscInt   nupd, ndot;
  PKRawMaxpy upd[PK_MULTI_MAXOPS];
  PKRawMDot  dot[PK_MULTI_MAXOPS];
} PKMultiCtx;

/*
   Inner loops. For real double precision they are written with two-wide vectors (GCC/Clang vector extensions):
   without -ffast-math the compiler will not vectorise a sum (it would reorder it), and at -O2 GCC does not
   vectorise the MAXPY loops either; the explicit form runs about twice as fast. Sums are accumulated in two
   lanes (even and odd entries), so they are rounded in a different order than a plain loop, as any BLAS does.
*/
#if defined(PETSC_USE_REAL_DOUBLE) && !defined(PETSC_USE_COMPLEX) && (defined(__GNUC__) || defined(__clang__))
  #define PK_VEC2 1
typedef double     PKv2 __attribute__((vector_size(16)));
static inline PKv2 PKLd(const double *p)
{
  PKv2 v;
  memcpy(&v, p, sizeof(v));
  return v;
}
static inline void PKSt(double *p, PKv2 v)
{
  memcpy(p, &v, sizeof(v));
}
#endif

/* y[i0:i1] += sum_{k<nk} a_k x_k[i0:i1], nk = 1..4 */
static inline void PKAxpyN(PetscScalar *PETSC_RESTRICT y, PetscInt nk, const PetscScalar *a, const PetscScalar *const *x, PetscInt i0, PetscInt i1)
{
  const PetscScalar *x0 = x[0], *x1 = nk > 1 ? x[1] : x[0], *x2 = nk > 2 ? x[2] : x[0], *x3 = nk > 3 ? x[3] : x[0];
  const PetscScalar  a0 = a[0], a1 = nk > 1 ? a[1] : 0.0, a2 = nk > 2 ? a[2] : 0.0, a3 = nk > 3 ? a[3] : 0.0;
  PetscInt           i = i0;

#if defined(PK_VEC2)
  {
    const PKv2 v0 = {a0, a0}, v1 = {a1, a1}, v2 = {a2, a2}, v3 = {a3, a3};
    switch (nk) {
    case 4:
      for (; i + 2 <= i1; i += 2) PKSt(y + i, PKLd(y + i) + v0 * PKLd(x0 + i) + v1 * PKLd(x1 + i) + v2 * PKLd(x2 + i) + v3 * PKLd(x3 + i));
      break;
    case 3:
      for (; i + 2 <= i1; i += 2) PKSt(y + i, PKLd(y + i) + v0 * PKLd(x0 + i) + v1 * PKLd(x1 + i) + v2 * PKLd(x2 + i));
      break;
    case 2:
      for (; i + 2 <= i1; i += 2) PKSt(y + i, PKLd(y + i) + v0 * PKLd(x0 + i) + v1 * PKLd(x1 + i));
      break;
    default:
      for (; i + 2 <= i1; i += 2) PKSt(y + i, PKLd(y + i) + v0 * PKLd(x0 + i));
    }
  }
#endif
  switch (nk) {
  case 4:
    for (; i < i1; i++) y[i] += a0 * x0[i] + a1 * x1[i] + a2 * x2[i] + a3 * x3[i];
    break;
  case 3:
    for (; i < i1; i++) y[i] += a0 * x0[i] + a1 * x1[i] + a2 * x2[i];
    break;
  case 2:
    for (; i < i1; i++) y[i] += a0 * x0[i] + a1 * x1[i];
    break;
  default:
    for (; i < i1; i++) y[i] += a0 * x0[i];
  }
}

/* y[i0:i1] <- alpha y + sum_k a_k x_k; alpha == 0 never reads y (a NaN left in y must not leak) */
static inline void PKMaxpyBlock(const PKRawMaxpy *u, PetscInt i0, PetscInt i1)
{
  PetscScalar *PETSC_RESTRICT y  = u->y;
  const PetscScalar           al = u->alpha;
  PetscInt                    k  = 0;

  if (al == 0.0) {
    if (!u->n) {
      for (PetscInt i = i0; i < i1; i++) y[i] = 0.0;
    } else {
      const PetscScalar *PETSC_RESTRICT x0 = u->x[0];
      const PetscScalar                 a0 = u->a[0];
      for (PetscInt i = i0; i < i1; i++) y[i] = a0 * x0[i];
      k = 1;
    }
  } else if (al != 1.0) {
    for (PetscInt i = i0; i < i1; i++) y[i] *= al;
  }
  for (; k < u->n; k += 4) PKAxpyN(y, PetscMin(4, u->n - k), u->a + k, u->x + k, i0, i1);
}

/* s_k = sum_{i0<=i<i1} x[i] conj(y_k[i]), k < nk = 1..4 (x may be one of the y_k: all read only) */
static inline void PKDotN(const PetscScalar *x, PetscInt nk, const PetscScalar *const *y, PetscInt i0, PetscInt i1, PetscScalar s[4])
{
  const PetscScalar *y0 = y[0], *y1 = nk > 1 ? y[1] : y[0], *y2 = nk > 2 ? y[2] : y[0], *y3 = nk > 3 ? y[3] : y[0];
  PetscScalar        s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  PetscInt           i = i0;

#if defined(PK_VEC2)
  {
    PKv2 t0 = {0, 0}, t1 = {0, 0}, t2 = {0, 0}, t3 = {0, 0};
    for (; i + 2 <= i1; i += 2) {
      const PKv2 xv = PKLd(x + i);
      t0 += xv * PKLd(y0 + i);
      t1 += xv * PKLd(y1 + i);
      t2 += xv * PKLd(y2 + i);
      t3 += xv * PKLd(y3 + i);
    }
    s0 = t0[0] + t0[1];
    s1 = t1[0] + t1[1];
    s2 = t2[0] + t2[1];
    s3 = t3[0] + t3[1];
  }
#endif
  for (; i < i1; i++) {
    const PetscScalar xi = x[i];
    s0 += xi * PetscConj(y0[i]);
    s1 += xi * PetscConj(y1[i]);
    s2 += xi * PetscConj(y2[i]);
    s3 += xi * PetscConj(y3[i]);
  }
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
}

/* out[k] += sum_i x[i] conj(y_k[i]) over the block */
static inline void PKMDotBlock(const PKRawMDot *d, PetscInt i0, PetscInt i1)
{
  for (PetscInt k = 0; k < d->n; k += 4) {
    const PetscInt nk = PetscMin(4, d->n - k);
    PetscScalar    s[4];
    PKDotN(d->x, nk, d->y + k, i0, i1, s);
    for (PetscInt j = 0; j < nk; j++) d->out[k + j] += s[j];
  }
}

static PetscErrorCode PKMultiKernel(PetscInt start, PetscInt end, void *vctx)
{
  const PKMultiCtx *ctx = (const PKMultiCtx *)vctx;

  for (PetscInt b0 = start; b0 < end; b0 += PK_MBLOCK) {
    const PetscInt b1 = PetscMin(end, b0 + PK_MBLOCK);
    for (PetscInt u = 0; u < ctx->nupd; u++) PKMaxpyBlock(&ctx->upd[u], b0, b1);
    for (PetscInt d = 0; d < ctx->ndot; d++) PKMDotBlock(&ctx->dot[d], b0, b1);
  }
  return 0;
}

/*
   PKMultiWorkCreate - room for the bookkeeping of PKVecMaxpyMDot calls that touch at most nvec distinct vectors
   and nref vector references in all (each target, source and dot operand counts once); allocated once at set-up
   so that the iteration loop does not allocate.
*/
PetscErrorCode PKMultiWorkCreate(PetscInt nvec, PetscInt nref, PKMultiWork *w)
{
  PetscFunctionBegin;
  PetscCall(PKMultiWorkDestroy(w));
  w->nvmax = nvec;
  w->nrmax = nref;
  PetscCall(PetscMalloc5(nvec, &w->v, nvec, &w->write, nvec, &w->arr, nref, &w->ridx, nref, &w->ref));
  PetscFunctionReturn(0);
}

PetscErrorCode PKMultiWorkDestroy(PKMultiWork *w)
{
  PetscFunctionBegin;
  if (w->nvmax || w->nrmax) PetscCall(PetscFree5(w->v, w->write, w->arr, w->ridx, w->ref));
  w->nvmax = w->nrmax = 0;
  PetscFunctionReturn(0);
}

/* Index of v among the distinct vectors of the call, added if new; write access wins */
static PetscErrorCode PKMultiAdd(PKMultiWork *w, PetscInt *nv, Vec v, PetscBool write, PetscInt *idx)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < *nv; i++)
    if (w->v[i] == v) {
      w->write[i] = (PetscBool)(w->write[i] || write);
      *idx        = i;
      PetscFunctionReturn(0);
    }
  PetscCheck(*nv < w->nvmax, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Multi-vector kernel: more than %" PetscInt_FMT " distinct vectors", w->nvmax);
  w->v[*nv]     = v;
  w->write[*nv] = write;
  *idx          = (*nv)++;
  PetscFunctionReturn(0);
}

/*
   PKVecMaxpyMDot - for u = 0..nupd-1 in order: upd[u].y <- alpha y + sum_k a[k] x[k] (alpha 0: y is not read;
   y must not be one of its own x); then for every dot[d]: out[k] = local (x, y[k]) = sum_i x_i conj(y_k,i), on the
   updated vectors, not reduced across ranks. One pass over memory; chunked with MPI_Test while pk's reduction
   is outstanding. w is the caller's preallocated bookkeeping (PKMultiWorkCreate).
*/
PetscErrorCode PKVecMaxpyMDot(KSP_PK *pk, PKMultiWork *w, PetscInt nupd, const PKMaxpy upd[], PetscInt ndot, const PKMDot dot[])
{
  PKMultiCtx ctx;
  PetscInt   nv = 0, nr = 0, n = -1, nchunks;
  double     flops = 0.0;

  PetscFunctionBegin;
  PetscCheck(nupd <= PK_MULTI_MAXOPS && ndot <= PK_MULTI_MAXOPS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Multi-vector kernel: at most %d updates and %d multi-dots", PK_MULTI_MAXOPS, PK_MULTI_MAXOPS);
  if (!nupd && !ndot) PetscFunctionReturn(0);
  /* first pass: the distinct vectors, and for every reference the index of its vector */
  {
    PetscInt need = 0;
    for (PetscInt u = 0; u < nupd; u++) need += 1 + upd[u].n;
    for (PetscInt d = 0; d < ndot; d++) need += 1 + dot[d].n;
    PetscCheck(need <= w->nrmax, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Multi-vector kernel: %" PetscInt_FMT " vector references exceed the room for %" PetscInt_FMT, need, w->nrmax);
  }
  for (PetscInt u = 0; u < nupd; u++) {
    PetscCall(PKMultiAdd(w, &nv, upd[u].y, PETSC_TRUE, &w->ridx[nr]));
    nr++;
    for (PetscInt k = 0; k < upd[u].n; k++, nr++) PetscCall(PKMultiAdd(w, &nv, upd[u].x[k], PETSC_FALSE, &w->ridx[nr]));
  }
  for (PetscInt d = 0; d < ndot; d++) {
    PetscCall(PKMultiAdd(w, &nv, dot[d].x, PETSC_FALSE, &w->ridx[nr]));
    nr++;
    for (PetscInt k = 0; k < dot[d].n; k++, nr++) PetscCall(PKMultiAdd(w, &nv, dot[d].y[k], PETSC_FALSE, &w->ridx[nr]));
  }
  for (PetscInt i = 0; i < nv; i++) {
    PetscInt ni;
    PetscCall(VecGetLocalSize(w->v[i], &ni));
    PetscCheck(n < 0 || ni == n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Multi-vector kernel: local sizes differ (%" PetscInt_FMT " and %" PetscInt_FMT ")", n, ni);
    n = ni;
    if (w->write[i]) PetscCall(VecGetArray(w->v[i], &w->arr[i]));
    else PetscCall(VecGetArrayRead(w->v[i], (const PetscScalar **)&w->arr[i]));
  }
  for (PetscInt r = 0; r < nr; r++) w->ref[r] = w->arr[w->ridx[r]];
  /* second pass: the raw descriptors */
  nr       = 0;
  ctx.nupd = nupd;
  ctx.ndot = ndot;
  for (PetscInt u = 0; u < nupd; u++) {
    const PetscInt ry = nr; /* compare vectors, not arrays: on a rank with no rows every array may be NULL */
    ctx.upd[u].y      = (PetscScalar *)w->ref[nr++];
    ctx.upd[u].alpha  = upd[u].alpha;
    ctx.upd[u].n      = upd[u].n;
    ctx.upd[u].a      = upd[u].a;
    ctx.upd[u].x      = w->ref + nr;
    for (PetscInt k = 0; k < upd[u].n; k++) PetscCheck(w->ridx[nr + k] != w->ridx[ry], PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "Multi-vector kernel: an update's target is one of its own sources");
    nr += upd[u].n;
    flops += (2.0 * upd[u].n + (upd[u].alpha != 1.0 ? 1.0 : 0.0)) * n;
  }
  for (PetscInt d = 0; d < ndot; d++) {
    ctx.dot[d].x   = w->ref[nr++];
    ctx.dot[d].n   = dot[d].n;
    ctx.dot[d].y   = w->ref + nr;
    ctx.dot[d].out = dot[d].out;
    nr += dot[d].n;
    for (PetscInt k = 0; k < dot[d].n; k++) dot[d].out[k] = 0.0;
    flops += 2.0 * dot[d].n * n;
  }
  nchunks = (pk->red.active && !pk->red.done) ? pk->chunks : 1;
  PetscCall(PetscLogEventBegin(PK_Event_VecFused, 0, 0, 0, 0));
  PetscCall(PKChunkRun(n, nchunks, &pk->red, PKMultiKernel, &ctx));
  PetscCall(PetscLogEventEnd(PK_Event_VecFused, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(flops));
  for (PetscInt i = 0; i < nv; i++) {
    if (w->write[i]) PetscCall(VecRestoreArray(w->v[i], &w->arr[i]));
    else PetscCall(VecRestoreArrayRead(w->v[i], (const PetscScalar **)&w->arr[i]));
  }
  PetscFunctionReturn(0);
}

/* out[k] = local (x, y[k]) for k < n: the multi-dot alone */
PetscErrorCode PKVecMDotLocal(KSP_PK *pk, PKMultiWork *w, Vec x, PetscInt n, const Vec y[], PetscScalar out[])
{
  PKMDot d = {x, n, y, out};

  PetscFunctionBegin;
  PetscCall(PKVecMaxpyMDot(pk, w, 0, NULL, 1, &d));
  PetscFunctionReturn(0);
}

/* y <- alpha y + sum_k a[k] x[k]: the multi-AXPY alone */
PetscErrorCode PKVecMAXPYLocal(KSP_PK *pk, PKMultiWork *w, Vec y, PetscScalar alpha, PetscInt n, const PetscScalar a[], const Vec x[])
{
  PKMaxpy u = {y, alpha, n, a, x};

  PetscFunctionBegin;
  PetscCall(PKVecMaxpyMDot(pk, w, 1, &u, 0, NULL));
  PetscFunctionReturn(0);
}
