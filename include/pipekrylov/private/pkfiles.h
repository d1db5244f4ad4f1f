/*
   Files on a shared machine (docs/security.md): the library and the tools run as root beside other users, so a path
   is never trusted for what its name says. Plain functions of src/core/files.c: no MPI, no PETSc errors; each
   returns 0 or an errno value, with a sentence for the user in why[] (the path and the reason; PKFileReadRegular and
   PKFileCheckOutput: the reason alone, the caller names the file).

     PKFileReadRegular   read a whole regular file of at most max bytes (a FIFO, a device or /dev/zero is refused,
                         never read or waited on); with PK_FILE_PRIVATE also: no symbolic link, owned by the caller,
                         not writable by group or others (a file of the profile cache)
     PKFileWriteAtomic   write a whole file through a temporary name in its directory (mkstemp: O_EXCL, mode 0600
                         then `mode`), every write, fsync and close checked, then rename() over the path; on any
                         failure the temporary file is removed and the path is unchanged. An existing path that is
                         a symbolic link or not a regular file (a device such as /dev/full, a directory, a FIFO) is
                         refused.
     PKFileAtomicOpen/Commit/Abort   the same as a stream (FILE *), for output too large to hold in memory (a
                         rankfile of millions of ranks): written to the temporary file, renamed over the path at the
                         commit (mode 0644 less the umask), removed at the abort or at a failed commit
     PKFileCheckOutput   a file another writer will open by name (PETSc's ASCII viewer, MPI-IO): created if missing
                         with O_EXCL|O_NOFOLLOW, and refused if it is a symbolic link, not a regular file or not the
                         caller's own; a character device such as /dev/null is accepted (*created says whether it was made here)
     PKDirCheckPrivate   a directory that is no symbolic link, owned by the caller, not writable by group or others
     PKDirMakePrivate    mkdir -p of a directory whose last component is created 0700 (atomically, by mkdir), or
                         checked with PKDirCheckPrivate when it exists
     PKTextEscape        text read from a file (or a message quoting it) made safe to print on a terminal: control
                         characters (C0, DEL, C1) and bytes that are not UTF-8 shown as \xNN, the rest kept. Every
                         message that echoes a file's content goes through it (a profile or topology.conf holding
                         ESC sequences must not drive the user's terminal)
*/
#ifndef PKFILES_H
#define PKFILES_H

#include <petscsys.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define PK_FILE_PRIVATE 1 /* PKFileReadRegular: also refuse links and files that are not the caller's own */

#define PK_PROFILE_MAX_BYTES (1 << 20) /* a machine profile is a few kilobytes; 1 MiB is far beyond any real one */

typedef struct {
  FILE *fp; /* write here */
  char  path[4096], dir[4096], tmp[4160];
} PKAtomicFile;

PETSC_INTERN int         PKFileAtomicOpen(const char path[], PKAtomicFile *, char why[], size_t whylen);
PETSC_INTERN int         PKFileAtomicCommit(PKAtomicFile *, char why[], size_t whylen);
PETSC_INTERN void        PKFileAtomicAbort(PKAtomicFile *);
PETSC_INTERN int         PKFileReadRegular(const char path[], int flags, size_t max, char **text, size_t *len, char why[], size_t whylen);
PETSC_INTERN int         PKFileWriteAtomic(const char path[], const char data[], size_t len, mode_t mode, char why[], size_t whylen);
PETSC_INTERN int         PKFileCheckOutput(const char path[], int *created, char why[], size_t whylen);
PETSC_INTERN int         PKDirCheckPrivate(const char dir[], char why[], size_t whylen);
PETSC_INTERN int         PKDirMakePrivate(const char dir[], char why[], size_t whylen);
PETSC_INTERN const char *PKTextEscape(const char in[], char out[], size_t outlen);

#endif
