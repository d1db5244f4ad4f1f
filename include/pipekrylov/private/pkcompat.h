/*
   The few PETSc calls whose name changed between 3.18 and the versions after it, chosen by PETSc's version macros
   (never by distribution), so that the same sources build without deprecation warnings on 3.18 to 3.22 and later.
   Everything that depends on the logging internals is in src/perf/monitor/petsclog318.c and petsclog320.c instead.
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

#endif
