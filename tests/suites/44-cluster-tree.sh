# The emulated cluster's two-level switch tree, its topology.conf and its network counters (bin/pipekrylov-cluster
# up N --switches S, bin/pipekrylov-netsampler), and pipekrylov-calibrate's per-hop latency and stall time on it
# (issue 21). tests/cluster-tree.sh does the work on one cluster (about 40 s) and prints a PASS or FAIL line per
# check; each test here is one of those lines.
export CT=$PK_BUILD/tests/cluster-tree
mkdir -p "$CT"
# the options are checked before anything needs root
t_fail cluster-tree-not-divisible "--switches 3 does not divide N = 8: every leaf switch gets the same number of nodes" "$PK_ROOT/bin/pipekrylov-cluster" up 8 --switches 3
t_fail cluster-tree-too-many-switches "--switches must be between 1 and 32, got 40" "$PK_ROOT/bin/pipekrylov-cluster" up 200 --switches 40
t_fail cluster-tree-spine-without-tree "--spine-rate and --spine-delay need --switches S" "$PK_ROOT/bin/pipekrylov-cluster" up 4 --spine-rate 100mbit
t_fail cluster-tree-bad-spine-rate "--spine-rate 'fast' is not a tc rate" "$PK_ROOT/bin/pipekrylov-cluster" up 4 --switches 2 --spine-rate fast
t_grep cluster-tree-help "--switches S \[--spine-rate R\]" "$PK_ROOT/bin/pipekrylov-cluster" --help
checks="up topology counters-idle counters-known-traffic counters-congested counters-idle-again hops-udp topology-real-hosts calibrate-alpha-within-leaf hop-latency stall-time down flat"
if [ "$(id -u)" != 0 ]; then
  for n in $checks; do skip "cluster-tree-$n" "not root: the emulated cluster needs root for network namespaces"; done
elif ! command -v ip >/dev/null 2>&1 || ! command -v tc >/dev/null 2>&1; then
  for n in $checks; do skip "cluster-tree-$n" "iproute2 (ip, tc) is not installed"; done
elif ! ip netns add "pkprobe$$" >/dev/null 2>&1; then
  for n in $checks; do skip "cluster-tree-$n" "network namespaces cannot be created here"; done
else
  ip netns del "pkprobe$$"
  # one run of the script for all the checks, when one of them is selected (tests/run -k)
  cluster_tree_run() { [ -f "$CT/result.txt" ] || sh "$PK_ROOT/tests/cluster-tree.sh" "$CT" >"$CT/result.txt" 2>&1; cat "$CT/result.txt"; }
  rm -f "$CT/result.txt"
  t_grep cluster-tree-up "PASS: up: " cluster_tree_run
  t_grep cluster-tree-topology "PASS: topology: topology.conf lists" cluster_tree_run
  t_grep cluster-tree-counters-idle "PASS: counters: idle spine" cluster_tree_run
  t_grep cluster-tree-counters-known-traffic "PASS: counters: 200 datagrams" cluster_tree_run
  t_grep cluster-tree-counters-congested "PASS: counters: a congested spine" cluster_tree_run
  t_grep cluster-tree-counters-idle-again "PASS: counters: idle again" cluster_tree_run
  t_grep cluster-tree-hops-udp "PASS: hops: UDP round trips" cluster_tree_run
  t_grep cluster-tree-topology-real-hosts "PASS: topology: topology.conf parses and names the real hosts" cluster_tree_run
  t_grep cluster-tree-calibrate-alpha-within-leaf "PASS: calibrate: alpha_off measured between pknode0 and pknode1" cluster_tree_run
  t_grep cluster-tree-hop-latency "PASS: hops: hop_latency .* > 0, consistent with the medians" cluster_tree_run
  t_grep cluster-tree-stall-time "PASS: stall: stall_time" cluster_tree_run
  t_grep cluster-tree-down "PASS: down: no namespace, sampler, mount or state left" cluster_tree_run
  t_grep cluster-tree-flat "PASS: flat: one-bridge layout" cluster_tree_run
fi
