/*
   Machine profiles: the text file written by bin/pipekrylov-calibrate and read with -ksp_perfmodel_machine <file>,
   and the embedded default profile: the format and the default are plain functions (src/perf/models/machine.c);
   reading and writing files (src/perf/report/profile_io.c) and the per-host cache (src/perf/report/machine_cache.c)
   are the report's.

   The file format (version 1), one setting per line:

       # comment                                  '#' starts a comment anywhere on a line
       pipekrylov_machine_profile = 1             the version line: the first setting of every profile
       alpha_on_short = 4.2e-07   # s, ...        key = value, SI units (s, bytes, bytes/s, 1/s)
       RN = none                                  'none': not available (e.g. no off-node pair at calibration)

   Keys are those of PKMachineFields[]; each may appear once; a key left out keeps the embedded default (and says
   so in its provenance). Values are decimal numbers (C strtod syntax), finite; latencies, per-byte costs,
   bandwidths and sizes must be > 0, penalties (gamma, delta, hop_latency, noise_*) >= 0, ppn and nodes integers
   >= 1, and every value within the sane range of its kind (PKMachineFieldRange: latencies up to 1 s, bandwidths
   1e3 to 1e15 bytes/s, ...; a finite 1e308 latency would give infinite models). Anything else is rejected with the
   file name, the line number and the reason.

   These functions are not part of the public API and the shared library does not export them: the calibration
   tool (build/bin/pipekrylov-calibrate) and the tests' programs that use them link the static archive
   build/libpipekrylov.a.
*/
#ifndef PKPROFILE_H
#define PKPROFILE_H

#include <pipekrylov/private/pkmachine.h>
#include <petscviewer.h>

#define PK_PROFILE_VERSION     1
#define PK_PROFILE_VERSION_KEY "pipekrylov_machine_profile"

/* The embedded default: every field with source PK_SRC_DEFAULT (or PK_SRC_NONE where it was not measurable) */
PETSC_INTERN PetscErrorCode PKMachineDefault(PKMachine *);
/* Collective: rank 0 reads the file, every rank gets the same profile or the same error. Starts from the default,
   so keys the file omits keep the default and its provenance. */
PETSC_INTERN PetscErrorCode PKMachineLoad(MPI_Comm, const char[], PKMachine *);
/* Rank 0's part of PKMachineLoad, not collective, raises no error: a regular file of at most PK_PROFILE_MAX_BYTES
   (flags PK_FILE_PRIVATE, pkfiles.h: also no link, the caller's own, not group/world-writable); 0 or a PETSc error
   code with the message in msg */
PETSC_INTERN int PKMachineReadFile(const char path[], int flags, PKMachine *, char msg[], size_t len);
/* Parse a profile held in memory (name is used in messages). On a format error returns PETSC_ERR_FILE_UNEXPECTED
   with the message "machine profile '<name>', line <n>: <reason>" in err (when err is not NULL) and leaves the
   PKMachine partially updated; on success err is "". Not collective, raises no PETSc error. */
PETSC_INTERN PetscErrorCode PKMachineParseString(const char text[], const char name[], PKMachine *, char err[], size_t errlen);
/* Collective: rank 0 writes the profile (comment: extra '#' lines for the header, may be NULL) */
PETSC_INTERN PetscErrorCode PKMachineWrite(MPI_Comm, const PKMachine *, const char path[], const char comment[]);
/* The profile as the text of its file (malloc'ed, free() it): not collective, no file */
PETSC_INTERN PetscErrorCode PKMachineToString(const PKMachine *, const char comment[], char **text);
/* Every parameter with its value, unit and provenance (ASCII viewers) */
PETSC_INTERN PetscErrorCode PKMachineView(const PKMachine *, PetscViewer);

/* Field access for tools: the index in PKMachineFields[] of a key, or of a member of m->p by its address */
PETSC_INTERN PetscErrorCode PKMachineFieldIndex(const char key[], PetscInt *);
PETSC_INTERN PetscErrorCode PKMachineFieldIndexOf(const PKMachine *, const void *member, PetscInt *);
PETSC_INTERN PetscErrorCode PKMachineGetField(const PKMachine *, PetscInt, const char **key, PetscReal *value, PKParamSource *);
PETSC_INTERN PetscErrorCode PKMachineSetField(PKMachine *, PetscInt, PetscReal value, PKParamSource);
PETSC_INTERN PetscErrorCode PKMachineGetNFields(PetscInt *);
/* "embedded default", "profile", "measured in this run", "not available" (PKParamSourceNames[] is internal) */
PETSC_INTERN const char *PKMachineSourceName(PKParamSource);
/* Set every field's source (e.g. PK_SRC_NONE before a calibration fills in what it measured) */
PETSC_INTERN PetscErrorCode PKMachineSetAllSources(PKMachine *, PKParamSource);

/* The per-host profile in the user's cache (src/perf/report/machine_cache.c): $XDG_CACHE_HOME/pipekrylov/<host>.profile,
   <host> = node name and processor model. Precedence in the report: -ksp_perfmodel_machine > cache > default. */
PETSC_INTERN PetscErrorCode PKMachineHostName(char host[], size_t len);
PETSC_INTERN PetscErrorCode PKMachineCachePath(char path[], size_t len, char dir[], size_t dirlen);
PETSC_INTERN PetscErrorCode PKMachineLoadForHost(MPI_Comm, PKMachine *, PetscBool *cached, char cachepath[], size_t len);
PETSC_INTERN PetscErrorCode PKCalibrateCommand(PetscInt ppn, char cmd[], size_t len);
/* The profile of a model: the file given, else this host's cached one (or another host's with this processor), else
   the embedded default (machine_cache.c); every report and example chooses so */
typedef enum {
  PK_MACHINE_FILE,       /* the file given */
  PK_MACHINE_HOST,       /* this host's cached profile */
  PK_MACHINE_OTHER_HOST, /* the cached profile of another host with this processor */
  PK_MACHINE_DEFAULT     /* the embedded default */
} PKMachineWhere;
typedef struct {
  PKMachineWhere where;
  char           cache[PETSC_MAX_PATH_LEN]; /* this host's cache file looked for ("": no cache directory) */
  char           file[PETSC_MAX_PATH_LEN];  /* the file read ("": the embedded default) */
} PKMachineChoice;
PETSC_INTERN PetscErrorCode PKMachineChoose(MPI_Comm, const char path[], PKMachine *, PKMachineChoice *);
/* The sane range of a field's value (checked when a profile is read, after the sign rules above) */
PETSC_INTERN void PKMachineFieldRange(PetscInt i, PetscReal *lo, PetscReal *hi);

#endif
