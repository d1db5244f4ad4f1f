/*
   The machine profile of an example's model, chosen as the report chooses its own (README "Calibrating the model"):
   PKMachineChoose (src/perf/report/machine_cache.c) picks it, the same function the report uses; this header only
   words the choice for an example's output. Header-only, for the examples linked with the static archive (EX_STATIC in the makefile):
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
  PKMachineChoice how;
  char            cmd[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  PetscCall(PKMachineChoose(comm, path, m, &how));
  switch (how.where) {
  case PK_MACHINE_FILE:
    PetscCall(PetscSNPrintf(what, len, "profile %s", how.file));
    PetscCall(PetscStrncpy(shortname, how.file, slen));
    break;
  case PK_MACHINE_HOST:
  case PK_MACHINE_OTHER_HOST:
    PetscCall(PetscStrncpy(what, m->origin, len)); /* "this host's profile F" or "the profile of another host ..." */
    PetscCall(PetscStrncpy(shortname, how.file, slen));
    break;
  case PK_MACHINE_DEFAULT:
    PetscCall(PKCalibrateCommand(2, cmd, sizeof(cmd)));
    if (how.cache[0]) PetscCall(PetscSNPrintf(what, len, "the embedded default\n    (no profile of this host at %s;\n    %s makes one)", how.cache, cmd));
    else PetscCall(PetscSNPrintf(what, len, "the embedded default (no cache directory: neither XDG_CACHE_HOME nor HOME is set)"));
    PetscCall(PetscStrncpy(shortname, "embedded default", slen));
    break;
  }
  PetscFunctionReturn(0);
}

#endif
