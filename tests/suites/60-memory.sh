# shellcheck shell=bash
# Memory: PETSc's allocation tracking reports nothing unfreed, and one representative case is clean under valgrind
# (no invalid access, no definite leak).
B=$PK_BUILD
MD=$PK_ROOT/tests/mallocdump.sh
for typ in ${MEM_TYPES:-pcg pipecg pipe2cg}; do
  t_grep malloc-dump-$typ-np2 'nothing unfreed' $MD 2 $B/tests/compare -problem laplace2d -n 24 -pc_type jacobi -types $typ -nsolves 2 -change_operator
done
t_fail malloc-dump-detects-leaks 'unfreed memory' $MD 1 $B/tests/leak
t valgrind-cg-family $PK_ROOT/tests/memcheck.sh $B/tests/compare -problem laplace2d -n 16 -types ${VALGRIND_TYPES:-pcg,pipe2cg} -nsolves 2 -pc_type jacobi
t valgrind-pgmres $PK_ROOT/tests/memcheck.sh $B/tests/compare -problem convdiff -n 16 -ref_type gmres -types pgmres -its_tol 0 -nsolves 2 -pc_type jacobi
t valgrind-monitor-report $PK_ROOT/tests/memcheck.sh $B/examples/poisson27 -rows_per_rank 512 -ksp_type pipecg -pc_type jacobi -ksp_perf_trace /dev/null -ksp_perfmodel_view ascii:/dev/null
t_grep malloc-dump-monitor-report 'nothing unfreed' $MD 2 $B/examples/poisson27 -rows_per_rank 512 -ksp_type pipe2cg -nsolves 2 -ksp_perf_trace /dev/null -ksp_perfmodel_view ascii:/dev/null
t_grep malloc-dump-report-cg-hypre 'nothing unfreed' $MD 2 $B/examples/poisson27 -rows_per_rank 512 -ksp_type cg -pc_type hypre -nsolves 2 -ksp_perfmodel_view ascii:/dev/null:ascii_info_detail
# the network section: a switch tree, the sockets (2 ranks on one node) and counters from a directory, twice
printf 'SwitchName=s0 Nodes=%s\n' "$(hostname -s)" >"$B/tests/memory-topology.conf"
t valgrind-report-topology $PK_ROOT/tests/memcheck.sh $B/examples/poisson27 -rows_per_rank 512 -ksp_type pipecg -nsolves 2 -ksp_perfmodel_view ascii:/dev/null -ksp_perfmodel_topology "$B/tests/memory-topology.conf" -ksp_perfmodel_netcounters "$B/tests"
t_grep malloc-dump-report-topology 'nothing unfreed' $MD 2 $B/examples/poisson27 -rows_per_rank 512 -ksp_type pipe2cg -nsolves 2 -ksp_perf_node_size 1 -ksp_perfmodel_view ascii:/dev/null -ksp_perfmodel_topology "$B/tests/memory-topology.conf" -ksp_perfmodel_netcounters "$B/tests"
