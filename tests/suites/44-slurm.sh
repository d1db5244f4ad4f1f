# shellcheck shell=bash
# tests/run: alone (the emulated cluster)
# Slurm on the emulated cluster: bin/pipekrylov-cluster up --launcher slurm starts munged, slurmctld and a slurmd per
# node; srun, sbatch, the report's switch tree from Slurm, the placement tool and the calibration inside it, and
# down. tests/slurm-cluster.sh does the work on one cluster (about a minute) and prints a PASS or FAIL line per check;
# each test here is one of those lines. SKIP where root, network namespaces or Slurm are missing.
export SLD=$PK_BUILD/tests/slurm
mkdir -p "$SLD"
t_fail slurm-bad-launcher "--launcher must be slurm or openmpi, got 'pbs'" "$PK_ROOT/bin/pipekrylov-cluster" up 2 --launcher pbs
checks="up topology srun report tutorial sbatch place rankfile calibrate down openmpi default"
why=""
if [ "$(id -u)" != 0 ]; then why="not root: the emulated cluster needs root for network namespaces"
elif ! command -v ip >/dev/null 2>&1 || ! command -v tc >/dev/null 2>&1; then why="iproute2 (ip, tc) is not installed"
elif ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then why="Slurm is not installed (apt-get install slurm-wlm munge; make deps)"
elif ! ip netns add "pkprobe$$" >/dev/null 2>&1; then why="network namespaces cannot be created here"
else ip netns del "pkprobe$$"
fi
if [ -n "$why" ]; then
  for n in $checks; do skip "slurm-$n" "$why"; done
else
  # one run of the script for all the checks, when one of them is selected (tests/run -k)
  slurm_run() { [ -f "$SLD/result.txt" ] || sh "$PK_ROOT/tests/slurm-cluster.sh" "$SLD" >"$SLD/result.txt" 2>&1; cat "$SLD/result.txt"; }
  rm -f "$SLD/result.txt"
  t_grep slurm-up "PASS: up: munged, slurmctld and 4 slurmds" slurm_run
  t_grep slurm-topology "PASS: topology: Slurm's own tree" slurm_run
  t_grep slurm-srun "PASS: srun: task k on pknodek" slurm_run
  t_grep slurm-report "PASS: report: switch tree from Slurm without a file" slurm_run
  t_grep slurm-tutorial "PASS: tutorial: PETSc's ex2 with -dll_append under srun" slurm_run
  t_grep slurm-sbatch "PASS: sbatch: a batch job sruns poisson27" slurm_run
  t_grep slurm-place "PASS: place: inside a job, Slurm's tree and the job's nodes" slurm_run
  t_grep slurm-rankfile "PASS: rankfile: run --rankfile outside a job" slurm_run
  t_grep slurm-calibrate "PASS: calibrate: under srun, 4 nodes found in Slurm's tree" slurm_run
  t_grep slurm-down "PASS: down: munged, slurmctld and the slurmds stopped by their pids" slurm_run
  t_grep slurm-openmpi "PASS: openmpi: --launcher openmpi runs through mpiexec" slurm_run
  t_grep slurm-default "PASS: default: up without --launcher runs Slurm" slurm_run
fi
