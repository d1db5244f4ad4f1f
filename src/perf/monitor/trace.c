/*
   The trace (-ksp_perf_trace <file>): CSV, one row per (solve, rank, iteration), columns documented in
   docs/trace.md. Written at the end of each solve with MPI-IO, so that it works at any rank count: each rank formats
   its rows, MPI_Exscan gives each rank its offset after the end of the file, one collective write. The first solve
   to use a file in this run opens and truncates it and rank 0 writes the header; later solves append to the open
   file (opening and closing it at every solve cost milliseconds); it is closed, complete, at PetscFinalize().

   A KSP on a smaller communicator than PETSC_COMM_WORLD (e.g. one per rank) writes <file>.<r>, r the world rank of
   its rank 0, so that KSPs on different communicators never write one file at once.

   A file is known by what it is, its device and inode, not by its spelling: t.csv and ./t.csv (or a hard link) are
   one file, opened once (two spellings used to open it twice, each truncating the other's rows). Two KSPs that
   write one file are told apart by the `ksp` column (0 for the first KSP that wrote the file in this run, 1 for the
   next, ..., without limit: each KSP's monitor context has a serial number of this process, never reused). A file
   belongs to the processes that opened it (its MPI group): only a KSP on exactly
   those processes appends to it (every write is a collective on the file's communicator). A KSP on other processes
   whose name is that of an open file, on any of its ranks, is refused with one message and no trace, whichever KSP
   came first: at KSPSetFromOptions when the file is already open then, else at its first write. The decision is
   collective over the KSP's communicator, so its ranks never enter different collectives (they used to hang, or
   write rows of one rank's sub-KSP into the whole communicator's file with a collective of one rank).

   A trace that cannot be written is reported once (path and reason) and switched off for that KSP; nothing else
   changes: the solve, its statistics and the report go on. Open MPI 4.1's MPI_File_write_at_all returns
   MPI_SUCCESS when pwritev fails (a full disk, /proc/self/status): the bytes written, from the status, are checked
   against the bytes given. A file that failed is not written again by any KSP (they would fail alike).

   The path is the user's, but the writer may be root on a shared machine (docs/security.md): before MPI-IO opens
   it, rank 0 creates it with O_EXCL|O_NOFOLLOW or checks the existing one (no symbolic link, a regular file, the
   caller's own), so that a link planted in a shared directory is never written through.
*/
#include <pipekrylov/private/pkmonitor.h>
#include <pipekrylov/private/pkfiles.h>
#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* Open MPI 4.1's shared-file-pointer components (opened with every MPI-IO file, used or not) copy the path into
   fixed buffers and abort with "buffer overflow detected" from about 245 characters on. A longer path is opened
   through its directory's file descriptor, /proc/self/fd/<fd>/<basename>, which names the same file. */
#define PK_TRACE_MPIIO_PATH_MAX 200

typedef struct _n_PKTraceFile *PKTraceFile;
struct _n_PKTraceFile {
  char       *name;
  MPI_File    fh;    /* open until PetscFinalize */
  MPI_Offset  end;   /* bytes written so far */
  int         dirfd; /* >= 0: the directory held open for a long path (see PK_TRACE_MPIIO_PATH_MAX) */
  MPI_Group   group; /* the processes that opened it, the only ones that write it */
  dev_t       dev;   /* what the file is (its name may be spelled in several ways) */
  ino_t       ino;
  PetscBool   failed; /* a write failed: reported once, never written again */
  PetscInt64 *owner;  /* the serial numbers of the monitor contexts of the KSPs that wrote it, by their `ksp` id */
  PetscInt    nowner, maxowner;
  PKTraceFile next;
};
static PKTraceFile pk_trace_files  = NULL; /* files started (truncated, header written) in this run, newest first */
static PetscInt64  pk_trace_serial = 0;    /* the last serial number given to a monitor context */

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
    if (f->dirfd >= 0) close(f->dirfd);
    if (f->group != MPI_GROUP_NULL) PetscCallMPI(MPI_Group_free(&f->group));
    PetscCall(PetscFree(f->owner));
    PetscCall(PetscFree(f->name));
    PetscCall(PetscFree(f));
  }
  PetscFunctionReturn(0);
}

/* The open file that name is, by device and inode (NULL when name does not exist yet or is none of them) */
static PetscErrorCode PKTraceFind(const char name[], PKTraceFile *file)
{
  struct stat st;

  PetscFunctionBegin;
  *file = NULL;
  if (stat(name, &st)) PetscFunctionReturn(0);
  for (PKTraceFile f = pk_trace_files; f && !*file; f = f->next)
    if (f->dev == st.st_dev && f->ino == st.st_ino) *file = f;
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

typedef enum {
  PK_TRACE_OPEN,   /* no rank of the communicator has the file open: open it */
  PK_TRACE_APPEND, /* every rank has it open, on the communicator's processes: append */
  PK_TRACE_REFUSE  /* some rank has it open on other processes: no trace for this KSP */
} PKTraceState;

/* What a KSP on comm may do with the file name, decided collectively (the same answer on every rank of comm) */
static PetscErrorCode PKTraceGetState(MPI_Comm comm, const char name[], PKTraceFile *file, PKTraceState *state)
{
  int local[3] = {0, 0, 0}, any[3]; /* ranks where it is absent, open on comm's processes, open on others */

  PetscFunctionBegin;
  PetscCall(PKTraceFind(name, file));
  if (!*file) local[0] = 1;
  else {
    MPI_Group group;
    int       cmp;

    PetscCallMPI(MPI_Comm_group(comm, &group));
    PetscCallMPI(MPI_Group_compare(group, (*file)->group, &cmp));
    PetscCallMPI(MPI_Group_free(&group));
    local[cmp == MPI_IDENT || cmp == MPI_SIMILAR ? 1 : 2] = 1;
  }
  PetscCallMPI(MPI_Allreduce(local, any, 3, MPI_INT, MPI_MAX, comm));
  if (any[2] || (any[0] && any[1])) *state = PK_TRACE_REFUSE;
  else *state = any[1] ? PK_TRACE_APPEND : PK_TRACE_OPEN;
  PetscFunctionReturn(0);
}

static PetscErrorCode PKTraceRefuse(MPI_Comm comm, PKMonitorCtx *c, const char name[])
{
  PetscFunctionBegin;
  PetscCall(PetscFPrintf(comm, PETSC_STDERR, "ERROR pipekrylov: the trace file %s (-ksp_perf_trace) is already written by a KSP on another communicator (other MPI processes); a trace file belongs to the communicator that opened it: give this KSP a file of its own (with its options prefix). The solve is not affected; no trace is written for this KSP.\n", name));
  c->trace_failed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* At KSPSetFromOptions (collective on comm): a file already open on other processes is refused now, before any solve */
PetscErrorCode PKTraceCheck(MPI_Comm comm, PKMonitorCtx *c)
{
  char         name[PETSC_MAX_PATH_LEN];
  PKTraceFile  file;
  PKTraceState state;

  PetscFunctionBegin;
  if (!c->opt_trace || c->trace_failed) PetscFunctionReturn(0);
  PetscCall(PKTraceName(comm, c->trace, name, sizeof(name)));
  PetscCall(PKTraceGetState(comm, name, &file, &state));
  if (state == PK_TRACE_REFUSE) PetscCall(PKTraceRefuse(comm, c, name));
  PetscFunctionReturn(0);
}

/* PAPI names as column names: papi_ and the name with every character outside [A-Za-z0-9_] replaced by _ */
static size_t PKTraceHeader(char *buf, size_t len, PetscInt np, const char *const names[])
{
  size_t n = 0;

  n += (size_t)snprintf(buf + n, len - n, "solve,ksp,rank,node,iter,t_begin_s,t_end_s,t_iter_s");
  for (int j = 0; j < PK_PHASE_N; j++) n += (size_t)snprintf(buf + n, len - n, ",t_%s_s", PKPhaseNames[j]);
  n += (size_t)snprintf(buf + n, len - n, ",red_n,red_early,red_tests,t_solve_s,t_enter_s");
  for (PetscInt j = 0; j < np; j++) {
    n += (size_t)snprintf(buf + n, len - n, ",papi_");
    for (const char *p = names[j]; *p && n + 1 < len; p++) buf[n++] = (isalnum((unsigned char)*p) || *p == '_') ? *p : '_';
  }
  n += (size_t)snprintf(buf + n, len - n, "\n");
  return n;
}

/* The name to give MPI_File_open: the path itself or, when it is too long for Open MPI, the same file reached
   through a descriptor of its directory (*dirfd >= 0 then, to be closed after the file) */
static PetscErrorCode PKTraceMPIName(const char path[], char mpiname[], size_t len, int *dirfd, PetscBool *ok)
{
  char        dir[PETSC_MAX_PATH_LEN] = ".";
  const char *slash = strrchr(path, '/'), *file = slash ? slash + 1 : path;

  PetscFunctionBegin;
  *dirfd = -1;
  *ok    = PETSC_TRUE;
  if (strlen(path) <= PK_TRACE_MPIIO_PATH_MAX) {
    PetscCall(PetscStrncpy(mpiname, path, len));
    PetscFunctionReturn(0);
  }
  if (slash == path) PetscCall(PetscStrncpy(dir, "/", sizeof(dir)));
  else if (slash) PetscCall(PetscStrncpy(dir, path, PetscMin(sizeof(dir), (size_t)(slash - path) + 1))); /* copies up to the slash */
  *dirfd = open(dir, O_RDONLY | O_DIRECTORY);
  if (*dirfd < 0 || strlen(file) > PK_TRACE_MPIIO_PATH_MAX - 32) { /* no such directory, or the name alone is too long */
    *ok = PETSC_FALSE;
    if (*dirfd >= 0) close(*dirfd);
    *dirfd = -1;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscSNPrintf(mpiname, len, "/proc/self/fd/%d/%s", *dirfd, file));
  PetscFunctionReturn(0);
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

/* Why a write came up short or failed, as far as the file system says (MPI-IO does not pass errno on: Open MPI 4
   reports success and a short count for a /proc file, Open MPI 5 MPI_ERR_OTHER); deflt when it says nothing */
static void PKTraceShortWhy(const char name[], const char deflt[], char why[], size_t len)
{
  struct statfs sf;

  snprintf(why, len, "%s", deflt);
  if (statfs(name, &sf)) return;
  if (sf.f_type == 0x9fa0 /* PROC_SUPER_MAGIC */ || sf.f_type == 0x62656572 /* SYSFS_MAGIC */) snprintf(why, len, "it is a /proc or /sys file, which takes no data");
  else if (sf.f_bavail == 0) snprintf(why, len, "no space left on its file system");
}

/* The trace file opened on first use in this run (truncated, kept open; rank 0 makes or checks it first, see the
   top): *file NULL when it could not be opened (reported; the KSP writes no further trace) */
static PetscErrorCode PKTraceOpen(MPI_Comm comm, PKMonitorCtx *c, const char name[], PKTraceFile *file)
{
  char        mpiname[PETSC_MAX_PATH_LEN];
  int         dirfd, rc, bad, worst;
  PetscBool   ok;
  PetscMPIInt rank;
  MPI_File    fh;
  struct {
    int  err;
    char why[PETSC_MAX_PATH_LEN + 128];
  } chk = {0, ""};

  PetscFunctionBegin;
  *file = NULL;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PKTraceMPIName(name, mpiname, sizeof(mpiname), &dirfd, &ok));
  bad = !ok;
  PetscCallMPI(MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, comm));
  if (worst) {
    if (dirfd >= 0) close(dirfd);
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "ERROR pipekrylov: cannot open the trace file %s (-ksp_perf_trace): its directory does not exist or its name is longer than %d characters. The solve is not affected; no further trace is written for this KSP.\n", name, PK_TRACE_MPIIO_PATH_MAX - 32));
    c->trace_failed = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (!rank) {
    int created = 0;
    chk.err     = PKFileCheckOutput(name, &created, chk.why, sizeof(chk.why));
  }
  PetscCallMPI(MPI_Bcast(&chk, (PetscMPIInt)sizeof(chk), MPI_BYTE, 0, comm));
  if (chk.err) {
    if (dirfd >= 0) close(dirfd);
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "ERROR pipekrylov: cannot open the trace file %s (-ksp_perf_trace): %s. The solve is not affected; no trace is written for this KSP.\n", name, chk.why));
    c->trace_failed = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  rc  = MPI_File_open(comm, mpiname, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
  bad = rc != MPI_SUCCESS;
  PetscCallMPI(MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, comm));
  if (!worst) {
    rc  = MPI_File_set_size(fh, 0);
    bad = rc != MPI_SUCCESS;
    PetscCallMPI(MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, comm));
    if (worst) MPI_File_close(&fh);
  } else if (!bad) MPI_File_close(&fh);
  if (worst) {
    if (dirfd >= 0) close(dirfd);
    PetscCall(PKTraceFail(comm, c, name, "open", bad ? rc : -1));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscNew(file));
  PetscCall(PetscStrallocpy(name, &(*file)->name));
  (*file)->fh    = fh;
  (*file)->dirfd = dirfd;
  {
    struct stat st;
    if (!stat(name, &st)) {
      (*file)->dev = st.st_dev;
      (*file)->ino = st.st_ino;
    }
  }
  PetscCallMPI(MPI_Comm_group(comm, &(*file)->group));
  (*file)->next  = pk_trace_files;
  pk_trace_files = *file;
  PetscFunctionReturn(0);
}

/* Which KSP writes: a context keeps its id (its serial number is never reused, as its address may be); the order of
   first writes is the same on every rank, so are the ids */
static PetscErrorCode PKTraceKSPId(PKTraceFile file, PKMonitorCtx *c, int *kspid)
{
  int id;

  PetscFunctionBegin;
  if (!c->trace_serial) c->trace_serial = ++pk_trace_serial;
  for (id = 0; id < file->nowner && file->owner[id] != c->trace_serial; id++) { }
  if (id == file->nowner) {
    if (file->nowner == file->maxowner) {
      PetscInt64 *o;
      file->maxowner = PetscMax(16, 2 * file->maxowner);
      PetscCall(PetscMalloc1(file->maxowner, &o));
      if (file->nowner) PetscCall(PetscArraycpy(o, file->owner, file->nowner));
      PetscCall(PetscFree(file->owner));
      file->owner = o;
    }
    file->owner[file->nowner++] = c->trace_serial;
  }
  *kspid = id;
  PetscFunctionReturn(0);
}

/* This rank's rows as CSV lines (with the header first on rank 0 of a fresh file), in *buf of *n bytes */
static PetscErrorCode PKTraceFormat(PKMonitorCtx *c, PetscMPIInt rank, int kspid, PetscBool header, char **buf, size_t *n)
{
  PetscInt K = c->n, np = c->nctr;
  size_t   cap = (size_t)(K + 1) * (size_t)(32 * (24 + np)) + 4096, m = 0;
  char    *b;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(cap, &b));
  if (header) m += PKTraceHeader(b, cap, np, c->papi_names);
  for (PetscInt k = 0; k < K; k++) {
    const PKRow   *row = &c->rows[k];
    PetscLogDouble t0  = PKRowStart(c, k);
    int            ne  = PKEarlyCount(row->red_mask, row->red_n);

    m += (size_t)snprintf(b + m, cap - m, "%" PetscInt_FMT ",%d,%d,%" PetscInt_FMT ",%" PetscInt_FMT ",%.9g,%.9g,%.9g", c->solve, kspid, rank, c->node, k + 1, t0 - c->tbegin, row->t1 - c->tbegin, row->t1 - t0);
    for (int j = 0; j < PK_PHASE_N; j++) m += (size_t)snprintf(b + m, cap - m, ",%.9g", row->ph[j]);
    m += (size_t)snprintf(b + m, cap - m, ",%d,%d,%d,%.9g,%.9g", row->red_n, ne, row->red_tests, c->tend - c->tbegin, c->t_enter);
    for (PetscInt j = 0; j < np; j++) m += (size_t)snprintf(b + m, cap - m, ",%lld", PKRowCounter(c, k, j));
    m += (size_t)snprintf(b + m, cap - m, "\n");
  }
  PetscCheck(m < cap && m < (size_t)PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Trace buffer overflow (%zu bytes)", m);
  *buf = b;
  *n   = m;
  PetscFunctionReturn(0);
}

PetscErrorCode PKTraceWrite(MPI_Comm comm, PKMonitorCtx *c)
{
  char         name[PETSC_MAX_PATH_LEN], *buf = NULL;
  PKTraceFile  file;
  PetscMPIInt  rank;
  size_t       n = 0;
  long long    len, off = 0, total = 0, wrote[2], sum[2];
  int          rc, bad, kspid = 0, cnt = 0;
  PetscBool    fresh = PETSC_FALSE;
  PKTraceState state;
  MPI_Status   mst;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PKTraceName(comm, c->trace, name, sizeof(name)));
  PetscCall(PKTraceGetState(comm, name, &file, &state));
  if (state == PK_TRACE_REFUSE) {
    PetscCall(PKTraceRefuse(comm, c, name));
    PetscFunctionReturn(0);
  }
  if (state == PK_TRACE_OPEN) { /* first use in this run */
    PetscCall(PKTraceOpen(comm, c, name, &file));
    if (!file) PetscFunctionReturn(0);
    fresh = PETSC_TRUE;
  }
  if (file->failed) { /* another KSP's write to it failed and was reported: this one would fail alike */
    c->trace_failed = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCall(PKTraceKSPId(file, c, &kspid));
  PetscCall(PKTraceFormat(c, rank, kspid, (PetscBool)(fresh && !rank), &buf, &n));
  len = (long long)n;
  PetscCallMPI(MPI_Exscan(&len, &off, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (!rank) off = 0;
  PetscCallMPI(MPI_Allreduce(&len, &total, 1, MPI_LONG_LONG, MPI_SUM, comm));
  rc = MPI_File_write_at_all(file->fh, file->end + (MPI_Offset)off, buf, (int)n, MPI_CHAR, &mst);
  if (rc == MPI_SUCCESS && MPI_Get_count(&mst, MPI_CHAR, &cnt) != MPI_SUCCESS) cnt = 0;
  file->end += (MPI_Offset)total;
  PetscCall(PetscFree(buf));
  bad      = rc != MPI_SUCCESS;
  wrote[0] = bad ? 0 : cnt;
  wrote[1] = bad; /* ranks whose write returned an error */
  PetscCallMPI(MPI_Allreduce(wrote, sum, 2, MPI_LONG_LONG, MPI_SUM, comm));
  if (sum[1]) {
    char why[MPI_MAX_ERROR_STRING + 256], msg[MPI_MAX_ERROR_STRING] = "it failed on another rank";
    int  mlen;
    if (bad) MPI_Error_string(rc, msg, &mlen);
    PKTraceShortWhy(name, msg, why, sizeof(why));
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "ERROR pipekrylov: cannot write the trace file %s (-ksp_perf_trace): %s. The solve is not affected; no further trace is written for this KSP.\n", name, why));
    c->trace_failed = PETSC_TRUE;
    file->failed    = PETSC_TRUE;
  } else if (sum[0] != total) { /* MPI_SUCCESS, and yet bytes are missing (see the top) */
    char why[256];
    if (!rank) PKTraceShortWhy(name, "the file system took only part of it (full, over a quota, or an I/O error)", why, sizeof(why));
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "ERROR pipekrylov: cannot write the trace file %s (-ksp_perf_trace): %lld of %lld bytes of solve %" PetscInt_FMT " written: %s. The solve is not affected; no further trace is written for this KSP.\n", name, sum[0], total, c->solve, why));
    c->trace_failed = PETSC_TRUE;
    file->failed    = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}
