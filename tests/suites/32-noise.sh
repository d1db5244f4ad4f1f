# shellcheck shell=bash
# tests/run: alone (injects and measures noise)
# Noise injection (issue 13): -ksp_perf_noise <us>,<hz>[,<seed>], -ksp_perf_noise_ranks, KSPPerfNoiseSet.
# tests/noise.c: the same solve with and without noise gives the same iterations and bit-for-bit the same solution;
# no detour starts inside an MPI call (PMPI wrappers in the test count the depth of MPI calls) or in a wait; the
# detours cost what the injector counts, in CPU and in wall time: over 9 interleaved pairs of a quiet and a noisy
# solve, the least noisy solve less its detours against the least quiet solve, within 25% of the injected time. The
# detours take about half of the noisy solve (f d = 0.95, 100 us at 9.5 kHz: the duty cycle is bounded below 1,
# issue 19; with f d = 20 they took 95% of it and load mattered less), so the quiet part's own variation counts for
# about as much as the detours': a median of per-pair ratios read 0.85 beside two other suites; the least of each
# side is robust (tests/noise.c -help: 3.5-6.3% idle, up to 15.5% beside two CPU hogs).
NZ=$PK_BUILD/tests/noise
EX=$PK_BUILD/examples/poisson27
NPROB="-problem poisson27 -rows_per_rank 4096 -pc_type jacobi"
for type in pcg sapcg nbpcg pipecg pipe2cg pgmres cg gmres groppcg; do
  t_grep noise-bitwise-$type-np2 "noise ok:" "$PK_ROOT/tests/mpirun.sh" 2 $NZ $NPROB -ksp_type $type
done
t_grep noise-bitwise-pipe2cg-np4 "noise ok:" "$PK_ROOT/tests/mpirun.sh" 4 $NZ $NPROB -ksp_type pipe2cg -noise_us 50 -noise_hz 2000
t_grep noise-rank1-only-np2 "rank 0: 0 detours" "$PK_ROOT/tests/mpirun.sh" 2 $NZ $NPROB -ksp_type pipecg -ksp_perf_noise_ranks 1 -noise_hz 4000
t_grep noise-rank1-has-np2 "rank 1: [1-9][0-9]* detours" "$PK_ROOT/tests/mpirun.sh" 2 $NZ $NPROB -ksp_type pipecg -ksp_perf_noise_ranks 1 -noise_hz 4000
# Poisson arrivals at the asked rate, per rank: the count against frequency x compute time (outside detours and
# outside halo and reduction waits; a long solve, so that the arrivals lost at its end, after the last compute phase,
# stay few). Two noisy ranks wait for each other's detours: that waiting made detours too (issue 19), and at a duty
# cycle near 1 the solve ran away; at 0.9 the counts must still follow the compute time alone.
t_grep noise-poisson-rate-np2 "noise ok:" "$PK_ROOT/tests/mpirun.sh" 2 $NZ -problem poisson27 -rows_per_rank 27000 -pc_type jacobi -ksp_type pcg -noise_us 50 -noise_hz 5000 -rate_check
t_grep noise-high-duty-no-runaway-np2 "noise ok:" "$PK_ROOT/tests/mpirun.sh" 2 $NZ -problem poisson27 -rows_per_rank 27000 -pc_type jacobi -ksp_type pcg -noise_us 100 -noise_hz 9000 -rate_check
# what the detours cost, in CPU and in wall time, against what the injector counted: 9 interleaved pairs of a quiet and
# a noisy solve, the least of each side (robust on a loaded machine: tests/noise.c says why), 100 us at 9.5 kHz (f d =
# 0.95, the detours about half of the noisy solve)
t_grep noise-cost-np1 "noise ok:" $NZ -problem poisson27 -rows_per_rank 8000 -pc_type jacobi -ksp_type pcg -noise_us 100 -noise_hz 9500 -cost_check -cost_pairs 9
# the report: injected time per rank, measured slowdown against the quiet solve before, predicted slowdown
t_grep noise-report-np2 "predicted slowdown [0-9.]+ \(E\[T\], blocking" "$PK_ROOT/tests/mpirun.sh" 2 $NZ $NPROB -ksp_type pcg -ksp_perfmodel_view -noise_hz 2000
t_grep noise-report-ref-np2 "the last noise-free solve of this KSP" "$PK_ROOT/tests/mpirun.sh" 2 $NZ $NPROB -ksp_type pipecg -repeat 1 -ksp_perfmodel_view
# several quiet solves before: their median is the reference (one slow quiet solve biased every slowdown)
t_grep noise-report-ref-median-np2 "the median of the last noise-free solves of this KSP" "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -ksp_type pcg -nsolves 4 -ksp_perf_noise 100,1000 -ksp_perf_noise_skip 3 -ksp_perfmodel_view
# alternating after the skip (noisy, quiet, noisy, quiet): of 5 solves with 1 skipped, solves 1 and 3 are noisy, so
# two reports carry the noise rows and the -ksp_view line says so
noise_alternate_rows() {
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -pc_type jacobi -ksp_type pcg -nsolves 5 -ksp_perf_noise 100,1000 -ksp_perf_noise_skip 1 -ksp_perf_noise_alternate -ksp_perfmodel_view ::ascii_csv) || return 1
  n=$(echo "$out" | grep -c '^noise,slowdown_measured,')
  echo "noisy solves: $n"
}
t_grep noise-alternate-np2 "^noisy solves: 2$" noise_alternate_rows
t_grep noise-alternate-ksp-view "then in every second solve" $EX -rows_per_rank 512 -ksp_type pcg -ksp_perf_noise 100,300 -ksp_perf_noise_alternate -ksp_view
t_grep noise-report-csv-np2 "^noise,slowdown_predicted,[0-9.]+,,ETprime" "$PK_ROOT/tests/mpirun.sh" 2 $NZ $NPROB -ksp_type pipecg -ksp_perfmodel_view ::ascii_csv
t_grep noise-report-csv-rows-np2 "^noise,slowdown_measured,[0-9.]+,,measured" "$PK_ROOT/tests/mpirun.sh" 2 $NZ $NPROB -ksp_type pcg -ksp_perfmodel_view ::ascii_csv
# the stochastic rows stay as they are beside the noise rows (issue 13): the same names, units and statuses
noise_csv_rows() {
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/tests/noise" -problem poisson27 -rows_per_rank 4096 -pc_type jacobi -ksp_type pcg -ksp_perfmodel_view ::ascii_csv) || return 1
  for re in '^stochastic,ET,[0-9.e+-]+,s,modelled$' '^stochastic,ETprime,[0-9.e+-]+,s,modelled$' '^stochastic,measured_iterations,[0-9.e+-]+,s,measured$' \
            '^noise,injected_s,[0-9.e+-]+,s,measured$' '^noise,slowdown_measured,[0-9.]+,,measured$' '^noise,slowdown_predicted,[0-9.]+,,ET$'; do
    echo "$out" | grep -Eq "$re" || { echo "no row /$re/"; return 1; }
  done
  echo "stochastic and noise rows"
}
t_grep noise-report-csv-stochastic-np2 "^stochastic and noise rows" noise_csv_rows
# noise from the options alone (no quiet solve before): the analytic model is the reference
t_grep noise-options-model-ref-np2 "analytic model, injected time taken out" "$PK_ROOT/tests/mpirun.sh" 2 $EX -rows_per_rank 4096 -pc_type jacobi -ksp_type pcg -ksp_perf_noise 200,500,3 -ksp_perfmodel_view
t_grep noise-help "ksp_perf_noise_ranks:? <" $EX -rows_per_rank 512 -ksp_type pcg -ksp_perf_noise 10,10 -help
t_grep noise-ksp-view "noise injection: 100 us detours at 300 Hz \(Poisson, seed 5 \+ rank\) in the compute phases of rank\(s\) 1" "$PK_ROOT/tests/mpirun.sh" 2 $EX -rows_per_rank 512 -ksp_type pcg -ksp_perf_noise 100,300,5 -ksp_perf_noise_ranks 1 -ksp_view
t_fail noise-bad-option "needs <duration_us>,<frequency_hz>" $EX -rows_per_rank 512 -ksp_type pcg -ksp_perf_noise 100
t_fail noise-bad-rank "rank 5 is not in \[0, 2\)" "$PK_ROOT/tests/mpirun.sh" 2 $EX -rows_per_rank 512 -ksp_type pcg -ksp_perf_noise 100,300 -ksp_perf_noise_ranks 5
# slow ranks: noise on rank 1 only (blocking solvers: in the pipelined ones a rank's wait for a slow neighbour
# partly hides in its polled overlap window and counts as busy, see src/perf/models/slowranks.c); the report must
# name rank 1. 20 us at 45 kHz puts several detours in nearly every iteration on any processor and nearly doubles
# its compute; 200 us at 10 kHz hit only about half the iterations, at the edge of the test (it failed in CI).
# 150 iterations (a fixed count): under load rank 0's busy time is disturbed too, and PETSc's cg counts its waits in
# the dot products as busy; the KS test's critical share falls with the iterations (41% at 55, 28% at 150), so a
# disturbed run still names rank 1 (55 iterations missed it once in CI; 58% was seen here at 4x oversubscription)
SLOWIT="-ksp_max_it 150 -ksp_rtol 1e-30"
t_grep slow-rank-pcg-np2 "rank 1 \(node 0\): .*costs" "$PK_ROOT/tests/mpirun.sh" 2 $EX -rows_per_rank 8000 -pc_type jacobi -ksp_type pcg $SLOWIT -ksp_perf_noise 20,45000 -ksp_perf_noise_ranks 1 -ksp_perfmodel_view
t_grep slow-rank-cg-np2 "rank 1 \(node 0\): .*costs" "$PK_ROOT/tests/mpirun.sh" 2 $EX -rows_per_rank 8000 -pc_type jacobi -ksp_type cg $SLOWIT -ksp_perf_noise 20,45000 -ksp_perf_noise_ranks 1 -ksp_perfmodel_view
# two emulated nodes of one rank (4 ranks on 2 shared cores are too loaded to tell anything here)
t_grep slow-rank-node-np2 "node 1: all its ranks are slow" "$PK_ROOT/tests/mpirun.sh" 2 $EX -rows_per_rank 8000 -pc_type jacobi -ksp_type pcg $SLOWIT -ksp_perf_noise 20,45000 -ksp_perf_noise_ranks 1 -ksp_perf_node_size 1 -ksp_perfmodel_view
t_grep slow-rank-csv-np2 "^slowrank,1," "$PK_ROOT/tests/mpirun.sh" 2 $EX -rows_per_rank 8000 -pc_type jacobi -ksp_type sapcg $SLOWIT -ksp_perf_noise 20,45000 -ksp_perf_noise_ranks 1 -ksp_perfmodel_view ::ascii_csv
# nothing left allocated: the noise-free reference kept per KSP and per run, the report's per-rank arrays
t_grep noise-malloc-dump-np2 'nothing unfreed' "$PK_ROOT/tests/mallocdump.sh" 2 $EX -rows_per_rank 512 -ksp_type pipecg -nsolves 3 -ksp_perf_noise 100,1000 -ksp_perf_noise_skip 1 -ksp_perf_noise_ranks 1 -ksp_perfmodel_view ascii:/dev/null:ascii_info_detail
# the slowdown model (pure functions) against exact values and Monte Carlo
t_grep noise-model-unit "noise model ok" $PK_BUILD/tests/noise_model

# Bounds (issue 19): finite values, a detour of at most 1 s, at most 1e6 Hz, a duty cycle (us x Hz x 1e-6) below 1,
# at most three values, an integer seed; a bare -ksp_perf_noise is an error, not "off". Each of these hung, ran away
# or was silently cut.
for bad in "50,inf:must be finite" "1e-300,1e300:frequency must be in \[0, 1e\+06\] Hz" "1e12,1e12:detour duration must be in \[0, 1e\+06\] us" \
           "100,15000:duty cycle, duration x frequency = .* = 1.5, must be below 1" "50,100,7,9:got more than 3: 4 value" "50,100,1.5:seed must be an integer"; do
  t_fail "noise-bound-${bad%%:*}" "ksp_perf_noise.*${bad#*:}" $EX -rows_per_rank 512 -ksp_type pcg -ksp_perf_noise "${bad%%:*}"
done
t_fail noise-bound-bare "ksp_perf_noise needs <duration_us>,<frequency_hz>\[,<seed>\], got none" $EX -rows_per_rank 512 -ksp_type pcg -ksp_perf_noise
t_fail noise-bound-api "KSPPerfNoiseSet: the duty cycle, duration x frequency = .* = 1.5, must be below 1" $NZ $NPROB -ksp_type pcg -noise_us 100 -noise_hz 15000
