/*
   Machine profiles on disk: rank 0 reads or writes the file, every rank gets the same profile or the same error.
   The text format and its parsing are plain functions of src/perf/models/machine.c (PKMachineParseString,
   PKMachineToString); the per-host cache is machine_cache.c.
*/
#include <pipekrylov/private/pkprofile.h>
#include <pipekrylov/private/pkfiles.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rank 0's part of reading a profile (no MPI, no PETSc error): starts from the default, reads a regular file of at
   most PK_PROFILE_MAX_BYTES (flags: PK_FILE_PRIVATE for the cache), parses it; 0 or a PETSc error code with msg */
int PKMachineReadFile(const char path[], int flags, PKMachine *m, char msg[], size_t len)
{
  char  *text = NULL, why[256];
  size_t n;
  int    rc;

  if (PKMachineDefault(m)) {
    snprintf(msg, len, "machine profile '%s': cannot set up the default", path);
    return PETSC_ERR_PLIB;
  }
  if (PKFileReadRegular(path, flags, PK_PROFILE_MAX_BYTES, &text, &n, why, sizeof(why))) {
    snprintf(msg, len, "cannot read machine profile '%s': %s", path, why);
    return PETSC_ERR_FILE_READ;
  }
  if (strlen(text) != n) {
    snprintf(msg, len, "machine profile '%s': contains NUL bytes: not a text file", path);
    rc = PETSC_ERR_FILE_UNEXPECTED;
  } else rc = (int)PKMachineParseString(text, path, m, msg, len);
  free(text);
  if (!rc) snprintf(m->origin, sizeof(m->origin), "%s", path);
  return rc;
}

PetscErrorCode PKMachineLoad(MPI_Comm comm, const char path[], PKMachine *m)
{
  PetscMPIInt rank;
  struct {
    int  rc;
    char msg[1024];
  } st = {0, ""};

  PetscFunctionBegin;
  PetscCall(PKMachineDefault(m));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) st.rc = PKMachineReadFile(path, 0, m, st.msg, sizeof(st.msg));
  PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, comm));
  PetscCheck(!st.rc, comm, (PetscErrorCode)st.rc, "%s", st.msg);
  PetscCallMPI(MPI_Bcast(m, (PetscMPIInt)sizeof(*m), MPI_BYTE, 0, comm));
  PetscFunctionReturn(0);
}

/* Written whole or not at all: a temporary file in the profile's directory, renamed over it once every byte, the
   fsync and the close succeeded (a full disk leaves the old profile, or none, never a truncated one) */
PetscErrorCode PKMachineWrite(MPI_Comm comm, const PKMachine *m, const char path[], const char comment[])
{
  PetscMPIInt rank;
  struct {
    int  rc;
    char msg[1024];
  } st = {0, ""};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char *text = NULL, why[sizeof(st.msg) - 32];

    PetscCall(PKMachineToString(m, comment, &text));
    if (PKFileWriteAtomic(path, text, strlen(text), 0644, why, sizeof(why))) {
      st.rc = PETSC_ERR_FILE_WRITE;
      snprintf(st.msg, sizeof(st.msg), "machine profile: %s", why);
    }
    free(text);
  }
  PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, comm));
  PetscCheck(!st.rc, comm, (PetscErrorCode)st.rc, "%s", st.msg);
  PetscFunctionReturn(0);
}
