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
# each solver describes its own cost (KSPPipeGetCost_C): bare typed KSPs give the table's cycle with the default
# settings, and a solve with -ksp_pipe2cg_replace 20 is modelled with that period
t_grep cost-bare-types 'ok pgmres' $PK_BUILD/tests/cost
t_grep cost-pipe2cg-replace20 'modelled: replacement every 20 iterations' $PK_BUILD/tests/cost -expect_replace 20 -ksp_pipe2cg_replace 20 -n 64 -pc_type jacobi
t_mpi cost-pipe2cg-replace20-np2 2 $PK_BUILD/tests/cost -expect_replace 20 -ksp_pipe2cg_replace 20 -n 64 -pc_type jacobi
