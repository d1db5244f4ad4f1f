/*
   The few PETSc calls whose name changed between 3.18 and the versions after it, chosen by PETSc's version macros
   (never by distribution), so that the same sources build without deprecation warnings on 3.18 to 3.22 and later;
   and what differs between the Open MPI versions a user types. Everything that depends on the logging internals is
   in src/perf/monitor/petsclog318.c and petsclog320.c instead.
*/
#ifndef PKCOMPAT_H
#define PKCOMPAT_H

#include <petscsys.h>
#include <petscviewer.h>

/* PetscValidPointer and its typed siblings became PetscAssertPointer in 3.20 */
#if PETSC_VERSION_LT(3, 20, 0)
  #define PKAssertPointer(p, arg) PetscValidPointer(p, arg)
#else
  #define PKAssertPointer(p, arg) PetscAssertPointer(p, arg)
#endif

/* PetscOptionsGetViewer became PetscOptionsCreateViewer in 3.22 (same arguments; the viewer is destroyed with
   PetscViewerDestroy in both) */
#if PETSC_VERSION_LT(3, 22, 0)
  #define PKOptionsCreateViewer PetscOptionsGetViewer
#else
  #define PKOptionsCreateViewer PetscOptionsCreateViewer
#endif

/* The rank's own reason a PC failed to set up: PCGetFailedReasonRank in 3.18, where PCGetFailedReason is the value
   reduced over the ranks; the later PETSc has PCGetFailedReason alone (3.22 checked; callers reduce it themselves) */
#if PETSC_VERSION_LT(3, 21, 0)
  #define PKPCGetFailedReasonRank PCGetFailedReasonRank
#else
  #define PKPCGetFailedReasonRank PCGetFailedReason
#endif

/*
   PKMPIRankfileOption - the mpiexec option that places ranks by an Open MPI rankfile, for the MPI library this
   process runs with (MPI_Get_library_version, callable before MPI_Init): "--map-by rankfile:file=FILE" for Open MPI
   5 and later (PRRTE; --rankfile is deprecated there), "--rankfile FILE" otherwise. src/core/mpicompat.c.
*/
PETSC_INTERN PetscErrorCode PKMPIRankfileOption(const char file[], char opt[], size_t len);

#endif
