# shellcheck shell=bash
# tests/run: alone (times solvers)
# The benchmark harness, quickly: bench/krylov on a tiny problem with one repeat prints its tables (times are not
# checked, only that the table is there), skips configurations it cannot run, and bench/run formats the summary.
# Also: the chunked SpMV's row-grouped kernels still equal MatMult bit for bit (the set-up self-check falls back
# to MatMult on any difference, and -ksp_view says which path runs).
BK=$PK_BUILD/bench/krylov
BK_TINY="-rows_per_rank 512 -its 20 -repeats 1 -min_repeats 1 -time_budget 0 -stream_n 100000"
# a pairing row: label, ranks, time, reference, ratio, [q25, q75]
t_grep bench-smoke-table '^pcg +1 +[0-9.]+ +cg +[0-9.]+ +\[[0-9.]+, [0-9.]+\]' $BK $BK_TINY
t_grep bench-smoke-config-table '^cg +1 +[0-9]+ +[0-9.]+ .*CONVERGED_RTOL' $BK $BK_TINY -configs "pcg;cg" -monitor_overhead 0
t_grep bench-smoke-fixed-its '^cg +1 +20 +[0-9.]+ ' $BK $BK_TINY -rtol 0 -configs "pcg;cg" -monitor_overhead 0
t_grep bench-smoke-bytes 'pcg achieved: [0-9.]+ GB/s total' $BK $BK_TINY -configs "pcg;cg" -monitor_overhead 0
t_grep bench-smoke-skip 'nosuchtype +1 .*skipped: KSPSetType' $BK $BK_TINY -configs "pcg;nosuchtype" -monitor_overhead 0 -stream_n 0
t_grep bench-smoke-unknown-option 'cg +1 .*skipped: option -ksp_no_such_option' $BK $BK_TINY -configs "pcg;cg -ksp_no_such_option 3" -monitor_overhead 0 -stream_n 0
t_grep bench-smoke-np2 '^pcg +2 +[0-9.]+ +cg ' "$PK_ROOT/tests/mpirun.sh" 2 $BK $BK_TINY -configs "pcg;cg" -monitor_overhead 0
t_grep bench-smoke-summary '^\| pcg \| 1 \| 512 \| [0-9.]+ \| cg \| [0-9.]+ \[' bash -c "f=\$(mktemp) && $BK $BK_TINY -configs 'pcg;cg' -monitor_overhead 0 -tsv \$f >/dev/null && bash $PK_ROOT/bench/run --table \$f md; rc=\$?; rm -f \$f; exit \$rc"
for np in 1 2 4; do
  t_grep bench-spmv-exact-varcoef-np$np 'SpMV: chunked' "$PK_ROOT/tests/mpirun.sh" $np $PK_BUILD/examples/poisson27 -problem varcoef -n 37 -ksp_type pcg -ksp_max_it 3 -ksp_view
  t_grep bench-spmv-exact-poisson27-np$np 'SpMV: chunked' "$PK_ROOT/tests/mpirun.sh" $np $PK_BUILD/examples/poisson27 -rows_per_rank 343 -ksp_type pcg -ksp_max_it 3 -ksp_view
done
# the row kernel's width (2 or 4 rows per step; both checked bit for bit against MatMult at set-up, above): timed in
# the first 6 applications, then the faster kept and named in -ksp_view
t_grep bench-spmv-width-kept 'SpMV row kernel: [24] rows per step, the faster on this operator \(timed: 2 rows [0-9.e+-]+ s, 4 rows [0-9.e+-]+ s' "$PK_ROOT/tests/mpirun.sh" 2 $PK_BUILD/examples/poisson27 -rows_per_rank 343 -ksp_type pcg -ksp_max_it 10 -ksp_view
t_grep bench-spmv-width-timing 'SpMV row kernel: 2 and 4 rows per step still being timed' "$PK_ROOT/tests/mpirun.sh" 2 $PK_BUILD/examples/poisson27 -rows_per_rank 343 -ksp_type pcg -ksp_max_it 2 -ksp_view
# bench/accuracy on a smoke scale (one round, one node, tiny sizes): its tables are printed (figures not checked)
acc_smoke() {
  env SMOKE=1 SETUPS=node SIZES=512 PCS=jacobi TYPES="pcg pipecg pgmres" ACCURACY_DIR="$PK_BUILD/tests/accuracy" bash "$PK_ROOT/bench/accuracy"
}
# the readers below need that run's reports: made here when a filtered run (make check TESTS=...) left it out
acc_smoke_ready() { [ -s "$PK_BUILD/tests/accuracy/node-512-jacobi-pipecg-r1.csv" ] || acc_smoke >/dev/null 2>&1; }
export -f acc_smoke acc_smoke_ready
t_grep bench-accuracy-smoke '^\| node \| [0-9.]+% \| [0-9.]+% \| [0-9.]+% \|' acc_smoke
t_grep bench-accuracy-tables 'self-model gap .*\| 512 \| jacobi \| pipecg \|.*cross-prediction \|error\|.*\| pcg \| - \|.*AMG cycle model against.*### summary' \
  bash -c "acc_smoke_ready && bash $PK_ROOT/bench/accuracy --analyze $PK_BUILD/tests/accuracy | tr '\n' ' '"
# the other readers of those reports (bench/crosstype.py; bench/smpi/analyze.py, here on two of them laid out as a
# simulated run's directory, pcg's as two rounds, and an autocg run made here) print their tables: they share
# accuracy.py's readers, and once failed to import
bench_smpi_analyze() {
  local d rc
  acc_smoke_ready && d=$(mktemp -d) || return 1
  mkdir "$d/node" && cp "$PK_BUILD/tests/accuracy/node-512-jacobi-pcg-r1.csv" "$d/node/512-2-pcg.csv" &&
    cp "$PK_BUILD/tests/accuracy/node-512-jacobi-pcg-r1.csv" "$d/node/512-2-pcg.r2.csv" &&
    cp "$PK_BUILD/tests/accuracy/node-512-jacobi-pipecg-r1.csv" "$d/node/512-2-pipecg.csv" &&
    "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 512 -pc_type jacobi -ksp_type autocg \
      -ksp_autocg_types pcg,pipecg -ksp_perfmodel_view "ascii:$d/node/512-2-autocg.csv:ascii_csv" >/dev/null &&
    /usr/bin/python3 "$PK_ROOT/bench/smpi/analyze.py" "$d" | tr '\n' ' '
  rc=${PIPESTATUS[0]}
  rm -rf "$d"
  return "$rc"
}
export -f bench_smpi_analyze
t_grep bench-crosstype-tables '### node, 512 rows per rank, jacobi: per iteration.*\| pipecg \| [0-9]+ \| [0-9.]+ \|' \
  bash -c "acc_smoke_ready && /usr/bin/python3 $PK_ROOT/bench/crosstype.py $PK_BUILD/tests/accuracy | tr '\n' ' '"
t_grep bench-smpi-analyze-tables '### node, 512 rows per rank: simulated KSPSolve per iteration \(us, median of 2 rounds\).*\| pcg \| [0-9.]+\*? \|.*autocg .*- 2 ranks: chose (pcg|pipecg); its solve [0-9.]+x the fastest.*### summary.*\| [0-9.]+ \| [0-9.]+ \|' bench_smpi_analyze
# bench/noise, smoke: one solver, one level, one noisy repeat; its table row and the CSV for the plot
t_grep bench-smoke-noise '^\| poisson27 \| 2 ranks on 1 node \| pcg \| 200us@500Hz \| [0-9.]+ \| [0-9.]+ \| -?[0-9.]+% \|' env BENCH_QUICK=1 TYPES=pcg LEVELS=200,500 ROWS=512 bash "$PK_ROOT/bench/noise"
