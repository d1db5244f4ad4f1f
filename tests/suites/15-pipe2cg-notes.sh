# shellcheck shell=bash
# What pipe2cg tells the user: -info on an indefinite breakdown, and docs/algorithms.md on the replacement period.
#
# A CG type that stops with KSP_DIVERGED_INDEFINITE_MAT or _PC says in -info that CG needs a symmetric positive
# definite operator and preconditioner, and how to check the operator (-ksp_pipe_check_symmetry); the reason stays.
# PETSc's ex45 with -pc_type mg: the boundary rows make the operator nonsymmetric, pipe2cg stops at iteration 2
# where the other CG types converge.
EX45=$PK_BUILD/petsc-tutorials/ex45
if [ -x "$EX45" ]; then
  t_grep indefinite-info-pipe2cg-ex45 "PKSolveEnd\(\): pipe2cg: DIVERGED_INDEFINITE_MAT: .*-ksp_pipe_check_symmetry" \
    sh -c "$EX45 -dll_append $PK_LIB -ksp_type pipe2cg -pc_type mg -ksp_converged_reason -info :ksp 2>&1 | grep -E 'PKSolveEnd|Linear solve' && $EX45 -dll_append $PK_LIB -ksp_type pipe2cg -pc_type mg -ksp_converged_reason | grep -q 'due to DIVERGED_INDEFINITE_MAT'"
  t_fail indefinite-info-check-symmetry-ex45 "KSP pipe2cg needs a symmetric positive definite operator, but the operator is not symmetric" \
    "$EX45" -dll_append "$PK_LIB" -ksp_type pipe2cg -pc_type mg -ksp_pipe_check_symmetry
else
  skip indefinite-info "PETSc's tutorials were not built (libpetsc3.18-dev-examples missing?)"
fi
# docs/algorithms.md §pipe2cg: the replacement period k is rounded up to even (a pass makes two iterations); the
# text said "after k iterations at the latest", wrong for odd k. The doc's example is checked against a run
replace_odd() {
  local out
  grep -A1 -- '^- after `k` iterations at the latest' "$PK_ROOT/docs/algorithms.md" | tr '\n' ' ' | grep -q 'rounded up to even.*-ksp_pipe2cg_replace 5.*replaces after 6' || { echo "docs/algorithms.md does not say k is rounded up to even"; return 1; }
  out=$("$PK_BUILD/petsc-tutorials/ex2" -m 20 -n 20 -dll_append "$PK_LIB" -ksp_type pipe2cg -pc_type jacobi -ksp_pipe2cg_replace 5 -ksp_pipe2cg_replace_gap 0 -info :ksp 2>&1)
  echo "$out" | grep "residual replacement at iteration"
  echo "$out" | grep -q "residual replacement at iteration 6, 6 iterations after" || { echo "the first replacement is not at iteration 6"; return 1; }
}
t docs-pipe2cg-replace-odd replace_odd
