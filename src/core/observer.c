/*
   The observer of the phase marks: the one place where the core learns of a monitor. The instrumentation
   (src/perf) registers its three functions with PKObserverSet() when its package is initialized; the solvers
   call PKRecGet() at the start of a solve, PKObserverSetFromOptions() and PKObserverView() from their common
   set-from-options and view. With no observer registered they do nothing, and the marks of pkrecimpl.h see a
   NULL recorder: zero cost when off.

   Also here: the phase names and the logging events of the core (registered by src/pipekrylov.c).
*/
#include <pipekrylov/private/pkcore.h>

const char *const PKPhaseNames[] = {"spmv", "pc", "vec", "halo", "reduce", "overlap"};

PetscLogEvent PK_Event_SpMV, PK_Event_Reduce, PK_Event_Wait, PK_Event_VecFused, PK_Event_Replace;

static PKObserver pk_observer; /* all NULL: no monitor */

/* Register the observer (NULL: none). Called by the instrumentation's package initialization and finalization. */
PetscErrorCode PKObserverSet(const PKObserver *obs)
{
  PetscFunctionBegin;
  if (obs) pk_observer = *obs;
  else PetscCall(PetscMemzero(&pk_observer, sizeof(pk_observer)));
  PetscFunctionReturn(0);
}

PetscErrorCode PKObserverSetFromOptions(KSP ksp)
{
  PetscFunctionBegin;
  if (pk_observer.setfromoptions) PetscCall((*pk_observer.setfromoptions)(ksp));
  PetscFunctionReturn(0);
}

PetscErrorCode PKObserverView(KSP ksp, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (pk_observer.view) PetscCall((*pk_observer.view)(ksp, viewer));
  PetscFunctionReturn(0);
}

/*
   PKRecGet - the recorder of a KSP for the solve under way, or NULL when no monitor records it.

   Declared in pkrecimpl.h; not exported from the shared library (a KSP type in a program linked with the static
   archive, such as tests/perfrec.c, can mark phases as pipekrylov's types do).
*/
PetscErrorCode PKRecGet(KSP ksp, PKRec *rec)
{
  PetscFunctionBegin;
  *rec = NULL;
  if (pk_observer.getrec) PetscCall((*pk_observer.getrec)(ksp, rec));
  PetscFunctionReturn(0);
}
