/*
   The end-of-solve report of -ksp_perfmodel_view [viewer], printed on rank 0 through a PETSc viewer: a sequence of
   sections (report.h), each gathered from the solve's record (pkrecord.h) and evaluated by the models:
   measured KSPSolve time and phases; injected noise and slow ranks; the analytic model's total and every term
   (seconds, per cent, source, status) with the halo exchange; the stochastic model's predictions with the bounds
   and the KS tests between ranks; the AMG cycle model for hypre BoomerAMG; what would help most, ranked by predicted
   time, and what-if predictions for larger rank counts; where every machine parameter came from.

   Formats: the default fits a 100-column terminal; ::ascii_info is a short summary; ::ascii_info_detail adds the
   whole machine profile and the AMG levels; ::ascii_csv prints "section,name,value,unit,status" lines for scripts,
   ended by the row end,report (a reader knows a block is complete).
*/
#include "report.h"
#include <errno.h>

/* Collective: every section's gather, then the models on rank 0 (where the per-iteration statistics are) */
static PetscErrorCode PKReportGather(KSP ksp, const PKSolveRecord *rec, PKModelCtx *model, PKReportCtx *rep, PKReportData *d)
{
  const PKStats *S = rec->stats;
  PetscMPIInt    rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
  PetscCall(PKSecRunGather(ksp, rec, model, &d->run));
  PetscCall(PKSecNoiseGather(ksp, rec, &d->run, &d->noise)); /* for every type: noise and slow ranks */
  if (d->run.model) {
    PetscCall(PKSecNetGather(ksp, rec, &d->run, model, rep, &d->net));
    PetscCall(PKSecHaloGather(ksp, rec, &d->run, &d->net, rep, &d->halo));
    PetscCall(PKSecAMGGather(ksp, &d->amg));
  }
  if (rank) PetscFunctionReturn(0);
  if (d->run.model) {
    PetscCall(PKSecAnalyticModel(rec, &d->run, &d->net, &d->halo, &d->analytic));
    PetscCall(PKSecHaloPlacement(ksp, rec, &d->run, &d->analytic.in, &d->halo));
    PetscCall(PKSecHaloTopoPlacement(ksp, rec, &d->run, &d->net, &d->halo));
    PetscCall(PKSecStochModel(S, &d->stoch));
    PetscCall(PKSecAdviceModel(ksp, S, &d->run, &d->halo, &d->analytic, &d->stoch, &d->advice));
    PetscCall(PKSecAMGModel(S, &d->run, &d->analytic, &d->amg));
  }
  PetscCall(PKSecNoiseModel(S, &d->run, &d->analytic, &d->noise));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKReportCSV(PetscViewer v, const PKSolveRecord *rec, const PKReportData *d)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "section,name,value,unit,status\n"));
  PetscCall(PKSecRunCSV(v, rec, &d->run));
  PetscCall(PKSecHaloCSV(v, &d->halo));
  PetscCall(PKSecNetCSV(v, &d->net));
  PetscCall(PKSecMeasuredCSV(v, rec, &d->run));
  if (d->run.model) {
    PetscCall(PKSecAnalyticCSV(v, &d->run, &d->analytic));
    PetscCall(PKSecAdviceCSV(v, &d->advice));
  }
  PetscCall(PKSecStochCSV(v, &d->run, &d->stoch));
  PetscCall(PKSecNoiseCSV(v, &d->noise));
  PetscCall(PKSecAMGCSV(v, &d->amg));
  /* the block is complete: readers (bin/pipekrylov-plot) refuse a report cut short */
  PetscCall(PetscViewerASCIIPrintf(v, "end,report,1,,complete\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode PKReportText(PetscViewer v, PetscViewerFormat fmt, KSP ksp, const PKSolveRecord *rec, const PKReportData *d)
{
  const PKStats *S = rec->stats;

  PetscFunctionBegin;
  PetscCall(PKSecRunView(v, fmt, rec, &d->run));
  PetscCall(PKSecNoiseView(v, fmt, S, &d->noise));
  if (!d->run.model) {
    PetscCall(PetscViewerASCIIPrintf(v, "  no analytic model for KSP type %s: measured times only\n", d->run.type));
    PetscFunctionReturn(0);
  }
  if (fmt == PETSC_VIEWER_ASCII_INFO) { /* short form */
    PetscCall(PKSecAnalyticViewShort(v, &d->run, &d->analytic, &d->stoch));
    PetscCall(PKSecAdviceViewShort(v, &d->run, &d->halo, &d->analytic, &d->advice));
    PetscFunctionReturn(0);
  }
  PetscCall(PKSecAnalyticView(v, ksp, S, &d->run, &d->net, &d->halo, &d->analytic));
  PetscCall(PKSecStochView(v, S, &d->run, &d->stoch));
  PetscCall(PKSecAMGView(v, fmt, &d->amg));
  PetscCall(PKSecAdviceView(v, S, &d->run, &d->halo, &d->analytic, &d->stoch, &d->advice));
  PetscCall(PKSecMachineView(v, fmt, &d->run));
  PetscFunctionReturn(0);
}

/* A report that did not reach its file or standard output (a full disk, /dev/full, a closed pipe) is an error, not
   a silent exit status 0: the stream is flushed after the report and its error indicator read. An indicator set
   before the report (the application's own output to standard output failed) is not blamed on the report unless the
   flush fails too. A write that failed inside the report left the stream's buffer empty, and the flush has nothing to
   say: its reason is the errno the report's writes left (werr, from a zero errno before them). force: the errno to
   give when the flush finds nothing wrong but the report knows it failed (0: none). *err: 0 or the errno; name: the
   file, or standard output or error. Rank 0 alone. */
static PetscErrorCode PKReportFlush(PetscViewer v, FILE *fp, int prior, int werr, int force, int *err, char name[], size_t len)
{
  const char *file = NULL;

  PetscFunctionBegin;
  errno = 0;
  if (fflush(fp)) *err = errno ? errno : EIO;
  else if (ferror(fp) && !prior) *err = werr ? werr : EIO;
  else *err = 0;
  if (!*err && force) *err = force;
  if (!*err) PetscFunctionReturn(0);
  if (fp == PETSC_STDOUT) file = "standard output";
  else if (fp == PETSC_STDERR) file = "standard error";
  else PetscCall(PetscViewerFileGetName(v, &file));
  PetscCall(PetscStrncpy(name, file ? file : "its file", len));
  PetscFunctionReturn(0);
}

/* While the report writes: a failed write (PETSC_ERR_FILE_WRITE) is returned quietly, for the report to tell on every
   rank; any other error goes to PETSc's traceback handler, message and all */
static PetscErrorCode PKReportWriteErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (n == PETSC_ERR_FILE_WRITE) return n;
  return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, ctx);
}

/* The report of the solve that just ended, from its record, to the viewer of rep (the package's hooks call it with
   the KSP's own contexts: the report never looks them up, and never reads the monitor). Collective. */
PetscErrorCode PKPerfReport(KSP ksp, const PKSolveRecord *rec, PKModelCtx *model, PKReportCtx *rep)
{
  PetscViewer       v   = rep->viewer;
  PetscViewerFormat fmt = rep->format;
  PetscBool         iascii;
  PetscMPIInt       rank;
  PKReportData     *d;
  const char       *prefix;
  struct {
    int  err;
    char name[PETSC_MAX_PATH_LEN];
  } wr = {0, ""};

  PetscFunctionBegin;
  if (!v) PetscFunctionReturn(0);
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &iascii));
  PetscCheck(iascii, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "-ksp_perfmodel_view supports " PK_REPORT_VIEWERS);
  PetscCall(PetscNew(&d));
  PetscCall(PKReportGather(ksp, rec, model, rep, d));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
  if (!rank) {
    FILE          *fp;
    int            prior;
    PetscErrorCode ierr;

    PetscCall(PetscViewerASCIIGetPointer(v, &fp));
    prior = ferror(fp);
    errno = 0;
    PetscCall(PetscViewerPushFormat(v, fmt));
    /* PETSc 3.22's ASCII viewer checks its own flushes and fails with PETSC_ERR_FILE_WRITE where 3.18's wrote on:
       that failure is the report's to tell (below, on every rank), not an error on rank 0 alone while the others wait */
    PetscCall(PetscPushErrorHandler(PKReportWriteErrorHandler, NULL));
    if (fmt == PETSC_VIEWER_ASCII_CSV) ierr = PKReportCSV(v, rec, d);
    else ierr = PKReportText(v, fmt, ksp, rec, d);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscViewerPopFormat(v));
    PetscCall(ierr == PETSC_ERR_FILE_WRITE ? 0 : ierr); /* any other error was printed by PETSc's own handler */
    PetscCall(PKReportFlush(v, fp, ierr ? 0 : prior, errno, ierr ? EIO : 0, &wr.err, wr.name, sizeof(wr.name)));
  }
  PetscCall(PKSecNoiseFree(&d->noise));
  PetscCall(PetscFree(d));
  PetscCallMPI(MPI_Bcast(&wr, (PetscMPIInt)sizeof(wr), MPI_BYTE, 0, PetscObjectComm((PetscObject)ksp)));
  PetscCheck(!wr.err, PetscObjectComm((PetscObject)ksp), PETSC_ERR_FILE_WRITE, "-%sksp_perfmodel_view: the report could not be written to %s: %s", prefix ? prefix : "", wr.name, strerror(wr.err));
  PetscFunctionReturn(0);
}
