/* pipecg's one-loop kernel: the eight vector updates of an iteration and the next pass's products in a single
   sweep over the elements (AVX2 and baseline clones, chosen at load time; the block scaffolding is pksimd.h's
   PK_FUSED_BLOCKS) */
#include "pipecgimpl.h"

#if defined(PK_HAVE_V4D)
/* The eight updates of an iteration and the next iteration's dots in one loop over the elements, each element's
   ten values loaded once and eight stored once; with a diagonal preconditioner also m = M w of the new w (the
   overlapped PCApply of the next iteration). Same arithmetic per element as the generic path. */
typedef struct {
  PetscScalar       *x, *r, *u, *w, *m, *n, *z, *q, *s, *p;
  const PetscScalar *dinv; /* m = w .* dinv in the pass, or NULL */
  PetscScalar        alpha, beta;
  PetscBool          first;  /* z = n, q = m, s = w, p = u: a (re)start, never reading the old z, q, s, p */
  PetscBool          storew; /* store the updated w (not when the next pass recomputes it: its dots need only the value) */
  PetscInt           ndots;  /* 0, 2: (u,r), (u,w); 3: and (u,u) or (r,r); with dots, also (u,s) and (p,s) in out[3..4] */
  PetscBool          normr;  /* the third dot is (r,r) */
  PetscInt           len;
  PetscScalar        out[5];
} PCGFused;

  #define PCG_UPDATE(T, LD, ST, BC, DOT) \
    do { \
      const T nn = LD(k->n), mm = LD(k->m), ww = LD(k->w), uu = LD(k->u), al = BC(k->alpha), mal = BC(-k->alpha); \
      T       zz, qq, ss, pp, xx, rr, u2, w2; \
      if (k->first || k->beta == 0.0) { \
        zz = nn; \
        qq = mm; \
        ss = ww; \
        pp = uu; \
      } else { \
        const T be = BC(k->beta); \
        zz         = nn + be * LD(k->z); \
        qq         = mm + be * LD(k->q); \
        ss         = ww + be * LD(k->s); \
        pp         = uu + be * LD(k->p); \
      } \
      xx = al * pp + LD(k->x); \
      u2 = mal * qq + uu; \
      w2 = mal * zz + ww; \
      rr = mal * ss + LD(k->r); \
      ST(k->z, zz); \
      ST(k->q, qq); \
      ST(k->s, ss); \
      ST(k->p, pp); \
      ST(k->x, xx); \
      ST(k->u, u2); \
      ST(k->r, rr); \
      if (k->storew) ST(k->w, w2); \
      if (k->dinv) ST(k->m, w2 *LD(k->dinv)); \
      if (nd) { \
        DOT(0, u2, rr); \
        DOT(1, u2, w2); \
        if (nd > 2) { \
          if (k->normr) DOT(2, rr, rr); \
          else DOT(2, u2, u2); \
        } \
        DOT(3, u2, ss); \
        DOT(4, pp, ss); \
      } \
    } while (0)

  #define PCG_LDV(a)    (*(const PKv4d *)((a) + i))
  #define PCG_STV(a, v) (*(PKv4d *)((a) + i) = (v))
  #define PCG_BCV(c)    ((PKv4d){(c), (c), (c), (c)})
  #define PCG_LDS(a)    ((a)[i])
  #define PCG_STS(a, v) ((a)[i] = (v))
  #define PCG_BCS(c)    (c)

PK_SIMD_CLONES static void PipeCGFusedKernel(PCGFused *k)
{
  const PetscInt nd = k->ndots, len = k->len;
  PetscScalar    sum[5] = {0, 0, 0, 0, 0};

  PK_FUSED_BLOCKS(len, 5, sum, PETSC_TRUE, PCG_UPDATE, PCG_LDV, PCG_STV, PCG_BCV, PCG_LDS, PCG_STS, PCG_BCS)
  for (PetscInt j = 0; j < 5; j++) k->out[j] = sum[j];
}

/* x += a p, etc. (see above) for the vectors of the solve: ksp->vec_sol, then work[0..8] = r u w m n z q s p */
PetscErrorCode PipeCGFusedPass(KSP ksp, PetscScalar alpha, PetscScalar beta, PetscBool first, PetscBool storew, Vec dinv, PetscInt nd, PetscScalar out[])
{
  PCGFused     k;
  PetscScalar *a[10];
  Vec          v[10] = {ksp->vec_sol, ksp->work[PIPECG_R], ksp->work[PIPECG_U], ksp->work[PIPECG_W], ksp->work[PIPECG_M], ksp->work[PIPECG_N], ksp->work[PIPECG_Z], ksp->work[PIPECG_Q], ksp->work[PIPECG_S], ksp->work[PIPECG_P]};

  PetscFunctionBegin;
  for (PetscInt j = 0; j < 10; j++) {
    if (j == 5) PetscCall(VecGetArrayRead(v[j], (const PetscScalar **)&a[j])); /* n */
    else PetscCall(VecGetArray(v[j], &a[j]));
  }
  k.x = a[0], k.r = a[1], k.u = a[2], k.w = a[3], k.m = a[4], k.n = a[5], k.z = a[6], k.q = a[7], k.s = a[8], k.p = a[9];
  if (dinv) PetscCall(VecGetArrayRead(dinv, &k.dinv));
  else k.dinv = NULL;
  k.alpha  = alpha;
  k.beta   = beta;
  k.first  = first;
  k.storew = storew;
  k.ndots  = nd;
  k.normr  = (PetscBool)(ksp->normtype == KSP_NORM_UNPRECONDITIONED);
  PetscCall(VecGetLocalSize(ksp->work[PIPECG_R], &k.len));
  PetscCall(PetscLogEventBegin(PK_Event_VecFused, 0, 0, 0, 0));
  PipeCGFusedKernel(&k);
  PetscCall(PetscLogEventEnd(PK_Event_VecFused, 0, 0, 0, 0));
  PetscCall(PetscLogFlops((16.0 + 2.0 * (nd ? nd + 2 : 0) + (dinv ? 1.0 : 0.0)) * k.len));
  if (nd)
    for (PetscInt j = 0; j < PIPECG_NRED; j++) out[j] = k.out[j];
  if (dinv) PetscCall(VecRestoreArrayRead(dinv, &k.dinv));
  for (PetscInt j = 0; j < 10; j++) {
    if (j == 5) PetscCall(VecRestoreArrayRead(v[j], (const PetscScalar **)&a[j]));
    else PetscCall(VecRestoreArray(v[j], &a[j]));
  }
  PetscFunctionReturn(0);
}
#endif
