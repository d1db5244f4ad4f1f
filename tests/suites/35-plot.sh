# bin/pipekrylov-plot draws a trace; a file that is not a trace, or a missing one, gives a clear error.
plot_trace() {
  d=$(mktemp -d)
  "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type pipecg -nsolves 2 -ksp_perf_trace "$d/t.csv" >/dev/null || return 1
  "$PK_ROOT/bin/pipekrylov-plot" "$d/t.csv" -o "$d/t.png" && file "$d/t.png" | grep -q PNG && echo "png written"; rc=$?
  rm -rf "$d"; return $rc
}
if /usr/bin/python3 -c 'import numpy, matplotlib' 2>/dev/null; then
  t_grep plot-trace 'png written' plot_trace
  t_fail plot-not-a-trace 'is not a pipekrylov trace' sh -c "f=\$(mktemp); echo 'a,b' > \$f; echo '1,2' >> \$f; $PK_ROOT/bin/pipekrylov-plot \$f; rc=\$?; rm -f \$f; exit \$rc"
  t_fail plot-missing-file 'cannot read the trace' $PK_ROOT/bin/pipekrylov-plot /nonexistent/trace.csv
else
  skip plot-trace "python3-numpy or python3-matplotlib not installed (make deps installs them)"
fi
