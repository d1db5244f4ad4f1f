# shellcheck shell=bash
# Build products, registration, options and views; the chunked SpMV against MatMult.
B=$PK_BUILD
t_grep basics-exports 'PetscDLLibraryRegister_pipekrylov' sh -c "nm -D --defined-only $PK_LIB | grep -E ' T (PetscDLLibraryRegister_pipekrylov|PipeKrylovInitializePackage)$'"
t_grep basics-register 'ok pgmres' $B/tests/register
t_grep basics-help-lists-options 'ksp_pipe_chunks' $B/examples/poisson27 -rows_per_rank 27 -ksp_type pcg -help
t_grep basics-view-names-solver 'pipekrylov pcg: Hestenes-Stiefel' $B/examples/poisson27 -rows_per_rank 27 -ksp_type pcg -ksp_view
t_grep basics-view-replaces 'replaces PETSc.s pipecg' $B/examples/poisson27 -rows_per_rank 27 -ksp_type pipecg -ksp_view
t_fail basics-bad-chunks 'ksp_pipe_chunks must be at least 1' $B/examples/poisson27 -rows_per_rank 27 -ksp_type pcg -ksp_pipe_chunks 0
t_fail basics-unknown-type 'Unknown type|unknown type' $B/examples/poisson27 -rows_per_rank 27 -ksp_type pipe3cg
for np in 1 2 4; do
  t_mpi spmv-poisson27-np$np $np $B/tests/spmv -problem poisson27 -rows_per_rank 125
  t_mpi spmv-laplace2d-np$np $np $B/tests/spmv -problem laplace2d -n 9
  t_mpi spmv-convdiff-np$np $np $B/tests/spmv -problem convdiff -n 20 -max_chunks 40
done
t_mpi spmv-baij-fallback-np2 2 $B/tests/spmv -problem laplace2d -n 9 -dm_mat_type baij -expect_chunked 0
t_grep basics-view-monitor 'performance monitor: on, trace' sh -c "f=\$(mktemp); $B/examples/poisson27 -rows_per_rank 27 -ksp_type pcg -ksp_perf_trace \$f -ksp_view; rc=\$?; rm -f \$f; exit \$rc"
# every option the library registers has an entry in a manual page's Options Database Keys
t_grep basics-options-documented 'every option has a manual page entry' bash "$PK_ROOT/tests/optdocs.sh"
# the sources follow .clang-format (with clang-format 14, the version they are laid out by; SKIP otherwise)
if fmt_why=$(bash "$PK_ROOT/tests/format.sh" --available 2>&1); then
  t_grep basics-format 'sources follow .clang-format' bash "$PK_ROOT/tests/format.sh"
else
  skip basics-format "$fmt_why"
fi
# every shell script passes shellcheck at its warning level (SKIP where shellcheck is not installed)
if command -v shellcheck >/dev/null 2>&1; then
  t_grep basics-shellcheck '^shellcheck: [0-9]+ scripts clean$' sh "$PK_ROOT/tests/shellcheck.sh"
else
  skip basics-shellcheck "shellcheck is not installed (apt-get install shellcheck; make deps)"
fi
