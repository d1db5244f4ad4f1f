/*
   The machine profile of an example's model, chosen as the report chooses its own (README "Calibrating the model"):
   the file given (-machine, or -ksp_perfmodel_machine), else this host's cached profile
   ($XDG_CACHE_HOME/pipekrylov/<host>.profile, src/perf/report/machine_cache.c), else the embedded default; with a
   line that says which. Header-only, for the examples linked with the static archive (EX_STATIC in the makefile):
   the profile functions are not exported by the shared library. (The makefile does not list this header among the
   examples' prerequisites: after changing it, touch the examples that include it.)
*/
#ifndef PK_EXAMPLES_MACHINE_CHOICE_H
#define PK_EXAMPLES_MACHINE_CHOICE_H

#include <pipekrylov/private/pkprofile.h>

/* path: the file asked for ("" or NULL: none). what: a description for the output ("profile <file>", "this host's
   profile <file>", or "the embedded default" and, on indented lines of their own, where this host's profile was
   looked for and the command that makes it); shortname: the same in a few words ("embedded default" or the file). Collective; a file that does not read is an error naming it (a cached one too: never silently the
   default). */
static inline PetscErrorCode PKExampleMachine(MPI_Comm comm, const char path[], PKMachine *m, char what[], size_t len, char shortname[], size_t slen)
{
  PetscFunctionBegin;
  if (path && path[0]) {
    PetscCall(PKMachineLoad(comm, path, m));
    PetscCall(PetscSNPrintf(what, len, "profile %s", path));
    PetscCall(PetscStrncpy(shortname, path, slen));
  } else {
    PetscBool cached;
    char      cache[PETSC_MAX_PATH_LEN], cmd[PETSC_MAX_PATH_LEN + 32];
    PetscCall(PKMachineLoadForHost(comm, m, &cached, cache, sizeof(cache)));
    if (cached) {
      PetscCall(PetscSNPrintf(what, len, "this host's profile %s", cache));
      PetscCall(PetscStrncpy(shortname, cache, slen));
    } else {
      PetscCall(PKCalibrateCommand(2, cmd, sizeof(cmd)));
      if (cache[0]) PetscCall(PetscSNPrintf(what, len, "the embedded default\n    (no profile of this host at %s;\n    %s makes one)", cache, cmd));
      else PetscCall(PetscSNPrintf(what, len, "the embedded default (no cache directory: neither XDG_CACHE_HOME nor HOME is set)"));
      PetscCall(PetscStrncpy(shortname, "embedded default", slen));
    }
  }
  PetscFunctionReturn(0);
}

#endif
