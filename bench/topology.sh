#!/usr/bin/env bash
# bench/topology.sh: the switch tree on emulated nodes (issue 21), measured against the model.
#
#   bench/topology.sh [ROUNDS]     (default 7; root and network namespaces, SKIP otherwise; about 10 minutes)
#
# 1. Two placements on a tree whose spine is narrower than the host links (8 nodes x 1 rank under 2 leaf switches,
#    host links 1 Gbit/s, spine 200 Mbit/s): laplace2d 512 x 512 in 8 strips (-da_processors_x 8), each rank sending
#    4 KiB to each neighbour per SpMV. "in order": ranks 0-3 under leaf0, 4-7 under leaf1, one neighbour pair
#    crosses the spine (4 KiB per direction); "interleaved": ranks alternate leaves, every pair crosses (7 messages,
#    28 KiB up leaf0's uplink). The same solve (same iterations) in both, interleaved over ROUNDS rounds; per round
#    the difference of the time per iteration; beside it the report's predicted difference (profile calibrated on
#    this tree, -ksp_perfmodel_topology, -ksp_perfmodel_netcounters), and the busiest link it counts against the hand
#    count. Target: predicted difference within 30% of the measured one.
# 2. The congested spine: the same runs' self-model gap with every term, and without the congestion terms.
# 3. pcg, sapcg, pipecg and pipe2cg on the two-switch tree beside the one-bridge cluster (8 nodes x 1 rank, both
#    1 Gbit/s everywhere, both up at once and alternated round by round), poisson27 at 1000 rows per rank
#    (latency-dominated) and 64000 (bandwidth-dominated): the median ratio tree/flat of the time per iteration, and
#    the report's predicted ratio (each cluster's own calibrated profile).
# Writes build/bench/topology.md.
set -u
cd "$(dirname "$0")/.." || exit 1
R=${1:-7}
OUT=build/bench/topology
MD=build/bench/topology.md
mkdir -p "$OUT"
if [ "$(id -u)" != 0 ]; then echo "SKIP bench/topology.sh: not root (the emulated cluster needs network namespaces)"; exit 0; fi
if ! ip netns add "pkbprobe$$" 2>/dev/null; then echo "SKIP bench/topology.sh: network namespaces cannot be created here"; exit 0; fi
ip netns del "pkbprobe$$"
CL=$PWD/bin/pipekrylov-cluster
P27=$PWD/build/examples/poisson27
CAL=$PWD/build/bin/pipekrylov-calibrate
KRY=$PWD/build/bench/krylov
tree() { env -u PK_CLUSTER_PREFIX PK_CLUSTER_SUBNET=198.18.31 PK_CLUSTER_DIR=$PWD/$OUT/tree "$CL" "$@"; }
flat() { env -u PK_CLUSTER_PREFIX PK_CLUSTER_SUBNET=198.18.32 PK_CLUSTER_DIR=$PWD/$OUT/flat "$CL" "$@"; }
trap 'tree down >/dev/null 2>&1; flat down >/dev/null 2>&1' EXIT INT TERM
TOPO=$PWD/$OUT/tree/topology.conf
CTRS=$PWD/$OUT/tree/counters/%h
med() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
csv() { awk -F, -v s="$2" -v n="$3" '$1 == s && $2 == n { print $3; exit }' "$1"; }

echo "=== 1-2. two placements on a tree with a 200 Mbit/s spine (8 nodes x 1 rank, 2 leaves)"
tree up 8 --switches 2 --rate 1gbit --spine-rate 200mbit >/dev/null || exit 1
tree run 8 1 "$CAL" -ksp_perfmodel_topology "$TOPO" -ksp_perfmodel_netcounters "$CTRS" -o "$PWD/$OUT/tree-narrow.profile" >"$OUT/calibrate-narrow.txt" 2>&1 || { echo "calibration failed"; tail -20 "$OUT/calibrate-narrow.txt"; exit 1; }
grep -E "hop_latency =|delta =|stall_time =" "$OUT/calibrate-narrow.txt"
: >"$OUT/interleaved.rf"
for r in 0 1 2 3 4 5 6 7; do echo "rank $r=pknode$(( (r % 2) * 4 + r / 2 )) slot=0" >>"$OUT/interleaved.rf"; done
APP="$P27 -problem laplace2d -n 512 -da_processors_x 8 -da_processors_y 1 -ksp_type pcg -pc_type jacobi -ksp_rtol 1e-6 -nsolves 2
  -ksp_perfmodel_view ::ascii_csv -ksp_perfmodel_topology $TOPO -ksp_perfmodel_netcounters $CTRS -ksp_perfmodel_machine $PWD/$OUT/tree-narrow.profile"
: >"$OUT/place.tsv"
for i in $(seq 1 "$R"); do
  for p in inorder interleaved; do
    f=$OUT/$p-$i.csv
    # shellcheck disable=SC2086
    if [ $p = inorder ]; then tree run 8 1 $APP >"$f" 2>&1; else tree run 8 1 --rankfile "$OUT/interleaved.rf" $APP >"$f" 2>&1; fi
    # the second solve's report (the first warms up): measured and model per iteration, the congestion terms, l
    awk -F, -v p=$p -v i="$i" '$1 == "run" && $2 == "solve" { s = $3 } s == 1 && $1 == "run" && $2 == "iterations" { K = $3 }
      s == 1 && $1 == "measured" && $2 == "ksp_solve" { m = $3 } s == 1 && $1 == "analytic" && $2 == "total" { t = $3 }
      s == 1 && $1 == "analytic" && ($2 == "halo.congestion" || $2 == "allr.congestion") { c += $3 }
      s == 1 && $1 == "halo" && $2 == "busiest_link_bytes" { l = $3 }
      END { printf "%s\t%s\t%d\t%.9g\t%.9g\t%.9g\t%s\n", p, i, K, m / K, t / K, c / K, l }' "$f" >>"$OUT/place.tsv"
  done
done
awk -F'\t' '{ K[$1] = $3; L[$1] = $7 } END { for (p in K) printf "%s: %d iterations, busiest switch link %s bytes per SpMV\n", p, K[p], L[p] }' "$OUT/place.tsv"
dm=$(awk -F'\t' '$1 == "inorder" { a[$2] = $4 } $1 == "interleaved" { b[$2] = $4 } END { for (i in a) if (i in b) print b[i] - a[i] }' "$OUT/place.tsv" | med)
dp=$(awk -F'\t' '$1 == "inorder" { a[$2] = $5 } $1 == "interleaved" { b[$2] = $5 } END { for (i in a) if (i in b) print b[i] - a[i] }' "$OUT/place.tsv" | med)
gap() { awk -F'\t' -v p="$1" -v c="$2" '$1 == p { print 100 * ($5 - c * $6 - $4) / $4 }' "$OUT/place.tsv" | med; }
ga=$(gap inorder 0); gb=$(gap interleaved 0); na=$(gap inorder 1); nb=$(gap interleaved 1)
la=$(awk -F'\t' '$1 == "inorder" { print $7; exit }' "$OUT/place.tsv"); lb=$(awk -F'\t' '$1 == "interleaved" { print $7; exit }' "$OUT/place.tsv")
ok=$(awk -v m="$dm" -v p="$dp" 'BEGIN { d = (p - m) / m; if (d < 0) d = -d; print (d <= 0.30) ? "met" : "not met"; }')
printf "interleaved - in order, per iteration (median of %s rounds): measured %.3g s, predicted %.3g s (%s)\n" "$R" "$dm" "$dp" "$ok"
printf "self-model gap (median): in order %+.1f%% (%+.1f%% without congestion), interleaved %+.1f%% (%+.1f%% without)\n" "$ga" "$na" "$gb" "$nb"
tree down >/dev/null

echo "=== 3. the solvers on the two-switch tree beside the one-bridge cluster (8 nodes x 1 rank, 1 Gbit/s)"
tree up 8 --switches 2 --rate 1gbit >/dev/null || exit 1
flat up 8 --rate 1gbit >/dev/null || exit 1
tree run 8 1 "$CAL" -ksp_perfmodel_topology "$TOPO" -ksp_perfmodel_netcounters "$CTRS" -o "$PWD/$OUT/tree.profile" >"$OUT/calibrate-tree.txt" 2>&1 || { echo "calibration failed (tree)"; exit 1; }
flat run 8 1 "$CAL" -o "$PWD/$OUT/flat.profile" >"$OUT/calibrate-flat.txt" 2>&1 || { echo "calibration failed (flat)"; exit 1; }
: >"$OUT/solvers.tsv"
for rows in 1000 64000; do
  for i in $(seq 1 "$R"); do
    for c in flat tree; do
      t=$OUT/krylov-$c-$rows-$i.tsv
      : >"$t"
      $c run 8 1 "$KRY" -configs "pcg;sapcg;pipecg;pipe2cg" -pairs "pipecg/pcg<=10" -monitor_overhead 0 -stream_n 0 -rows_per_rank $rows \
        -time_budget 6 -min_repeats 3 -repeats 100000 -tsv "$PWD/$t" >/dev/null 2>&1
      awk -F'\t' -v c=$c -v r=$rows -v i="$i" '$1 == "config" { printf "%s\t%s\t%s\t%s\t%s\n", c, r, i, $2, $5 }' "$t" >>"$OUT/solvers.tsv"
    done
  done
  for s in pcg sapcg pipecg pipe2cg; do # the report's prediction on each cluster
    tree run 8 1 "$P27" -rows_per_rank $rows -ksp_type $s -pc_type jacobi -nsolves 2 -ksp_perfmodel_view ::ascii_csv \
      -ksp_perfmodel_topology "$TOPO" -ksp_perfmodel_netcounters "$CTRS" -ksp_perfmodel_machine "$PWD/$OUT/tree.profile" >"$OUT/model-tree-$s-$rows.csv" 2>&1
    flat run 8 1 "$P27" -rows_per_rank $rows -ksp_type $s -pc_type jacobi -nsolves 2 -ksp_perfmodel_view ::ascii_csv \
      -ksp_perfmodel_machine "$PWD/$OUT/flat.profile" >"$OUT/model-flat-$s-$rows.csv" 2>&1
  done
done
permod() { awk -F, '$1 == "run" && $2 == "solve" { s = $3 } s == 1 && $1 == "run" && $2 == "iterations" { K = $3 } s == 1 && $1 == "analytic" && $2 == "total" { t = $3 } END { print t / K }' "$1"; }
{
  echo "| rows per rank | solver | flat us/it | tree us/it | ratio tree/flat (median of rounds) | predicted ratio |"
  echo "| ---: | --- | ---: | ---: | ---: | ---: |"
  for rows in 1000 64000; do
    for s in pcg sapcg pipecg pipe2cg; do
      fm=$(awk -F'\t' -v r=$rows -v s=$s '$1 == "flat" && $2 == r && $4 == s { print $5 }' "$OUT/solvers.tsv" | med)
      tm=$(awk -F'\t' -v r=$rows -v s=$s '$1 == "tree" && $2 == r && $4 == s { print $5 }' "$OUT/solvers.tsv" | med)
      rt=$(awk -F'\t' -v r=$rows -v s=$s '$2 == r && $4 == s { v[$1, $3] = $5; n[$3] = 1 } END { for (i in n) if (v["flat", i] > 0) print v["tree", i] / v["flat", i] }' "$OUT/solvers.tsv" | med)
      pr=$(awk -v a="$(permod "$OUT/model-tree-$s-$rows.csv")" -v b="$(permod "$OUT/model-flat-$s-$rows.csv")" 'BEGIN { printf "%.3f", a / b }')
      printf "| %s | %s | %.1f | %.1f | %.3f | %s |\n" "$rows" "$s" "$fm" "$tm" "$rt" "$pr"
    done
  done
} >"$OUT/solvers.md"
cat "$OUT/solvers.md"
{
  echo "bench/topology.sh, $(date -u +%Y-%m-%d), $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $R rounds"
  echo
  echo "Two placements, 8 nodes x 1 rank under 2 leaves, host links 1 Gbit/s, spine 200 Mbit/s (laplace2d 512^2 in 8 strips, pcg):"
  echo "busiest switch link per SpMV: in order $la bytes, interleaved $lb bytes (hand count 4096 and 28672)."
  printf "Interleaved - in order, per iteration: measured %.3g s, predicted %.3g s: %s (target: within 30%%).\n" "$dm" "$dp" "$ok"
  printf "Self-model gap: in order %+.1f%% (%+.1f%% without the congestion terms), interleaved %+.1f%% (%+.1f%% without).\n" "$ga" "$na" "$gb" "$nb"
  echo
  echo "The solvers on the two-switch tree (1 Gbit/s everywhere) beside the one-bridge cluster, 8 nodes x 1 rank:"
  echo
  cat "$OUT/solvers.md"
} >"$MD"
echo "(written to $MD)"
