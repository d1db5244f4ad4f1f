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
