/*
   The trace (-ksp_perf_trace <file>): CSV, one row per (solve, rank, iteration), columns documented in
   docs/trace.md. Written at the end of each solve with MPI-IO, so that it works at any rank count: each rank formats
   its rows, MPI_Exscan gives each rank its offset after the end of the file, one collective write. The first solve
   to use a file in this run opens and truncates it and rank 0 writes the header; later solves append to the open
   file (opening and closing it at every solve cost milliseconds); it is closed, complete, at PetscFinalize().

   A KSP on a smaller communicator than PETSC_COMM_WORLD (e.g. one per rank) writes <file>.<r>, r the world rank of
   its rank 0, so that KSPs on different communicators never write one file at once.

   A trace that cannot be written is reported once (path and MPI's reason) and switched off for that KSP; nothing
   else changes: the solve, its statistics and the report go on.
*/
#include <pipekrylov/private/pkperfimpl.h>
#include <ctype.h>

typedef struct _n_PKTraceFile *PKTraceFile;
struct _n_PKTraceFile {
  char       *name;
  MPI_File    fh;   /* open until PetscFinalize */
  MPI_Offset  end;  /* bytes written so far */
  PKTraceFile next;
};
static PKTraceFile pk_trace_files = NULL; /* files started (truncated, header written) in this run, newest first */

/* Close the files in the order they were opened (the same on every rank that shares one: they open together) */
PetscErrorCode PKTraceFinalize(void)
{
  PKTraceFile rev = NULL;

  PetscFunctionBegin;
  while (pk_trace_files) {
    PKTraceFile f  = pk_trace_files;
    pk_trace_files = f->next;
    f->next        = rev;
    rev            = f;
  }
  while (rev) {
    PKTraceFile f = rev;
    rev           = f->next;
    if (MPI_File_close(&f->fh) != MPI_SUCCESS) PetscCall(PetscPrintf(PETSC_COMM_SELF, "ERROR pipekrylov: closing the trace file %s failed\n", f->name));
    PetscCall(PetscFree(f->name));
    PetscCall(PetscFree(f));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PKTraceFind(const char name[], PKTraceFile *file)
{
  PetscBool eq = PETSC_FALSE;

  PetscFunctionBegin;
  *file = NULL;
  for (PKTraceFile f = pk_trace_files; f && !eq; f = f->next) {
    PetscCall(PetscStrcmp(f->name, name, &eq));
    if (eq) *file = f;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PKTraceName(MPI_Comm comm, const char base[], char name[], size_t len)
{
  PetscMPIInt size, wsize, wrank, first;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &wsize));
  if (size == wsize) PetscCall(PetscStrncpy(name, base, len));
  else {
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &wrank));
    PetscCallMPI(MPI_Allreduce(&wrank, &first, 1, MPI_INT, MPI_MIN, comm));
    PetscCall(PetscSNPrintf(name, len, "%s.%d", base, first));
  }
  PetscFunctionReturn(0);
}

/* PAPI names as column names: papi_ and the name with every character outside [A-Za-z0-9_] replaced by _ */
static size_t PKTraceHeader(char *buf, size_t len, PetscInt np, const char *const names[])
{
  size_t n = 0;

  n += (size_t)snprintf(buf + n, len - n, "solve,rank,node,iter,t_begin_s,t_end_s,t_iter_s");
  for (int j = 0; j < PK_PHASE_N; j++) n += (size_t)snprintf(buf + n, len - n, ",t_%s_s", PKPhaseNames[j]);
  n += (size_t)snprintf(buf + n, len - n, ",red_n,red_early,red_tests,t_solve_s,t_enter_s");
  for (PetscInt j = 0; j < np; j++) {
    n += (size_t)snprintf(buf + n, len - n, ",papi_");
    for (const char *p = names[j]; *p && n + 1 < len; p++) buf[n++] = (isalnum((unsigned char)*p) || *p == '_') ? *p : '_';
  }
  n += (size_t)snprintf(buf + n, len - n, "\n");
  return n;
}

/* Report a failure once, on rank 0 (the code is rank 0's own or, if rank 0 succeeded, -1) */
static PetscErrorCode PKTraceFail(MPI_Comm comm, PKMonitorCtx *c, const char name[], const char *what, int code)
{
  char msg[MPI_MAX_ERROR_STRING] = "it failed on another rank";
  int  len;

  PetscFunctionBegin;
  if (code >= 0) MPI_Error_string(code, msg, &len);
  PetscCall(PetscFPrintf(comm, PETSC_STDERR, "ERROR pipekrylov: cannot %s the trace file %s (-ksp_perf_trace): %s. The solve is not affected; no further trace is written for this KSP.\n", what, name, msg));
  c->trace_failed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode PKTraceWrite(MPI_Comm comm, PKMonitorCtx *c)
{
  char        name[PETSC_MAX_PATH_LEN], *buf;
  PKTraceFile file;
  PetscMPIInt rank;
  PetscInt    K = c->n, np = c->nctr;
  size_t      cap, n = 0;
  long long   len, off = 0, total = 0;
  MPI_File    fh;
  int         rc, bad, worst;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PKTraceName(comm, c->trace, name, sizeof(name)));
  PetscCall(PKTraceFind(name, &file));

  cap = (size_t)(K + 1) * (size_t)(32 * (24 + np)) + 4096;
  PetscCall(PetscMalloc1(cap, &buf));
  if (!file && !rank) n += PKTraceHeader(buf, cap, np, PKPapiNames());
  for (PetscInt k = 0; k < K; k++) {
    const PKRow   *row = &c->rows[k];
    PetscLogDouble t0  = PKRowStart(c, k);
    int            ne  = PKEarlyCount(row->red_mask, row->red_n);

    n += (size_t)snprintf(buf + n, cap - n, "%" PetscInt_FMT ",%d,%" PetscInt_FMT ",%" PetscInt_FMT ",%.9g,%.9g,%.9g", c->solve, rank, c->node, k + 1, t0 - c->tbegin, row->t1 - c->tbegin, row->t1 - t0);
    for (int j = 0; j < PK_PHASE_N; j++) n += (size_t)snprintf(buf + n, cap - n, ",%.9g", row->ph[j]);
    n += (size_t)snprintf(buf + n, cap - n, ",%d,%d,%d,%.9g,%.9g", row->red_n, ne, row->red_tests, c->tend - c->tbegin, c->t_enter);
    for (PetscInt j = 0; j < np; j++) n += (size_t)snprintf(buf + n, cap - n, ",%lld", PKRowCounter(c, k, j));
    n += (size_t)snprintf(buf + n, cap - n, "\n");
  }
  PetscCheck(n < cap && n < (size_t)PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Trace buffer overflow (%zu bytes)", n);

  if (!file) { /* first use in this run: open, truncate, keep */
    rc  = MPI_File_open(comm, name, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    bad = rc != MPI_SUCCESS;
    PetscCallMPI(MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, comm));
    if (!worst) {
      rc  = MPI_File_set_size(fh, 0);
      bad = rc != MPI_SUCCESS;
      PetscCallMPI(MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, comm));
      if (worst) MPI_File_close(&fh);
    } else if (!bad) MPI_File_close(&fh);
    if (worst) {
      PetscCall(PKTraceFail(comm, c, name, "open", bad ? rc : -1));
      PetscCall(PetscFree(buf));
      PetscFunctionReturn(0);
    }
    PetscCall(PetscNew(&file));
    PetscCall(PetscStrallocpy(name, &file->name));
    file->fh       = fh;
    file->next     = pk_trace_files;
    pk_trace_files = file;
  }
  len = (long long)n;
  PetscCallMPI(MPI_Exscan(&len, &off, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (!rank) off = 0;
  PetscCallMPI(MPI_Allreduce(&len, &total, 1, MPI_LONG_LONG, MPI_SUM, comm));
  rc = MPI_File_write_at_all(file->fh, file->end + (MPI_Offset)off, buf, (int)n, MPI_CHAR, MPI_STATUS_IGNORE);
  file->end += (MPI_Offset)total;
  PetscCall(PetscFree(buf));
  bad = rc != MPI_SUCCESS;
  PetscCallMPI(MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, comm));
  if (worst) PetscCall(PKTraceFail(comm, c, name, "write", bad ? rc : -1));
  PetscFunctionReturn(0);
}
