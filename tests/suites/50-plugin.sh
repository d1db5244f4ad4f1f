# shellcheck shell=bash
# PETSc's own tutorials, built unmodified from libpetsc3.18-dev-examples, with pipekrylov loaded as a plugin through
# -dll_append and through PETSC_OPTIONS: same iterations (within each solver's tolerance) and the same error norm.
TUT=$PK_BUILD/petsc-tutorials
TC=$PK_ROOT/tests/tutorial_compare.sh
# type:allowed iteration difference (the issues' tolerances: +-1 for pcg, sapcg, nbpcg, +-2 pipecg, 2% pipe2cg)
for spec in ${PLUGIN_TYPES:-pcg:1 sapcg:1 nbpcg:1 pipecg:2 pipe2cg:2%}; do
  typ=${spec%%:*} itol=${spec##*:}
  t plugin-ex2-$typ-np2-dll $TC dll 2 $TUT/ex2 cg $typ $itol 0.02 -m 100 -n 100
  t plugin-ex2-$typ-np2-env $TC env 2 $TUT/ex2 cg $typ $itol 0.02 -m 100 -n 100
  t plugin-ex2-$typ-np1-jacobi $TC dll 1 $TUT/ex2 cg $typ $itol 0.02 -m 60 -n 60 -pc_type jacobi
done
t_grep plugin-ex2-view-pcg 'pipekrylov pcg' sh -c "$PK_ROOT/tests/mpirun.sh 2 $TUT/ex2 -dll_append $PK_LIB -ksp_type pcg -ksp_view"
t_grep plugin-log-view-intact 'PKAllreduce' sh -c "$PK_ROOT/tests/mpirun.sh 2 $TUT/ex2 -dll_append $PK_LIB -ksp_type pcg -log_view"
