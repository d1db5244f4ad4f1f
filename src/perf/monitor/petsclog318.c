/*
   pklog.h for PETSc 3.18 and 3.19: everything of the monitor that depends on their logging internals is here, the
   global event hooks PetscLogPLB/PetscLogPLE and the stage log (PetscStageLog). PETSc 3.20 replaced both with
   PetscLogHandler: petsclog320.c implements pklog.h on it. The choice is PETSc's version macro, in both files.

   Chain in front of the hooks already there (-log_view's default logging, or -log_trace ...). When none are, ours
   go in alone: the PetscLogEventBegin/End macros call PetscLogPLB/PLE whenever they are set, so PETSc's default
   logging need not be on, and its bookkeeping on every event (about 1% of a pcg iteration here) is not paid.
   An application that turns default logging on itself after this (PetscLogDefaultBegin) replaces our hooks;
   KSPPerfMonitorSet() puts them back in front.
*/
#include <pipekrylov/private/pklog.h>
#if PETSC_VERSION_LT(3, 20, 0)
  #include <petsc/private/logimpl.h>

typedef PetscErrorCode (*PKLogHook)(PetscLogEvent, int, PetscObject, PetscObject, PetscObject, PetscObject);

static PKLogHook  pk_prev_plb, pk_prev_ple;
static PetscBool  pk_hooks = PETSC_FALSE;
static PKLogHooks pk_h;

/*
   3.18's PetscLogEventBegin/End are `(*PetscLogPLB)(...) || PetscLogPushCurrentEvent_Internal(e)`: whatever error
   code a hook returns, its caller (PetscCall(PetscLogEventBegin(...)) in PETSc) gets 1, which PETSc then reports as
   "out-of-range error code 1". The hooks' own error is printed in full where it is raised; to give the caller its
   code back, a failing hook keeps the code and pushes PKLogErrorHandler for the one PetscError that follows (the
   caller's, with code 1): it pops itself, prints that traceback line with the real code and returns it, so the code
   travels up to the application. What can be checked earlier is (at KSPSetFromOptions: hooks.c, PKPerfCheckOptions).
*/
static PetscErrorCode pk_hook_error = 0;

static PetscErrorCode PKLogErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  PetscErrorCode real = pk_hook_error;

  (void)ctx;
  pk_hook_error = 0;
  (void)PetscPopErrorHandler();
  if (n == 1 && real) n = real;
  return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, NULL);
}

static PetscErrorCode PKLogKeepError(PetscErrorCode ierr)
{
  if (ierr && ierr != 1 && !pk_hook_error && !PetscPushErrorHandler(PKLogErrorHandler, NULL)) pk_hook_error = ierr;
  return ierr;
}

static PetscErrorCode PKLogPLB_Private(PetscLogEvent e, int t, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  void *after = NULL;

  PetscFunctionBegin;
  PetscCall((*pk_h.begin)(e, o1, &after));
  if (pk_prev_plb) PetscCall((*pk_prev_plb)(e, t, o1, o2, o3, o4));
  if (after) PetscCall((*pk_h.begin_after)(after, o1));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKLogPLE_Private(PetscLogEvent e, int t, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  void *after = NULL;

  PetscFunctionBegin;
  PetscCall((*pk_h.end)(e, o1, &after));
  if (pk_prev_ple) PetscCall((*pk_prev_ple)(e, t, o1, o2, o3, o4));
  if (after) PetscCall((*pk_h.end_after)(after, o1));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKLogPLB(PetscLogEvent e, int t, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  return PKLogKeepError(PKLogPLB_Private(e, t, o1, o2, o3, o4));
}

static PetscErrorCode PKLogPLE(PetscLogEvent e, int t, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  return PKLogKeepError(PKLogPLE_Private(e, t, o1, o2, o3, o4));
}

/* With no other logging on, every event the monitor does not need is switched off while the hooks are in */
static PetscLogEvent *pk_quiet  = NULL;
static PetscInt       pk_nquiet = 0;

static PetscErrorCode PKLogQuietEvents(void)
{
  PetscStageLog sl;
  PetscInt      n;

  PetscFunctionBegin;
  PetscCall(PetscLogGetStageLog(&sl));
  n = sl->eventLog->numEvents;
  PetscCall(PetscMalloc1(n, &pk_quiet));
  for (PetscLogEvent e = 0; e < n; e++) {
    PetscBool active = PETSC_FALSE;
    for (int s = 0; s < sl->numStages && !active; s++) active = sl->stageInfo[s].eventLog->eventInfo[e].active;
    if (active && !(*pk_h.needed)(e)) {
      PetscCall(PetscLogEventSetActiveAll(e, PETSC_FALSE));
      pk_quiet[pk_nquiet++] = e;
    }
  }
  PetscFunctionReturn(0);
}

/* PETSc 3.18's object-creation hook (PetscLogPHC), chained like the event hooks */
static PetscErrorCode (*pk_prev_phc)(PetscObject) = NULL;
static PetscErrorCode PKLogPHC(PetscObject o)
{
  PetscFunctionBegin;
  if (pk_prev_phc) PetscCall((*pk_prev_phc)(o));
  if (pk_h.created) PetscCall((*pk_h.created)(o));
  PetscFunctionReturn(0);
}

PetscErrorCode PKLogHooksInstall(const PKLogHooks *h)
{
  PetscFunctionBegin;
  pk_h = *h;
  if (PetscLogPHC != PKLogPHC) {
    pk_prev_phc = PetscLogPHC;
    PetscLogPHC = PKLogPHC;
  }
  if (pk_hooks && PetscLogPLB == PKLogPLB && PetscLogPLE == PKLogPLE) PetscFunctionReturn(0);
  pk_prev_plb = PetscLogPLB == PKLogPLB ? pk_prev_plb : PetscLogPLB;
  pk_prev_ple = PetscLogPLE == PKLogPLE ? pk_prev_ple : PetscLogPLE;
  if (!pk_prev_plb && !pk_prev_ple && !pk_quiet) PetscCall(PKLogQuietEvents());
  PetscLogPLB = PKLogPLB;
  PetscLogPLE = PKLogPLE;
  pk_hooks    = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode PKLogHooksRemove(PetscBool *was)
{
  PetscFunctionBegin;
  *was = pk_hooks;
  if (PetscLogPHC == PKLogPHC) PetscLogPHC = pk_prev_phc;
  if (!pk_hooks) PetscFunctionReturn(0);
  if (PetscLogPLB == PKLogPLB) PetscLogPLB = pk_prev_plb;
  if (PetscLogPLE == PKLogPLE) PetscLogPLE = pk_prev_ple;
  pk_hooks = PETSC_FALSE;
  for (PetscInt i = 0; i < pk_nquiet; i++) PetscCall(PetscLogEventSetActiveAll(pk_quiet[i], PETSC_TRUE));
  PetscCall(PetscFree(pk_quiet));
  pk_nquiet = 0;
  PetscFunctionReturn(0);
}
#endif
