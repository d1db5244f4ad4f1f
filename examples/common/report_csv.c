/* Reading pipekrylov's CSV report back into an example: see report_csv.h */
#include "report_csv.h"
#include <unistd.h>

/*
   PKReportCSVBegin - before KSPSetFromOptions() of a KSP with options prefix `prefix` (NULL: none): unless
   -<prefix>ksp_perfmodel_view is already set, set it to ascii:<tmpdir>/<tag>.<pid>.csv:ascii_csv.
   Collective on comm.
*/
PetscErrorCode PKReportCSVBegin(MPI_Comm comm, const char prefix[], const char tag[], PKReportCSV *r)
{
  char        name[128], tmp[PETSC_MAX_PATH_LEN], value[PETSC_MAX_PATH_LEN + 32];
  PetscBool   set;
  PetscMPIInt rank;
  int         pid;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCall(PetscStrncpy(r->prefix, prefix ? prefix : "", sizeof(r->prefix)));
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%sksp_perfmodel_view", r->prefix));
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  if (set) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  pid = (int)getpid(); /* rank 0's pid names the file; only rank 0 writes it */
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, comm));
  PetscCall(PetscGetTmp(comm, tmp, sizeof(tmp)));
  PetscCall(PetscSNPrintf(r->path, sizeof(r->path), "%s/%s.%d.csv", tmp, tag, pid));
  PetscCall(PetscSNPrintf(value, sizeof(value), "ascii:%s:ascii_csv", r->path));
  PetscCall(PetscOptionsSetValue(NULL, name, value));
  r->ours = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
   PKReportCSVRead - after the KSP was destroyed: read the last report block of the file on rank 0, broadcast it,
   remove the file and the option. Collective on comm.
*/
PetscErrorCode PKReportCSVRead(MPI_Comm comm, PKReportCSV *r)
{
  char        name[128];
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (!r->ours) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE *fp = fopen(r->path, "r");
    char  line[512];
    r->n = 0;
    while (fp && fgets(line, sizeof(line), fp)) {
      char  *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL, *end;
      double v;
      if (!strncmp(line, "section,", 8)) { /* a new solve's block: keep only the last */
        r->n = 0;
        continue;
      }
      if (!c2 || r->n >= PK_REPORT_CSV_MAX) continue;
      v = strtod(c2 + 1, &end);
      if (end == c2 + 1) continue; /* not a number (run,type,...) */
      *c2 = 0;
      PetscCall(PetscStrncpy(r->key[r->n], line, sizeof(r->key[0])));
      r->val[r->n++] = (PetscReal)v;
    }
    if (fp) fclose(fp);
    (void)remove(r->path);
  }
  PetscCallMPI(MPI_Bcast(r, (int)sizeof(*r), MPI_BYTE, 0, comm));
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%sksp_perfmodel_view", r->prefix));
  PetscCall(PetscOptionsClearValue(NULL, name));
  PetscFunctionReturn(0);
}

/* PKReportCSVGet - the value of "section,name" from the last report read (PETSC_FALSE when absent) */
PetscBool PKReportCSVGet(const PKReportCSV *r, const char key[], PetscReal *v)
{
  for (PetscInt i = 0; i < r->n; i++)
    if (!strcmp(r->key[i], key)) {
      *v = r->val[i];
      return PETSC_TRUE;
    }
  return PETSC_FALSE;
}
