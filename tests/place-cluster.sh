#!/bin/sh
# The README's flow on the emulated cluster: an unmodified PETSc tutorial (ex50, 2-D DMDA, 64 x 64) on 4 emulated
# nodes x 4 ranks (bin/pipekrylov-cluster; more ranks per node than this machine has cores), first with Open MPI's
# default mapping, then with the rankfile and options of bin/pipekrylov-place: the halo counts the test plugin reads
# from the tutorial's own operator (nodes from MPI_COMM_TYPE_SHARED) must be the tool's default and placed counts,
# and MPI_COMM_TYPE_SHARED must see the 4 emulated nodes. Last, an Open MPI failure is never silent: a rankfile
# slot no machine has, asked to be passed through as given (PK_CLUSTER_EXACT_SLOTS=1), is refused with the reason; and a
# rankfile host outside the cluster is refused with a clear error.
#   tests/place-cluster.sh OUTDIR
# Uses its own state directory (names derived from it) and subnet 198.18.13, so that it never touches a cluster the
# user, or another checkout's tests, have up.
set -u
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
export PK_CLUSTER_SUBNET=198.18.13 PK_CLUSTER_DIR=$out/cluster-state
unset PK_CLUSTER_PREFIX # names derived from the state directory, unique to this checkout
cl=$root/bin/pipekrylov-cluster
mkdir -p "$out"
trap '"$cl" down >/dev/null 2>&1' EXIT INT TERM
"$cl" up 4 --rate 1gbit || exit 1
app="$root/build/petsc-tutorials/ex50 -dll_append $root/build/tests/libpkhalotest.so -da_grid_x 64 -da_grid_y 64 -ksp_type cg -pc_type jacobi"
"$root/bin/pipekrylov-place" --nodes 4 --ppn 4 --grid 64x64 --rankfile "$out/rankfile" >"$out/options" 2>"$out/place.txt" || { cat "$out/place.txt"; exit 1; }
cat "$out/place.txt"
echo "options: $(cat "$out/options")"
# the tool's counts: "N off-node messages, B bytes"
def=$(sed -n 's/^default:.*: \([0-9]*\) off-node messages, \([0-9]*\) bytes.*/\1 \2/p' "$out/place.txt")
plc=$(sed -n 's/^placed:.*: \([0-9]*\) off-node messages, \([0-9]*\) bytes.*/\1 \2/p' "$out/place.txt")
# shellcheck disable=SC2086
"$cl" run 16 4 $app >"$out/default.txt" 2>&1 || { echo "FAIL: default run"; cat "$out/default.txt"; exit 1; }
# shellcheck disable=SC2086,SC2046
"$cl" run 16 4 --rankfile "$out/rankfile" $app $(cat "$out/options") >"$out/placed.txt" 2>&1 || { echo "FAIL: placed run (exit status $?)"; cat "$out/placed.txt"; exit 1; }
got() { sed -n 's/^halotest: .*off-node \([0-9]*\) messages \([0-9]*\) bytes.*/\1 \2/p' "$1"; }
nodes() { sed -n 's/^halotest: [0-9]* ranks, \([0-9]*\) nodes.*/\1/p' "$1"; }
echo "default: tool '$def', tutorial '$(got "$out/default.txt")', nodes seen $(nodes "$out/default.txt")"
echo "placed:  tool '$plc', tutorial '$(got "$out/placed.txt")', nodes seen $(nodes "$out/placed.txt")"
[ "$(nodes "$out/default.txt")" = 4 ] && [ "$(nodes "$out/placed.txt")" = 4 ] || { echo "FAIL: MPI_COMM_TYPE_SHARED does not see the 4 emulated nodes"; exit 1; }
[ -n "$def" ] && [ "$(got "$out/default.txt")" = "$def" ] || { echo "FAIL: default counts differ from the tool's"; exit 1; }
[ -n "$plc" ] && [ "$(got "$out/placed.txt")" = "$plc" ] || { echo "FAIL: placed counts differ from the tool's"; exit 1; }
[ "$def" != "$plc" ] || { echo "FAIL: placement changed nothing"; exit 1; }
echo "PASS: the unmodified tutorial reaches the placed counts at 4 ranks per node; MPI_COMM_TYPE_SHARED sees 4 nodes"
# a slot beyond any machine's cores, asked to be passed to Open MPI as given: run refuses it with the reason (Open
# MPI 4 exits 1 without a word on it, Open MPI 5.0 hangs)
printf 'rank 0=pknode0 slot=9999\nrank 1=pknode1 slot=9999\n' >"$out/rankfile-bad"
PK_CLUSTER_EXACT_SLOTS=1 "$cl" run 2 1 --rankfile "$out/rankfile-bad" true >"$out/bad.txt" 2>&1
rc=$?
cat "$out/bad.txt"
[ "$rc" != 0 ] || { echo "FAIL: a rankfile slot beyond the cores ran (exit status 0)"; exit 1; }
grep -q "^pipekrylov-cluster: run: the rankfile .* names core 9999, but this machine has" "$out/bad.txt" || { echo "FAIL: a slot Open MPI cannot honour (it exits silently, or hangs in 5.0) was not refused first (exit status $rc)"; exit 1; }
echo "PASS: a slot beyond the machine's cores is refused before Open MPI starts (exit status $rc)"
# a rankfile host that is not a node of this cluster: a clear error before Open MPI starts
sed 's/=pknode0 /=pknode9 /' "$out/rankfile" >"$out/rankfile-host"
"$cl" run 16 4 --rankfile "$out/rankfile-host" true >"$out/host.txt" 2>&1 && { echo "FAIL: a rankfile naming pknode9 ran on 4 nodes"; exit 1; }
cat "$out/host.txt"
grep -q "names the host 'pknode9'" "$out/host.txt" || { echo "FAIL: no clear error for a rankfile host outside the cluster"; exit 1; }
echo "PASS: a rankfile host outside the cluster is a clear error"
