/*
   PAPI counters, read once per iteration row (PAPI_read of one running event set). One event set per process, set
   up at the first recorded solve with that KSP's -ksp_perf_papi_events and shared by every KSP after it (PAPI runs
   one event set at a time; nested solves read the same running counters). A later KSP that asks for other events
   is told once, at its first recorded solve, that the set is already fixed and which events it records.

   The list is checked at KSPSetFromOptions (PKPapiCheckList), before any solve: more than PK_PAPI_MAX events is an
   error there, and a name PAPI does not know (PAPI_event_name_to_code, which starts no counter) is warned about and
   dropped there, once. What can only be found by adding events (a known event this machine cannot count) is
   warned about at the first recorded solve.

   The event set is made by each process alone, with no communication: which KSP a process records first is its own
   affair (KSPs on different sub-communicators may come first on different ranks), and a collective over that first
   KSP's communicator would be matched against another KSP's messages on a rank whose first KSP was another one.
   Each KSP's ranks then agree, at its first recorded solve and over its own communicator (PKPapiAgree), on the
   events they all count: the trace has the same columns on every rank of a KSP, and an event some of its ranks do not
   count is dropped for it, and said once, on its rank 0. An event this process cannot add is said on rank 0 of the
   KSP that set the process up, with PAPI's reason.
   Default: PAPI_TOT_CYC and PAPI_TOT_INS where the hardware counts them, else nothing. The kernel's software events
   (perf::TASK-CLOCK and the like, which virtual machines without hardware counters still have) are read by a
   read() system call per event set and iteration, and that read is slow where it matters, between the memory-bound
   kernels of a solve (docs/benchmarks.md, "Monitor cost"): they are recorded only when asked for by name.
*/
#include <pipekrylov/private/pkmonitor.h>
#if !defined(PK_SMPI) /* under the simulator: papi_none.c */
  #include <papi.h>

  #define PK_PAPI_NAME 256 /* an event's name as rank 0 sends it to the KSP's other ranks (PAPI's are shorter) */

static const char *const pk_papi_hw[] = {"PAPI_TOT_CYC", "PAPI_TOT_INS"};

static struct {
  PetscBool setup;   /* PKPapiSetUp has run */
  PetscBool inited;  /* we called PAPI_library_init (PKPapiFinalize shuts PAPI down) */
  PetscBool running; /* the event set is counting */
  int       set;
  int       n;
  char     *names[PK_PAPI_MAX];
  char      unavailable[512]; /* the default events this machine cannot count, and why (said once, not warned) */
  char      reason[128];      /* the first of those reasons */
  char      request[256];     /* the list the event set was built from (the first recorded KSP's) */
  char      prefix[256];      /* that KSP's options prefix */
} pk_papi = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PAPI_NULL, 0, {NULL}, "", "", "", ""};

/* What the default event list could not record here, and why ("" when everything was recorded or a list was given) */
const char *PKPapiUnavailable(void)
{
  return pk_papi.unavailable;
}

/* The kernel's software events, which the default leaves out (each read is a system call): named where the default
   records nothing, so that a user of a machine without hardware counters knows what to ask for */
const char *PKPapiSoftwareEvents(void)
{
  return "perf::TASK-CLOCK,perf::CONTEXT-SWITCHES,perf::PAGE-FAULTS";
}

/* Why, in short (the first reason) */
const char *PKPapiUnavailableReason(void)
{
  return pk_papi.reason;
}

static void PKPapiNoteUnavailable(const char *name, int code)
{
  size_t len = strlen(pk_papi.unavailable);
  if (!len) snprintf(pk_papi.reason, sizeof(pk_papi.reason), "%s", PAPI_strerror(code));
  if (len + 2 < sizeof(pk_papi.unavailable)) snprintf(pk_papi.unavailable + len, sizeof(pk_papi.unavailable) - len, "%s%s (%s)", len ? ", " : "", name, PAPI_strerror(code));
}

int PKPapiCount(void)
{
  return pk_papi.running ? pk_papi.n : 0;
}

/* A KSP's n counters, columns col[] of the process's event set, into v (inside the loop: no error path; a failed
   read leaves v as it was) */
void PKPapiRead(int n, const int col[], long long *v)
{
  long long all[PK_PAPI_MAX];

  if (PAPI_read(pk_papi.set, all) != PAPI_OK) return;
  for (int k = 0; k < n; k++) v[k] = all[col[k]];
}

static PetscErrorCode PKPapiWarn(MPI_Comm comm, const char *name, int code)
{
  PetscFunctionBegin;
  PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: PAPI event %s cannot be recorded: %s (code %d); the solve goes on without it\n", name, PAPI_strerror(code), code));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKPapiDestroySet(void)
{
  PetscFunctionBegin;
  if (pk_papi.set != PAPI_NULL) {
    long long junk[PK_PAPI_MAX];
    if (pk_papi.running) (void)PAPI_stop(pk_papi.set, junk);
    (void)PAPI_cleanup_eventset(pk_papi.set);
    (void)PAPI_destroy_eventset(&pk_papi.set);
  }
  pk_papi.set     = PAPI_NULL;
  pk_papi.running = PETSC_FALSE;
  for (int i = 0; i < pk_papi.n; i++) PetscCall(PetscFree(pk_papi.names[i]));
  pk_papi.n = 0;
  PetscFunctionReturn(0);
}

/*
   Build this process's event set from cand[0..n): each event that PAPI adds is kept; each it cannot add is said
   (when warn: on rank 0 of comm, which only prints) or noted (the default list). No communication.
*/
static PetscErrorCode PKPapiBuild(MPI_Comm comm, int n, const char *const cand[], PetscBool warn)
{
  PetscFunctionBegin;
  PetscCall(PKPapiDestroySet());
  if (PAPI_create_eventset(&pk_papi.set) != PAPI_OK) pk_papi.set = PAPI_NULL;
  for (int i = 0; i < n; i++) {
    int rc = pk_papi.set == PAPI_NULL ? PAPI_ENOMEM : PAPI_add_named_event(pk_papi.set, cand[i]);

    if (rc == PAPI_OK) PetscCall(PetscStrallocpy(cand[i], &pk_papi.names[pk_papi.n++]));
    else if (warn) PetscCall(PKPapiWarn(comm, cand[i], rc));
    else {
      PKPapiNoteUnavailable(cand[i], rc);
      PetscCall(PetscInfo(NULL, "PAPI event %s not available: %s\n", cand[i], PAPI_strerror(rc)));
    }
  }
  if (!pk_papi.n) PetscCall(PKPapiDestroySet());
  PetscFunctionReturn(0);
}

/* PAPI_library_init once: PAPI_OK, or PAPI's error code (this process's) */
static int PKPapiInitLocal(void)
{
  int rc = (int)PAPI_VER_CURRENT;

  if (PAPI_is_initialized() == PAPI_NOT_INITED) {
    rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc == (int)PAPI_VER_CURRENT) pk_papi.inited = PETSC_TRUE;
  }
  if (rc == (int)PAPI_VER_CURRENT) return PAPI_OK;
  return rc > 0 ? PAPI_EINVAL : rc;
}

/* The same, the worst answer on every rank of comm (collective: at KSPSetFromOptions, which is) */
static PetscErrorCode PKPapiInit(MPI_Comm comm, int *worst)
{
  int rc = PKPapiInitLocal();

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&rc, worst, 1, MPI_INT, MPI_MIN, comm));
  PetscFunctionReturn(0);
}

/* The distinct names of a comma list into cand[] (pointers into copy, which the caller frees); *n may exceed max,
   only the first max are kept */
static PetscErrorCode PKPapiParse(const char list[], char **copy, const char *cand[], int max, int *n)
{
  char *tok, *save = NULL;

  PetscFunctionBegin;
  *n = 0;
  PetscCall(PetscStrallocpy(list, copy));
  for (tok = strtok_r(*copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    PetscBool dup = PETSC_FALSE;
    for (int i = 0; i < PetscMin(*n, max) && !dup; i++) PetscCall(PetscStrcmp(cand[i], tok, &dup));
    if (dup) continue;
    if (*n < max) cand[*n] = tok;
    (*n)++;
  }
  PetscFunctionReturn(0);
}

/*
   At KSPSetFromOptions (collective on comm; prefix: the KSP's options prefix): the list is "default", "none" or at
   most PK_PAPI_MAX distinct event names (else an error, now, with its own code); names PAPI does not know are
   warned about once and removed from list (len: its size), which becomes "none" if nothing is left. Starts no
   counter: PAPI_library_init and PAPI_event_name_to_code only.
*/
PetscErrorCode PKPapiCheckList(MPI_Comm comm, const char prefix[], char list[], size_t len)
{
  char       *copy, kept[256] = "";
  const char *cand[PK_PAPI_MAX];
  int         n, rc[PK_PAPI_MAX], worst[PK_PAPI_MAX], init;
  PetscBool   isdefault, isnone;

  PetscFunctionBegin;
  PetscCall(PetscStrcasecmp(list, "none", &isnone));
  PetscCall(PetscStrcasecmp(list, "default", &isdefault));
  if (isnone || isdefault) PetscFunctionReturn(0);
  PetscCall(PKPapiParse(list, &copy, cand, PK_PAPI_MAX, &n));
  if (n > PK_PAPI_MAX) PetscCall(PetscFree(copy));
  PetscCheck(n <= PK_PAPI_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sksp_perf_papi_events: at most %d distinct PAPI events, not %d (%s)", prefix ? prefix : "", PK_PAPI_MAX, n, list);
  PetscCall(PKPapiInit(comm, &init));
  if (init != PAPI_OK || !n) { /* said at the first solve (PKPapiSetUp), where the counters would start */
    PetscCall(PetscFree(copy));
    PetscFunctionReturn(0);
  }
  for (int i = 0; i < n; i++) {
    int code;
    rc[i] = PAPI_event_name_to_code(cand[i], &code);
  }
  PetscCallMPI(MPI_Allreduce(rc, worst, n, MPI_INT, MPI_MIN, comm));
  for (int i = 0; i < n; i++) {
    size_t l = strlen(kept);
    if (worst[i] != PAPI_OK) {
      PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: PAPI event %s cannot be recorded: %s (code %d): PAPI does not know it here (-%sksp_perf_papi_events; papi_native_avail lists the known events); the solve goes on without it\n", cand[i], PAPI_strerror(worst[i]), worst[i], prefix ? prefix : ""));
    } else if (l + strlen(cand[i]) + 2 < sizeof(kept)) PetscCall(PetscSNPrintf(kept + l, sizeof(kept) - l, "%s%s", l ? "," : "", cand[i]));
  }
  PetscCall(PetscStrncpy(list, kept[0] ? kept : "none", len));
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(0);
}

/* A KSP whose list differs from the one the process's event set was built from: said once, at its first solve */
static PetscErrorCode PKPapiSaySetFixed(MPI_Comm comm, const char prefix[], const char list[])
{
  char      rec[512] = "";
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(PetscStrcasecmp(list, pk_papi.request, &same));
  if (same) PetscFunctionReturn(0);
  /* none (asked, or left when PAPI knew none of the events, which was said then) while the set records nothing:
     this KSP records what it asked for, and a warning would only contradict itself */
  PetscCall(PetscStrcasecmp(list, "none", &same));
  if (same && !PKPapiCount()) PetscFunctionReturn(0);
  for (int i = 0; i < PKPapiCount(); i++) {
    size_t l = strlen(rec);
    PetscCall(PetscSNPrintf(rec + l, sizeof(rec) - l, "%s%s", i ? ", " : "", pk_papi.names[i]));
  }
  PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: -%sksp_perf_papi_events %s is not used: PAPI counts one event set per process, fixed at the first recorded solve by -%sksp_perf_papi_events %s; this KSP records %s%s\n", prefix ? prefix : "", list,
                         pk_papi.prefix, pk_papi.request, rec[0] ? "the same events: " : "no PAPI events", rec));
  PetscFunctionReturn(0);
}

/* The list: "default", "none" or a comma list of PAPI event names (checked by PKPapiCheckList); prefix: the KSP's.
   Not collective: comm (the KSP's) is where warnings are printed, on its rank 0. */
PetscErrorCode PKPapiSetUp(MPI_Comm comm, const char prefix[], const char list[])
{
  char       *copy;
  const char *cand[PK_PAPI_MAX];
  int         n = 0, rc;
  PetscBool   isdefault, isnone;

  PetscFunctionBegin;
  if (pk_papi.setup) {
    PetscCall(PKPapiSaySetFixed(comm, prefix, list));
    PetscFunctionReturn(0);
  }
  pk_papi.setup = PETSC_TRUE;
  PetscCall(PetscStrncpy(pk_papi.request, list, sizeof(pk_papi.request)));
  PetscCall(PetscStrncpy(pk_papi.prefix, prefix ? prefix : "", sizeof(pk_papi.prefix)));
  PetscCall(PetscStrcasecmp(list, "none", &isnone));
  if (isnone) PetscFunctionReturn(0);
  PetscCall(PetscStrcasecmp(list, "default", &isdefault));
  rc = PKPapiInitLocal();
  if (rc != PAPI_OK) {
    if (isdefault) PKPapiNoteUnavailable("PAPI", rc); /* the default list: said in -ksp_view and the report */
    else PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: PAPI cannot be initialised: %s (code %d); the solve goes on without counters\n", PAPI_strerror(rc), rc));
    PetscFunctionReturn(0);
  }
  if (isdefault) { /* record the hardware counters that exist (read in user space); warn for none */
    PetscCall(PKPapiBuild(comm, 2, pk_papi_hw, PETSC_FALSE));
  } else {
    PetscCall(PKPapiParse(list, &copy, cand, PK_PAPI_MAX, &n));
    if (n > PK_PAPI_MAX) PetscCall(PetscFree(copy));
    PetscCheck(n <= PK_PAPI_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sksp_perf_papi_events: at most %d distinct PAPI events, not %d (%s)", prefix ? prefix : "", PK_PAPI_MAX, n, list);
    if (n) PetscCall(PKPapiBuild(comm, n, cand, PETSC_TRUE));
    PetscCall(PetscFree(copy));
  }
  if (!pk_papi.n) PetscFunctionReturn(0);
  rc              = PAPI_start(pk_papi.set);
  pk_papi.running = (PetscBool)(rc == PAPI_OK);
  if (rc != PAPI_OK) {
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: PAPI cannot start counting: %s (code %d); the solve goes on without counters\n", PAPI_strerror(rc), rc));
    PetscCall(PKPapiDestroySet());
  }
  PetscFunctionReturn(0);
}

/*
   Collective on comm (a KSP's, at its first recorded solve, after PKPapiSetUp): the events this KSP records, those
   of its rank 0's event set that every one of its ranks counts, in rank 0's order: *n of them, at columns col[] of
   this process's set, named names[] (the process's strings, valid until PKPapiFinalize). An event some rank does not
   count is said once, on rank 0 (its set came from another KSP's list, or PAPI could not add it there).
*/
PetscErrorCode PKPapiAgree(MPI_Comm comm, const char prefix[], int *n, int col[], const char *names[])
{
  char names0[PK_PAPI_MAX][PK_PAPI_NAME] = {{0}};
  int  n0 = PKPapiCount(), have[PK_PAPI_MAX], all[PK_PAPI_MAX + 1], extra = 0;

  PetscFunctionBegin;
  for (int i = 0; i < n0; i++) PetscCall(PetscStrncpy(names0[i], pk_papi.names[i], PK_PAPI_NAME));
  PetscCallMPI(MPI_Bcast(&n0, 1, MPI_INT, 0, comm));
  if (n0) PetscCallMPI(MPI_Bcast(names0, n0 * PK_PAPI_NAME, MPI_CHAR, 0, comm));
  for (int i = 0; i < n0; i++) {
    have[i] = -1;
    for (int j = 0; j < PKPapiCount() && have[i] < 0; j++)
      if (!strncmp(names0[i], pk_papi.names[j], PK_PAPI_NAME - 1)) have[i] = j;
  }
  for (int j = 0; j < PKPapiCount(); j++) { /* this rank's events rank 0 does not count */
    PetscBool in = PETSC_FALSE;
    for (int i = 0; i < n0 && !in; i++) in = (PetscBool)(have[i] == j);
    extra += !in;
  }
  for (int i = 0; i < n0; i++) all[i] = have[i] >= 0;
  all[n0] = -extra;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, all, n0 + 1, MPI_INT, MPI_MIN, comm));
  *n = 0;
  for (int i = 0; i < n0; i++) {
    if (all[i]) {
      col[*n]   = have[i];
      names[*n] = pk_papi.names[have[i]];
      (*n) += 1;
    } else
      PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: PAPI event %s is not counted on every rank of this KSP (-%sksp_perf_papi_events; each process counts the events of its first recorded KSP); the solve goes on without it\n", names0[i], prefix ? prefix : ""));
  }
  if (all[n0])
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: some ranks of this KSP count PAPI events that its rank 0 does not (-%sksp_perf_papi_events; each process counts the events of its first recorded KSP); they are not recorded\n", prefix ? prefix : ""));
  PetscFunctionReturn(0);
}

PetscErrorCode PKPapiFinalize(void)
{
  PetscFunctionBegin;
  PetscCall(PKPapiDestroySet());
  if ((pk_papi.setup || pk_papi.inited) && PAPI_is_initialized() != PAPI_NOT_INITED) PAPI_shutdown();
  pk_papi.setup      = PETSC_FALSE;
  pk_papi.inited     = PETSC_FALSE;
  pk_papi.request[0] = pk_papi.prefix[0] = 0;
  PetscFunctionReturn(0);
}
#endif
