/*
   pklog.h for PETSc 3.20 and later: the event stream from PetscLogHandler, which replaced 3.18's global hooks
   (PetscLogPLB/PLE/PHC) and its stage log. petsclog318.c is the same interface for 3.18 and 3.19; the choice is
   PETSc's version macro, in both files.

   A started PetscLogHandler takes one of PETSC_LOG_HANDLER_MAX slots of PETSc's exported table PetscLogHandlers,
   and PetscLogEventBegin/End call the started handlers in slot order. The monitor needs two moments per event, as
   the 3.18 chain gave them: `begin`/`end` before any other logging (so that -log_view does not count the monitor's
   own work at the start of a solve, and the solve's clock stops before -log_view's bookkeeping), and
   `begin_after`/`end_after` once the others have run (the clock starts last; the statistics and the report run
   outside -log_view's KSPSolve). So two handlers: `first`, moved to slot 0, and `last`, moved behind every other.
   Moving an entry of the table changes nothing but the order (PETSc finds a handler in it by pointer; Start and
   Stop search it), and it is done only outside an event dispatch (never from inside one of our callbacks, where
   PETSc's loop over the table is running). With one free slot only, one handler does both moments.

   Errors: a handler's error code is returned by PetscLogEventBegin/End to its caller unchanged, so no error
   handler is needed to carry the code (3.18's hooks needed one).

   With no other handler started, every event the monitor does not need is switched off while ours are in, as on
   3.18 (each logged event would otherwise call them for nothing); they are switched back on when another handler
   is found at the next install, and when ours are removed.
*/
#include <pipekrylov/private/pklog.h>
#if PETSC_VERSION_GE(3, 20, 0)
  #include <petsc/private/loghandlerimpl.h>

static PKLogHooks      pk_h;
static PetscLogHandler pk_first = NULL, pk_last = NULL; /* pk_last NULL: pk_first does both moments */
static int             pk_depth = 0;                    /* > 0 while one of our callbacks runs */

/* what `begin` (in pk_first) hands to `begin_after` (in pk_last) for the same event; the same for `end` */
static void         *pk_begin_after = NULL, *pk_end_after = NULL;
static PetscLogEvent pk_begin_event = -1, pk_end_event = -1;

static PetscErrorCode PKLogFirstBegin(PetscLogHandler h, PetscLogEvent e, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  void          *after = NULL;
  PetscErrorCode ierr;

  (void)h;
  (void)o2;
  (void)o3;
  (void)o4;
  pk_depth++;
  ierr = (*pk_h.begin)(e, o1, &after);
  if (!ierr && after) {
    if (pk_last) {
      pk_begin_after = after;
      pk_begin_event = e;
    } else ierr = (*pk_h.begin_after)(after, o1);
  }
  pk_depth--;
  return ierr;
}

static PetscErrorCode PKLogFirstEnd(PetscLogHandler h, PetscLogEvent e, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  void          *after = NULL;
  PetscErrorCode ierr;

  (void)h;
  (void)o2;
  (void)o3;
  (void)o4;
  pk_depth++;
  ierr = (*pk_h.end)(e, o1, &after);
  if (!ierr && after) {
    if (pk_last) {
      pk_end_after = after;
      pk_end_event = e;
    } else ierr = (*pk_h.end_after)(after, o1);
  }
  pk_depth--;
  return ierr;
}

static PetscErrorCode PKLogLastBegin(PetscLogHandler h, PetscLogEvent e, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  void          *after = pk_begin_after;
  PetscErrorCode ierr  = 0;

  (void)h;
  (void)o2;
  (void)o3;
  (void)o4;
  if (!after || e != pk_begin_event) return 0;
  pk_begin_after = NULL;
  pk_begin_event = -1;
  pk_depth++;
  ierr = (*pk_h.begin_after)(after, o1);
  pk_depth--;
  return ierr;
}

static PetscErrorCode PKLogLastEnd(PetscLogHandler h, PetscLogEvent e, PetscObject o1, PetscObject o2, PetscObject o3, PetscObject o4)
{
  void          *after = pk_end_after;
  PetscErrorCode ierr  = 0;

  (void)h;
  (void)o2;
  (void)o3;
  (void)o4;
  if (!after || e != pk_end_event) return 0;
  pk_end_after = NULL;
  pk_end_event = -1;
  pk_depth++;
  ierr = (*pk_h.end_after)(after, o1);
  pk_depth--;
  return ierr;
}

static PetscErrorCode PKLogObjectCreate(PetscLogHandler h, PetscObject o)
{
  PetscErrorCode ierr = 0;

  (void)h;
  if (!pk_h.created) return 0;
  pk_depth++;
  ierr = (*pk_h.created)(o);
  pk_depth--;
  return ierr;
}

static PetscErrorCode PKLogHandlerCreate(PetscLogHandler *h, PetscBool first)
{
  PetscFunctionBegin;
  /* PETSC_COMM_SELF: the install may happen on a subset of the ranks (KSPPerfMonitorSet on a KSP of a
     sub-communicator); our handlers synchronise nothing and view nothing */
  PetscCall(PetscLogHandlerCreate(PETSC_COMM_SELF, h));
  (*h)->ops->eventbegin = first ? PKLogFirstBegin : PKLogLastBegin;
  (*h)->ops->eventend   = first ? PKLogFirstEnd : PKLogLastEnd;
  if (first) (*h)->ops->objectcreate = PKLogObjectCreate;
  PetscFunctionReturn(0);
}

/* Slots taken by handlers other than ours */
static int PKLogOthers(void)
{
  int n = 0;

  for (int i = 0; i < PETSC_LOG_HANDLER_MAX; i++)
    if (PetscLogHandlers[i].handler && PetscLogHandlers[i].handler != pk_first && PetscLogHandlers[i].handler != pk_last) n++;
  return n;
}

/* pk_first in slot 0, the others in their order, pk_last behind them (see the top of the file) */
static void PKLogOrder(void)
{
  PetscLogHandlerHot want[PETSC_LOG_HANDLER_MAX], f, l;
  int                n = 1;

  memset(want, 0, sizeof(want));
  memset(&f, 0, sizeof(f));
  memset(&l, 0, sizeof(l));
  for (int i = 0; i < PETSC_LOG_HANDLER_MAX; i++) {
    PetscLogHandlerHot *hot = &PetscLogHandlers[i];

    if (!hot->handler) continue;
    if (hot->handler == pk_first) f = *hot;
    else if (hot->handler == pk_last) l = *hot;
    else want[n++] = *hot;
  }
  want[0] = f;
  if (l.handler) want[n++] = l;
  if (memcmp(want, PetscLogHandlers, sizeof(want))) memcpy(PetscLogHandlers, want, sizeof(want));
}

/* With no other logging on, every event the monitor does not need is switched off while the hooks are in */
static PetscLogEvent *pk_quiet  = NULL;
static PetscInt       pk_nquiet = 0;

static PetscErrorCode PKLogQuietEvents(void)
{
  PetscLogState state;
  PetscInt      n, ns;

  PetscFunctionBegin;
  PetscCall(PetscLogGetState(&state));
  if (!state) PetscFunctionReturn(0);
  PetscCall(PetscLogStateGetNumEvents(state, &n));
  PetscCall(PetscLogStateGetNumStages(state, &ns));
  PetscCall(PetscMalloc1(n, &pk_quiet));
  for (PetscLogEvent e = 0; e < n; e++) {
    PetscBool active = PETSC_FALSE;

    for (PetscLogStage s = 0; s < ns && !active; s++) PetscCall(PetscLogStateEventGetActive(state, s, e, &active));
    if (active && !(*pk_h.needed)(e)) {
      PetscCall(PetscLogEventSetActiveAll(e, PETSC_FALSE));
      pk_quiet[pk_nquiet++] = e;
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PKLogLoudEvents(void)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < pk_nquiet; i++) PetscCall(PetscLogEventSetActiveAll(pk_quiet[i], PETSC_TRUE));
  PetscCall(PetscFree(pk_quiet));
  pk_nquiet = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode PKLogHooksInstall(const PKLogHooks *h)
{
  PetscFunctionBegin;
  pk_h = *h;
  if (!pk_first) {
    int free_slots = PETSC_LOG_HANDLER_MAX - PKLogOthers();

    PetscCheck(free_slots > 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "pipekrylov's monitor needs a PETSc log handler slot, and all %d are taken by other logging", PETSC_LOG_HANDLER_MAX);
    PetscCall(PKLogHandlerCreate(&pk_first, PETSC_TRUE));
    PetscCall(PetscLogHandlerStart(pk_first));
    if (free_slots > 1) {
      PetscCall(PKLogHandlerCreate(&pk_last, PETSC_FALSE));
      PetscCall(PetscLogHandlerStart(pk_last));
    } else PetscCall(PetscInfo(NULL, "One log handler slot free: the monitor's begin and end work is counted by the other logging\n"));
    if (!PKLogOthers() && !pk_quiet) PetscCall(PKLogQuietEvents());
  }
  if (PKLogOthers() && pk_quiet) PetscCall(PKLogLoudEvents()); /* logging started since: it sees every event */
  if (!pk_depth) PKLogOrder();
  PetscFunctionReturn(0);
}

PetscErrorCode PKLogHooksRemove(PetscBool *was)
{
  PetscFunctionBegin;
  *was = (PetscBool)(pk_first != NULL);
  if (!pk_first) PetscFunctionReturn(0);
  PetscCall(PetscLogHandlerStop(pk_first));
  PetscCall(PetscLogHandlerDestroy(&pk_first));
  if (pk_last) {
    PetscCall(PetscLogHandlerStop(pk_last));
    PetscCall(PetscLogHandlerDestroy(&pk_last));
  }
  pk_begin_after = pk_end_after = NULL;
  pk_begin_event = pk_end_event = -1;
  PetscCall(PKLogLoudEvents());
  PetscFunctionReturn(0);
}
#endif
