/* pipe2cg's one-loop kernel: steps A and B of a pass and its inner products in a single sweep over the elements
   (AVX2 and baseline clones, chosen at load time; the block scaffolding is pksimd.h's PK_FUSED_BLOCKS) */
#include "pipe2cgimpl.h"

#if defined(PK_HAVE_V4D)
/* Steps A and B of a pass and its inner products, in one loop over the elements: each element's 18 values are
   loaded once, updated in registers and stored once (the generic PKVecFused walks 14 updates and 11 dots over
   cache blocks, touching each vector several times). Same arithmetic per element as the generic path. */
typedef struct {
  PetscScalar       *o[8], *n[10]; /* set O: x r z w p q c d; set N: x r z w p q c d g h */
  const PetscScalar *dinv;         /* with step B, c_N = M q_N = q_N .* dinv (a diagonal preconditioner), or NULL */
  PetscScalar        a, b, c;      /* step A: O_x = a N_x + b N_z + c O_x, O_v = a N_v - b N_v' + c O_v */
  PetscScalar        e, f, g;      /* step B: N_x = e O_x + f O_z + g N_x, N_v = e O_v - f O_v' + g N_v */
  PetscInt           len;
  PetscBool          stepB;    /* else step A only (the last half pass), no dots */
  PetscBool          dots;     /* the dots of the new sets (with step B) */
  PetscBool          storewpq; /* store step B's w, p, q of N (not when the pass's overlap recomputes them: the dots
                                need only their values) */
  PetscInt           normv;    /* -1: no norms, else VZ or VR: lambda_9, 10 = norms of that vector of N and O */
  PetscScalar        out[11];  /* lambda_0..8 [, 9, 10], local */
} P2Fused;

  #define P2_UPDATE(T, LD, ST, BC, DOT) \
    do { \
      const T a = BC(p->a), mb = BC(-p->b), b = BC(p->b), c = BC(p->c); \
      T       nx = LD(n[VX]), nr = LD(n[VR]), nz = LD(n[VZ]), nw = LD(n[VW]), np = LD(n[VP]), nq = LD(n[VQ]); \
      const T nc = LD(n[VC]), nd = LD(n[VD]), ng = LD(n[VG]), nh = LD(n[VH]); \
      T       ox, or, oz, ow, op, oq, oc, od; \
      if (readO) { \
        ox = a * nx + b * nz + c * LD(o[VX]); \
        or = a * nr + mb * nw + c * LD(o[VR]); \
        oz = a * nz + mb * np + c * LD(o[VZ]); \
        ow = a * nw + mb * nq + c * LD(o[VW]); \
        op = a * np + mb * nc + c * LD(o[VP]); \
        oq = a * nq + mb * nd + c * LD(o[VQ]); \
        oc = a * nc + mb * ng + c * LD(o[VC]); \
        od = a * nd + mb * nh + c * LD(o[VD]); \
      } else { \
        ox = a * nx + b * nz; \
        or = a * nr + mb * nw; \
        oz = a * nz + mb * np; \
        ow = a * nw + mb * nq; \
        op = a * np + mb * nc; \
        oq = a * nq + mb * nd; \
        oc = a * nc + mb * ng; \
        od = a * nd + mb * nh; \
      } \
      ST(o[VX], ox); \
      ST(o[VR], or); \
      ST(o[VZ], oz); \
      ST(o[VW], ow); \
      ST(o[VP], op); \
      ST(o[VQ], oq); \
      ST(o[VC], oc); \
      ST(o[VD], od); \
      if (p->stepB) { \
        const T e = BC(p->e), f = BC(p->f), mf = BC(-p->f), g = BC(p->g); \
        if (readN) { \
          nx = e * ox + f * oz + g * nx; \
          nr = e * or +mf * ow + g * nr; \
          nz = e * oz + mf * op + g * nz; \
          nw = e * ow + mf * oq + g * nw; \
          np = e * op + mf * oc + g * np; \
          nq = e * oq + mf * od + g * nq; \
        } else { \
          nx = e * ox + f * oz; \
          nr = e * or +mf * ow; \
          nz = e * oz + mf * op; \
          nw = e * ow + mf * oq; \
          np = e * op + mf * oc; \
          nq = e * oq + mf * od; \
        } \
        ST(n[VX], nx); \
        ST(n[VR], nr); \
        ST(n[VZ], nz); \
        if (p->storewpq) { \
          ST(n[VW], nw); \
          ST(n[VP], np); \
          ST(n[VQ], nq); \
        } \
        if (p->dinv) ST(n[VC], nq *LD(p->dinv)); \
        if (dots) { \
          DOT(0, nz, nw); \
          DOT(1, nz, nq); \
          DOT(2, nz, ow); \
          DOT(3, np, nq); \
          DOT(4, np, ow); \
          DOT(5, oz, ow); \
          DOT(6, nz, nr); \
          DOT(7, nz, or); \
          DOT(8, oz, or); \
          if (normv == VZ) { \
            DOT(9, nz, nz); \
            DOT(10, oz, oz); \
          } else if (normv == VR) { \
            DOT(9, nr, nr); \
            DOT(10, or, or); \
          } \
        } \
      } \
    } while (0)

  #define P2_LDV(q)    (*(const PKv4d *)((q) + i))
  #define P2_STV(q, v) (*(PKv4d *)((q) + i) = (v))
  #define P2_BCV(s)    ((PKv4d){(s), (s), (s), (s)})
  #define P2_LDS(q)    ((q)[i])
  #define P2_STS(q, v) ((q)[i] = (v))
  #define P2_BCS(s)    (s)

PK_SIMD_CLONES static void P2FusedKernel(P2Fused *p)
{
  PetscScalar *const *o = p->o, *const *n = p->n;
  const PetscBool     readO = (PetscBool)(p->c != 0.0), readN = (PetscBool)(p->g != 0.0); /* 0 x garbage must not leak */
  const PetscBool     dots  = p->dots;
  const PetscInt      normv = p->normv, len = p->len;
  PetscScalar         sum[11] = {0};

  PK_FUSED_BLOCKS(len, 11, sum, dots, P2_UPDATE, P2_LDV, P2_STV, P2_BCV, P2_LDS, P2_STS, P2_BCS)
  for (PetscInt k = 0; k < 11; k++) p->out[k] = sum[k];
}

/* The pass of steps A [and B] with the dots of the new sets [nd values into out] */
PetscErrorCode Pipe2CGFusedPass(KSP ksp, Vec *O, Vec *N, PetscBool stepB, PetscBool storewpq, PetscInt nd, const P2Step *sA, const P2Step *sB, Vec dinv, PetscScalar out[])
{
  P2Fused         p;
  const PetscBool wc = (PetscBool)(stepB && dinv); /* c_N is written */

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 8; k++) PetscCall(VecGetArray(O[k], &p.o[k]));
  for (PetscInt k = 0; k < 10; k++) {
    if (k <= VQ || (k == VC && wc)) PetscCall(VecGetArray(N[k], &p.n[k]));
    else PetscCall(VecGetArrayRead(N[k], (const PetscScalar **)&p.n[k]));
  }
  if (wc) PetscCall(VecGetArrayRead(dinv, &p.dinv));
  else p.dinv = NULL;
  PetscCall(VecGetLocalSize(N[VR], &p.len));
  p.a        = sA->rho;
  p.b        = sA->rho * sA->gamma;
  p.c        = 1.0 - sA->rho;
  p.stepB    = stepB;
  p.storewpq = storewpq;
  p.dots     = (PetscBool)(stepB && nd > 0);
  if (stepB) {
    p.e = sB->rho;
    p.f = sB->rho * sB->gamma;
    p.g = 1.0 - sB->rho;
  } else p.e = p.f = p.g = 0.0;
  p.normv = nd > PIPE2CG_NLAMBDA ? (ksp->normtype == KSP_NORM_PRECONDITIONED ? VZ : VR) : -1;
  PetscCall(PetscLogEventBegin(PK_Event_VecFused, 0, 0, 0, 0));
  P2FusedKernel(&p);
  PetscCall(PetscLogEventEnd(PK_Event_VecFused, 0, 0, 0, 0));
  PetscCall(PetscLogFlops((stepB ? 14 * 5.0 + 2.0 * nd + (wc ? 1.0 : 0.0) : 8 * 5.0) * p.len));
  for (PetscInt k = 0; k < nd; k++) out[k] = p.out[k];
  if (wc) PetscCall(VecRestoreArrayRead(dinv, &p.dinv));
  for (PetscInt k = 0; k < 8; k++) PetscCall(VecRestoreArray(O[k], &p.o[k]));
  for (PetscInt k = 0; k < 10; k++) {
    if (k <= VQ || (k == VC && wc)) PetscCall(VecRestoreArray(N[k], &p.n[k]));
    else PetscCall(VecRestoreArrayRead(N[k], (const PetscScalar **)&p.n[k]));
  }
  PetscFunctionReturn(0);
}
#endif
