# The network topology as plain functions (tests/topology_unit.c, one rank, no MPI communication): Slurm host lists
# and topology.conf (syntax, every malformed case with its line), hops and routes on documented trees, the link
# loads of 2-D and 3-D DMDA halos on 8 nodes under 2 leaf switches and a spine against hand counts, network
# counters read from a directory in sysfs's layout and the congestion penalty they give, sockets / NUMA nodes of
# CPU masks on hwloc's synthetic and XML topologies, and the topology-aware placement of node blocks (the default,
# node-aware and topology-aware layouts' switch-link bytes on documented trees, exhaustive and heuristic) and the
# topology file's errors (issue 21).
TU=$PK_BUILD/tests/topology_unit
t_grep topology-unit ' 0 failed$' $TU
# PETSc's own error output for a user's mistakes: the line and what is wrong
t_fail topology-bad-twice "topology.conf line 3: switch 's0' is defined twice \(first on line 1\)" $TU -bad twice
t_fail topology-bad-hostlist "topology.conf line 2: Nodes= 'node\[01-04,': bracket group not closed with '\]'" $TU -bad hostlist
t_fail topology-bad-cycle "the switches form a cycle: 'a' under 'b' under 'a'" $TU -bad cycle
t_fail topology-bad-device "Network device name '../mlx5_0'" $TU -bad device
t_fail topology-bad-cpumask "CPU mask 0 '0-15': CPUs this topology does not have \(it has 0-7\)" $TU -bad cpumask
# no memory error (valgrind) and nothing left allocated (PETSc's -malloc_dump lists what is), errors included; hwloc's
# loading of this machine is left out: hwloc itself trips valgrind there
topology_memcheck() {
  local out rc
  out=$(sh "$PK_ROOT/tests/memcheck.sh" "$PK_BUILD/tests/topology_unit" -section hostlist,parse,routes,badfile,loads,place,topofile,counters -malloc_dump 2>&1)
  rc=$?
  echo "$out"
  [ $rc = 0 ] && ! echo "$out" | grep -q ' bytes .*() at '
}
t_grep topology-unit-memcheck ' 0 failed$' topology_memcheck
