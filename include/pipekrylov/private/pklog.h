/*
   The event stream the monitor needs from PETSc's logging, independent of how a PETSc version delivers it.

   One file implements it per PETSc logging interface, chosen by PETSc's version macro inside each file:
   src/perf/monitor/petsclog318.c for PETSc 3.18 and 3.19 (the global hooks PetscLogPLB/PetscLogPLE and the stage
   log), src/perf/monitor/petsclog320.c for 3.20 and later (PetscLogHandler).
*/
#ifndef PKLOG_H
#define PKLOG_H

#include <petscsys.h>

typedef struct {
  /* at the begin of an event, before any hook that was there before ours; *after not NULL: begin_after(*after, o1)
     is called once the others have run */
  PetscErrorCode (*begin)(PetscLogEvent, PetscObject, void **after);
  PetscErrorCode (*begin_after)(void *, PetscObject);
  /* at the end of an event, the same way */
  PetscErrorCode (*end)(PetscLogEvent, PetscObject, void **after);
  PetscErrorCode (*end_after)(void *, PetscObject);
  /* the events the monitor needs: with no other logging on, the others may be switched off while the hooks are in */
  PetscBool (*needed)(PetscLogEvent);
  /* a PETSc object was just created (NULL: not needed); the monitor gives every KSP its options handler */
  PetscErrorCode (*created)(PetscObject);
} PKLogHooks;

/* Put the hooks in front of whatever logging is on (idempotent; again in front if something replaced them) */
PETSC_INTERN PetscErrorCode PKLogHooksInstall(const PKLogHooks *);
/* Take them out, give the events switched off back; *was: they were in */
PETSC_INTERN PetscErrorCode PKLogHooksRemove(PetscBool *was);

#endif
