#!/usr/bin/env bash
# Node-aware placement on the emulated cluster: laplace2d (5-point, 128 x 128, 2048 rows per rank) on 4 emulated nodes
# x 2 ranks, the default DMDA layout against -nodeaware (DMDACreateNodeAware), for pcg and pipecg: off-node halo bytes
# per SpMV (from the operator, -halo_view) and time per iteration (median of interleaved repeats: each repeat runs
# the four configurations in a shuffled order), as ratios node-aware / default.
#
#   bench/placement.sh [REPEATS]     needs root and network namespaces (bin/pipekrylov-cluster); default 10 repeats
#
# Writes build/bench/placement.md (the table) and build/bench/placement.tsv (every run).
# The set-up is one where the placement moves ranks without changing PETSc's grid (2 x 4 of 64 x 32): the default
# puts an x-pair on each node, the placement a column pair, off-node bytes 6144 -> 4096, the same bytes in all. On
# 2 nodes PETSc's x-fastest layout already gives each node half of the grid, and the placement keeps it: the former
# set-up, poisson27 on 2 nodes x 2 (docs/benchmarks.md's 2026-11-24 table), only differed by 1 x 1 x 4 slabs that saved 5%
# off node for 46% more halo bytes in all, which the guard of docs/algorithms.md 8 now rejects.
# All emulated ranks share this machine's cores: the times say whether the placement costs anything and how
# off-node traffic moves, not what a real network would gain.
set -u
cd "$(dirname "$0")/.." || exit 1
REPEATS=${1:-10}
OUT=build/bench
mkdir -p "$OUT"
export PK_CLUSTER_SUBNET=198.18.15 PK_CLUSTER_DIR=$PWD/$OUT/placement-cluster # names derived from the state directory
CL=bin/pipekrylov-cluster
if [ "$(id -u)" != 0 ]; then echo "bench/placement.sh: SKIP: not root (the emulated cluster needs network namespaces)"; exit 0; fi
if ! command -v ip >/dev/null 2>&1 || ! ip netns add pkbp-probe >/dev/null 2>&1; then
  echo "bench/placement.sh: SKIP: network namespaces cannot be created here"; exit 0
fi
ip netns del pkbp-probe
trap '"$CL" down >/dev/null 2>&1' EXIT INT TERM
"$CL" up 4 --rate 1gbit || exit 1
TSV=$OUT/placement.tsv
printf 'repeat\tsolver\tlayout\titerations\tsolve_s\tus_per_it\toffnode_msgs\toffnode_bytes\tonnode_bytes\tgrid\n' >"$TSV"
APP="$PWD/build/examples/poisson27 -problem laplace2d -n 128 -pc_type jacobi -nsolves 2 -halo_view"
for ((r = 1; r <= REPEATS; r++)); do
  for cfg in $(printf '%s\n' pcg:default pcg:nodeaware pipecg:default pipecg:nodeaware | shuf); do
    solver=${cfg%%:*} layout=${cfg##*:}
    extra=""; [ "$layout" = nodeaware ] && extra=-nodeaware
    # shellcheck disable=SC2086
    o=$("$CL" run 8 2 $APP -ksp_type "$solver" $extra 2>&1) || { echo "run failed: $cfg"; echo "$o"; exit 1; }
    echo "$o" | awk -v r="$r" -v s="$solver" -v l="$layout" '
      /^halo per SpMV/ { g = $6 "x" $8 "x" $10; sub(/,$/, "", g); for (i = 1; i <= NF; i++) { if ($i == "on-node") { onb = $(i + 3) } if ($i == "off-node") { offm = $(i + 1); offb = $(i + 3) } } }
      /iterations, relative error/ { for (i = 1; i <= NF; i++) { if ($i == "iterations,") it = $(i - 1); if ($i == "KSPSolve") t = $(i + 1) } }
      END { printf "%d\t%s\t%s\t%d\t%s\t%.2f\t%s\t%s\t%s\t%s\n", r, s, l, it, t, t / it * 1e6, offm, offb, onb, g }' >>"$TSV"
  done
  echo "repeat $r/$REPEATS done"
done
# per repeat ratio node-aware / default, per solver; median and quartiles
awk -F'\t' 'NR > 1 { k = $1 SUBSEP $2 SUBSEP $3; us[k] = $6; ob[$2, $3] = $8; om[$2, $3] = $7; g[$2, $3] = $10; its[$2, $3] = $4; rr[$1] = 1 }
  function q(a, n, p,   i, j, t, x) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    x = 1 + (n - 1) * p; i = int(x); return (i >= n) ? a[n] : a[i] + (x - i) * (a[i + 1] - a[i]) }
  END {
    print "| solver | layout (grid) | iterations | off-node messages / bytes per SpMV | bytes ratio | us/iteration (median) | time ratio node-aware/default (median [q25, q75]) |"
    print "| --- | --- | ---: | ---: | ---: | ---: | --- |"
    split("pcg pipecg", S, " ")
    for (si = 1; si <= 2; si++) { s = S[si]; n = 0; nd = 0; nn = 0
      for (r in rr) { d = us[r, s, "default"]; a = us[r, s, "nodeaware"]; if (d > 0 && a > 0) { R[++n] = a / d; D[++nd] = d; N[++nn] = a } }
      if (!n) continue
      md = q(D, nd, 0.5); mn = q(N, nn, 0.5); m = q(R, n, 0.5); lo = q(R, n, 0.25); hi = q(R, n, 0.75)
      printf "| `%s` | default (%s) | %d | %d / %d | 1 | %.1f | 1 |\n", s, g[s, "default"], its[s, "default"], om[s, "default"], ob[s, "default"], md
      printf "| `%s` | node-aware (%s) | %d | %d / %d | %.3f | %.1f | **%.3f** [%.3f, %.3f] |\n", s, g[s, "nodeaware"], its[s, "nodeaware"], om[s, "nodeaware"], ob[s, "nodeaware"], ob[s, "default"] ? ob[s, "nodeaware"] / ob[s, "default"] : 0, mn, m, lo, hi }
  }' "$TSV" >"$OUT/placement.md"
echo "=== node-aware placement, laplace2d 128 x 128 on 4 emulated nodes x 2 ranks (1gbit), $REPEATS interleaved repeats"
cat "$OUT/placement.md"
