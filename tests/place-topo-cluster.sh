#!/bin/sh
# Topology-aware placement in a real run (docs/models.md §7.8): 4 emulated nodes (bin/pipekrylov-cluster, one
# bridge) described by a hand-written topology.conf as two virtual leaf switches whose nodes interleave with the
# ranks: s0 holds pknode0 and pknode3, s1 pknode1 and pknode2. The same solve (examples/poisson27, 2-D Laplacian
# 64 x 64, pcg + Jacobi, one rank per node) with Open MPI's default placement and with DMDACreateNodeAware and
# -da_node_aware_topology: the same iteration count and solution (to rounding), and the placement's switch-link
# bytes equal the hand count, both as predicted and as the DMDA was made (its ranks on the nodes they run on).
#
# Hand count. PETSc's grid is 2 x 2 of 32 x 32 points: every message is 32 values, 256 B; 4 neighbour pairs, 8
# messages. Rank r runs on pknode r. Default: ranks 0 and 3 (a diagonal) under s0, so every pair crosses the spine:
# 8 x 256 = 2048 B leave a leaf switch, 4096 B on the switch links (up and down), 1024 B on s0->spine (0->1, 0->2,
# 3->1, 3->2). Topology-aware: blocks 0 1 (the row j = 0) on pknode0 pknode3 (s0), 2 3 on pknode1 pknode2: only
# the two y pairs cross: 1024 B, 2048 B, 512 B.
#   tests/place-topo-cluster.sh OUTDIR
# Its own state directory (names derived from it) and subnet 198.18.21: never touches another cluster.
set -u
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
export PK_CLUSTER_SUBNET=198.18.21 PK_CLUSTER_DIR=$out/cluster-state
unset PK_CLUSTER_PREFIX
cl=$root/bin/pipekrylov-cluster
mkdir -p "$out"
trap '"$cl" down >/dev/null 2>&1' EXIT INT TERM
"$cl" up 4 >"$out/up.txt" 2>&1 || { cat "$out/up.txt"; exit 1; }
printf 'SwitchName=s0 Nodes=pknode[0,3]\nSwitchName=s1 Nodes=pknode[1-2]\nSwitchName=spine Switches=s[0-1]\n' >"$out/topology.conf"
app="$root/build/examples/poisson27 -problem laplace2d -n 64 -ksp_type pcg -pc_type jacobi"
# shellcheck disable=SC2086
"$cl" run 4 1 $app >"$out/default.txt" 2>&1 || { echo "FAIL: default run"; cat "$out/default.txt"; exit 1; }
# shellcheck disable=SC2086
"$cl" run 4 1 $app -nodeaware -da_node_aware_topology "$out/topology.conf" -da_node_aware_view >"$out/topo.txt" 2>&1 || { echo "FAIL: topology-aware run"; cat "$out/topo.txt"; exit 1; }
cat "$out/default.txt" "$out/topo.txt"
# the same solve: "N iterations, relative error E"
its() { sed -n 's/.* \([0-9]*\) iterations, relative error \([^,]*\),.*/\1 \2/p' "$1"; }
# shellcheck disable=SC2046
set -- $(its "$out/default.txt") $(its "$out/topo.txt")
[ $# = 4 ] || { echo "FAIL: no iteration count and error in both runs"; exit 1; }
awk -v i1="$1" -v e1="$2" -v i2="$3" -v e2="$4" 'BEGIN { d = (e2 - e1) / e1; if (d < 0) d = -d; ok = i1 == i2 && d < 1e-6
  printf "iterations %d and %d, relative error %g and %g: %s\n", i1, i2, e1, e2, ok ? "same" : "DIFFERENT"; exit !ok }' || { echo "FAIL: the placed solve differs"; exit 1; }
# the placement: predicted and as made, against the hand count
want() { grep -q "^  switch links, $1: $2 bytes per ghost update (busiest $3 $4 bytes; $5 bytes leave a leaf switch)$" "$out/topo.txt" || { echo "FAIL: $1: not $2 B on switch links, $4 B on $3, $5 B leaving a leaf"; exit 1; }; }
want default 4096 's0->spine' 1024 2048
want topology-aware 2048 's0->spine' 512 1024
want 'as placed (the DMDA.s ranks on their nodes)' 2048 's0->spine' 512 1024
grep -q "node blocks 0\.\.3 on nodes pknode0 pknode3 pknode1 pknode2$" "$out/topo.txt" || { echo "FAIL: the node blocks are not on pknode0 pknode3 pknode1 pknode2"; exit 1; }
echo "PASS: topology-aware placement on 4 emulated nodes: same solve, 4096 -> 2048 B on switch links (1024 -> 512 B on s0->spine), as placed"
