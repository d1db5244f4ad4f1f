# shellcheck shell=bash
# tests/run: alone (the emulated cluster)
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
  out=$(sh "$PK_ROOT/tests/memcheck.sh" "$PK_BUILD/tests/topology_unit" -section hostlist,parse,slurm,routes,badfile,loads,place,topofile,counters,escape -malloc_dump 2>&1)
  rc=$?
  echo "$out"
  [ $rc = 0 ] && ! echo "$out" | grep -q ' bytes .*() at '
}
t_grep topology-unit-escape " 0 failed$" "$TU" -section escape,counters
t_grep topology-unit-memcheck ' 0 failed$' topology_memcheck
# The report on a switch tree (tests/topo-report-cluster.sh): on 4 emulated nodes with a topology.conf of two leaf
# switches, the hops, link loads and allreduce rounds it counts are the hand counts, and the hops and contention
# terms come from the tree; under one switch they are 0, from the tree too
PKT=$PK_BUILD/tests/topology
export PKT
mkdir -p "$PKT"
# The switch tree from Slurm, with no file: 4 ranks, a node each (-ksp_perf_node_size 1), each with the
# SLURM_TOPOLOGY_ADDR srun gives a task under the topology/tree plugin (nodes n0, n1 under leaf0, n2, n3 under leaf1):
# the report names Slurm's tree and counts its hops (recursive doubling: 2 links within a leaf, 4 across the spine,
# 3.00 on average over the 2 rounds). One rank without an address: no tree, as outside Slurm.
slurm_addr_run() { # slurm_addr_run MISSING_RANK: run poisson27 with the addresses set (but on rank MISSING_RANK)
  local miss=$1; shift
  "$PK_ROOT/tests/mpirun.sh" 4 sh -c '
    r=${OMPI_COMM_WORLD_RANK:-0}
    if [ "$r" != "$0" ]; then
      export SLURM_TOPOLOGY_ADDR=spine.leaf$((r / 2)).n$r SLURM_TOPOLOGY_ADDR_PATTERN=switch.switch.node
    fi
    exec "$@"' "$miss" "$PK_BUILD/examples/poisson27" -rows_per_rank 500 -ksp_type pcg -pc_type jacobi -ksp_perf_node_size 1 -ksp_perfmodel_view "$@"
}
export -f slurm_addr_run
t_grep topology-slurm-tree "network: switch tree from Slurm \(the tasks' SLURM_TOPOLOGY_ADDR\) \(3 switches, 4 nodes, depth 1\)" slurm_addr_run -1
t_grep topology-slurm-hops "allreduce's off-node rounds: 3.00 hops on average for the farthest pair of a round \(2 rounds\)" slurm_addr_run -1
t_grep topology-slurm-not-all "network: no switch tree" slurm_addr_run 2
t_fail topology-report-bad-file "[Tt]opology file '.*nonexistent.conf': .*No such file" "$PK_BUILD/examples/poisson27" -rows_per_rank 100 -ksp_perfmodel_topology "$PKT/nonexistent.conf"
printf 'SwitchName=s0 Nodes=n[1-2]\nSwitchName=s0 Nodes=n3\n' >"$PKT/twice.conf"
t_fail topology-report-bad-line "[Tt]opology file '.*twice.conf': topology.conf line 2: switch 's0' is defined twice" "$PK_BUILD/examples/poisson27" -rows_per_rank 100 -ksp_perfmodel_topology "$PKT/twice.conf"
# control characters of a topology.conf (an OSC title sequence ending in BEL, a C1 CSI) are shown escaped in the
# messages, never sent to the terminal: read by the report on 2 ranks (rank 0 reads, every rank parses)
printf 'SwitchName=s0 Nodes=n1\n\033]0;pwned\007Foo=bar\n' >"$PKT/esc.conf"
printf 'SwitchName=s0 Nodes=n1\nSwitchName=\302\233x Switches=s0\n' >"$PKT/c1.conf"
t_grep topology-report-control-chars "esc.conf': topology.conf line 2: expected Key=Value, found '\\\\x1b\\]0;pwned\\\\x07Foo=bar'" "$PK_ROOT/tests/fails-escaped.sh" "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 100 -ksp_perfmodel_topology "$PKT/esc.conf"
t_grep topology-report-c1-chars "c1.conf': topology.conf line 2: SwitchName= '\\\\xc2\\\\x9bx'" "$PK_ROOT/tests/fails-escaped.sh" "$PK_BUILD/examples/poisson27" -rows_per_rank 100 -ksp_perfmodel_topology "$PKT/c1.conf"
t_grep topology-report-help 'ksp_perfmodel_topology' "$PK_BUILD/examples/poisson27" -rows_per_rank 100 -ksp_perfmodel_view -help
if [ "$(id -u)" != 0 ]; then
  skip topology-report-cluster "not root: the emulated cluster needs root for network namespaces"
elif ! command -v ip >/dev/null 2>&1 || ! command -v tc >/dev/null 2>&1; then
  skip topology-report-cluster "iproute2 (ip, tc) is not installed"
elif ! ip netns add "pkprobe$$" >/dev/null 2>&1; then
  skip topology-report-cluster "network namespaces cannot be created here"
else
  ip netns del "pkprobe$$"
  t_grep topology-report-cluster '^PASS: hops, link loads' "$PK_ROOT/tests/topo-report-cluster.sh" "$PKT/cluster"
fi
# Congestion from the counters, end to end (tests/netcounters.c): 2 ranks as 2 nodes (-ksp_perf_node_size 1), each
# the reader of its node, both reading one directory in InfiniBand's layout that rank 0 moves by 6000 stalls and
# 3000 bytes sent in the middle of the solve. Hand count: each reader sees the same deltas, so 12000 stalls over
# 6000 bytes: 2 stalls per byte; with stall_time 1e-9 s, the halo's congestion term is K x 2 x 1e-9 x (the slowest
# rank's off-node bytes per SpMV, half of the total here) (000 5.7, hops unknown: 1, one rank per node).
sed 's/^stall_time *=.*//' "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" >"$PKT/stall.profile"
echo "stall_time = 1e-09" >>"$PKT/stall.profile"
netctr_csv() { # netctr_csv DIR [options]: the CSV report of the counters' test solve
  local d=$1
  shift
  rm -rf "$d"
  sh "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/tests/netcounters" -dir "$d" -ksp_type pcg -pc_type jacobi -rows_per_rank 2000 -ksp_perf_node_size 1 \
    -ksp_perfmodel_view ::ascii_csv -ksp_perfmodel_netcounters "$d" "$@"
}
netctr_hand() {
  netctr_csv "$PKT/nc" -ksp_perfmodel_machine "$PKT/stall.profile" >"$PKT/nc.csv" 2>&1 || { cat "$PKT/nc.csv"; return 1; }
  grep -E '^(net|analytic,halo.congestion|analytic,allr.congestion)' "$PKT/nc.csv"
  awk -F, '$1 == "run" && $2 == "iterations" {K = $3} $1 == "halo" && $2 == "offnode_bytes_total" {B = $3 / 2}
    $1 == "net" && $2 == "stalls_per_byte" {spb = $3; st = $5} $1 == "analytic" && $2 == "halo.congestion" {c = $3; cs = $5}
    $1 == "analytic" && $2 == "allr.congestion" {a = $3; as = $5}
    END { want = K * 2 * 1e-9 * B; d = c - want; if (d < 0) d = -d
      ok = spb == 2 && st == "network counters" && cs == "network counters" && d <= 1e-9 * want && a > 0 && as == "network counters"
      printf "%s: stalls per byte %s (want 2), halo congestion %.6g s (want %.6g = %d x 2e-9 x %g bytes), allreduce %.3g s\n",
        ok ? "hand count" : "DIFFERENT", spb, c, want, K, B, a; exit !ok }' "$PKT/nc.csv"
}
export -f netctr_csv netctr_hand
t_grep topology-counters-hand '^hand count:' netctr_hand
# the same counters with a profile that has no stall_time: counted, not priced, and the report says why
t_grep topology-counters-no-stall-time '^analytic,halo.congestion,0.000000000e\+00,s,not calibrated$' netctr_csv "$PKT/nc2" -ksp_perfmodel_machine "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile"
# an Ethernet-only root: no stall counter, the term is not measured and the text says what was looked for
netctr_eth() {
  local d=$PKT/eth
  rm -rf "$d" && mkdir -p "$d/class/net/eth7/statistics" || return 1
  echo up >"$d/class/net/eth7/operstate"
  for f in tx_bytes rx_bytes tx_dropped; do echo 100 >"$d/class/net/eth7/statistics/$f"; done
  sh "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -ksp_type pcg -ksp_perf_node_size 1 -ksp_perfmodel_view -ksp_perfmodel_netcounters "$d"
}
t_grep topology-counters-ethernet 'network counters: no stall counter read \(.*interface eth7 has only Linux statistics' netctr_eth
