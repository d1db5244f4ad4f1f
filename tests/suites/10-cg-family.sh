# shellcheck shell=bash
# The CG family against PETSc's cg on SPD problems, preconditioners and rank counts (one process per case tests
# every type; each type's iterations, reason, true residual and solution are checked against cg's).
CMP=$PK_BUILD/tests/compare
CG_TYPES=${CG_TYPES:-pcg,sapcg,nbpcg}
for np in 1 2 4; do
  for pc in none jacobi "bjacobi -sub_pc_type icc" hypre; do
    pcname=${pc%% *}
    t_mpi cg-laplace2d-$pcname-np$np $np $CMP -problem laplace2d -n 48 -pc_type $pc -types $CG_TYPES -its_tol 1
    t_mpi cg-poisson27-$pcname-np$np $np $CMP -problem poisson27 -rows_per_rank 1000 -pc_type $pc -types $CG_TYPES -its_tol 1
    t_mpi cg-varcoef-$pcname-np$np $np $CMP -problem varcoef -n 48 -pc_type $pc -types $CG_TYPES -its_rtol 0.05 -sol_rtol 1e-4
  done
done
