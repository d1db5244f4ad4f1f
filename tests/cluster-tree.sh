#!/bin/sh
# The emulated cluster's switch tree and counters (bin/pipekrylov-cluster up N --switches S; issue 21): 4 nodes under
# 2 leaf switches and a spine narrower than the host links. Prints one "PASS: <check>" or "FAIL: <check>" line per
# check (tests/suites/44-cluster-tree.sh greps them) and exits 1 at the first failure of a step that later ones
# need; the hop and stall checks say FAIL and go on, so that one disturbed measurement fails one check only.
#   tests/cluster-tree.sh OUTDIR
# Checks: the tree comes up (namespaces, topology.conf as Slurm's file with the nodes' real names); counters move
# by the hand count for known UDP traffic across the spine, stay still when idle, and a congested spine gives
# port_xmit_wait; UDP round trips across the spine are slower than within a leaf (medians of 5000, interleaved);
# pipekrylov-calibrate -ksp_perfmodel_topology finds every node by MPI_Get_processor_name, measures alpha_off within a leaf, and
# its hop_latency is positive and consistent with the UDP medians; -ksp_perfmodel_netcounters gives stall_time; down removes
# everything; the one-bridge layout writes its one-switch topology.conf. Bounds are generous (a busy machine), never
# tight timings. Uses its own state directory (names derived from it) and subnet 198.18.23.
set -u
out=${1:?usage: tests/cluster-tree.sh OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
export PK_CLUSTER_SUBNET=198.18.23 PK_CLUSTER_DIR=$out/cluster-state
unset PK_CLUSTER_PREFIX
cl=$root/bin/pipekrylov-cluster
np=$root/build/tests/netprobe
net=198.18.23
mkdir -p "$out"
rm -f "$out/calibrate.profile"
trap '"$cl" down >/dev/null 2>&1' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS: $*"; }
[ -x "$np" ] || fail "build: $np not built (make)"
[ -x "$root/build/bin/pipekrylov-netsampler" ] || fail "build: the counter sampler is not built (make)"

"$cl" up 4 --switches 2 --spine-rate 100mbit || fail "up: up 4 --switches 2 failed"
prefix=$("$cl" status | sed -n 's/^state .*, names \([a-z0-9]*\) .*/\1/p')
nsl=$(ip netns list | awk '{print $1}' | grep -cE "^${prefix}(-head|-spine|-leaf[01]|[0-3])$")
[ "$nsl" = 8 ] || fail "up: $nsl of the 8 namespaces (4 nodes, 2 leaves, spine, head) exist"
pass "up: 4 nodes, 2 leaf switches, a spine and the head, each a namespace"

# topology.conf: exactly Slurm's lines for the tree
printf 'SwitchName=leaf0 Nodes=pknode[0-1]\nSwitchName=leaf1 Nodes=pknode[2-3]\nSwitchName=spine Switches=leaf[0-1]\n' >"$out/topology.expected"
grep -v '^#' "$PK_CLUSTER_DIR/topology.conf" | diff "$out/topology.expected" - || fail "topology: $PK_CLUSTER_DIR/topology.conf is not the tree"
pass "topology: topology.conf lists leaf0 (pknode[0-1]), leaf1 (pknode[2-3]) under spine"

# counters: c NODE FILE
c() { cat "$PK_CLUSTER_DIR/counters/$1/class/infiniband/pkemu0/ports/1/counters/$2"; }
[ "$(cat "$PK_CLUSTER_DIR/counters/pknode0/class/infiniband/pkemu0/ports/1/state")" = "4: ACTIVE" ] || fail "counters: no active port for pknode0"
w0=$(c pknode0 port_xmit_wait)
sleep 0.5
w1=$(c pknode0 port_xmit_wait)
[ "$w1" -le $((w0 + 100)) ] || fail "counters: idle, port_xmit_wait of pknode0 moved from $w0 to $w1"
pass "counters: idle spine, port_xmit_wait still ($w0 -> $w1)"

# known traffic across the spine: 200 UDP datagrams of 1000 bytes, pknode0 -> pknode3 (a sink, so that nothing
# answers): 200 x (1000 + 8 UDP + 20 IP + 14 Ethernet) = 208400 bytes = 52100 units of 4 bytes, give or take the ARP
# exchange (42 bytes each way; warmed first by one datagram)
ip netns exec "${prefix}3" "$np" sink 9301 5 >"$out/sink.txt" 2>&1 &
sleep 0.3
ip netns exec "${prefix}0" "$np" send "$net.4" 9301 1 1000 >/dev/null || fail "counters: netprobe send"
sleep 0.2
x0=$(c pknode0 port_xmit_data) r0=$(c pknode3 port_rcv_data)
ip netns exec "${prefix}0" "$np" send "$net.4" 9301 200 1000 || fail "counters: netprobe send"
sleep 0.2
x1=$(c pknode0 port_xmit_data) r1=$(c pknode3 port_rcv_data)
echo "port_xmit_data of pknode0 moved by $((x1 - x0)), port_rcv_data of pknode3 by $((r1 - r0)); hand count 52100"
[ $((x1 - x0)) -ge 52100 ] && [ $((x1 - x0)) -le 52130 ] || fail "counters: port_xmit_data of pknode0 moved by $((x1 - x0)), not 52100"
[ $((r1 - r0)) -ge 52100 ] && [ $((r1 - r0)) -le 52130 ] || fail "counters: port_rcv_data of pknode3 moved by $((r1 - r0)), not 52100"
pass "counters: 200 datagrams of 1000 bytes across the spine moved port_xmit_data by $((x1 - x0)) and port_rcv_data by $((r1 - r0)) (hand count 52100)"

# UDP round trips within a leaf and across the spine, interleaved: the medians separate. Taken before the
# congestion below, after which the path across the spine stayed slow for seconds. A whole measurement can be
# disturbed all the same (seen: 51-68 us medians across the spine for 7-10 us in the runs before and after, up to
# three times in a row, with the kernel's softirq work taking a core), so it is taken up to six times, 2 s apart,
# and the first that separates is kept; if none does, the least disturbed one (smallest sum of the two medians).
# udp_hops: sets u2, u4 (the medians) and udphop (per hop, one way)
# The pinger and both echo servers run on one CPU (the first this script may use): a process that sleeps in poll()
# and is woken from another CPU costs a cross-CPU wake-up, which on a VM is an interrupt through the hypervisor, and
# it lands on one path or the other by where the scheduler put them (AMD EPYC VM, 2026-11-29: 16.8 us within a leaf
# and 61 us across the spine, or 64 and 23 pinned the other way; all on one CPU, 16.8 and 23.4 every time, 1.65 us
# per hop as calibrate measures). MPI's ranks poll without sleeping and pay no wake-up.
cpu=""
command -v taskset >/dev/null 2>&1 && cpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: *//; s/[-,].*//')
udp_hops() {
  best=""
  for _ in 1 2 3 4 5 6; do
    # echo servers for this attempt: pingpong ends them with "quit"
    ip netns exec "${prefix}1" ${cpu:+taskset -c "$cpu"} "$np" echo 9303 20 >/dev/null 2>&1 &
    ip netns exec "${prefix}2" ${cpu:+taskset -c "$cpu"} "$np" echo 9303 20 >/dev/null 2>&1 &
    sleep 0.3
    ip netns exec "${prefix}0" ${cpu:+taskset -c "$cpu"} "$np" pingpong 9303 50 100 "$net.2" "$net.3" >"$out/udp.txt" || fail "hops: netprobe pingpong"
    cat "$out/udp.txt"
    u2=$(sed -n "s/^pingpong $net.2: .* median \([0-9.]*\) us.*/\1/p" "$out/udp.txt")
    u4=$(sed -n "s/^pingpong $net.3: .* median \([0-9.]*\) us.*/\1/p" "$out/udp.txt")
    awk -v a="$u2" -v b="$u4" 'BEGIN { exit !(b > a && b - a < 20) }' && { best=""; break; }
    if awk -v a="$u2" -v b="$u4" -v best="$best" 'BEGIN { split(best, o, " "); exit !(b > a && (best == "" || a + b < o[1] + o[2])) }'; then best="$u2 $u4"; fi
    sleep 2
  done
  [ -n "$best" ] && { u2=${best% *}; u4=${best#* }; echo "kept the least disturbed attempt: $u2 us and $u4 us"; }
  awk -v a="$u2" -v b="$u4" 'BEGIN { exit !(b > a) }' || fail "hops: the UDP round trip across the spine ($u4 us) is not slower than within a leaf ($u2 us)"
  udphop=$(awk -v a="$u2" -v b="$u4" 'BEGIN { printf "%.3f", (b - a) / 4 }')
}
udp_hops
pass "hops: UDP round trips, medians of 5000: within a leaf $u2 us, across the spine $u4 us ($udphop us per hop one way)"

# congestion: pknode0 and pknode1 (leaf0) each stream 6 MB to leaf1 over the 100 Mbit/s spine (1 Gbit/s host links):
# about 1 s in which each node's data waits in the shared uplink while its own link idles about 95% of the time
ip netns exec "${prefix}2" "$np" sink 9302 20 >/dev/null 2>&1 &
ip netns exec "${prefix}3" "$np" sink 9302 20 >/dev/null 2>&1 &
sleep 0.3
a0=$(c pknode0 port_xmit_wait) b0=$(c pknode1 port_xmit_wait)
ip netns exec "${prefix}0" "$np" stream "$net.3" 9302 6000000 &
p0=$!
ip netns exec "${prefix}1" "$np" stream "$net.4" 9302 6000000 &
p1=$!
wait "$p0" "$p1"
sleep 0.2
a1=$(c pknode0 port_xmit_wait) b1=$(c pknode1 port_xmit_wait)
echo "port_xmit_wait (1 us ticks) of pknode0 moved by $((a1 - a0)), of pknode1 by $((b1 - b0))"
[ $((a1 - a0)) -ge 100000 ] && [ $((b1 - b0)) -ge 100000 ] || fail "counters: a congested spine gave port_xmit_wait $((a1 - a0)) and $((b1 - b0)) ticks (at least 100000 = 0.1 s expected of the about 1 s of congestion)"
pass "counters: a congested spine gave port_xmit_wait $((a1 - a0)) and $((b1 - b0)) ticks of 1 us"
sleep 0.3
a2=$(c pknode0 port_xmit_wait)
sleep 0.5
a3=$(c pknode0 port_xmit_wait)
[ "$a3" -le $((a2 + 100)) ] || fail "counters: idle again, port_xmit_wait of pknode0 moved from $a2 to $a3"
pass "counters: idle again, port_xmit_wait still ($a2 -> $a3)"


# pipekrylov-calibrate on the tree, one rank per node. The per-hop cost here is the kernel's forwarding through a
# bridge and a veth pair, a microsecond or so, and a busy machine moves either measurement of it by several (seen in
# CI: the UDP medians 17.8 us apart across four hops where 4 is usual, so 4.5 us per hop against calibrate's 1.1).
# So when calibrate's hop_latency and the UDP round trips disagree, both are measured again, side by side, up to
# three times: a check of what the tool measures, not of how quiet the machine is. A calibration that is wrong
# (no slope, a sign error, a factor of ten) disagrees every time.
calibrate_tree() {
  "$cl" run 4 1 "$root/bin/pipekrylov-calibrate" -quick -ksp_perfmodel_topology "$PK_CLUSTER_DIR/topology.conf" -ksp_perfmodel_netcounters "$PK_CLUSTER_DIR/counters/%h" -o "$out/calibrate.profile" >"$out/calibrate.txt" 2>&1 ||
    { tail -20 "$out/calibrate.txt"; fail "calibrate: pipekrylov-calibrate -ksp_perfmodel_topology failed"; }
  grep -E '^Topology|^Hops|^  [ 0-9]+ hops|^  hop_latency|^Ping-pong off|^Stall|^  stall' "$out/calibrate.txt"
}
get() { awk -v k="$1" '$1 == k && $2 == "=" { print $3 }' "$out/calibrate.profile"; }
# hop_check: sets hop, m2, m4 from the last calibration; prints why and returns 1 when they disagree
hop_check() {
  hop=$(get hop_latency)
  m2=$(sed -n 's/^ *2 hops .*: median *\([0-9.]*\) us.*/\1/p' "$out/calibrate.txt")
  m4=$(sed -n 's/^ *4 hops .*: median *\([0-9.]*\) us.*/\1/p' "$out/calibrate.txt")
  echo "hop_latency $hop s; calibrate's one-way medians: 2 hops $m2 us, 4 hops $m4 us; UDP per hop $udphop us"
  awk -v h="$hop" 'BEGIN { exit !(h > 0) }' || { why="hops: hop_latency $hop is not positive"; return 1; }
  awk -v h="$hop" -v a="$m2" -v b="$m4" 'BEGIN { s = (b - a) / 2e6; exit !(b > a && h > s / 3 && h < 3 * s) }' ||
    { why="hops: hop_latency $hop s is not within a factor 3 of the slope of calibrate's medians ($m2 us at 2 hops, $m4 us at 4)"; return 1; }
  awk -v h="$hop" -v u="$udphop" 'BEGIN { exit !(h > u / 4e6 && h < 4 * u / 1e6) }' ||
    { why="hops: hop_latency $hop s is not within a factor 4 of the UDP round trips' $udphop us per hop"; return 1; }
}
calibrate_tree
grep -q "4 of this run's 4 nodes found by name: pknode0@leaf0 pknode1@leaf0 pknode2@leaf1 pknode3@leaf1" "$out/calibrate.txt" ||
  fail "topology: calibrate did not find the 4 nodes by MPI_Get_processor_name under their leaves"
pass "topology: topology.conf parses and names the real hosts (MPI_Get_processor_name: pknode0..3 under leaf0, leaf1)"
grep -q '^Ping-pong off-node (ranks 0 and 1)' "$out/calibrate.txt" && grep -qE '^ +2 hops +pknode0 - pknode1 \(ranks 0, 1\)' "$out/calibrate.txt" ||
  fail "calibrate: alpha_off was not measured between the two nodes of one leaf"
pass "calibrate: alpha_off measured between pknode0 and pknode1, one leaf switch"
status=0
attempt=1
until hop_check; do
  if [ "$attempt" = 3 ]; then
    echo "FAIL: $why (3 attempts)"
    status=1
    break
  fi
  echo "attempt $attempt: $why; both measured again"
  attempt=$((attempt + 1))
  sleep 2
  udp_hops
  calibrate_tree
done
[ "$status" = 0 ] && pass "hops: hop_latency $hop s > 0, consistent with the medians (2 hops $m2 us, 4 hops $m4 us; UDP $udphop us per hop; attempt $attempt)"
st=$(get stall_time)
if ! awk -v s="$st" 'BEGIN { exit !(s > 1e-7 && s < 1e-5) }'; then
  echo "FAIL: stall: stall_time '$st' is not between 0.1 and 10 us (the tick is 1 us)"
  status=1
elif ! grep -q '^# Counters .*stall_time .* measured' "$out/calibrate.profile" || ! grep -q '^# Topology .*hop_latency' "$out/calibrate.profile"; then
  echo "FAIL: calibrate: the profile's comments do not say how hop_latency and stall_time were measured"
  status=1
else
  pass "stall: stall_time $st s per tick from a congesting burst across the spine (nominal tick 1e-06); the profile says how"
fi

# down removes everything
pid=$(tr -cd 0-9 <"$PK_CLUSTER_DIR/sampler.pid")
"$cl" down || fail "down: failed"
left=$(ip netns list | awk '{print $1}' | grep -cE "^${prefix}(-|[0-9])")
[ "$left" = 0 ] || fail "down: $left namespace(s) of $prefix left"
[ ! -d "/proc/$pid" ] || fail "down: the sampler (pid $pid) still runs"
[ ! -e "$PK_CLUSTER_DIR" ] || fail "down: $PK_CLUSTER_DIR left"
! grep -q "$PK_CLUSTER_DIR" /proc/self/mountinfo || fail "down: the counters' tmpfs is still mounted"
pass "down: no namespace, sampler, mount or state left"

# the one-bridge layout: one switch in topology.conf, counters without stalls
"$cl" up 2 || fail "flat: up 2 failed"
grep -qx 'SwitchName=bridge Nodes=pknode\[0-1\]' "$PK_CLUSTER_DIR/topology.conf" || fail "flat: topology.conf is not one switch"
[ "$(c pknode1 port_xmit_wait)" = 0 ] || fail "flat: port_xmit_wait is not 0"
"$cl" down >/dev/null || fail "flat: down failed"
pass "flat: one-bridge layout, topology.conf 'SwitchName=bridge Nodes=pknode[0-1]', counters without stalls"
exit "$status"
