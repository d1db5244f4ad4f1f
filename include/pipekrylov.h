/*
   pipekrylov: pipelined Krylov solvers for PETSc, with per-iteration instrumentation and performance models.

   Public interface. An application either loads the plugin at run time (-dll_append /path/libpipekrylov.so, which
   calls PetscDLLibraryRegister_pipekrylov()) or links the library and calls PipeKrylovInitializePackage() after
   PetscInitialize(). Both register the KSP types below; nothing else in the application changes.
*/
#ifndef PIPEKRYLOV_H
#define PIPEKRYLOV_H

#include <petscksp.h>

#define PIPEKRYLOV_VERSION_MAJOR 0
#define PIPEKRYLOV_VERSION_MINOR 1
#define PIPEKRYLOV_VERSION_PATCH 0

/* The six solvers, as KSPType names */
#define KSPPKPCG     "pcg"     /* Hestenes-Stiefel PCG, two blocking reductions per iteration */
#define KSPPKSAPCG   "sapcg"   /* single-reduction PCG (Chronopoulos-Gear) */
#define KSPPKNBPCG   "nbpcg"   /* non-blocking PCG (Gropp): two reductions, overlapped with PCApply and MatMult */
#define KSPPKPIPECG  "pipecg"  /* pipelined CG (Ghysels-Vanroose); replaces PETSc's pipecg */
#define KSPPKPIPE2CG "pipe2cg" /* two iterations per reduction (Eller-Gropp), with residual replacement */
#define KSPPKPGMRES  "pgmres"  /* pipelined GMRES(m) (Ghysels et al.); replaces PETSc's pgmres */
/* PETSc's own types that ours replace stay reachable under these names */
#define KSPPETSCPIPECG "petsc_pipecg"
#define KSPPETSCPGMRES "petsc_pgmres"

PETSC_EXTERN PetscErrorCode PipeKrylovInitializePackage(void);
PETSC_EXTERN PetscErrorCode PipeKrylovFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_pipekrylov(void);
PETSC_EXTERN PetscErrorCode PipeKrylovGetVersion(char[], size_t);

/* Solver settings (the same as the options; each is ignored by types it does not apply to) */
PETSC_EXTERN PetscErrorCode KSPPipeSetChunks(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPPipeGetChunks(KSP, PetscInt *);
PETSC_EXTERN PetscErrorCode KSPPipeGetOverlapStats(KSP, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode KSPPipeIsPipeKrylov(KSP, PetscBool *);
PETSC_EXTERN PetscErrorCode KSPPipeCGSetReplacement(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPPipe2CGSetReplacement(KSP, PetscInt);

/* Developer level: the chunked SpMV the solvers use, bit-for-bit equal to MatMult */
PETSC_EXTERN PetscErrorCode MatMultPipeChunked(Mat, Vec, Vec, PetscInt, PetscBool *);

/* The logging monitor (also turned on by -ksp_perf_monitor, -ksp_perf_trace <file>, -ksp_perfmodel_view) */
typedef struct _n_PKStats PKStats; /* cross-rank statistics of a solve: include/pipekrylov/private/pkstats.h */
PETSC_EXTERN PetscErrorCode KSPPerfMonitorSet(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPPerfMonitorGetStats(KSP, const PKStats **);
PETSC_EXTERN PetscErrorCode KSPPerfMonitorGetTimes(KSP, PetscInt *, PetscReal *, PetscReal *, PetscReal *);
/* Noise injection (also -ksp_perf_noise <us>,<hz>[,<seed>] and -ksp_perf_noise_ranks <list>) */
PETSC_EXTERN PetscErrorCode KSPPerfNoiseSet(KSP, PetscReal, PetscReal, PetscInt);
PETSC_EXTERN PetscErrorCode KSPPerfNoiseSetRanks(KSP, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode KSPPerfNoiseGetCounts(KSP, PetscInt *, PetscReal *, PetscReal *, PetscInt *);

#endif
