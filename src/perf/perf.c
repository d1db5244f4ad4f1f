/*
   The perf package (monitor, trace, report): registration.

   Zero cost when off: the event hooks are installed only when a perf option is in the options database at
   registration (any prefix: -ksp_perf_monitor, -ksp_perf_trace, -ksp_perfmodel_view, -ksp_perfmodel_machine and
   -ksp_perfmodel_topology (checked even without a report), -ksp_perf_noise; or -help, so that the options are
   listed) or later by KSPPerfMonitorSet(). They chain in front of -log_view's hooks when it is on, and do not
   turn PETSc's default logging on when it is off (hooks.c).
*/
#include <pipekrylov/private/pkperfimpl.h>

PetscErrorCode PKPerfInitializePackage(void)
{
  char     *all;
  PetscBool help, on;

  PKObserver obs = {PKPerfGetRec, PKPerfInstallIfRequested, PKPerfView};

  PetscFunctionBegin;
  PetscCall(PKObserverSet(&obs)); /* the solvers reach the monitor only through the core's observer */
  PetscCall(PetscOptionsGetAll(NULL, &all));
  on = (PetscBool)(strstr(all, "ksp_perf_monitor") || strstr(all, "ksp_perf_trace") || strstr(all, "ksp_perfmodel_view") || strstr(all, "ksp_perfmodel_machine") || strstr(all, "ksp_perfmodel_topology") || strstr(all, "ksp_perf_noise"));
  PetscCall(PetscFree(all));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (on || help) PetscCall(PKPerfHooksInstall());
  PetscFunctionReturn(0);
}

/* A KSP of ours being configured: its perf options may have been set after the package was registered (e.g.
   PetscOptionsSetValue in the application), so look again, with its prefix */
PetscErrorCode PKPerfInstallIfRequested(KSP ksp)
{
  const char *prefix;
  const char *names[] = {"-ksp_perf_monitor", "-ksp_perf_trace", "-ksp_perfmodel_view", "-ksp_perf_noise"};
  PetscBool   set;

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  for (int i = 0; i < 4; i++) {
    PetscCall(PetscOptionsHasName(NULL, prefix, names[i], &set));
    if (set) {
      PetscCall(PKPerfHooksInstall());
      break;
    }
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
