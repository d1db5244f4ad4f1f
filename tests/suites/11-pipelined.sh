# shellcheck shell=bash
# pipecg and pipe2cg against PETSc's cg: iterations, reason, true residual and solution on the problems, PCs and
# rank counts of 10-cg-family.sh; PETSc's unmodified ex2 where PETSc's own pipecg2 fails; bad input; progress
# chunking (counts of reductions completed before their wait, never times).
CMP=$PK_BUILD/tests/compare
P2=pipecg,pipe2cg

# pipecg within +-2 iterations of cg, pipe2cg within 2% (at least +-2); true residual within the tolerance itself
# (-res_factor 1: both types check claimed convergence against b - A x); solutions as in 10-cg-family.sh.
for np in 1 2 4; do
  for pc in none jacobi "bjacobi -sub_pc_type icc" hypre; do
    pcname=${pc%% *}
    t_mpi pipe-laplace2d-$pcname-np$np $np $CMP -problem laplace2d -n 48 -pc_type $pc -types $P2 -its_tol 2 -res_factor 1
    t_mpi pipe-poisson27-$pcname-np$np $np $CMP -problem poisson27 -rows_per_rank 1000 -pc_type $pc -types $P2 -its_tol 2 -res_factor 1
    case $pcname in
      jacobi) t_mpi pipe-varcoef-$pcname-np$np $np $CMP -problem varcoef -n 48 -pc_type $pc -types $P2 -its_rtol 0.02 -res_factor 1 -sol_rtol 1e-4 ;;
      # cg needs 1819 iterations for 2304 unknowns: the finite-precision regime, where the pipelined recurrences
      # delay convergence by 20-30% (pcg: -2%, PETSc's own pipecg: +17% with a false convergence). Measured:
      # pipecg 2241/2267/2253, pipe2cg 2227/2236/2218 on 1/2/4 ranks (cg 1819/1763/1769). Checked: they converge,
      # to the true tolerance, to the same solution, within 30%.
      none) t_mpi pipe-varcoef-$pcname-np$np $np $CMP -problem varcoef -n 48 -pc_type $pc -types $P2 -its_rtol 0.30 -res_factor 1 -sol_rtol 1e-4 ;;
      *) t_mpi pipe-varcoef-$pcname-np$np $np $CMP -problem varcoef -n 48 -pc_type $pc -types $P2 -its_tol 2 -res_factor 1 -sol_rtol 1e-4 ;;
    esac
  done
done
# fixed-period replacement for pipecg, and pipe2cg with the fixed period of docs/algorithms.md §5.5 on Poisson
t_mpi pipecg-replace-varcoef-jacobi-np2 2 $CMP -problem varcoef -n 48 -pc_type jacobi -types pipecg -ksp_pipecg_replace 25 -its_tol 2 -res_factor 1 -sol_rtol 1e-4
t_mpi pipe2cg-replace-fixed-laplace2d-np2 2 $CMP -problem laplace2d -n 48 -pc_type jacobi -types pipe2cg -ksp_pipe2cg_replace 100 -ksp_pipe2cg_replace_gap 0 -its_tol 2 -res_factor 1
# an odd period (issue 9): a pass makes two iterations, so k = 7 replaces every 8, and -ksp_view and -help say so
p2_odd() { "$PK_BUILD/petsc-tutorials/ex2" -m 40 -n 40 -dll_append "$PK_LIB" -ksp_type pipe2cg -ksp_pipe2cg_replace 7 -ksp_pipe2cg_replace_gap 0 -info -ksp_view -help | grep -E 'replacement (at|every)|ksp_pipe2cg_replace:? <' | tr '\n' ' '; }
export -f p2_odd
t_grep pipe2cg-replace-odd '<now 7 : formerly 100>: Recompute .* rounded up to even.*at iteration 8, 8 iterations after.*at iteration 16, 8 iterations after.*replacement every 8 iterations \(-ksp_pipe2cg_replace rounded up to even' p2_odd

# PETSc's unmodified tutorial ex2 loaded with the plugin: PETSc's pipecg2 stops at DIVERGED_ITS after 9998
# iterations here; pipe2cg must converge within 2% of cg's count, measured in the same test (pipecg: 1014 as well,
# not run here to keep the suite short: each solve is ~1000 iterations on 360000 unknowns).
pipe_ex2() {
  local ex2=$PK_BUILD/petsc-tutorials/ex2 out its ref ok=0
  ref=$("$ex2" -m 600 -n 600 -pc_type jacobi -ksp_type cg -ksp_converged_reason | sed -n 's/.*CONVERGED_RTOL iterations \([0-9]*\).*/\1/p')
  [ -n "$ref" ] || { echo "FAIL: cg did not converge"; return 1; }
  # shellcheck disable=SC2043 # one type for now; others may join
  for type in pipe2cg; do
    out=$("$ex2" -m 600 -n 600 -pc_type jacobi -dll_append "$PK_LIB" -ksp_type $type -ksp_converged_reason -ksp_view)
    its=$(echo "$out" | sed -n 's/.*CONVERGED_RTOL iterations \([0-9]*\).*/\1/p')
    echo "$out" | grep -E "converge|last solve|true residual|Norm of error"
    if [ -n "$its" ] && [ $(( (its - ref) * (its - ref) * 2500 )) -le $(( ref * ref )) ]; then
      echo "ok   ex2 600x600 jacobi: $type $its iterations, cg $ref"
    else
      echo "FAIL ex2 600x600 jacobi: $type ${its:-no convergence}, cg $ref (allowed 2%)"; ok=1
    fi
  done
  return $ok
}
export -f pipe_ex2
t pipe-ex2-600-jacobi bash -c pipe_ex2

# bad input and unusual use: PETSc's reasons as cg reports them
t pipe-bad-pc-indefinite $CMP -problem laplace2d -n 32 -pc_indefinite -types $P2 -expect_reason DIVERGED_INDEFINITE_PC
t_mpi pipe-bad-pc-indefinite-jacobi-np2 2 $CMP -problem laplace2d -n 32 -pc_indefinite -pc_type jacobi -types $P2 -expect_reason DIVERGED_INDEFINITE_PC
t pipe-bad-indefinite $CMP -problem indefinite -n 32 -pc_type none -types $P2 -expect_reason DIVERGED_INDEFINITE_MAT
t pipe-bad-indefinite-ilu $CMP -problem indefinite -n 32 -pc_type ilu -types $P2 -expect_reason DIVERGED_PC_FAILED
t_mpi pipe-bad-indefinite-icc-np2 2 $CMP -problem indefinite -n 32 -pc_type bjacobi -sub_pc_type icc -types $P2 -expect_reason DIVERGED_INDEFINITE_MAT
t pipe-bad-rhs-nan $CMP -problem laplace2d -n 32 -rhs_nan -types $P2 -expect_reason DIVERGED_NANORINF
t_mpi pipe-bad-rhs-inf-np2 2 $CMP -problem laplace2d -n 32 -rhs_inf -types $P2 -expect_reason DIVERGED_NANORINF
t pipe-bad-rhs-zero $CMP -problem laplace2d -n 32 -rhs_zero -types $P2 -expect_reason CONVERGED_ATOL
# the non-blocking sums by recursive doubling on point-to-point messages (the default under SimGrid): the same
# iterations, residuals and solutions as with MPI_Iallreduce, on powers of two and not, with and without polling;
# no leak (its communicator and buffers are released with the KSP)
for np in 2 3 5 8; do
  t_mpi pipe-iallreduce-rd-np$np $np $CMP -problem laplace2d -n 32 -pc_type jacobi -types nbpcg,pipecg,pipe2cg -ksp_pipe_iallreduce rd -its_tol 2 -res_factor 1 -malloc_dump
done
t_mpi pipe-iallreduce-rd-pgmres-np3 3 $CMP -problem convdiff -ref_type gmres -types pgmres -its_tol 0 -pc_type jacobi -ksp_pipe_iallreduce rd
t_mpi pipe-iallreduce-rd-nopoll-np3 3 $CMP -problem laplace2d -n 32 -pc_type jacobi -types pipecg,pipe2cg -ksp_pipe_iallreduce rd -ksp_pipe_chunks 1 -its_tol 2 -res_factor 1
t_grep pipe-iallreduce-rd-view "recursive doubling on point-to-point messages" "$PK_ROOT/tests/mpirun.sh" 2 $CMP -problem laplace2d -n 16 -types pipecg -ksp_pipe_iallreduce rd -ksp_view
t_fail pipe-iallreduce-bad "ring.*ksp_pipe_iallreduce|ksp_pipe_iallreduce.*ring" $CMP -problem laplace2d -n 16 -types pipecg -ksp_pipe_iallreduce ring
# an operator that returns a NaN in its k-th product of a solve: DIVERGED_NANORINF as cg says (pipecg called a NaN
# in its curvature dots an indefinite operator), or a converged solve that the true residual confirms where the
# method threw that product away (a recomputed vector)
op_nan() { # NP K TYPES ARGS...: every k in 1..K
  local np=$1 k=$2 types=$3 rc=0; shift 3
  for ((j = 1; j <= k; j++)); do
    "$PK_ROOT/tests/mpirun.sh" "$np" "$PK_BUILD/tests/compare" -problem laplace2d -n 16 -types "$types" -op_nan_at "$j" "$@" || rc=1
  done
  return $rc
}
export -f op_nan
t pipe-bad-op-nan-none op_nan 1 12 pcg,sapcg,nbpcg,pipecg,pipe2cg,pgmres -pc_type none
t pipe-bad-op-nan-jacobi-np2 op_nan 2 8 pcg,sapcg,nbpcg,pipecg,pipe2cg,pgmres -pc_type jacobi
t pipe-bad-op-nan-natural op_nan 1 8 pcg,sapcg,nbpcg,pipecg,pipe2cg -pc_type none -ksp_norm_type natural
t_fail pipe-bad-nonsymmetric-pipecg "KSP pipecg needs a symmetric positive definite operator" $CMP -problem nonsym -n 16 -mark_nonsymmetric -types pipecg
t_fail pipe-bad-nonsymmetric-pipe2cg "KSP pipe2cg needs a symmetric positive definite operator" $CMP -problem nonsym -n 16 -mark_nonsymmetric -types pipe2cg
t_mpi pipe-nsolves-change-operator-np2 2 $CMP -problem laplace2d -n 32 -pc_type jacobi -nsolves 3 -change_operator -types $P2 -its_tol 2 -res_factor 1
t_mpi pipe-nonzero-guess-np3 3 $CMP -problem varcoef -n 40 -pc_type jacobi -nonzero_guess -types $P2 -its_rtol 0.02 -sol_rtol 1e-4
for m in 0 1 2 7; do
  t pipe-max-it-$m $CMP -problem laplace2d -n 32 -pc_type jacobi -ksp_max_it $m -types $P2 -expect_reason DIVERGED_ITS
done
for nt in unpreconditioned natural; do
  t pipe-norm-$nt $CMP -problem varcoef -n 40 -pc_type jacobi -ksp_norm_type $nt -types $P2 -its_rtol 0.02 -res_factor 1 -sol_rtol 1e-4
  t_mpi pipe-norm-$nt-np3 3 $CMP -problem laplace2d -n 40 -pc_type bjacobi -sub_pc_type icc -ksp_norm_type $nt -types $P2 -its_tol 2 -res_factor 1
done
# norm none: only max_it stops; the iterate returned must be cg's after exactly that many iterations, odd or even
pipe_norm_none() {
  local t m ref out
  # shellcheck disable=SC2043 # one count for now (odd: the pipe2cg pass boundary); others may join
  for m in 37; do
    ref=$("$PK_BUILD/examples/poisson27" -problem laplace2d -n 32 -pc_type jacobi -ksp_norm_type none -ksp_max_it $m -ksp_type cg | sed 's/, KSPSolve.*//')
    for t in pipecg pipe2cg; do
      out=$("$PK_BUILD/examples/poisson27" -problem laplace2d -n 32 -pc_type jacobi -ksp_norm_type none -ksp_max_it $m -ksp_type $t | sed 's/, KSPSolve.*//')
      echo "cg: $ref"; echo "$t: $out"
      [ "$out" = "$ref" ] || { echo "FAIL: $t differs from cg after $m iterations"; return 1; }
    done
  done
}
export -f pipe_norm_none
t pipe-norm-none-max-it bash -c pipe_norm_none
t_fail pipe-bad-pipe2cg-replace "ksp_pipe2cg_replace must be >= 0.*not -1" $CMP -problem laplace2d -n 16 -types pipe2cg -ksp_pipe2cg_replace -1
t_fail pipe-bad-pipe2cg-gap "ksp_pipe2cg_replace_gap must be >= 0" $CMP -problem laplace2d -n 16 -types pipe2cg -ksp_pipe2cg_replace_gap -1
t_fail pipe-bad-pipecg-replace "ksp_pipecg_replace must be >= 0.*not -1" $CMP -problem laplace2d -n 16 -types pipecg -ksp_pipecg_replace -1
# options are listed by -help and shown by -ksp_view; pipecg says that it replaces PETSc's
t_grep pipe-help-options "ksp_pipe2cg_replace_gap.*KSPPipe2CGSetReplacement" sh -c "$PK_BUILD/examples/poisson27 -rows_per_rank 1000 -ksp_type pipe2cg -help | grep ksp_pipe2cg; $PK_BUILD/examples/poisson27 -rows_per_rank 1000 -ksp_type pipecg -help | grep ksp_pipecg_replace"
t_grep pipe-view-pipecg "replaces PETSc's pipecg, which stays available as -ksp_type petsc_pipecg" $PK_BUILD/examples/poisson27 -rows_per_rank 1000 -ksp_type pipecg -ksp_view
t_grep pipe-view-pipe2cg "true residual norm at exit: .*" $PK_BUILD/examples/poisson27 -rows_per_rank 1000 -ksp_type pipe2cg -ksp_view
t_grep pipe-petsc-pipecg-reachable "type: petsc_pipecg" $PK_BUILD/examples/poisson27 -rows_per_rank 1000 -ksp_type petsc_pipecg -ksp_view

# MPI_Test progress chunking on 4 ranks (2 cores, oversubscribed): with 8 chunks nearly every reduction of pipecg
# completes before its wait (measured 0.93-1.00 over 40+ runs under load), with 1 chunk far fewer (0.01-0.62,
# rarely up to 1.0 in a single solve; hence several alternating solves). pipe2cg overlaps 2 PCApply + 2 MatMult
# with two halo exchanges, whose MPI calls progress the reduction anyway: measured 0.93-1.00 early even with 1 chunk,
# so only chunks on > 50% and no worse than off are asserted for it.
t_mpi progress-pipecg 4 $PK_BUILD/tests/progress -types pipecg -nsolves 3 -min_early_on 0.5 -max_late_ratio 0.5
t_mpi progress-pipe2cg 4 $PK_BUILD/tests/progress -types pipe2cg -nsolves 3 -min_early_on 0.5 -max_late_ratio 1 -late_slack 0.02
