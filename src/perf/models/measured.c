/*
   From what a run measured to what the analytic model takes (docs/models.md): the per-application SpMV and PC times,
   the vector time per iteration, and the share of the SpMV's compute that hides its halo exchange. Plain functions
   of their inputs (the report gathers the inputs across ranks: src/perf/report/sec_analytic.c).
*/
#include <pipekrylov/private/pkmodel.h>

/*
   PKModelTimesFromMeasured - the model's t_spmv, t_pc and t_vec from the time by activity of a solve.

   t_spmv and t_pc are the activity's time over its applications, the first application left out where the run
   timed it apart (first[]): the report charges what it took beyond the others once, to the start-up. t_vec is the
   vector time over the iterations.
   PETSc's blocking types (cg, gmres) log a VecDot or VecNorm as one event, its local sum with its MPI_Allreduce,
   which the hooks charge to the reduce phase as a whole (src/perf/hooks.c): their vector work is the vec phase plus
   those local sums, the red_streams of the solver's streams (PKSolverReduceStreams). On one rank the reduce phase
   is the sums alone. On several, the sums are what the reduce phase held beyond the modelled MPI (red_mpi), but
   never less than their streams at the vec phase's time per stream (the same vectors, call overheads) nor more than
   their streams at the memory bandwidth (red_mem) when that is more: a dot right after the SpMV reads vectors the
   matrix pushed out of cache (one rank, poisson27, 30000 rows: 3.7 times the vec phase's price per stream), and
   beyond the memory bound the excess is waiting, not summing. Where the profile has the type's vector work timed
   alone on one rank (red_cal: that less the vec phase), the sums may cost up to that: PETSc's VecDot and VecNorm
   calls cost more than their streams (3 calls per iteration: 1.5 us each at 4096 rows on an AMD EPYC VM). A diagonal PC applied inside the fused vector pass (pipecg, pipe2cg)
   leaves too few applications outside it to time one (pipecg: the start-up's two, the first one slow): the other
   solvers' PCApply is then a pass over the vectors at this run's time per vector stream (jacobi: read x and the
   diagonal, write y; none: a copy).

   Level: developer
*/
/* time per application of an activity of `work` s over n applications, the first (`first` s; 0: not timed apart) left
   out: it may hold a set-up (PETSc's jacobi computes its diagonal inside its first PCApply: 20 us at 1000 rows per
   rank here, 3.5 of the others' 30 iterations' PC time) */
static PetscReal PKPerApplication(PetscReal work, PetscReal first, PetscInt n)
{
  if (n > 1 && first > 0) return (work - first) / (n - 1);
  return n ? work / n : 0;
}

PetscErrorCode PKModelTimesFromMeasured(const PKMeasured *m, PKMeasuredTimes *t)
{
  PetscFunctionBegin;
  PetscCheck(m->K >= 0 && m->nspmv >= 0 && m->npc >= 0 && m->nranks >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PKModelTimesFromMeasured: negative counts or no rank");
  PetscCheck(m->red_streams >= 0 && (m->red_streams == 0 || m->red_streams < m->streams), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PKModelTimesFromMeasured: %g of %g vector streams in blocking reductions", (double)m->red_streams, (double)m->streams);
  PetscCall(PetscMemzero(t, sizeof(*t)));
  t->t_spmv = PKPerApplication(m->work[PK_PHASE_SPMV], m->first[0], m->nspmv);
  t->t_pc   = PKPerApplication(m->work[PK_PHASE_PC], m->first[1], m->npc);
  if (m->K > 0) {
    PetscReal local = 0;
    if (m->red_streams > 0 && m->nranks == 1) local = m->work[PK_PHASE_REDUCE];
    else if (m->red_streams > 0) {
      PetscReal lo = m->work[PK_PHASE_VEC] * m->red_streams / (m->streams - m->red_streams), hi = PetscMax(lo, PetscMax(m->red_mem, m->red_cal));
      local           = PetscMin(hi, PetscMax(lo, m->work[PK_PHASE_REDUCE] - m->red_mpi));
      t->vec_modelled = PETSC_TRUE;
    }
    t->t_vec = (m->work[PK_PHASE_VEC] + local) / m->K;
  }
  if (m->pc_fused && (PetscReal)m->npc < m->init_pc + 4 + 0.25 * m->K * m->pc_per_cycle / PetscMax(m->its_per_cycle, 1) && m->streams > 0) {
    t->t_pc        = (m->pc_is_jacobi ? 3.0 : 2.0) * t->t_vec / m->streams;
    t->pc_modelled = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/*
   PKModelHaloHiddenShare - the share of the SpMV's compute that hid its halo exchange, as measured.

   Both pipekrylov's chunked SpMV and PETSc's MatMult post the exchange, multiply the rows they own and only then wait
   for the ghost values. The wait measured on the rank that waited longest is what was exposed; the rest of the
   modelled exchange was hidden, expressed as a fraction of the SpMV's compute (the capacity that carries over to
   another solver, which uses the same SpMV, and to larger runs, whose halo is modelled). In [0, 1]; 0 without an
   exchange or an SpMV time.

   Level: developer
*/
PetscReal PKModelHaloHiddenShare(PetscReal halo_total, PetscReal wait, PetscReal t_spmv)
{
  if (halo_total <= 0 || t_spmv <= 0) return 0;
  return PetscMax(0, PetscMin(1, (halo_total - PetscMin(halo_total, wait)) / t_spmv));
}
