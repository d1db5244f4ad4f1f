/*
   The perf package (monitor, trace, report): registration.

   Zero cost when off: the event hooks are installed only when a perf option is in the options database at
   registration (any prefix: -ksp_perf_monitor, -ksp_perf_trace, -ksp_perfmodel_view, -ksp_perfmodel_summary,
   -ksp_perfmodel_machine and
   -ksp_perfmodel_topology (checked even without a report), -ksp_perf_noise; or -help, so that the options are
   listed), when such an option is set later (an options monitor: PETSc's own types never ask the observer), or by
   KSPPerfMonitorSet(). They chain in front of -log_view's hooks when it is on, and do not
   turn PETSc's default logging on when it is off (hooks.c).
*/
#include <pipekrylov/private/pkperfimpl.h>

/* The perf options that turn the hooks on, under any prefix: the one list registration, the options monitor and the
   observer all read */
static const char *const PKPerfHookOptions[] = {"ksp_perf_monitor", "ksp_perf_trace", "ksp_perfmodel_view", "ksp_perfmodel_summary", "ksp_perf_noise"};
#define PK_PERF_NHOOKOPTIONS ((int)(sizeof(PKPerfHookOptions) / sizeof(PKPerfHookOptions[0])))

/* Whether name (an option, or the whole database as one string) holds one of them */
static PetscBool PKPerfOptionWanted(const char name[])
{
  for (int i = 0; i < PK_PERF_NHOOKOPTIONS; i++)
    if (name && strstr(name, PKPerfHookOptions[i])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* An option set after the package was registered (PetscOptionsSetValue in the application, PETSc.Options in
   petsc4py), with any prefix: the hooks go in then, so that PETSc's own types, which never ask the observer, get
   their report as pipekrylov's do. PETSc calls this on every change of the options database; it costs nothing in a
   solve. The monitor gained the option's source in PETSc 3.19. */
#if PETSC_VERSION_LT(3, 19, 0)
static PetscErrorCode PKPerfOptionsMonitor(const char name[], const char value[], void *ctx)
#else
static PetscErrorCode PKPerfOptionsMonitor(const char name[], const char value[], PetscOptionSource source, void *ctx)
#endif
{
  PetscFunctionBegin;
  (void)ctx;
#if !PETSC_VERSION_LT(3, 19, 0)
  (void)source;
#endif
  if (value && PKPerfOptionWanted(name)) PetscCall(PKPerfHooksInstall()); /* value NULL: the option is removed */
  PetscFunctionReturn(0);
}

PetscErrorCode PKPerfInitializePackage(void)
{
  char     *all;
  PetscBool help, on;

  PKObserver obs = {PKPerfGetRec, PKPerfInstallIfRequested, PKPerfView};

  PetscFunctionBegin;
  PetscCall(PKObserverSet(&obs)); /* the solvers reach the monitor only through the core's observer */
  PetscCall(PetscOptionsGetAll(NULL, &all));
  on = (PetscBool)(PKPerfOptionWanted(all) || strstr(all, "ksp_perfmodel_machine") || strstr(all, "ksp_perfmodel_topology"));
  PetscCall(PetscFree(all));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (on || help) PetscCall(PKPerfHooksInstall());
  else PetscCall(PetscOptionsMonitorSet(PKPerfOptionsMonitor, NULL, NULL));
  PetscFunctionReturn(0);
}

/* A KSP of ours being configured: its perf options may have been set after the package was registered (e.g.
   PetscOptionsSetValue in the application), so look again, with its prefix. Collective: options are per process,
   and one set at some ranks only (a prefix that differs between ranks) must still give every rank the hooks and
   this KSP the options handler, which then turns it off everywhere with a warning (hooks.c). One reduction of an
   int per KSPSetFromOptions of our types on more than one rank, none in a solve. */
PetscErrorCode PKPerfInstallIfRequested(KSP ksp)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)ksp);
  const char *prefix;
  char        name[64];
  PetscBool   set = PETSC_FALSE;
  PetscMPIInt size;
  int         mine, any;

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  for (int i = 0; i < PK_PERF_NHOOKOPTIONS && !set; i++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", PKPerfHookOptions[i]));
    PetscCall(PetscOptionsHasName(NULL, prefix, name, &set));
  }
  mine = any = (int)set;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
  if (any) {
    PetscCall(PKPerfHooksInstall());
    PetscCall(PKPerfAddHandler(ksp));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKPerfFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PKObserverSet(NULL));
  PetscCall(PKPerfHooksRemove());
  PetscCall(PKTraceFinalize());
  PetscCall(PKNoiseFinalize());
  PetscCall(PKPapiFinalize());
  PetscFunctionReturn(0);
}
