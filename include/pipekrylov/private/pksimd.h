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
#endif

#endif
