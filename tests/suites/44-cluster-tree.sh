# shellcheck shell=bash
# tests/run: alone (the emulated cluster)
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
checks="up topology counters-idle counters-known-traffic counters-congested counters-idle-again hops-udp topology-real-hosts calibrate-alpha-within-leaf hop-latency stall-time down flat relative-state"
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
  # a relative state directory (bench/accuracy's ACCURACY_DIR=build/...): up and down work, nothing stays mounted
  cluster_relative() {
    local rel=build/tests/cluster-tree/rel-state m
    cd "$PK_ROOT" || return 1
    PK_CLUSTER_DIR=$rel PK_CLUSTER_SUBNET=198.18.78 bin/pipekrylov-cluster up 2 || return 1
    PK_CLUSTER_DIR=$rel bin/pipekrylov-cluster down || return 1
    m=$(grep -c "$PK_ROOT/$rel" /proc/self/mountinfo)
    echo "mounts left: $m; state left: $([ -e "$rel" ] && echo yes || echo no)"
  }
  t_grep cluster-tree-relative-state "mounts left: 0; state left: no" cluster_relative
fi

# pipekrylov-calibrate's other topology parts, on this machine (no cluster needed)
CAL=$PK_ROOT/bin/pipekrylov-calibrate
printf 'SwitchName=s0 Nodes=node[01-04\nSwitchName=top Switches=s0\n' >"$CT/bad-topology.conf"
t_fail calibrate-topology-bad "topology.conf line 1: Nodes= 'node\[01-04': bracket group not closed" "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick -ksp_perfmodel_topology "$CT/bad-topology.conf" -o "$CT/never.profile"
t_fail calibrate-topology-unreadable "[Cc]annot read the topology file '.*no-such.conf'" "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick -ksp_perfmodel_topology "$CT/no-such.conf" -o "$CT/never.profile"
t_grep calibrate-help-topology "-ksp_perfmodel_topology <file> " "$CAL" -help
t_fail calibrate-old-topology-name "-topology is now -ksp_perfmodel_topology, the name the report takes too. Nothing was measured" "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick -topology "$CT/bad-topology.conf" -o "$CT/never.profile"
t_fail calibrate-old-netcounters-name "-netcounters is now -ksp_perfmodel_netcounters" "$CAL" -netcounters /nonexistent
# Sockets (004's third level): where hwloc sees two packages and two ranks are bound to different ones, the
# cross-socket sweep gives alpha_xs and beta_xs. On a one-socket machine the real path cannot run; hwloc's
# synthetic two-package topology, with rank r bound to CPU r x (CPUs / 2), runs the same code (the values are this
# machine's: the profile's comments say so).
npk=$(lscpu -p=SOCKET 2>/dev/null | grep -v '^#' | sort -u | wc -l)
ncpu=$(nproc)
if [ "$npk" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
  t_grep calibrate-sockets-real "alpha_xs_short +[0-9.e+-]+ +s +measured in this run" "$PK_ROOT/tests/mpirun.sh" 2 "$PK_ROOT/tests/bindrank.sh" socket "$CAL" -quick -o "$CT/sockets-real.profile"
else
  skip calibrate-sockets-real "this machine has $npk socket(s) (lscpu)$(command -v taskset >/dev/null 2>&1 || echo ', no taskset'): the real cross-socket path needs two; it runs below on hwloc's synthetic two-package topology"
fi
if [ "$ncpu" -ge 2 ] && [ $((ncpu % 2)) = 0 ] && command -v taskset >/dev/null 2>&1; then
  t_grep calibrate-sockets-synthetic "alpha_xs_short +[0-9.e+-]+ +s +measured in this run" "$PK_ROOT/tests/mpirun.sh" 2 "$PK_ROOT/tests/bindrank.sh" stride $((ncpu / 2)) "$CAL" -quick -node_topology "synthetic:pack:2 core:$((ncpu / 2)) pu:1" -o "$CT/sockets-synthetic.profile"
  t_grep calibrate-sockets-synthetic-comment "^# Sockets: 2 packages \(synthetic:pack:2 .*\); alpha_xs, beta_xs from ranks 0 and 1 bound to packages 0 and 1 \(a given topology: the values are this machine's\)" cat "$CT/sockets-synthetic.profile"
  t_grep calibrate-sockets-unbound "no node has two ranks bound to different packages" "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick -node_topology "synthetic:pack:2 core:$((ncpu / 2)) pu:1" -o "$CT/sockets-unbound.profile"
else
  for n in synthetic synthetic-comment unbound; do skip "calibrate-sockets-$n" "needs taskset and an even number of CPUs (this machine: $ncpu)"; done
fi
t_grep calibrate-sockets-one "hwloc sees 1 package on synthetic:pack:1 core:$ncpu pu:1: cross-socket parameters not available" "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick -node_topology "synthetic:pack:1 core:$ncpu pu:1" -o "$CT/sockets-one.profile"
