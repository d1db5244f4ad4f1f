# shellcheck shell=bash
# The one-loop update kernels of pipecg and pipe2cg (AVX2 or baseline clone, chosen at load time) and a diagonal
# preconditioner applied inside them give the same residual history, iteration count, solution error and exit
# true residual as the generic fused kernel and PCApply (-ksp_pipecg_fused 0 / -ksp_pipe2cg_fused 0), digit for
# digit. Local sizes are chosen not to be multiples of 4 or of the 512-element dot blocks (remainder paths).
fused_same() { # fused_same TYPE NP ARGS...: the monitor, the result line and the view's true residual agree
  local t=$1 np=$2 a b
  shift 2
  a=$("$PK_ROOT/tests/mpirun.sh" "$np" "$PK_BUILD/examples/poisson27" -ksp_type "$t" -ksp_monitor -ksp_view "$@" 2>&1 | grep -E "KSP Residual|unknowns|true residual|inside" | sed 's/, KSPSolve.*//')
  b=$("$PK_ROOT/tests/mpirun.sh" "$np" "$PK_BUILD/examples/poisson27" -ksp_type "$t" -ksp_monitor -ksp_view "$@" -ksp_${t}_fused 0 2>&1 | grep -E "KSP Residual|unknowns|true residual" | sed 's/, KSPSolve.*//')
  echo "$a" | tail -4
  [ -n "$b" ] && [ "$(echo "$a" | grep -v inside)" = "$b" ] || { echo "FAIL: $t differs with -ksp_${t}_fused 0"; diff <(echo "$a") <(echo "$b") | head; return 1; }
  echo "same with -ksp_${t}_fused 0"
}
export -f fused_same
# a diagonal preconditioner is applied inside the pass only while the recurrences are plain (while w, or w, p, q, are
# recomputed -- forced by -ksp_pipecg_recompute, -ksp_pipe2cg_recompute or switched on by the policy -- the vectors it
# would make are recomputed after it)
for t in pipecg pipe2cg; do
  a="-ksp_${t}_recompute 0"
  # jacobi and none: the preconditioner is applied inside the kernel (-ksp_view says so)
  t_grep fused-$t-poisson27-jacobi 'diagonal preconditioner applied inside' fused_same $t 1 -rows_per_rank 1331 -pc_type jacobi -ksp_rtol 1e-10 $a
  t_grep fused-$t-laplace2d-none-np2 'diagonal preconditioner applied inside' fused_same $t 2 -problem laplace2d -n 45 -pc_type none -ksp_rtol 1e-10 $a
  t fused-$t-varcoef-bjacobi-np2 fused_same $t 2 -problem varcoef -n 41 -pc_type bjacobi -sub_pc_type icc
  t fused-$t-varcoef-jacobi-unprec-np3 fused_same $t 3 -problem varcoef -n 41 -pc_type jacobi -ksp_norm_type unpreconditioned
  t fused-$t-laplace2d-jacobi-natural fused_same $t 1 -problem laplace2d -n 39 -pc_type jacobi -ksp_norm_type natural
  t fused-$t-nsolves-np2 fused_same $t 2 -problem laplace2d -n 45 -pc_type jacobi -nsolves 2
done
for t in pipecg pipe2cg; do
  t fused-$t-recompute-varcoef-jacobi-unprec-np3 fused_same $t 3 -problem varcoef -n 41 -pc_type jacobi -ksp_norm_type unpreconditioned -ksp_${t}_recompute 1
done
# other preconditioners are applied by PCApply
fused_no_pc() { local t=$1; shift; ! "$PK_BUILD/examples/poisson27" -rows_per_rank 343 -ksp_type "$t" -pc_type bjacobi -ksp_view "$@" | grep 'applied inside'; }
export -f fused_no_pc
t fused-pipecg-bjacobi-pcapply fused_no_pc pipecg -ksp_pipecg_recompute 0
t fused-pipe2cg-bjacobi-pcapply fused_no_pc pipe2cg
# with the recompute even a diagonal preconditioner goes through PCApply
t fused-pipecg-recompute-jacobi-pcapply fused_no_pc pipecg -pc_type jacobi -ksp_pipecg_recompute 1
t fused-pipe2cg-recompute-jacobi-pcapply fused_no_pc pipe2cg -pc_type jacobi -ksp_pipe2cg_recompute 1
