/*
   PAPI counters, read once per iteration row (PAPI_read of one running event set). One event set per process, set
   up at the first recorded solve with that KSP's -ksp_perf_papi_events and shared by every KSP after it (PAPI runs
   one event set at a time; nested solves read the same running counters).

   The ranks agree on the events (an event that any rank cannot add is dropped everywhere), so the trace has the
   same columns on every rank, and each dropped event is reported once, on rank 0, with PAPI's reason.
   Default: PAPI_TOT_CYC and PAPI_TOT_INS where the hardware counts them, else the perf_event software events
   (virtual machines rarely expose hardware counters).
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <papi.h>

static const char *const pk_papi_hw[] = {"PAPI_TOT_CYC", "PAPI_TOT_INS"};
static const char *const pk_papi_sw[] = {"perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES", "perf::PAGE-FAULTS"};

static struct {
  PetscBool setup;   /* PKPapiSetUp has run */
  PetscBool running; /* the event set is counting */
  int       set;
  int       n;
  char     *names[PK_PAPI_MAX];
  char      unavailable[512]; /* the default events this machine cannot count, and why (said once, not warned) */
  char      reason[128];      /* the first of those reasons */
} pk_papi = {PETSC_FALSE, PETSC_FALSE, PAPI_NULL, 0, {NULL}, "", ""};

/* What the default event list could not record here, and why ("" when everything was recorded or a list was given) */
const char *PKPapiUnavailable(void)
{
  return pk_papi.unavailable;
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

/* The list: "default", "none" or a comma list of PAPI event names */
PetscErrorCode PKPapiSetUp(MPI_Comm comm, const char list[])
{
  char       *copy, *tok, *save = NULL;
  const char *cand[PK_PAPI_MAX];
  int         n = 0, rc, worst;
  PetscBool   isdefault, isnone;

  PetscFunctionBegin;
  if (pk_papi.setup) PetscFunctionReturn(0);
  pk_papi.setup = PETSC_TRUE;
  PetscCall(PetscStrcasecmp(list, "none", &isnone));
  if (isnone) PetscFunctionReturn(0);
  PetscCall(PetscStrcasecmp(list, "default", &isdefault));
  rc = PAPI_is_initialized() == PAPI_NOT_INITED ? PAPI_library_init(PAPI_VER_CURRENT) : (int)PAPI_VER_CURRENT;
  if (rc == (int)PAPI_VER_CURRENT) rc = PAPI_OK;
  else if (rc > 0) rc = PAPI_EINVAL;
  PetscCallMPI(MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, comm));
  if (worst != PAPI_OK) {
    if (isdefault) PKPapiNoteUnavailable("PAPI", worst); /* the default list: said in -ksp_view and the report */
    else PetscCall(PetscFPrintf(comm, PETSC_STDERR, "WARNING pipekrylov: PAPI cannot be initialised: %s (code %d); the solve goes on without counters\n", PAPI_strerror(worst), worst));
    PetscFunctionReturn(0);
  }
  if (isdefault) { /* record what exists: the hardware counters, else the kernel's software ones; warn for none */
    PetscCall(PKPapiBuild(comm, 2, pk_papi_hw, PETSC_FALSE));
    if (pk_papi.n < 2) PetscCall(PKPapiBuild(comm, 3, pk_papi_sw, PETSC_FALSE));
    if (pk_papi.n) pk_papi.unavailable[0] = pk_papi.reason[0] = 0; /* the fallback worked: nothing is missing */
  } else {
    PetscCall(PetscStrallocpy(list, &copy));
    for (tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
      PetscBool dup = PETSC_FALSE;
      for (int i = 0; i < n; i++) {
        PetscCall(PetscStrcmp(cand[i], tok, &dup));
        if (dup) break;
      }
      if (dup) continue;
      PetscCheck(n < PK_PAPI_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ksp_perf_papi_events: at most %d events, not more (%s)", PK_PAPI_MAX, list);
      cand[n++] = tok;
    }
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
  if (pk_papi.setup && PAPI_is_initialized() != PAPI_NOT_INITED) PAPI_shutdown();
  pk_papi.setup = PETSC_FALSE;
  PetscFunctionReturn(0);
}
