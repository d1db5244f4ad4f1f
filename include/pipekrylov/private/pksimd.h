/*
   Solver-specific fused kernels (pipecg, pipe2cg): 4-wide double vectors written with the GCC/Clang vector
   extension, and an attribute that compiles such a kernel twice, for AVX2 and for the x86-64 baseline (SSE2), the
   loader picking one (ifunc). The generic kernels (src/ksp/utils/kernels.c) stay as they are.

   Neither clone uses FMA (target "avx2" does not enable it): each element gets the same IEEE multiplications and
   additions in the same order in both, so both give the same bits. Dot products are summed exactly as the generic
   PKVecFused sums them, so that the fused kernels give the same bits as the generic path: per block of
   PK_DOT_BLOCK elements four partial sums (element i of the block into sum i mod 4, a remainder into sum 0), the
   block's (s0 + s1) + (s2 + s3) added to the running total in block order.
*/
#ifndef PKSIMD_H
#define PKSIMD_H

#include <petscsys.h>

#define PK_DOT_BLOCK 512 /* elements per block of the fused kernels' dot sums (src/ksp/utils/kernels.c) */

#if (defined(__GNUC__) || defined(__clang__)) && defined(PETSC_USE_REAL_DOUBLE) && !defined(PETSC_USE_COMPLEX)
  #define PK_HAVE_V4D 1
typedef double PKv4d __attribute__((vector_size(32), aligned(8))); /* aligned(8): loads and stores may be unaligned */
  #if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
    #define PK_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
  #else
    #define PK_SIMD_CLONES
  #endif

  /* The block loop of the fused kernels, written once: for each block of PK_DOT_BLOCK elements, UPDATE(T, LD, ST, BC,
   DOT) on 4-wide vectors (LDV, STV, BCV: load, store, broadcast), then on the block's remainder one element at a
   time (LDS, STS, BCS), with the element index in i and DOT(j, a, b) adding a b to partial sum j of nacc; when keep
   is true, each block's partial sums are added to sum[] as (s0 + s1) + (s2 + s3), in block order, exactly as the
   generic PKVecFused sums its dots (the same bits). */
  #define PK_DOT_V(j, a, b) (pk_acc[j] += (a) * (b))
  #define PK_DOT_S(j, a, b) (pk_acc[j][0] += (a) * (b))
  #define PK_FUSED_BLOCKS(len, nacc, sum, keep, UPDATE, LDV, STV, BCV, LDS, STS, BCS) \
    for (PetscInt pk_b0 = 0; pk_b0 < (len); pk_b0 += PK_DOT_BLOCK) { \
      const PetscInt pk_b1 = PetscMin((len), pk_b0 + PK_DOT_BLOCK); \
      PKv4d          pk_acc[nacc]; \
      PetscInt       i; \
      for (PetscInt pk_j = 0; pk_j < (nacc); pk_j++) pk_acc[pk_j] = (PKv4d){0, 0, 0, 0}; \
      for (i = pk_b0; i + 4 <= pk_b1; i += 4) UPDATE(PKv4d, LDV, STV, BCV, PK_DOT_V); \
      for (; i < pk_b1; i++) UPDATE(PetscScalar, LDS, STS, BCS, PK_DOT_S); \
      if (keep) \
        for (PetscInt pk_j = 0; pk_j < (nacc); pk_j++) (sum)[pk_j] += (pk_acc[pk_j][0] + pk_acc[pk_j][1]) + (pk_acc[pk_j][2] + pk_acc[pk_j][3]); \
    }
#endif

#endif
