/*
   Machine profiles on disk: rank 0 reads or writes the file, every rank gets the same profile or the same error.
   The text format and its parsing are plain functions of src/perf/models/machine.c (PKMachineParseString,
   PKMachineToString); the per-host cache is machine_cache.c.
*/
#include <pipekrylov/private/pkprofile.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  if (rank == 0) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
      st.rc = PETSC_ERR_FILE_OPEN;
      snprintf(st.msg, sizeof(st.msg), "cannot read machine profile '%s': %s", path, strerror(errno));
    } else {
      char  *text = NULL;
      size_t len = 0, cap = 0, n;
      char   chunk[4096];
      while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
        if (len + n + 1 > cap) {
          char *t;
          cap = 2 * (len + n + 1);
          t   = (char *)realloc(text, cap);
          if (!t) break;
          text = t;
        }
        memcpy(text + len, chunk, n);
        len += n;
      }
      if (ferror(fp) || (!text && len)) {
        st.rc = PETSC_ERR_FILE_READ;
        snprintf(st.msg, sizeof(st.msg), "cannot read machine profile '%s': %s", path, ferror(fp) ? strerror(errno) : "out of memory");
      } else {
        if (text) text[len] = 0;
        if (text && strlen(text) != len) {
          st.rc = PETSC_ERR_FILE_UNEXPECTED;
          snprintf(st.msg, sizeof(st.msg), "machine profile '%s': contains NUL bytes: not a text file", path);
        } else st.rc = (int)PKMachineParseString(text ? text : "", path, m, st.msg, sizeof(st.msg));
      }
      free(text);
      fclose(fp);
    }
    if (!st.rc) PetscCall(PetscStrncpy(m->origin, path, sizeof(m->origin)));
  }
  PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, comm));
  PetscCheck(!st.rc, comm, (PetscErrorCode)st.rc, "%s", st.msg);
  PetscCallMPI(MPI_Bcast(m, (PetscMPIInt)sizeof(*m), MPI_BYTE, 0, comm));
  PetscFunctionReturn(0);
}

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
    char *text = NULL;
    FILE *fp;

    PetscCall(PKMachineToString(m, comment, &text));
    fp = fopen(path, "w");
    if (!fp) {
      st.rc = PETSC_ERR_FILE_OPEN;
      snprintf(st.msg, sizeof(st.msg), "cannot write machine profile '%s': %s", path, strerror(errno));
    } else {
      fputs(text, fp);
      if (fclose(fp)) {
        st.rc = PETSC_ERR_FILE_WRITE;
        snprintf(st.msg, sizeof(st.msg), "cannot write machine profile '%s': %s", path, strerror(errno));
      }
    }
    free(text);
  }
  PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, comm));
  PetscCheck(!st.rc, comm, (PetscErrorCode)st.rc, "%s", st.msg);
  PetscFunctionReturn(0);
}
