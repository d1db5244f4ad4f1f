/*
   -ksp_perfmodel_summary: one summary over all the solves of a KSP, for runs that solve many times (time steps,
   Newton iterations), where a report after every solve would cost more than the solves. At the end of each solve it
   adds what the monitor measured to a few sums (no communication beyond the monitor's own), and renders the full
   report only at solves 1, 2, 4, 8, ... (so N solves cost about log2 N reports), into memory. The summary is
   printed when the KSP is destroyed or, for a KSP still alive then, at the start of PetscFinalize (as -log_view):
   the measured totals of every solve and the last report rendered, named by its solve.

   Printing is rank 0's alone and never communicates, so it may run inside KSPDestroy on any schedule (garbage
   collection in petsc4py); a write that fails there is told on standard error, since no error can be raised
   collectively from a destructor.
*/
#include "report.h"
#include <petsc/private/kspimpl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Render the full report of the solve that just ended into memory (rank 0 keeps the text); collective */
static PetscErrorCode PKSummaryRenderReport(KSP ksp, const PKSolveRecord *rec, PKModelCtx *model, PKReportCtx *rep, PKSummary *s)
{
  MPI_Comm          comm    = PetscObjectComm((PetscObject)ksp);
  PetscViewer       keep    = rep->viewer, mem;
  PetscViewerFormat keepfmt = rep->format;
  char             *buf     = NULL;
  size_t            len     = 0;
  FILE             *fp;
  PetscMPIInt       rank;
  PetscErrorCode    ierr;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  fp = open_memstream(&buf, &len);
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_MEM, "-ksp_perfmodel_summary: no memory for the report (open_memstream: %s)", strerror(errno));
  PetscCall(PetscViewerASCIIOpenWithFILE(comm, fp, &mem)); /* the viewer does not close fp */
  rep->viewer = mem;
  rep->format = s->format;
  ierr        = PKPerfReport(ksp, rec, model, rep);
  rep->viewer = keep;
  rep->format = keepfmt;
  PetscCall(PetscViewerDestroy(&mem));
  if (fclose(fp)) ierr = ierr ? ierr : PETSC_ERR_MEM;
  if (!ierr) s->report_solve = s->nsolves; /* on every rank: the caller's barrier depends on it */
  if (!ierr && !rank) {
    free(s->report); /* open_memstream's buffers are the C library's */
    s->report     = buf;
    s->report_len = len;
  } else free(buf);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/*
   PKSummaryAdd - adds the solve that just ended to the KSP's summary, and renders its full report when its number
   is a power of two

   Collective on the KSP (the monitor's statistics are reduced already; only the rendered report communicates)
*/
PetscErrorCode PKSummaryAdd(KSP ksp, const PKSolveRecord *rec, PKModelCtx *model, PKReportCtx *rep, PKSummary *s)
{
  const PKStats     *st = rec->stats;
  const char        *prefix, *pctype = "none";
  KSPConvergedReason reason;
  PC                 pc;
  PetscMPIInt        rank;
  PetscBool          rendered;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  rendered = PKSummaryRendersNext(s); /* before this solve is counted */
  s->nsolves++;
  s->nconverged += reason > 0 ? 1 : 0;
  s->nits += st->nits;
  s->time += st->solve_time;
  s->setup += st->setup_time;
  if (!rank) {
    for (PetscInt k = 0; k < st->nits; k++)
      for (int j = 0; j < PK_PHASE_N; j++) s->phase[j] += st->phase_mean[k * PK_PHASE_N + j];
    if (s->nkept < PK_SUMMARY_MAX_KEPT) {
      if (s->nkept == s->nalloc) {
        PetscInt  *its;
        PetscReal *t;
        PetscInt   n = PetscMin(PK_SUMMARY_MAX_KEPT, PetscMax(64, 2 * s->nalloc));

        PetscCall(PetscMalloc2(n, &its, n, &t));
        if (s->nkept) {
          PetscCall(PetscArraycpy(its, s->its, s->nkept));
          PetscCall(PetscArraycpy(t, s->solve_time, s->nkept));
        }
        PetscCall(PetscFree2(s->its, s->solve_time));
        s->its        = its;
        s->solve_time = t;
        s->nalloc     = n;
      }
      s->its[s->nkept]        = st->nits;
      s->solve_time[s->nkept] = st->solve_time;
      s->nkept++;
    }
  }
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(KSPGetPC(ksp, &pc));
  if (pc && ((PetscObject)pc)->type_name) pctype = ((PetscObject)pc)->type_name;
  PetscCall(PetscSNPrintf(s->title, sizeof(s->title), "KSP %s%s%s(%s, PC %s, %d rank%s on %" PetscInt_FMT " node%s)", prefix ? "\"" : "", prefix ? prefix : "", prefix ? "\" " : "", ((PetscObject)ksp)->type_name, pctype, (int)st->nranks, st->nranks == 1 ? "" : "s", st->nnodes, st->nnodes == 1 ? "" : "s"));
  if (rendered) PetscCall(PKSummaryRenderReport(ksp, rec, model, rep, s));
  PetscFunctionReturn(0);
}

/* min, median, max of n values (sorted in place) */
static PetscErrorCode PKSummaryMinMedMax(PetscInt n, PetscReal x[], PetscReal out[3])
{
  PetscFunctionBegin;
  PetscCall(PetscSortReal(n, x));
  out[0] = x[0];
  out[1] = PKQuantileSorted(n, x, 0.5);
  out[2] = x[n - 1];
  PetscFunctionReturn(0);
}

/* The summary's rows, text or CSV, on rank 0 */
static PetscErrorCode PKSummaryPrint(PetscViewer v, PKSummary *s)
{
  PetscBool  csv = (PetscBool)(s->format == PETSC_VIEWER_ASCII_CSV);
  PetscReal *x, its[3], tsolve[3], tit[3], ptot = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(s->nkept, &x));
  for (PetscInt i = 0; i < s->nkept; i++) x[i] = (PetscReal)s->its[i];
  PetscCall(PKSummaryMinMedMax(s->nkept, x, its));
  for (PetscInt i = 0; i < s->nkept; i++) x[i] = s->solve_time[i];
  PetscCall(PKSummaryMinMedMax(s->nkept, x, tsolve));
  for (PetscInt i = 0; i < s->nkept; i++) x[i] = s->its[i] > 0 ? s->solve_time[i] / (PetscReal)s->its[i] : 0.0;
  PetscCall(PKSummaryMinMedMax(s->nkept, x, tit));
  PetscCall(PetscFree(x));
  for (int j = 0; j < PK_PHASE_N; j++) ptot += s->phase[j];
  if (csv) {
    PetscCall(PetscViewerASCIIPrintf(v, "summary,solves,%" PetscInt_FMT ",count,measured\n", s->nsolves));
    PetscCall(PetscViewerASCIIPrintf(v, "summary,converged,%" PetscInt_FMT ",count,measured\n", s->nconverged));
    PetscCall(PetscViewerASCIIPrintf(v, "summary,iterations,%" PetscInt_FMT ",count,measured\n", s->nits));
    PetscCall(PetscViewerASCIIPrintf(v, "summary,iterations_min,%.0f,count,measured\nsummary,iterations_median,%.1f,count,measured\nsummary,iterations_max,%.0f,count,measured\n", (double)its[0], (double)its[1], (double)its[2]));
    PetscCall(PetscViewerASCIIPrintf(v, "summary,time,%.9e,s,measured\nsummary,setup_time,%.9e,s,measured\n", (double)s->time, (double)s->setup));
    PetscCall(PetscViewerASCIIPrintf(v, "summary,solve_time_min,%.9e,s,measured\nsummary,solve_time_median,%.9e,s,measured\nsummary,solve_time_max,%.9e,s,measured\n", (double)tsolve[0], (double)tsolve[1], (double)tsolve[2]));
    PetscCall(PetscViewerASCIIPrintf(v, "summary,per_iteration_min,%.9e,s,measured\nsummary,per_iteration_median,%.9e,s,measured\nsummary,per_iteration_max,%.9e,s,measured\n", (double)tit[0], (double)tit[1], (double)tit[2]));
    for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, "summary,phase.%s,%.9e,s,measured\n", PKPhaseNames[j], (double)s->phase[j]));
    PetscCall(PetscViewerASCIIPrintf(v, "summary,solves_kept,%" PetscInt_FMT ",count,measured\nsummary,report_solve,%" PetscInt_FMT ",index,measured\n", s->nkept, s->report_solve - 1));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscViewerASCIIPrintf(v, "pipekrylov performance summary: %s, %" PetscInt_FMT " solve%s (-ksp_perfmodel_summary)\n", s->title, s->nsolves, s->nsolves == 1 ? "" : "s"));
  PetscCall(PetscViewerASCIIPrintf(v, "  iterations     %" PetscInt_FMT " in all; a solve %.0f min, %.1f median, %.0f max; %" PetscInt_FMT " of %" PetscInt_FMT " converged\n", s->nits, (double)its[0], (double)its[1], (double)its[2], s->nconverged, s->nsolves));
  PetscCall(PetscViewerASCIIPrintf(v, "  KSPSolve       %.4g s in all (set-up %.3g s); a solve %.4g ms min, %.4g median, %.4g max\n", (double)s->time, (double)s->setup, 1e3 * (double)tsolve[0], 1e3 * (double)tsolve[1], 1e3 * (double)tsolve[2]));
  PetscCall(PetscViewerASCIIPrintf(v, "  an iteration   %.4g ms median over the solves (%.4g min, %.4g max)\n", 1e3 * (double)tit[1], 1e3 * (double)tit[0], 1e3 * (double)tit[2]));
  PetscCall(PetscViewerASCIIPrintf(v, "  phases         all iterations, mean over ranks:"));
  for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, " %s %.0f%%", PKPhaseNames[j], (double)PKPct(s->phase[j], ptot)));
  PetscCall(PetscViewerASCIIPrintf(v, "\n"));
  if (s->nkept < s->nsolves) PetscCall(PetscViewerASCIIPrintf(v, "  (minimum, median and maximum over the first %" PetscInt_FMT " solves; the totals count all)\n", s->nkept));
  if (s->report) PetscCall(PetscViewerASCIIPrintf(v, "  the report of solve %" PetscInt_FMT " follows (solves count from 0; one is made at the 1st, 2nd, 4th, 8th, ... solve: N solves cost\n  about log2 N reports)\n", s->report_solve - 1));
  PetscFunctionReturn(0);
}

/*
   PKSummaryView - prints the summary once (later calls do nothing); rank 0 alone writes, nothing communicates

   Not Collective
*/
PetscErrorCode PKSummaryView(PKSummary *s)
{
  PetscMPIInt    rank;
  FILE          *fp;
  PetscErrorCode ierr;
  int            err = 0;
  PetscBool      csv = (PetscBool)(s->format == PETSC_VIEWER_ASCII_CSV);

  PetscFunctionBegin;
  if (s->printed || !s->viewer || !s->nsolves) PetscFunctionReturn(0);
  s->printed = PETSC_TRUE;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)s->viewer), &rank));
  if (rank) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIGetPointer(s->viewer, &fp));
  errno = 0;
  /* CSV: the report first, since it begins with the header line */
  if (s->report && csv && fwrite(s->report, 1, s->report_len, fp) != s->report_len) err = errno ? errno : EIO;
  PetscCall(PetscViewerPushFormat(s->viewer, s->format));
  /* PETSc 3.22's viewer fails on a failed write where 3.18's wrote on: either way it is told below */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PKSummaryPrint(s->viewer, s);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscViewerPopFormat(s->viewer));
  if (ierr && !err) err = errno ? errno : EIO; /* the write's own reason where PETSc's viewer left it */
  if (!err && s->report && !csv && fwrite(s->report, 1, s->report_len, fp) != s->report_len) err = errno ? errno : EIO;
  if (fflush(fp) && !err) err = errno ? errno : EIO;
  if (!err && ferror(fp)) err = EIO;
  if (err) {
    const char *name = NULL;

    if (fp != PETSC_STDOUT && fp != PETSC_STDERR) PetscCall(PetscViewerFileGetName(s->viewer, &name));
    (void)fprintf(stderr, "pipekrylov: -ksp_perfmodel_summary: the summary could not be written to %s: %s\n", name ? name : fp == PETSC_STDERR ? "standard error" : "standard output", strerror(err));
    clearerr(fp);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKSummaryFree(PKSummary *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(s->its, s->solve_time));
  free(s->report);
  s->report = NULL;
  s->nkept = s->nalloc = 0;
  PetscCall(PetscViewerDestroy(&s->viewer));
  PetscFunctionReturn(0);
}
