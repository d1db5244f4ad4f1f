#!/bin/sh
# Slurm on the emulated cluster (bin/pipekrylov-cluster up ... --launcher slurm): 4 nodes under 2 leaf switches,
# munged, slurmctld and a slurmd per node from the cluster's state directory. Prints one "PASS: <check>" or
# "FAIL: <check>" line per check (tests/suites/44-slurm.sh greps them); a failed step that later ones need ends it.
#   tests/slurm-cluster.sh OUTDIR
# Checks: every node idle in sinfo, Slurm's tree from `scontrol show topology`; srun --mpi=pmix runs each task on
# its node with its SLURM_TOPOLOGY_ADDR; the report of a pipe2cg solve takes the switch tree from Slurm, without a
# file, and its hops are the tree's; PETSc's own ex2 with the plugin (-dll_append) gives cg's iterations under srun;
# a batch job (sbatch --wait) sruns it; pipekrylov-place inside a job takes Slurm's tree and the job's nodes, and
# its rankfile (SLURM_HOSTFILE) places the ranks; pipekrylov-calibrate under srun measures across nodes and per hop
# with Slurm's tree; run --rankfile outside a job places each rank on its host; down leaves no daemon, namespace or
# state; up without --launcher chooses Slurm. Bounds are generous: no timing is checked. Uses its own state
# directory (names derived from it) and subnet 198.18.29.
set -u
out=${1:?usage: tests/slurm-cluster.sh OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
export PK_CLUSTER_SUBNET=198.18.29 PK_CLUSTER_DIR=$out/cluster-state
unset PK_CLUSTER_PREFIX
cl=$root/bin/pipekrylov-cluster
mkdir -p "$out"
rm -f "$out"/job-*.out "$out"/place-*.out "$out/cal.profile"
trap '"$cl" down >/dev/null 2>&1' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS: $*"; }
status=0
bad() { echo "FAIL: $*"; status=1; }

"$cl" up 4 --switches 2 --launcher slurm >"$out/up.txt" 2>&1 || { cat "$out/up.txt"; fail "up: up 4 --switches 2 --launcher slurm failed"; }
cat "$out/up.txt"
idle=$("$cl" slurm sinfo -h -N -o '%N %T' | sort)
echo "$idle"
[ "$(echo "$idle" | grep -c ' idle$')" = 4 ] || fail "up: sinfo does not show 4 idle nodes"
# the PMIx fence as a ring (Open MPI 5 crashed in MPI_Init now and then with Slurm's default: pipekrylov-cluster)
"$cl" slurm scontrol show config | grep -qE '^PMIxCollFence +=  *ring' || fail "up: Slurm does not use the cluster's mpi.conf (PMIxCollFence ring)"
pass "up: munged, slurmctld and 4 slurmds; sinfo: 4 nodes idle"
"$cl" slurm scontrol show topology | tee "$out/topology.txt"
grep -q '^SwitchName=spine .*Switches=leaf\[0-1\]' "$out/topology.txt" && grep -q '^SwitchName=leaf0 .*Nodes=pknode\[0-1\]' "$out/topology.txt" ||
  fail "topology: scontrol show topology is not the cluster's tree"
pass "topology: Slurm's own tree (scontrol show topology): leaf0 pknode[0-1], leaf1 pknode[2-3] under spine"

# each task on its node, with its path in the tree
"$cl" run 4 1 sh -c 'echo "task $SLURM_PROCID $(hostname) $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN"' | sort >"$out/tasks.txt" || fail "srun: 4 tasks on 4 nodes failed"
cat "$out/tasks.txt"
printf 'task 0 pknode0 spine.leaf0.pknode0 switch.switch.node\ntask 1 pknode1 spine.leaf0.pknode1 switch.switch.node\ntask 2 pknode2 spine.leaf1.pknode2 switch.switch.node\ntask 3 pknode3 spine.leaf1.pknode3 switch.switch.node\n' |
  diff - "$out/tasks.txt" || fail "srun: the tasks' hosts or topology addresses are not the tree's"
pass "srun: task k on pknodek, SLURM_TOPOLOGY_ADDR spine.leaf<j>.pknodek"

# the report without a topology file: Slurm's tree. 8 ranks, 2 per node, PETSc's 2 x 4 grid: the hand count of the
# off-node halo messages' hops is in tests/topo-report-cluster.sh's manner; here the tree and its depth are checked
"$cl" run 8 2 "$root/build/examples/poisson27" -rows_per_rank 2000 -ksp_type pipe2cg -pc_type jacobi -ksp_converged_reason \
  -ksp_perfmodel_view >"$out/report.txt" 2>&1 || { tail -20 "$out/report.txt"; fail "report: poisson27 under srun failed"; }
grep -E 'poisson27|switch tree|hops' "$out/report.txt"
grep -q 'CONVERGED_RTOL' "$out/report.txt" || bad "report: the solve did not converge"
grep -q "network: switch tree from Slurm (the tasks' SLURM_TOPOLOGY_ADDR) (3 switches, 4 nodes, depth 1)" "$out/report.txt" || bad "report: the switch tree is not Slurm's"
grep -qE 'allreduce.s off-node rounds: 3\.00 hops on average' "$out/report.txt" || bad "report: the allreduce's hops are not the tree's (2 rounds across 4 nodes: 2 and 4 hops)"
[ "$status" = 0 ] && pass "report: switch tree from Slurm without a file (3 switches, 4 nodes), allreduce rounds 3.00 hops (2 within a leaf, 4 across)"

# PETSc's own tutorial with the plugin, under srun: cg's iterations
its() { sed -n 's/.*iterations \([0-9]*\)$/\1/p' "$1" | head -1; }
"$cl" run 4 2 "$root/build/petsc-tutorials/ex2" -m 40 -n 40 -ksp_type cg -ksp_converged_reason >"$out/ex2-cg.txt" 2>&1 || fail "tutorial: ex2 cg under srun failed"
"$cl" run 4 2 "$root/build/petsc-tutorials/ex2" -m 40 -n 40 -dll_append "$root/lib/libpipekrylov.so" -ksp_type pipecg -ksp_converged_reason >"$out/ex2-pipecg.txt" 2>&1 ||
  fail "tutorial: ex2 pipecg under srun failed"
a=$(its "$out/ex2-cg.txt") b=$(its "$out/ex2-pipecg.txt")
echo "ex2 40x40 on 4 ranks: cg $a iterations, pipekrylov's pipecg $b"
[ -n "$a" ] && [ "$a" = "$b" ] || fail "tutorial: pipecg took '$b' iterations, cg '$a'"
pass "tutorial: PETSc's ex2 with -dll_append under srun: pipecg $b iterations, as cg"

# a batch job that sruns the example
cat >"$out/job.sh" <<JOB
#!/bin/sh
#SBATCH -N 2
#SBATCH --ntasks-per-node=2
#SBATCH -o $out/job-%j.out
srun --mpi=pmix $root/build/examples/poisson27 -rows_per_rank 1000 -ksp_type pipecg -pc_type jacobi -ksp_converged_reason
JOB
"$cl" slurm sbatch --wait "$out/job.sh" || fail "sbatch: the job failed"
cat "$out"/job-*.out
grep -q 'CONVERGED_RTOL' "$out"/job-*.out || fail "sbatch: the job's output has no converged solve"
pass "sbatch: a batch job sruns poisson27 on 2 nodes x 2 (sbatch --wait)"

# inside a job: pipekrylov-place takes Slurm's tree and the job's nodes; its hostfile places the ranks
cat >"$out/place.sh" <<JOB
#!/bin/sh
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH -o $out/place-%j.out
$root/bin/pipekrylov-place --nodes 4 --ppn 2 --grid 64x64 --format slurm --rankfile $out/hostfile > $out/place-options.txt
SLURM_HOSTFILE=$out/hostfile srun --mpi=pmix --distribution=arbitrary -n 8 sh -c 'echo "rank \$SLURM_PROCID \$(hostname)"' | sort -n -k2
JOB
"$cl" slurm sbatch --wait "$out/place.sh" || fail "place: the job failed"
cat "$out"/place-*.out
grep -q 'hosts from the Slurm job (SLURM_JOB_NODELIST=pknode\[0-3\])' "$out"/place-*.out && grep -q 'topology from Slurm (scontrol show topology): 4 hosts, leaf switches holding them: 2' "$out"/place-*.out ||
  fail "place: inside the job, the tool did not take Slurm's tree and the job's nodes"
i=0
while read -r h; do
  grep -qx "rank $i $h" "$out"/place-*.out || fail "place: rank $i did not run on $h, the host its hostfile line names"
  i=$((i + 1))
done <"$out/hostfile"
pass "place: inside a job, Slurm's tree and the job's nodes; srun --distribution=arbitrary ran each rank on its hostfile host"

# outside a job: run --rankfile, hosts out of order and repeated (Slurm 24.11 waited for ever on such a hostfile)
printf 'rank 0=pknode0 slot=0\nrank 1=pknode1 slot=0\nrank 2=pknode0 slot=1\nrank 3=pknode1 slot=1\nrank 4=pknode2 slot=0\nrank 5=pknode3 slot=0\nrank 6=pknode2 slot=1\nrank 7=pknode3 slot=1\n' >"$out/rankfile-mixed"
timeout 120 "$cl" run 8 2 --rankfile "$out/rankfile-mixed" sh -c 'echo "rank $SLURM_PROCID $(hostname)"' >"$out/mixed.txt" 2>&1 ||
  { cat "$out/mixed.txt"; fail "rankfile: run --rankfile failed or did not start in 120 s"; }
sort -n -k2 "$out/mixed.txt"
printf 'rank 0 pknode0\nrank 1 pknode1\nrank 2 pknode0\nrank 3 pknode1\nrank 4 pknode2\nrank 5 pknode3\nrank 6 pknode2\nrank 7 pknode3\n' >"$out/mixed-want.txt"
sort -n -k2 "$out/mixed.txt" | diff "$out/mixed-want.txt" - >/dev/null ||
  fail "rankfile: the ranks did not run on the hosts the rankfile names"
pass "rankfile: run --rankfile outside a job, hosts out of order: each rank on its host"

# the calibration under srun, one rank per node: off-node values, and the per-hop latency on Slurm's tree
"$cl" run 4 1 "$root/bin/pipekrylov-calibrate" -quick -o "$out/cal.profile" >"$out/cal.txt" 2>&1 || { tail -20 "$out/cal.txt"; fail "calibrate: under srun failed"; }
grep -E '^Topology|^  hop_latency' "$out/cal.txt"
grep -q "^Topology: the switch tree from Slurm (the tasks' SLURM_TOPOLOGY_ADDR): 3 switches, 4 nodes; 4 of this run's 4 nodes found by name" "$out/cal.txt" || bad "calibrate: the tree from Slurm was not used"
grep -qE '^alpha_off_short = [0-9]' "$out/cal.profile" && grep -qE '^hop_latency = [0-9]' "$out/cal.profile" || bad "calibrate: the profile has no off-node alpha or hop latency"
[ "$status" = 0 ] && pass "calibrate: under srun, 4 nodes found in Slurm's tree; the profile has alpha_off and hop_latency"

# down: no daemon, namespace or state left
pids=$(cat "$PK_CLUSTER_DIR"/slurm/*.pid 2>/dev/null | tr -cd '0-9\n')
prefix=$("$cl" status | sed -n 's/^state .*, names \([a-z0-9]*\) .*/\1/p')
"$cl" down || fail "down: failed"
for p in $pids; do [ ! -d "/proc/$p" ] || fail "down: daemon pid $p ($(cat "/proc/$p/comm" 2>/dev/null)) still runs"; done
[ "$(ip netns list | awk '{print $1}' | grep -cE "^${prefix}(-|[0-9])")" = 0 ] || fail "down: namespaces of $prefix left"
[ ! -e "$PK_CLUSTER_DIR" ] || fail "down: $PK_CLUSTER_DIR left"
pass "down: munged, slurmctld and the slurmds stopped by their pids ($(echo "$pids" | wc -w)), no namespace or state left"

# Open MPI's launcher still, when asked for
"$cl" up 2 --launcher openmpi >"$out/up-ompi.txt" 2>&1 || { cat "$out/up-ompi.txt"; fail "openmpi: up 2 --launcher openmpi failed"; }
grep -q "launcher: Open MPI's mpiexec" "$out/up-ompi.txt" || fail "openmpi: up did not say its launcher"
"$cl" run 2 1 "$root/build/examples/poisson27" -rows_per_rank 1000 -ksp_type pcg -ksp_converged_reason >"$out/ompi.txt" 2>&1 && grep -q CONVERGED_RTOL "$out/ompi.txt" ||
  { cat "$out/ompi.txt"; fail "openmpi: a run through mpiexec failed"; }
"$cl" slurm sinfo >"$out/no-slurm.txt" 2>&1 && fail "openmpi: '$cl slurm' ran on a cluster without Slurm"
grep -q 'runs without Slurm' "$out/no-slurm.txt" || fail "openmpi: '$cl slurm' did not say why it cannot run"
"$cl" down >/dev/null || fail "openmpi: down failed"
pass "openmpi: --launcher openmpi runs through mpiexec; 'slurm' says the cluster has no Slurm"

# the default, where Slurm is installed: Slurm
(unset PK_CLUSTER_LAUNCHER; "$cl" up 2 >"$out/up-default.txt" 2>&1) || { cat "$out/up-default.txt"; fail "default: up 2 failed"; }
grep -q "launcher: Slurm" "$out/up-default.txt" || { cat "$out/up-default.txt"; fail "default: up 2 did not choose Slurm"; }
"$cl" down >/dev/null || fail "default: down failed"
pass "default: up without --launcher runs Slurm where it is installed"
exit "$status"
