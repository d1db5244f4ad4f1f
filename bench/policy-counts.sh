#!/usr/bin/env bash
# bench/policy-counts.sh [BUILD]: the cases of issue 22 counted, not timed (deterministic): for each problem,
# tolerance and rank count, PETSc's cg and pipekrylov's pipecg and pipe2cg with their defaults: iterations, the
# relative error, operator and preconditioner applications per iteration (PETSc's -log_view event counts: MatMult
# and pipekrylov's PKSpMV; PCApply, which a diagonal preconditioner applied inside the fused pass does not count),
# and what the recompute policy did (-ksp_view). BUILD: the build directory to take the programs from (default
# build; give another tree's build to count "before"). Output: one line per run, '|'-separated.
set -u
cd "$(dirname "$0")/.." || exit 1
B=${1:-build}
P="$B/examples/poisson27"
T="$B/petsc-tutorials"
LIB=$(cd "$B/.." && pwd)/lib/libpipekrylov.so
run() { # run NP ARGS...: one line
  local np=$1 out its err mm pc view; shift
  out=$(tests/mpirun.sh "$np" "$@" -log_view -ksp_view 2>&1)
  its=$(echo "$out" | sed -n 's/.* \([0-9]*\) iterations, relative error \([^,]*\),.*/\1/p;s/.*[Ii]terations \([0-9]*\)$/\1/p' | tail -1)
  err=$(echo "$out" | sed -n 's/.*relative error \([^,]*\),.*/\1/p;s/^Norm of error \([^ ,]*\).*/\1/p' | tail -1)
  mm=$(echo "$out" | awk '$1 == "MatMult" { s += $2 } $1 == "PKSpMV" { s += $2 } END { print s + 0 }')
  pc=$(echo "$out" | awk '$1 == "PCApply" { print $2 }' | head -1)
  view=$(echo "$out" | grep -E 'recompute policy|passes recomputed|last solve: [0-9]+ residual' | sed 's/^ *//' | tr '\n' ';')
  awk -v a="$*" -v np="$np" -v its="$its" -v err="$err" -v mm="$mm" -v pc="${pc:-0}" -v v="$view" 'BEGIN {
    printf "%s | np %s | its %s | error %s | MatMult/it %.3f | PCApply/it %.3f | %s\n", a, np, its, err, (its > 0 ? mm / its : 0), (its > 0 ? pc / its : 0), v }'
}
for np in 1 2; do
  for rt in 1e-8 1e-12; do
    for ty in cg pipecg pipe2cg; do
      run $np "$P" -problem varcoef -n 48 -pc_type none -ksp_rtol $rt -ksp_max_it 10000 -ksp_type $ty
      run $np "$P" -rows_per_rank 8000 -pc_type jacobi -ksp_rtol $rt -ksp_type $ty
    done
  done
done
for ty in cg pipecg pipe2cg; do
  for rt in 1e-10 1e-12 1e-13; do
    run 2 "$T/ex2" -m 300 -n 300 -pc_type jacobi -ksp_rtol $rt -ksp_max_it 5000 -dll_append "$LIB" -ksp_type $ty
  done
  run 2 "$T/ex23" -n 200 -ksp_converged_reason -dll_append "$LIB" -ksp_type $ty
done
