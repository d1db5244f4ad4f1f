#!/bin/sh
# The report on a switch tree (issue 21), on the emulated cluster: 4 nodes x 1 rank, the 1-D Laplacian (every rank
# sends one 8-byte ghost value to each neighbour), and a topology.conf written here that puts pknode0-1 under leaf
# switch s0 and pknode2-3 under s1. Hand count: 6 messages, 4 of them under one leaf (2 hops), ranks 1 and 2 across
# the spine (4 hops): 2.667 hops on average, 4 at most; each switch-to-switch link direction carries one 8-byte
# message (l = 8); the allreduce's rounds pair nodes 0-1 and 2-3 (2 hops), then 0-2 and 1-3 (4): 3 on average.
# With a profile that has hop_latency = 1e-6 s, the halo's hops term is (3 - 1) x 1e-6 s per exchange (its farthest
# message traverses 3 switches) and the allreduce's is 1e-6 s per off-node round: 2 rounds per reduction. Then
# all four nodes under one switch: nothing crosses a switch-to-switch link and the penalties are 0, from the tree.
#   tests/topo-report-cluster.sh OUTDIR
set -u
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
export PK_CLUSTER_SUBNET=198.18.14 PK_CLUSTER_DIR=$out/cluster-state
unset PK_CLUSTER_PREFIX
cl=$root/bin/pipekrylov-cluster
mkdir -p "$out"
trap '"$cl" down >/dev/null 2>&1' EXIT INT TERM
"$cl" up 4 --rate 1gbit >/dev/null || exit 1
printf 'SwitchName=s0 Nodes=pknode[0-1]\nSwitchName=s1 Nodes=pknode[2-3]\nSwitchName=spine Switches=s[0-1]\n' >"$out/two.conf"
printf 'SwitchName=s0 Nodes=pknode[0-3]\n' >"$out/one.conf"
sed 's/^hop_latency *=.*/hop_latency = 1e-06/' "$root/config/profiles/emulated-2node-1gbit.profile" >"$out/hop.profile"
K=40
run() { # run NAME TOPOLOGY: the CSV report of a forced-K pcg solve
  "$cl" run 4 1 "$root/build/examples/laplace1d" -n 400 -its $K -ksp_type pcg -ksp_perfmodel_view ::ascii_csv \
    -ksp_perfmodel_topology "$2" -ksp_perfmodel_machine "$out/hop.profile" >"$out/$1.csv" 2>"$out/$1.err" ||
    { echo "FAIL: the $1 run"; cat "$out/$1.err"; exit 1; }
}
val() { awk -F, -v s="$2" -v n="$3" '$1 == s && $2 == n {print $3 " " $5}' "$out/$1.csv"; }
want() { # want NAME SECTION KEY VALUE STATUS
  got=$(val "$1" "$2" "$3")
  [ "$got" = "$4 $5" ] || { echo "FAIL: $1: $2,$3 is '$got', the hand count '$4 $5'"; exit 1; }
  echo "ok $1: $2,$3 = $got"
}
near() { # near NAME KEY VALUE: an analytic term within 1% of VALUE
  awk -F, -v n="$2" -v w="$3" -v f="$1" '$1 == "analytic" && $2 == n {
    ok = ($3 - w) * ($3 - w) <= (0.01 * w) * (0.01 * w); print (ok ? "ok " : "FAIL: ") f ": " n " = " $3 " (" $5 "), want " w; exit !ok }' "$out/$1.csv" || exit 1
}
run two "$out/two.conf"
want two halo offnode_hops_avg 2.667 "switch tree"
want two halo offnode_hops_max 4 "switch tree"
want two halo busiest_link_bytes 8 "switch tree"
want two net allreduce_hops 3 "switch tree"
# per iteration one SpMV and pcg's 2 reductions (the start-up's are in the init term)
near two halo.hops "$(awk -v k=$K 'BEGIN {print k * 2e-6}')"
near two allr.hops "$(awk -v k=$K 'BEGIN {print 2 * k * 2 * 1e-6}')"
grep -q '^analytic,halo.contention,.*,switch tree$' "$out/two.csv" || { echo "FAIL: two: contention not from the tree"; exit 1; }
run one "$out/one.conf"
want one halo offnode_hops_max 2 "switch tree"
want one halo busiest_link_bytes 0 "switch tree"
grep -q '^analytic,halo.hops,0.000000000e+00,s,switch tree$' "$out/one.csv" || { echo "FAIL: one switch: hops not 0 from the tree"; grep halo.hops "$out/one.csv"; exit 1; }
# the topology-aware suggestion: laplace2d 64 x 64 on a 2 x 2 grid, 1 rank per node, under a tree that interleaves
# the nodes (pknode0 and 3 under s0, 1 and 2 under s1): every neighbour pair crosses the spine, 4 messages of
# 32 x 8 bytes up from s0 (1024); with blocks 0 and 1 under one leaf only the y-neighbours cross (512)
printf 'SwitchName=s0 Nodes=pknode[0,3]\nSwitchName=s1 Nodes=pknode[1-2]\nSwitchName=spine Switches=s[0-1]\n' >"$out/mixed.conf"
"$cl" run 4 1 "$root/build/examples/poisson27" -problem laplace2d -n 64 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view \
  -ksp_perfmodel_topology "$out/mixed.conf" -ksp_perfmodel_machine "$out/hop.profile" >"$out/mixed.txt" 2>&1 || { echo "FAIL: the mixed run"; cat "$out/mixed.txt"; exit 1; }
grep -q 'topology-aware DMDA (busiest link 1024->512 B)' "$out/mixed.txt" || { echo "FAIL: no topology-aware suggestion 1024->512"; sed -n '/predicted KSPSolve/,$p' "$out/mixed.txt"; exit 1; }
grep -q -- "--topology $out/mixed.conf" "$out/mixed.txt" || { echo "FAIL: the suggestion has no pipekrylov-place --topology command"; exit 1; }
echo "ok mixed: the topology-aware layout is suggested, 1024 -> 512 bytes on the busiest switch link, with its command"
echo "PASS: hops, link loads and the penalties counted on the tree as by hand"
