/*
   PAPI counters, read once per iteration row (PAPI_read of one running event set). One event set per process, set
   up at the first recorded solve with that KSP's -ksp_perf_papi_events and shared by every KSP after it (PAPI runs
   one event set at a time; nested solves read the same running counters). A later KSP that asks for other events
   is told once, at its first recorded solve, that the set is already fixed and which events it records.

   The list is checked at KSPSetFromOptions (PKPapiCheckList), before any solve: more than PK_PAPI_MAX events is an
   error there, and a name PAPI does not know (PAPI_event_name_to_code, which starts no counter) is warned about and
   dropped there, once. What can only be found by adding events (a known event this machine cannot count) is
   warned about at the first recorded solve.

   The ranks agree on the events (an event that any rank cannot add is dropped everywhere), so the trace has the
   same columns on every rank, and each dropped event is reported once, on rank 0, with PAPI's reason.
   Default: PAPI_TOT_CYC and PAPI_TOT_INS where the hardware counts them, else nothing. The kernel's software events
   (perf::TASK-CLOCK and the like, which virtual machines without hardware counters still have) are read by a
   read() system call per event set and iteration, and that read is slow where it matters, between the memory-bound
   kernels of a solve (docs/benchmarks.md, "Monitor cost"): they are recorded only when asked for by name.
*/
#include <pipekrylov/private/pkmonitor.h>
#if !defined(PK_SMPI) /* under the simulator: papi_none.c */
  #include <papi.h>

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

const char *const *PKPapiNames(void)
{
  return (const char *const *)pk_papi.names;
}

void PKPapiRead(long long *v)
{
  (void)PAPI_read(pk_papi.set, v); /* inside the loop: no error path; a failed read leaves the last values */
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
   Build the event set from cand[0..n): add each; the ranks agree (MPI_MIN of PAPI's return codes, PAPI_OK = 0,
   errors negative); the events that failed anywhere are reported (when warn) and the set is built again without
   them. Afterwards pk_papi holds the events that every rank counts.
*/
static PetscErrorCode PKPapiBuild(MPI_Comm comm, int n, const char *const cand[], PetscBool warn)
{
  const char *left[PK_PAPI_MAX];
  int         rc[PK_PAPI_MAX], worst[PK_PAPI_MAX], nleft = n, kept, again;

  PetscFunctionBegin;
  for (int i = 0; i < n; i++) left[i] = cand[i];
  do {
    PetscCall(PKPapiDestroySet());
    if (PAPI_create_eventset(&pk_papi.set) != PAPI_OK) pk_papi.set = PAPI_NULL;
    for (int i = 0; i < nleft; i++) rc[i] = pk_papi.set == PAPI_NULL ? PAPI_ENOMEM : PAPI_add_named_event(pk_papi.set, left[i]);
    PetscCallMPI(MPI_Allreduce(rc, worst, nleft, MPI_INT, MPI_MIN, comm));
    kept = 0;
    for (int i = 0; i < nleft; i++) {
      if (worst[i] == PAPI_OK) left[kept++] = left[i];
      else if (warn) PetscCall(PKPapiWarn(comm, left[i], worst[i]));
      else {
        PKPapiNoteUnavailable(left[i], worst[i]);
        PetscCall(PetscInfo(NULL, "PAPI event %s not available: %s\n", left[i], PAPI_strerror(worst[i])));
      }
    }
    again = kept < nleft;
    nleft = kept;
  } while (again && nleft);
  if (again) { /* nothing left */
    PetscCall(PKPapiDestroySet());
    PetscFunctionReturn(0);
  }
  for (int i = 0; i < nleft; i++) PetscCall(PetscStrallocpy(left[i], &pk_papi.names[i]));
  pk_papi.n = nleft;
  PetscFunctionReturn(0);
}

/* PAPI_library_init once (PAPI_OK, or PAPI's error code), the same answer on every rank of comm */
static PetscErrorCode PKPapiInit(MPI_Comm comm, int *worst)
{
  int rc = (int)PAPI_VER_CURRENT;

  PetscFunctionBegin;
  if (PAPI_is_initialized() == PAPI_NOT_INITED) {
    rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc == (int)PAPI_VER_CURRENT) pk_papi.inited = PETSC_TRUE;
  }
  if (rc == (int)PAPI_VER_CURRENT) rc = PAPI_OK;
  else if (rc > 0) rc = PAPI_EINVAL;
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

/* The list: "default", "none" or a comma list of PAPI event names (checked by PKPapiCheckList); prefix: the KSP's */
PetscErrorCode PKPapiSetUp(MPI_Comm comm, const char prefix[], const char list[])
{
  char       *copy;
  const char *cand[PK_PAPI_MAX];
  int         n = 0, rc, worst;
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
  PetscCall(PKPapiInit(comm, &worst));
  if (worst != PAPI_OK) {
    if (isdefault) PKPapiNoteUnavailable("PAPI", worst); /* the default list: said in -ksp_view and the report */
    else PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: PAPI cannot be initialised: %s (code %d); the solve goes on without counters\n", PAPI_strerror(worst), worst));
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
  rc = PAPI_start(pk_papi.set);
  PetscCallMPI(MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, comm));
  pk_papi.running = (PetscBool)(rc == PAPI_OK);
  if (worst != PAPI_OK) {
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: PAPI cannot start counting: %s (code %d); the solve goes on without counters\n", PAPI_strerror(worst), worst));
    PetscCall(PKPapiDestroySet());
  }
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
