# shellcheck shell=bash
# What the report and the trace write, as names (values aside), against tests/golden/ (tests/golden.sh): the same rows
# and columns on every PETSc and Open MPI supported (make check and make check-debian13 compare with the same files)
# and after any change to the report's code. Cases: pipekrylov's types (pipelined CG, blocking CG, pipelined GMRES)
# and PETSc's own cg in an unmodified tutorial; the trace of both kinds.
G=$PK_ROOT/tests/golden.sh
M=$PK_ROOT/tests/mpirun.sh
P27="$PK_BUILD/examples/poisson27 -rows_per_rank 2000 -pc_type jacobi"
t_grep golden-report-pipecg "as tests/golden" $G pipecg report $M 2 $P27 -ksp_type pipecg
t_grep golden-report-pcg "as tests/golden" $G pcg report $M 2 $P27 -ksp_type pcg
t_grep golden-report-pgmres "as tests/golden" $G pgmres report $M 2 $PK_BUILD/examples/convdiff -n 32 -pc_type jacobi -ksp_type pgmres
t_grep golden-trace-pipe2cg "as tests/golden" $G pipe2cg trace $M 2 $P27 -ksp_type pipe2cg
if [ -x "$PK_BUILD/petsc-tutorials/ex2" ]; then
  t_grep golden-report-petsc-cg "as tests/golden" $G petsc-cg report $M 2 $PK_BUILD/petsc-tutorials/ex2 -m 40 -n 40 -dll_append $PK_LIB -ksp_type cg
  t_grep golden-trace-petsc-cg "as tests/golden" $G petsc-cg trace $M 2 $PK_BUILD/petsc-tutorials/ex2 -m 40 -n 40 -dll_append $PK_LIB -ksp_type cg
else
  skip golden-petsc-cg "PETSc's tutorials were not built"
fi
