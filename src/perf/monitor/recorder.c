/*
   The per-iteration recorder: one row per iteration on each rank, with the phase split (marks from pkrecimpl.h),
   the reductions of the iteration and the PAPI readings at its end.

   A solve is cut into set-up | rows | finish. Rows start when the monitor sees iteration 0 (the initial residual is
   set-up); each row ends at PKRecIterEnd (our types) or at the monitor call of its iteration (PETSc's types); what
   follows the last row is finish. So rows + set-up + finish = the recorded KSPSolve time, exactly.

   Rows are allocated before the solve (size of the previous solve, or a guess) and doubled when full: the only
   allocation inside the iteration loop. Nothing here communicates or does I/O.
*/
#include <pipekrylov/private/pkmonitor.h>
#include <petsc/private/kspimpl.h>
#include <time.h>

static PetscErrorCode PKRecEnsure(PKMonitorCtx *c, PetscInt need)
{
  PetscInt   na;
  PKRow     *rows;
  long long *ctr = NULL;

  PetscFunctionBegin;
  if (need <= c->nalloc) PetscFunctionReturn(0);
  na = PetscMax(PetscMax(need, 2 * c->nalloc), 16);
  PetscCall(PetscMalloc1(na, &rows));
  if (c->n) PetscCall(PetscArraycpy(rows, c->rows, c->n));
  PetscCall(PetscFree(c->rows));
  c->rows = rows;
  if (c->nctr) {
    PetscCall(PetscMalloc1(na * c->nctr, &ctr));
    if (c->n) PetscCall(PetscArraycpy(ctr, c->ctr, c->n * c->nctr));
  }
  PetscCall(PetscFree(c->ctr));
  c->ctr    = ctr;
  c->nalloc = na;
  PetscFunctionReturn(0);
}

/* Move the reduction counts of the hot part into a row and start afresh */
static inline void PKRecTakeReductions(PKRecHot *h, PKRow *row)
{
  row->red_mask  = h->red_mask;
  row->red_n     = (int)h->red_count;
  row->red_tests = (int)h->red_tests;
  h->red_state   = -1;
  h->red_tests = h->red_count = 0;
  h->red_mask                 = 0;
}

/*
   Close rows up to iteration `its` at time hot.tlast. The counters at the end of the last new row are ctr_now, or
   (ctr_now == NULL) were read into ctr[its-1] already. A jump of d > 1 iterations (a solver that reports several
   at once) shares the time, the phases and the counters evenly between the d rows.
*/
static PetscErrorCode PKRecCloseRows(PKMonitorCtx *c, PetscInt its, const long long *ctr_now)
{
  PKRecHot      *h  = &c->rec.hot;
  PetscInt       d  = its - c->n, j, k;
  PetscLogDouble t0 = PKRowStart(c, c->n), wnow = h->work[PK_PHASE_HALO] + h->work[PK_PHASE_REDUCE];

  PetscFunctionBegin;
  for (j = 0; j < d; j++) {
    PKRow *row = &c->rows[c->n + j];
    row->t1    = (j == d - 1) ? h->tlast : t0 + (h->tlast - t0) * (PetscLogDouble)(j + 1) / (PetscLogDouble)d;
    for (k = 0; k < PK_PHASE_N; k++) row->ph[k] = h->acc[k] / (PetscLogDouble)d;
    row->wait     = (wnow - c->wait_mark) / (PetscLogDouble)d;
    row->red_mask = 0;
    row->red_n = row->red_tests = 0;
  }
  if (c->nctr) {
    const long long *c0 = c->n ? c->ctr + (c->n - 1) * c->nctr : c->ctr_row0;
    long long       *cl = c->ctr + (its - 1) * c->nctr;

    if (ctr_now)
      for (k = 0; k < c->nctr; k++) cl[k] = ctr_now[k];
    for (j = 0; j < d - 1; j++)
      for (k = 0; k < c->nctr; k++) c->ctr[(c->n + j) * c->nctr + k] = c0[k] + (cl[k] - c0[k]) * (j + 1) / d;
  }
  PKRecTakeReductions(h, &c->rows[its - 1]);
  c->wait_mark = wnow;
  for (k = 0; k < PK_PHASE_N; k++) h->acc[k] = 0;
  c->n = its;
  PetscFunctionReturn(0);
}

/* The hot path: one clock read, one PAPI_read, a few stores (and, rarely, the doubling of the rows). The rowend of
   the monitor's recorders: PKRecIterEnd (pkrecimpl.h) calls it through rec->rowend. */
PetscErrorCode PKRecRowEnd(PKRec rec, PetscInt its)
{
  PKMonitorCtx *c = (PKMonitorCtx *)rec->priv;

  PetscFunctionBegin;
  PKRecPhase(rec, rec->hot.cur);
  if (its <= c->n) PetscFunctionReturn(0); /* reported again (a restart): the time runs on into the next row */
  if (its > c->nalloc) PetscCall(PKRecEnsure(c, its));
  if (c->nctr) PKPapiRead(c->nctr, c->papi_col, c->ctr + (its - 1) * c->nctr);
  PetscCall(PKRecCloseRows(c, its, NULL));
  PetscFunctionReturn(0);
}

/* Before the solve: room for the rows, a clean hot part. Called from the KSP_Solve begin hook. */
PetscErrorCode PKRecSolveBegin(KSP ksp, PKMonitorCtx *c)
{
  PKRecHot *h = &c->rec.hot;
  PetscInt  guess;

  PetscFunctionBegin;
  c->nctr = PKPapiCount() ? c->papi_n : 0;
  if (c->nctr && !c->ctr) c->nalloc = 0; /* PAPI came up after the rows were sized: size both again */
  guess = c->nits_prev ? c->nits_prev + c->nits_prev / 4 + 8 : 256;
  guess = PetscMax(PetscMin(guess, ksp->max_it + 1), 8);
  c->n  = 0;
  PetscCall(PKRecEnsure(c, guess));
  PetscCall(PetscMemzero(h, sizeof(*h)));
  h->cur        = PK_PHASE_VEC;
  h->act        = PK_PHASE_VEC;
  h->red_state  = -1;
  h->noise_next = PK_NOISE_OFF; /* PKNoiseSolveBegin draws the first arrival when noise is on */
  c->wait_mark  = 0;
  PetscCall(PetscMemzero(&c->setup_red, sizeof(PKRow)));
  PetscCall(PetscMemzero(&c->finish_red, sizeof(PKRow)));
  c->rows_started = PETSC_FALSE;
  c->open_event   = -1;
  c->open_depth   = 0;
  c->in_halo      = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* This process's CPU time (s): read twice per solve, never in the iteration loop */
PetscLogDouble PKRecCPUTime(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (PetscLogDouble)ts.tv_sec + 1e-9 * (PetscLogDouble)ts.tv_nsec;
}

/* Start the clock: the last thing the KSP_Solve begin hook does. The solve's clock is read first, before the CPU
   time and the PAPI counters: those are system calls, and a system call's return is where the kernel switches to
   another process when one is waiting; on a loaded machine a switch there would fall between PETSc's start of the
   KSP_Solve event and ours, a whole time slice PETSc counts and the recorder would not. */
void PKRecClockStart(PKMonitorCtx *c)
{
  struct timespec ts;

  PetscTime(&c->tbegin);
  c->trow0 = c->rec.hot.tlast = c->tbegin;
  clock_gettime(CLOCK_REALTIME, &ts);
  c->realbegin = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  c->cpubegin  = PKRecCPUTime();
  if (c->nctr) PKPapiRead(c->nctr, c->papi_col, c->ctr_row0);
}

/* The monitor saw iteration 0: what came before (initial residual, norms) is set-up; rows begin here */
PetscErrorCode PKRecRowsStart(PKMonitorCtx *c)
{
  PKRecHot *h = &c->rec.hot;

  PetscFunctionBegin;
  PKRecPhase(&c->rec, h->cur);
  for (PetscInt k = 0; k < PK_PHASE_N; k++) h->acc[k] = 0;
  PKRecTakeReductions(h, &c->setup_red);
  c->trow0     = h->tlast;
  c->wait_mark = h->work[PK_PHASE_HALO] + h->work[PK_PHASE_REDUCE];
  if (c->nctr) PKPapiRead(c->nctr, c->papi_col, c->ctr_row0);
  c->rows_started = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*
   After the solve (tend is set): exactly ksp->its rows. A solver that left the loop inside an iteration (a
   breakdown) has its partial iteration closed at its last mark; missing rows get an even share of that time.
   Rows beyond ksp->its (a solver that lowered its count) are dropped and their time becomes finish.
*/
PetscErrorCode PKRecSolveEnd(KSP ksp, PKMonitorCtx *c)
{
  PKRecHot *h   = &c->rec.hot;
  PetscInt  its = PetscMax(ksp->its, 0);

  PetscFunctionBegin;
  if (its > c->n) {
    if (c->nctr) PKPapiRead(c->nctr, c->papi_col, c->ctr_end);
    PetscCall(PKRecEnsure(c, its));
    PetscCall(PKRecCloseRows(c, its, c->ctr_end));
  } else c->n = its;
  PKRecTakeReductions(h, &c->finish_red);
  c->nits_prev = c->n;
  PetscFunctionReturn(0);
}

PetscErrorCode PKRecFree(PKMonitorCtx *c)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(c->rows));
  PetscCall(PetscFree(c->ctr));
  PetscCall(PetscFree(c->busy));
  c->nbusy = 0;
  c->n = c->nalloc = 0;
  PetscFunctionReturn(0);
}
