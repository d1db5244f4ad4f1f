# shellcheck shell=bash
# The performance models as plain functions (tests/model_unit.c, one rank, no KSP): every formula against hand
# computations, expected maxima against closed forms / quadrature / Monte Carlo, the Johnson SU fitter, KS, AMG,
# the 001 section 6 simulation; and invalid inputs rejected with a clear message.
MU=$PK_BUILD/tests/model_unit
t_grep models-unit ' 0 failed$' $MU
t_fail models-bad-grid 'ranks per node do not divide' $MU -bad grid
t_fail models-bad-layout 'Layout needs P, nodes, ppn >= 1' $MU -bad layout
t_fail models-bad-compute 'Negative compute time' $MU -bad compute
t_fail models-bad-solver 'No analytic model for solver kind unknown' $MU -bad solver
t_fail models-bad-message 'negative size' $MU -bad message
t_fail models-bad-amg 'AMG levels 0 not in' $MU -bad amg
# each solver describes its own cost (KSPPipeGetCost_C; the model has no table of pipekrylov's types): bare typed
# KSPs answer with their live norm type; every description matches what its solver does in a solve (MatMult,
# PCApply and reductions counted through shells, start-up included); a recompute or a restart length is described
# as it runs; and a solve with -ksp_pipe2cg_replace 20 is modelled with that period
t_grep cost-bare-types 'ok pgmres' $PK_BUILD/tests/cost
t_grep cost-matches-solves 'ok every description matches its solve' $PK_BUILD/tests/cost -check_solves
t_mpi cost-matches-solves-np2 2 $PK_BUILD/tests/cost -check_solves
t_mpi cost-pipecg-recompute-np2 2 $PK_BUILD/tests/cost -check_type pipecg -ksp_pipecg_recompute
t_mpi cost-pipe2cg-recompute-np2 2 $PK_BUILD/tests/cost -check_type pipe2cg -check_rtol 1e-11
t_mpi cost-pipe2cg-plain-np2 2 $PK_BUILD/tests/cost -check_type pipe2cg -ksp_pipe2cg_recompute 0 -check_rtol 1e-10
# a solve that ends at max_it: the pipelined types' last pass leaves out the next one's work (PKSolverShapeEnd); the
# description then holds to the application, with a norm and without, whole and half pipe2cg passes
for t in pcg sapcg nbpcg pipecg pipe2cg; do
  for k in 29 30; do
    for nt in none preconditioned unpreconditioned; do
      t_mpi cost-$t-maxit$k-$nt-np2 2 $PK_BUILD/tests/cost -check_type $t -ksp_max_it $k -ksp_norm_type $nt -check_slack 0
    done
  done
done
# the recompute policy: the passes it recomputed are priced (nspmv, npc) and counted (nrecomputed, why; pkcost.h)
for t in pipecg pipe2cg; do
  t_grep cost-$t-policy-np2 "$t: last solve [0-9]+ iterations, [1-9][0-9]* passes recomputed .*recompute on at [0-9]+: recompute on from iteration" $PK_ROOT/tests/mpirun.sh 2 $PK_BUILD/tests/cost -check_type $t -laplace2dproblem varcoef -laplace2dn 24 -check_rtol 1e-10
done
t_mpi cost-pgmres-restart10-np2 2 $PK_BUILD/tests/cost -check_type pgmres -ksp_gmres_restart 10
t_mpi cost-pgmres-right-np2 2 $PK_BUILD/tests/cost -check_type pgmres -ksp_gmres_restart 5 -ksp_pc_side right -check_rtol 1e-10
t_grep cost-pipe2cg-replace20 'ok before the solve: pipe2cg described with a replacement every 20 iterations' $PK_BUILD/tests/cost -expect_replace 20 -ksp_pipe2cg_replace 20 -n 64 -pc_type jacobi
t_mpi cost-pipe2cg-replace20-np2 2 $PK_BUILD/tests/cost -expect_replace 20 -ksp_pipe2cg_replace 20 -n 64 -pc_type jacobi
