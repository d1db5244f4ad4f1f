#!/bin/sh
# Calibrate across two emulated nodes (bin/pipekrylov-cluster: network namespaces, veth, bridge, tbf) and check
# that the profile sees the difference: off-node latency above on-node latency, off-node per-byte cost above
# on-node, and the node injection rate R_N not above the tbf rate (plus the token bucket's burst allowance).
#   tests/calibrate-cluster.sh OUTDIR [RATE]
# Uses its own state directory (names derived from it) and subnet 198.18.8, so that it never touches a cluster the
# user, or another checkout's tests, have up.
set -u
out=$1
rate=${2:-1gbit}
root=$(cd "$(dirname "$0")/.." && pwd)
export PK_CLUSTER_SUBNET=198.18.8 PK_CLUSTER_DIR=$out/cluster-state
unset PK_CLUSTER_PREFIX # names derived from the state directory, unique to this checkout
cl=$root/bin/pipekrylov-cluster
mkdir -p "$out"
trap '"$cl" down >/dev/null 2>&1' EXIT INT TERM
"$cl" up 2 --rate "$rate" || exit 1
# 3 ranks, 2 per node: ranks 0 and 1 share pknode0 (vader), rank 2 is alone on pknode1 (tcp over the veths). Three
# processes on a machine that may have two cores and other work: a rank of the on-node pair that waits for a core
# makes the on-node latency look like the network's (seen: 18.6 us on node against 15.1 off node with the load at
# 8). So when the order does not show, the calibration runs again, up to three times; a tool that mixed up the two
# paths would fail every time.
get() { awk -v k="$1" '$1 == k && $2 == "=" { print $3 }' "$out/cluster.profile"; }
check() {
  aon=$(get alpha_on_short) aoff=$(get alpha_off_short) bon=$(get beta_on_rendezvous) boff=$(get beta_off_rendezvous)
  rn=$(get RN) nodes=$(get nodes)
  echo "nodes $nodes; alpha on $aon s, off $aoff s; beta (rendezvous) on $bon s/byte, off $boff s/byte; R_N $rn bytes/s; tbf rate $rate"
  [ "$nodes" = 2 ] || { echo "FAIL: calibrate saw $nodes node(s), expected 2 (MPI_COMM_TYPE_SHARED inside the cluster)"; exit 1; }
  case "$aoff$boff$rn" in *none*) echo "FAIL: off-node values missing"; exit 1 ;; esac
  awk -v a="$aon" -v b="$aoff" 'BEGIN { exit !(b > a) }' || { why="off-node alpha $aoff <= on-node alpha $aon"; return 1; }
  awk -v a="$bon" -v b="$boff" 'BEGIN { exit !(b > a) }' || { why="off-node beta $boff <= on-node beta $bon"; return 1; }
  lim=$(echo "$rate" | awk '{ n = $0 + 0; u = tolower(substr($0, length(n "") + 1)); m = (u ~ /^gbit/) ? 1e9 : (u ~ /^mbit/) ? 1e6 : (u ~ /^kbit/) ? 1e3 : 1; printf "%.0f", n * m / 8 }')
  awk -v r="$rn" -v l="$lim" 'BEGIN { exit !(r < 1.5 * l) }' || { why="R_N $rn bytes/s is above the tbf limit $lim bytes/s: is the rate limit active?"; return 1; }
}
attempt=1
while :; do
  "$cl" run 3 2 "$root/bin/pipekrylov-calibrate" -quick -quantile 0.25 -o "$out/cluster.profile" || { echo "FAIL: calibrate under the cluster"; exit 1; }
  check && break
  [ "$attempt" = 3 ] && { echo "FAIL: $why (3 attempts)"; exit 1; }
  echo "attempt $attempt: $why; measured again"
  attempt=$((attempt + 1))
  sleep 3
done
echo "PASS: off-node alpha > on-node alpha, off-node beta > on-node beta, R_N <= tbf rate"
