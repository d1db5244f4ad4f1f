/*
   Where -ksp_perfmodel_view prints. The option's value is read and checked here before any file is created, so that a
   refused viewer type, format or file mode leaves nothing behind (PETSc's own viewer creation makes the file first).
   A file is opened here, not by PETSc:
     - once per name and communicator (PetscViewerASCIIOpen shares an open file): the KSPs of one process that are given
       one file (the blocks of bjacobi, -sub_ksp_perfmodel_view ascii:rep.txt) append to it in turn instead of each
       truncating it;
     - per rank for a KSP on a communicator smaller than PETSC_COMM_WORLD, as the trace does: <file>.<r>, r the world
       rank of its rank 0, so that processes never write one file at once (8 of 18 block reports were kept);
     - checked as the trace is (docs/security.md): created with O_EXCL|O_NOFOLLOW or, when it exists, no symbolic
       link, a regular file, the caller's own;
     - kept while the option says the same, so that a KSPSetFromOptions again does not truncate the reports so far.
   Standard output (no value, ::format, or the names stdout and stderr) is left to PETSc's viewer creation (hooks.c).
*/
#include <pipekrylov/private/pkreport.h>
#include <pipekrylov/private/pkfiles.h>
#include <petsc/private/petscimpl.h> /* the KSP's options database */

/*
   PKReportViewerOpen - the viewer of a report option (-ksp_perfmodel_view, -ksp_perfmodel_summary), when it is a file

   Collective on the KSP

   Input Parameters:
+  ksp    - the KSP (its options prefix and database)
-  option - the option's name without the prefix, with its dash

   Output Parameter:
.  opened - PETSC_TRUE when *viewer and *vformat are set (a file); PETSC_FALSE: standard output, for the caller to
            create with PETSc's options viewer (every value that reaches it has been checked)
*/
PetscErrorCode PKReportViewerOpen(KSP ksp, const char option[], PetscViewer *viewer, PetscViewerFormat *vformat, char vspec[], size_t speclen, PetscBool *opened)
{
  MPI_Comm          comm = PetscObjectComm((PetscObject)ksp);
  const char       *prefix;
  char              value[PETSC_MAX_PATH_LEN] = "", spec[PETSC_MAX_PATH_LEN + 16], file[PETSC_MAX_PATH_LEN + 16];
  char             *type, *name = NULL, *fmt = NULL, *mode = NULL, opt[256];
  PetscBool         set, found;
  PetscFileMode     fmode  = FILE_MODE_WRITE;
  PetscViewerFormat format = PETSC_VIEWER_DEFAULT;
  PetscMPIInt       size, wsize, wrank, first;

  PetscFunctionBegin;
  *opened = PETSC_FALSE;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s%s", prefix ? prefix : "", option + 1));
  PetscCall(PetscOptionsGetString(((PetscObject)ksp)->options, prefix, option, value, sizeof(value), &set));
  /* type:name:format:mode, as PETSc's options viewers read it */
  type = value;
  if ((name = strchr(type, ':'))) *name++ = 0;
  if (name && (fmt = strchr(name, ':'))) *fmt++ = 0;
  if (fmt && (mode = strchr(fmt, ':'))) *mode++ = 0;
  /* the type comes first in PETSc's viewer syntax: "stdout" alone names a viewer type, which PETSc's own -ksp_view
     refuses too ("Unsupported viewer stdout"); said so, with the spelling that works */
  PetscCheck(strcmp(type, "stdout") && strcmp(type, "stderr"), comm, PETSC_ERR_SUP, "%s %s: the viewer type comes first, as in every PETSc viewer option: for standard %s give ascii:%s%s (a format after it: ascii:%s:ascii_info_detail)", opt, type, strcmp(type, "stdout") ? "error" : "output", type, strcmp(type, "stdout") ? "" : " or no value", type);
  PetscCheck(!type[0] || !strcmp(type, PETSCVIEWERASCII), comm, PETSC_ERR_SUP, "%s supports " PK_REPORT_VIEWERS ", not %s", opt, type);
  if (fmt && fmt[0]) {
    PetscCall(PetscEnumFind(PetscViewerFormats, fmt, (PetscEnum *)&format, &found));
    PetscCheck(found, comm, PETSC_ERR_SUP, "%s: unknown viewer format %s (ascii_info, ascii_info_detail or ascii_csv)", opt, fmt);
    PetscCheck(format == PETSC_VIEWER_DEFAULT || format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL || format == PETSC_VIEWER_ASCII_CSV, comm, PETSC_ERR_SUP, "%s supports the formats ascii_info, ascii_info_detail and ascii_csv, not %s", opt, PetscViewerFormats[format]);
  }
  if (mode && mode[0]) {
    PetscCall(PetscEnumFind(PetscFileModes, mode, (PetscEnum *)&fmode, &found));
    PetscCheck(found && (fmode == FILE_MODE_WRITE || fmode == FILE_MODE_APPEND), comm, PETSC_ERR_SUP, "%s: the file mode must be write or append, not %s", opt, mode);
  }
  if (!name || !name[0] || !strcmp(name, "stdout") || !strcmp(name, "stderr")) { /* standard output: PETSc's */
    PetscCall(PetscViewerDestroy(&*viewer));
    vspec[0] = 0;
    PetscFunctionReturn(0);
  }
  /* a file: per rank below PETSC_COMM_WORLD */
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &wsize));
  if (size == wsize) PetscCall(PetscStrncpy(file, name, sizeof(file)));
  else {
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &wrank));
    PetscCallMPI(MPI_Allreduce(&wrank, &first, 1, MPI_INT, MPI_MIN, comm));
    PetscCall(PetscSNPrintf(file, sizeof(file), "%s.%d", name, first));
  }
  PetscCall(PetscSNPrintf(spec, sizeof(spec), "%s:%d:%d", file, (int)fmode, (int)format));
  *opened = PETSC_TRUE;
  if (*viewer && !strcmp(spec, vspec)) PetscFunctionReturn(0); /* the same: keep it (and what it holds) */
  PetscCall(PetscViewerDestroy(&*viewer));
  {
    struct {
      int  err;
      char why[PETSC_MAX_PATH_LEN];
    } chk = {0, ""};
    PetscMPIInt rank;
    int         created;

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (!rank) chk.err = PKFileCheckOutput(file, &created, chk.why, sizeof(chk.why));
    PetscCallMPI(MPI_Bcast(&chk, (PetscMPIInt)sizeof(chk), MPI_BYTE, 0, comm));
    PetscCheck(!chk.err, comm, PETSC_ERR_FILE_OPEN, "%s: cannot write the report to %s: %s", opt, file, chk.why);
  }
  if (fmode == FILE_MODE_WRITE) PetscCall(PetscViewerASCIIOpen(comm, file, &*viewer)); /* shared per name and comm */
  else {
    PetscCall(PetscViewerCreate(comm, &*viewer));
    PetscCall(PetscViewerSetType(*viewer, PETSCVIEWERASCII));
    PetscCall(PetscViewerFileSetMode(*viewer, FILE_MODE_APPEND));
    PetscCall(PetscViewerFileSetName(*viewer, file));
  }
  *vformat = format;
  PetscCall(PetscStrncpy(vspec, spec, speclen));
  PetscFunctionReturn(0);
}
