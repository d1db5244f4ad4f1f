# shellcheck shell=bash
# tests/run: alone (the emulated cluster)
# Node-aware placement on the emulated cluster: an unmodified tutorial placed by bin/pipekrylov-place, and the
# topology-aware placement (47-place.sh has the cases of one machine).
PLD=$PK_BUILD/tests/place
mkdir -p "$PLD"
export PLD
# On the emulated cluster (root, network namespaces)
# and topology-aware: 4 emulated nodes under two virtual leaf switches (a hand-written topology.conf), the same solve
# placed by DMDACreateNodeAware -da_node_aware_topology as by default, switch-link bytes as hand-counted
# (tests/place-topo-cluster.sh says how)
if [ "$(id -u)" != 0 ]; then
  skip place-cluster-tutorial "not root: the emulated cluster needs root for network namespaces"
  skip topoplace-cluster-solve "not root: the emulated cluster needs root for network namespaces"
elif ! command -v ip >/dev/null 2>&1 || ! command -v tc >/dev/null 2>&1; then
  skip place-cluster-tutorial "iproute2 (ip, tc) is not installed"
  skip topoplace-cluster-solve "iproute2 (ip, tc) is not installed"
elif ! ip netns add "pkprobe$$" >/dev/null 2>&1; then
  skip place-cluster-tutorial "network namespaces cannot be created here"
  skip topoplace-cluster-solve "network namespaces cannot be created here"
else
  ip netns del "pkprobe$$"
  t_grep place-cluster-tutorial 'PASS: a rankfile host outside the cluster is a clear error' "$PK_ROOT/tests/place-cluster.sh" "$PLD/cluster"
  t_grep topoplace-cluster-solve '^PASS: topology-aware placement on 4 emulated nodes' sh "$PK_ROOT/tests/place-topo-cluster.sh" "$PLD/topo-cluster"
fi
t_fail cluster-run-bad-rankfile 'cannot read the rankfile|is not up|needs root' env PK_CLUSTER_DIR="$PLD/no-cluster" "$PK_ROOT/bin/pipekrylov-cluster" run 2 1 --rankfile /nonexistent true
