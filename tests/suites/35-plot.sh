# shellcheck shell=bash
# bin/pipekrylov-plot: every figure is drawn from small inputs (a 2-rank trace and its report's CSV, the kernels
# example's CSV, a noise CSV) as PNG and SVG, and the files are checked (exist, non-empty, PNG magic / SVG root);
# a file that is not a trace, a missing one, an empty one and a non-numeric solve column give clear errors.

# Inputs, made once per build into build/tests/plot-inputs (remade when the library, the tool or this suite is newer)
plot_inputs() {
  local d=$PK_BUILD/tests/plot-inputs
  if [ ! -f "$d/ok" ] || [ "$PK_LIB" -nt "$d/ok" ] || [ "$PK_ROOT/bin/pipekrylov-plot" -nt "$d/ok" ] || [ "$PK_ROOT/tests/suites/35-plot.sh" -nt "$d/ok" ]; then
    rm -rf "$d" && mkdir -p "$d" || return 1
    "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type pipecg -pc_type jacobi -nsolves 2 \
      -ksp_perf_trace "$d/t.csv" -ksp_perfmodel_view "ascii:$d/r.csv:ascii_csv" -ksp_perf_papi_events none >/dev/null || return 1
    "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi \
      -ksp_perf_trace "$d/t2.csv" -ksp_perfmodel_view "ascii:$d/r2.csv:ascii_csv" -ksp_perf_papi_events none >/dev/null || return 1
    "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/kernels" -its 2 -tests 1 -sizes 8,4096,65536 -wait_us 20 -csv "$d/k.csv" >/dev/null || return 1
    printf 'problem,config,solver,level,slowdown_measured,slowdown_predicted,duration_us,frequency_hz\np27,2 ranks,pcg,50us@100Hz,1.02,1.03,50,100\np27,2 ranks,pcg,1ms@50Hz,1.12,1.10,1000,50\np27,2 nodes,pcg,1ms@50Hz,1.2,1.1,1000,50\nl1d,2 ranks,pipecg,50us@100Hz,1.01,1.01,50,100\nl1d,2 ranks,pipecg,1ms@50Hz,1.05,1.06,1000,50\n' > "$d/n.csv"
    printf 'solver,level,slowdown_measured,slowdown_predicted\ngmres,low,1.1,1.2\ngmres,high,1.5,1.4\n' > "$d/n2.csv"
    grep -v '^measured,window\.' "$d/r.csv" > "$d/rold.csv" # a report from before the window.* rows
    printf 'kernel,mode,bytes,msgs,ranks,nodes,wait_s,post_s,t_iter_s,t_model_s\nallreduce,blocking,8,1,2,1,0,0,2e-6,1.5e-6\nallreduce,blocking,4096,1,2,1,0,0,5e-6,4e-6\nallreduce,blocking,1048576,1,2,1,0,0,4e-4,3e-4\n' > "$d/k0.csv"
    # reports whose KSPSolve (slowest rank) is 10% above and below the stack of set-up, mean phases and finish; set
    # from the stack, not from the run's KSPSolve: on a loaded machine a rank slow in set-up makes the other wait in
    # its first halo, and the stack (its set-up plus the mean waits) can exceed the measured KSPSolve by 10% itself
    for f in above:1.1 below:0.9; do
      awk -F, -v OFS=, -v k="${f#*:}" 'NR == FNR { if ($1 == "measured" && ($2 == "setup" || $2 == "finish" || $2 ~ /^phase\./) && $3 > 0) st += $3; next }
        $1 == "measured" && $2 == "ksp_solve" { $3 = sprintf("%.9e", st * k) } 1' "$d/r2.csv" "$d/r2.csv" > "$d/r${f%%:*}.csv" || return 1
    done
    # a pipelined trace with three iterations far above the rest (descheduled), for what the overlap figure clips
    { echo "solve,rank,node,iter,t_iter_s,t_spmv_s,t_pc_s,t_vec_s,t_halo_s,t_reduce_s,t_overlap_s,red_n,red_early,red_tests"
      for r in 0 1; do for k in $(seq 1 30); do
        o=$((100 + (k * 7 + r * 3) % 11)); case $k in 8) o=400;; 17) o=260;; 25) o=900;; esac
        echo "0,$r,0,$k,$((o + 12))e-6,0,0,10e-6,0,2e-6,${o}e-6,1,1,3"
      done; done; } > "$d/tclip.csv"
    touch "$d/ok"
  fi
  echo "$d"
}
# png_ok FILE / svg_ok FILE: exists, non-empty, PNG signature / an <svg> root element
png_ok() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "bad PNG: $1"; return 1; }; }
svg_ok() { [ -s "$1" ] && head -c 4096 "$1" | grep -q '<svg' && tail -c 100 "$1" | grep -q '</svg>' || { echo "bad SVG: $1"; return 1; }; }
export -f plot_inputs png_ok svg_ok

plot_trace() {
  d=$(plot_inputs) || return 1; o=$(mktemp -d)
  "$PK_ROOT/bin/pipekrylov-plot" "$d/t.csv" -o "$o/t.png" && png_ok "$o/t.png" && echo "png written"; rc=$?
  rm -rf "$o"; return $rc
}
# every figure into a directory, PNG and SVG
plot_all() {
  d=$(plot_inputs) || return 1; o=$(mktemp -d)/figs
  "$PK_ROOT/bin/pipekrylov-plot" "$d/t.csv" --report "$d/r.csv" --report "$d/r2.csv" --kernels "$d/k.csv" --noise "$d/n.csv" --figure all -o "$o" || return 1
  for f in overview heatmap distribution overlap model kernels noise; do png_ok "$o/$f.png" && svg_ok "$o/$f.svg" || return 1; done
  echo "7 figures, png and svg"; rm -rf "$(dirname "$o")"
}
# one figure to a named file, its format from the extension
plot_one() {
  d=$(plot_inputs) || return 1; o=$(mktemp -d); fig=$1; ext=$2; shift 2
  "$PK_ROOT/bin/pipekrylov-plot" "$@" --figure "$fig" -o "$o/x.$ext" || return 1
  if [ "$ext" = png ]; then png_ok "$o/x.$ext"; else svg_ok "$o/x.$ext"; fi || return 1
  [ "$(ls "$o")" = "x.$ext" ] && echo "$fig: one $ext"; rc=$?; rm -rf "$o"; return $rc
}
plot_one_in() { # the arguments, @ standing for the inputs' directory (no argument holds a blank)
  local args
  d=$(plot_inputs) || return 1; f=$1; e=$2; shift 2
  read -r -a args <<<"$(echo "$@" | sed "s|@|$d/|g")"
  plot_one "$f" "$e" "${args[@]}"
}
# the node of each rank from --node-size when asked (the heatmap's labels say n<k>)
plot_node_size() {
  d=$(plot_inputs) || return 1; o=$(mktemp -d)
  "$PK_ROOT/bin/pipekrylov-plot" "$d/t.csv" --figure heatmap --node-size 1 -o "$o/h.svg" && grep -q '1 (n1)' "$o/h.svg" && echo "rank 1 on node 1"; rc=$?
  rm -rf "$o"; return $rc
}
# two KSPs given one trace (issue 9: the ksp column): their solve 0 rows must not be mixed; the default is the KSP of
# the last row (2 iterations; KSP 0 took 3), --ksp picks the other, the title says which
plot_two_ksps() {
  local o rc
  o=$(mktemp -d)
  { echo "solve,ksp,rank,node,iter,t_iter_s,t_spmv_s,t_pc_s,t_vec_s,t_halo_s,t_reduce_s,t_overlap_s"
    for k in 1 2 3; do echo "0,0,0,0,$k,1e-4,0,0,1e-4,0,0,0"; done
    for k in 1 2; do echo "0,1,0,0,$k,2e-4,0,0,2e-4,0,0,0"; done; } > "$o/t.csv"
  "$PK_ROOT/bin/pipekrylov-plot" "$o/t.csv" --solve 0 --figure heatmap -o "$o/a.svg" &&
    "$PK_ROOT/bin/pipekrylov-plot" "$o/t.csv" --ksp 0 --figure heatmap -o "$o/b.svg" &&
    grep -q 'ksp 1 of 2, solve 0, 1 ranks on 1 node(s), 2 iterations' "$o/a.svg" &&
    grep -q 'ksp 0 of 2, solve 0, 1 ranks on 1 node(s), 3 iterations' "$o/b.svg" && echo "one KSP per figure"
  rc=$?; rm -rf "$o"; return $rc
}
export -f plot_two_ksps
# integer rank ticks: the rank axes of the overview (panel 4) and of the heatmap show whole ranks only
plot_rank_ticks() {
  d=$(plot_inputs) || return 1
  /usr/bin/python3 - "$PK_ROOT/bin/pipekrylov-plot" "$d/t.csv" <<'PY'
import runpy, shutil, sys, tempfile
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
figs = []
# each figure is saved twice (png and svg): keep each once, in the order drawn
plt.Figure.savefig = lambda self, *a, **k: None if any(f is self for f in figs) else figs.append(self)
script, trace = sys.argv[1], sys.argv[2]
out = tempfile.mkdtemp()
sys.argv = ["pipekrylov-plot", trace, "--figure", "overview,heatmap", "-o", out]
try:
    runpy.run_path(script)
finally:
    shutil.rmtree(out)
axes = [figs[0].axes[3].xaxis, figs[1].axes[0].yaxis]
for ax in axes:
    lo, hi = sorted(ax.get_view_interval())
    ticks = [t for t in ax.get_majorticklocs() if lo <= t <= hi]
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
print("integer rank ticks")
PY
}
# plot_check CHECK ARGS...: draw ARGS (@ = the inputs' directory) without drawing into files (the tool's files,
# empty, go to a directory removed after), then run the Python CHECK on the figures drawn (figs, in order; each
# once); CHECK prints what the test greps for
plot_check() {
  local args
  d=$(plot_inputs) || return 1; check=$1; shift
  read -r -a args <<<"$(echo "$@" | sed "s|@|$d/|g")"
  /usr/bin/python3 - "$PK_ROOT/bin/pipekrylov-plot" "$check" "$d" "${args[@]}" <<'PY'
import os, runpy, shutil, sys, tempfile
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
figs = []
plt.Figure.savefig = lambda self, *a, **k: None if any(f is self for f in figs) else figs.append(self)
script, check, inputs = sys.argv[1:4]
out = tempfile.mkdtemp()
sys.argv = ["pipekrylov-plot"] + sys.argv[4:] + ["-o", out + "/"]
try:
    runpy.run_path(script)
finally:
    shutil.rmtree(out)
exec(check)
PY
}
# the bench's noise table (6 solvers, 2 configurations, 2 problems, levels from 0.5% to 10% of the time): one panel
# per problem and configuration, one colour per solver in every panel, a legend of solvers (not of 24 series), a log
# axis for levels that span a decade
plot_noise_readable() {
  d=$(plot_inputs) || return 1
  { echo "problem,config,solver,level,duration_us,frequency_hz,slowdown_measured,slowdown_predicted"
    for p in poisson27 laplace1d; do for c in "2 ranks" "2 nodes"; do for s in pcg nbpcg pipecg pipe2cg gmres pgmres; do
      echo "$p,$c,$s,50us@100Hz,50,100,1.01,1.01"; echo "$p,$c,$s,200us@500Hz,200,500,1.12,1.1"; echo "$p,$c,$s,1ms@50Hz,1000,50,1.06,1.05"
    done; done; done; } > "$d/nbench.csv"
  plot_check '
ax = [a for a in figs[0].axes if a.lines]
assert len(ax) == 4, len(ax)
colour = {}
for a in ax:
    assert a.get_xscale() == "log", a.get_xscale()
    c = [l.get_color() for l in a.lines if l.get_linestyle() == "-" and l.get_marker() == "o"]
    assert len(c) == 6 and len(set(map(str, c))) == 6, c
    for i, x in enumerate(c):
        assert colour.setdefault(i, str(x)) == str(x), "a solver changes colour between panels"
n = sum(len(a.get_legend().get_texts()) for a in figs[0].axes if a.get_legend())
assert n == 8, n
print("noise: 4 panels, 6 solver colours, 8 legend entries, log axis")' --noise @nbench.csv --figure noise
}
# a blocking solver (pcg) has no window: no overlap figure, and standard error says why; with --figure all the
# others are written; asked for alone, nothing is written and the tool fails
plot_overlap_blocking() {
  d=$(plot_inputs) || return 1; o=$(mktemp -d)
  "$PK_ROOT/bin/pipekrylov-plot" "$d/t2.csv" --report "$d/r2.csv" --figure all --format png -o "$o" 2>"$o/err" >/dev/null &&
    grep -q 'no overlap figure: the trace has no overlap window' "$o/err" && [ ! -e "$o/overlap.png" ] && png_ok "$o/distribution.png" &&
    ! "$PK_ROOT/bin/pipekrylov-plot" "$d/t2.csv" --figure overlap -o "$o/x.png" 2>"$o/err1" && [ ! -e "$o/x.png" ] &&
    grep -q 'no overlap figure' "$o/err1" && grep -q 'no figure written' "$o/err1" && echo "blocking: overlap skipped, reason given"
  rc=$?; rm -rf "$o"; return $rc
}
# a picture never replaces an input: ARGS are run in a fresh directory holding the trace as tr.png and as x.svg
# (with a hard link hl.svg and a symbolic link sl.svg to x.svg), the report as r.svg; the tool must fail, leave
# every file as it was and write no other
plot_keeps_inputs() { # ARGS...
  local d o rc before after
  d=$(plot_inputs) || return 1; o=$(mktemp -d)
  cp "$d/t.csv" "$o/tr.png" && cp "$d/t.csv" "$o/x.svg" && ln "$o/x.svg" "$o/hl.svg" && ln -s x.svg "$o/sl.svg" && cp "$d/r.csv" "$o/r.svg" || return 1
  mkdir "$o/figs" && cp "$d/t.csv" "$o/figs/heatmap.svg" || return 1
  before=$(cd "$o" && find . | sort && cat ./*.png ./*.svg figs/* | md5sum)
  (cd "$o" && "$PK_ROOT/bin/pipekrylov-plot" "$@") 2>&1; rc=$?
  after=$(cd "$o" && find . | sort && cat ./*.png ./*.svg figs/* | md5sum)
  rm -rf "$o"
  [ $rc != 0 ] || { echo "FAIL: succeeded"; return 1; }
  [ "$before" = "$after" ] || { echo "FAIL: files changed: $before / $after"; return 1; }
  echo "inputs kept"
}
# a report with nan and inf (a model without inputs, a failed measurement): n/a in the figures, never "nan"
plot_nan_inputs() {
  d=$(plot_inputs) || return 1
  awk -F, -v OFS=, '$1 == "analytic" && $2 == "total" { $3 = "nan" } 1' "$d/r2.csv" > "$d/rnan.csv"
  awk -F, -v OFS=, '$1 == "measured" && $2 == "ksp_solve" { $3 = "-nan" } $1 == "stochastic" && $2 == "ET" { $3 = "inf" } 1' "$d/r.csv" > "$d/rmnan.csv"
}
# Ctrl-C: status 130, no traceback, no picture. The trace is a FIFO: once the shell has opened it for writing, the
# tool is reading it (past its imports), so the signal comes while it is blocked in a read that no more input will
# end: the case where a signal handler that only sets a flag loses the signal (seen: 4 hangs in 30). The tool runs with
# SIGINT's default action, as from a terminal (a background job of a script would ignore it). A tool still alive 30 s
# after the signal fails the test (the FIFO is closed then, so that it ends) rather than hanging the suite.
plot_sigint() {
  local o pid rc k
  o=$(mktemp -d); mkfifo "$o/t.csv" || return 1
  env --default-signal=INT "$PK_ROOT/bin/pipekrylov-plot" "$o/t.csv" -o "$o/t.png" >"$o/out" 2>&1 &
  pid=$!
  exec 3>"$o/t.csv"
  echo "solve,rank,node,iter,t_iter_s" >&3
  kill -INT "$pid"
  for ((k = 0; k < 300; k++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && echo "FAIL: still running 30 s after SIGINT"
  exec 3>&-
  wait "$pid"; rc=$?
  cat "$o/out"; echo "exit status $rc"
  [ $k -lt 300 ] && [ $rc = 130 ] && [ ! -s "$o/out" ] && [ "$(ls -A "$o")" = "$(printf 'out\nt.csv')" ]; rc=$?
  rm -rf "$o"; return $rc
}
plot_nan() { plot_nan_inputs && plot_check "$@"; }
export -f plot_one plot_one_in plot_check plot_keeps_inputs plot_nan_inputs plot_nan
# the distribution figure with the report: the fit it prints is the report's, parameter by parameter (%.17g both)
plot_fit_report() {
  local d o
  d=$(plot_inputs) || return 1; o=$(mktemp -d)
  "$PK_ROOT/bin/pipekrylov-plot" "$d/t.csv" --report "$d/r.csv" --figure distribution -o "$o/d.png" >"$o/out" || { cat "$o/out"; rm -rf "$o"; return 1; }
  cat "$o/out"
  /usr/bin/python3 - "$o/out" "$d/r.csv" <<'PY'
import re, sys
line = [l for l in open(sys.argv[1]) if "all ranks and iterations" in l][0]
assert "the report's fit" in line, line
got = [float(v) for v in re.findall(r"(?:gamma|delta|xi|lambda) (\S+)", line)]
blocks, cur = [], {}
for l in open(sys.argv[2]):
    p = l.strip().split(",")
    if p[0] == "stochastic" and p[1].startswith("bulk_"):
        cur[p[1]] = float(p[2])
    if p[:2] == ["end", "report"]:
        blocks.append(cur); cur = {}
want = [[b[k] for k in ("bulk_gamma", "bulk_delta", "bulk_xi", "bulk_lambda")] for b in blocks if "bulk_gamma" in b]
assert want and got in want, (got, want)
print("the report's fit drawn, equal to its CSV")
PY
  local rc=$?; rm -rf "$o"; return $rc
}
# without a report: the library's fit of each of the three samples, through pipekrylov-fit
plot_fit_library() {
  local d o n
  d=$(plot_inputs) || return 1; o=$(mktemp -d)
  "$PK_ROOT/bin/pipekrylov-plot" "$d/t.csv" --figure distribution -o "$o/d.png" >"$o/out" 2>&1; cat "$o/out"
  n=$(grep -c "the library's fit (pipekrylov-fit): gamma" "$o/out"); rm -rf "$o"
  [ "$n" = 3 ] && echo "library fit: $n figures"
}
# a copy of the plot beside a pipekrylov-fit that others may write: never run (it would leave a mark), the figure
# drawn without the curve and the reason said
plot_fit_untrusted() {
  local d o rc
  d=$(plot_inputs) || return 1; o=$(mktemp -d)
  cp "$PK_ROOT/bin/pipekrylov-plot" "$o/" && printf '#!/bin/sh\ntouch %s/ran\n' "$o" >"$o/pipekrylov-fit" && chmod 777 "$o/pipekrylov-fit" || return 1
  "$o/pipekrylov-plot" "$d/t.csv" --figure distribution -o "$o/d.png" >"$o/out" 2>&1; rc=$?
  cat "$o/out"
  [ ! -e "$o/ran" ] && [ $rc = 0 ] && png_ok "$o/d.png" && echo "not run: $(grep -o 'writable only by its owner' "$o/out" | head -1)"
  rc=$?; rm -rf "$o"; return $rc
}
# pipekrylov-fit itself: a sample of a known Johnson SU law (5000 points) gives its parameters back; too few values
# no fit; what is not a finite number an error naming its position, nothing on standard output
fit_known() {
  /usr/bin/python3 -c '
import numpy as np
z = np.random.default_rng(7).standard_normal(5000)
print("\n".join(repr(float(v)) for v in 2e-4 + 3e-5 * np.sinh((z + 1.0) / 1.5)))' | "$PK_ROOT/bin/pipekrylov-fit" | tee /dev/stderr |
    awk '$1 == "johnsonsu" && $7 == 5000 && $2 > -1.2 && $2 < -0.8 && $3 > 1.3 && $3 < 1.7 && $4 > 1.9e-4 && $4 < 2.1e-4 && $5 > 2.6e-5 && $5 < 3.4e-5 && $6 < 0.02 { print "known law recovered" }'
}
export -f fit_known
export -f plot_fit_report plot_fit_library plot_fit_untrusted
if /usr/bin/python3 -c 'import numpy, matplotlib' 2>/dev/null; then
  t_grep plot-trace 'png written' plot_trace
  t_grep plot-all-figures '7 figures, png and svg' plot_all
  t_grep plot-distribution-svg 'distribution: one svg' plot_one_in distribution svg @t.csv --report @r.csv
  t_grep plot-model-svg 'model: one svg' plot_one_in model svg --report @r.csv --report @r2.csv
  t_grep plot-kernels-png 'kernels: one png' plot_one_in kernels png --kernels @k.csv
  t_grep plot-noise-labels 'noise: one png' plot_one_in noise png --noise @n2.csv
  t_grep plot-node-size 'rank 1 on node 1' plot_node_size
  # a noise CSV with 3 of its 4 (problem, configuration) pairs: 3 panels, none empty, one x range (the levels) for
  # all, and every point off the frame (a margin)
  t_grep plot-noise-panels 'noise: 3 panels, one x range, margins' plot_check '
ax = [a for a in figs[0].axes if a.get_title()]
assert len(ax) == 3 and all(a.lines for a in ax), [a.get_title() for a in ax]
assert not any(t.get_text() == "no runs" for a in figs[0].axes for t in a.texts)
assert len({a.get_xlim() for a in ax}) == 1 and len({a.get_ylim() for a in ax}) == 1, [a.get_xlim() for a in ax]
for a in ax:
    for l in a.lines:
        if l.get_marker() in ("o", "x"):
            for xy in a.transAxes.inverted().transform(a.transData.transform(l.get_xydata())):
                assert 0.02 < xy[0] < 0.98 and 0.02 < xy[1] < 0.98, (a.get_title(), xy)
print("noise: 3 panels, one x range, margins")' --noise @n.csv --figure noise
  t_grep plot-rank-ticks 'integer rank ticks' plot_rank_ticks
  # the overview names the node of each colour of its per-rank bars (two nodes with --node-size 1)
  t_grep plot-overview-nodes 'overview: node legend matches the bars' plot_check '
a = figs[0].axes[3]
lg = a.get_legend()
assert lg and [t.get_text() for t in lg.get_texts()] == ["node 0", "node 1"], lg and [t.get_text() for t in lg.get_texts()]
bars = sorted(a.patches, key=lambda p: p.get_x())
hs = getattr(lg, "legend_handles", None) or lg.legendHandles  # the name before matplotlib 3.7
assert [tuple(p.get_facecolor()) for p in bars] == [tuple(h.get_facecolor()) for h in hs]
print("overview: node legend matches the bars")' @t.csv --figure overview --node-size 1
  t_grep plot-noise-readable 'noise: 4 panels, 6 solver colours, 8 legend entries, log axis' plot_noise_readable
  # the heatmap's rank label fits beside its axes on a 2-rank trace (the short figure)
  t_grep plot-heatmap-label 'rank label fits' plot_check '
a = figs[0].axes[0]; r = figs[0].canvas.get_renderer()
assert a.yaxis.label.get_window_extent(r).height <= a.get_window_extent(r).height, a.yaxis.label.get_text()
print("rank label fits")' @t.csv --figure heatmap
  # the overlap figure takes the report of the trace's run (a pipecg trace, its report and a pcg one after it):
  # what ran inside its windows as the recorder measured it (window.* rows), the SpMV first
  t_grep plot-overlap-inside 'window of the trace.s report, spmv inside' plot_check '
a = figs[0].axes[2]
last = {}
for l in open(inputs + "/r.csv"):
    f = l.split(",")
    if l.startswith("measured,window."): last[f[1]] = float(f[2])
win = sum(last.values()) * 1e3
assert f"({win:.3g} ms)" in a.get_title(), (a.get_title(), win)
assert a.get_yticklabels()[0].get_text() == "spmv" and a.containers[0][0].get_width() > 0, "no spmv inside the window"
print("window of the trace\x27s report, spmv inside")' @t.csv --report @r.csv --report @r2.csv --figure overlap
  # a report without window.* rows (before they existed): work.* less phase.*, said in the title
  t_grep plot-overlap-old-report 'old report: work less phase' plot_check '
a = figs[0].axes[2]
assert "work.* less phase.*" in a.get_title(), a.get_title()
print("old report: work less phase")' @t.csv --report @rold.csv --figure overlap
  # kernels times that span decades (no busy wait): log axes, sizes in bytes with binary prefixes
  t_grep plot-kernels-log 'kernels: log axes, sizes in Ki' plot_check '
a = figs[0].axes[0]; figs[0].canvas.draw()
assert a.get_yscale() == "log" and a.get_xscale() == "log"
assert any(t.get_text().endswith(" Ki") for t in a.get_xticklabels()), [t.get_text() for t in a.get_xticklabels()]
print("kernels: log axes, sizes in Ki")' --kernels @k0.csv --figure kernels
  # kernels with busy waits: one legend for the figure (the panels' curves are alike), and the times less each row's
  # busy waits (wait_s + post_s), so the communication is not squeezed above 40 µs of waits; the axis says so
  t_grep plot-kernels-comm 'kernels: one legend, times less the busy waits' plot_check '
from matplotlib.legend import Legend
f = figs[0]
n = len(f.legends) + sum(1 for a in f.axes for c in a.get_children() if isinstance(c, Legend))
assert n == 1, n
rows = [l.strip().split(",") for l in open(inputs + "/k.csv")]
h = rows[0]; rows = [dict(zip(h, r)) for r in rows[1:]]
want = sorted((float(r["t_iter_s"]) - float(r["wait_s"]) - float(r["post_s"])) * 1e6 for r in rows if r["kernel"] == "allreduce" and r["mode"] == "blocking")
a = f.axes[0]
got = sorted(next(l for l in a.lines if l.get_label() == "blocking, measured").get_ydata())
assert all(abs(g - w) <= 1e-9 + 1e-9 * abs(w) for g, w in zip(got, want)) and len(got) == len(want), (got, want)
assert "less the busy waits" in a.get_ylabel(), a.get_ylabel()
print("kernels: one legend, times less the busy waits")' --kernels @k.csv --figure kernels
  # the model's legend lists the activities in the order they are stacked, whichever report has them (a pipecg
  # report applies no PC: its pc segment comes from the pcg report after it); one colour per activity in both bars
  # (measured spmv = model spmv, halo wait = halo.postal, reduction wait = allr.comm), no colour for two activities,
  # the communication colours apart from the compute ones; the difference between the stack and the KSPSolve line
  # is written beside it, as the reports give it
  t_grep plot-model-colours 'model: stack order, one colour per activity, delta shown' plot_check '
import re
a = figs[0].axes[0]
names = [t.get_text().split(" (")[0] for t in a.get_legend().get_texts()]
order = ["set-up", "spmv", "pc", "vec", "halo wait", "halo.postal", "halo.queue", "halo.overlap", "reduction wait", "allr.comm", "allr.local",
         "sync", "overlap window", "overlap", "init", "finish", "measured KSPSolve", "model total"]
assert "pc" in names and all(n in order for n in names) and names == sorted(names, key=order.index), names
same = {"measured:halo": "halo.postal", "measured:reduce": "allr.comm"}
act = {}
for p in a.patches:
    g = p.get_gid()
    if g:
        act.setdefault(tuple(p.get_facecolor()), set()).add(same.get(g, g.split(":")[1]))
assert all(len(v) == 1 for v in act.values()), act
col = {next(iter(v)): k for k, v in act.items()}
comm = {col[k] for k in col if k.startswith(("halo", "allr")) or k == "sync"}
assert comm and not comm & {col[k] for k in ("spmv", "pc", "vec")}
def last_block(path):
    blk = {}
    for l in open(path):
        p = l.strip().split(",")
        if p[0] == "section": blk = {}
        elif len(p) > 2: blk[(p[0], p[1])] = p[2]
    return blk
want = []
for f in ("r.csv", "r2.csv", "rabove.csv", "rbelow.csv"):
    b = last_block(inputs + "/" + f)
    m = float(b[("measured", "ksp_solve")])
    st = sum(max(0.0, float(b[("measured", k)])) for k in ("setup", "finish")) + sum(max(0.0, float(v)) for (s, k), v in b.items() if s == "measured" and k.startswith("phase."))
    if abs(m - st) > 0.002 * m: want.append((m - st) * 1e3)
got = [float(re.match(r"Δ ([-+0-9.e]+) ms", t.get_text()).group(1)) for t in a.texts if t.get_gid() == "delta"]
assert len(got) == len(want) >= 2 and all(abs(g - w) <= 0.01 * abs(w) for g, w in zip(got, want)), (got, want)
assert got[-2] > 0 > got[-1], got
print("model: stack order, one colour per activity, delta shown")' --report @r.csv --report @r2.csv --report @rabove.csv --report @rbelow.csv --figure model
  # the overlap figure's statement of what goes off the axis agrees with its y limit (the bars above it, each marked),
  # and its legend is outside the axes, clear of the bars
  t_grep plot-overlap-clipped 'overlap: 3 clipped, as the title says; legend clear' plot_check '
import re
a = figs[0].axes[0]; r = figs[0].canvas.get_renderer()
top = a.get_ylim()[1]
tot = {}
for p in a.patches:
    tot[round(p.get_x() + p.get_width() / 2)] = max(tot.get(round(p.get_x() + p.get_width() / 2), 0), p.get_y() + p.get_height())
above = sorted(k for k, v in tot.items() if v > top)
m = re.match(r"(\d+) iteration\(s\) above ([0-9.]+) µs go off the axis", a.get_title())
assert m, a.get_title()
assert int(m.group(1)) == len(above) == 3 and abs(float(m.group(2)) - top) <= 1e-3 * top, (a.get_title(), top, above)
marks = [l for l in a.lines if l.get_marker() == "^"]
assert marks and sorted(marks[0].get_xdata()) == above, "each clipped bar is marked"
lb, ab = a.get_legend().get_window_extent(r), a.get_window_extent(r)
assert lb.y1 <= ab.y0, "the legend overlaps the bars"
print("overlap: 3 clipped, as the title says; legend clear")' @tclip.csv --figure overlap
  # a blocking solver (pcg) has no window: no overlap figure, and stderr says why; with --figure all the others
  # are written; asked alone, nothing is written and it fails
  t_grep plot-overlap-blocking 'blocking: overlap skipped, reason given' plot_overlap_blocking
  # the distribution's legends hide no histogram bar, and the report's times are drawn per iteration on the µs axis
  # (whole-solve seconds / K), not as a box of seconds over the bars
  t_grep plot-distribution-report 'distribution: report per iteration, legends clear' plot_check '
from matplotlib.legend import Legend
f = figs[0]; r = f.canvas.get_renderer()
for ax in f.axes:
    bars = [p.get_window_extent(r) for p in ax.patches if p.get_height() > 0]
    legs = [c.get_window_extent(r) for c in ax.get_children() if isinstance(c, Legend)]
    for l in legs:
        assert not any(l.overlaps(b) for b in bars), "a legend hides bars"
    assert not any(l.overlaps(m) for l in legs for m in legs if l is not m), "legends overlap"
blk, rep = {}, {}
for l in open(inputs + "/r.csv"):
    p = l.strip().split(",")
    if p[0] == "section":
        blk = {}
    elif len(p) > 2:
        blk[(p[0], p[1])] = p[2]
        if blk.get(("run", "solve")) == "1": rep = blk
K = float(rep[("run", "iterations")])
want = sorted(float(rep[("stochastic", k)]) / K * 1e6 for k in ("measured_iterations", "ET", "ETprime"))
a = f.axes[0]
got = sorted(l.get_xdata()[0] for l in a.lines if l.get_gid() == "mark")
assert len(got) == 3 and all(abs(g - w) <= 1e-6 * w for g, w in zip(got, want)), (got, want)
lo, hi = a.get_xlim(); assert all(lo < g < hi for g in got), (got, lo, hi)
assert not any(" s\n" in t.get_text() or t.get_text().startswith("report:") for t in a.texts)
print("distribution: report per iteration, legends clear")' @t.csv --report @r.csv --figure distribution
  t_grep plot-two-ksps 'one KSP per figure' plot_two_ksps
  # one Johnson SU fit, the library's: with a report the plot draws the report's own (its CSV's bulk_* rows, in full),
  # without one it asks pipekrylov-fit; a tool it may not trust is not run
  t_grep plot-fit-is-the-reports 'the report.s fit drawn, equal to its CSV' plot_fit_report
  t_grep plot-fit-library 'library fit: 3 figures' plot_fit_library
  t_grep plot-fit-untrusted-tool 'not run: .*writable only by its owner' plot_fit_untrusted
  t_grep fit-known-law 'known law recovered' fit_known
  t_grep fit-too-few '^none 3$' sh -c "echo 1 2 3 | $PK_ROOT/bin/pipekrylov-fit"
  t_fail fit-not-a-number "value 3 'inf': not a finite number" sh -c "printf '1 2 inf 4' | $PK_ROOT/bin/pipekrylov-fit"
  t_fail fit-long-token 'value 1: longer than 64 characters' sh -c "printf '%080d' 1 | $PK_ROOT/bin/pipekrylov-fit"
  t_fail fit-argument 'takes no argument' $PK_ROOT/bin/pipekrylov-fit values.txt
  t_grep plot-input-png-default-output "the default output tr.png \(the input's name with .png\) is an input, tr.png: a figure would replace it; nothing written" plot_keeps_inputs tr.png
  t_grep plot-o-is-input "-o names an input, x.svg: a figure would replace it" plot_keeps_inputs x.svg -o x.svg
  t_grep plot-o-is-input-other-path "-o names an input, x.svg" plot_keeps_inputs x.svg -o figs/../x.svg
  t_grep plot-o-is-input-hard-link "-o names an input, x.svg" plot_keeps_inputs x.svg -o hl.svg
  t_grep plot-o-is-input-symlink "-o names an input, sl.svg" plot_keeps_inputs sl.svg -o x.svg
  t_grep plot-o-is-report "-o names an input, r.svg" plot_keeps_inputs --report r.svg --figure model -o r.svg
  t_grep plot-o-dir-holds-input "-o names an input, figs/heatmap.svg" plot_keeps_inputs figs/heatmap.svg --figure overview,heatmap -o figs
  t_grep plot-nan-model 'model: nan and inf shown as n/a' plot_nan '
import re
a = figs[0].axes[0]
texts = [t.get_text() for t in a.texts]
assert not any(re.search(r"\b(nan|inf)\b", t, re.I) for t in texts), texts
gaps = [t.get_text() for t in a.texts if t.get_gid() == "gap"]
assert gaps == ["model total n/a", "n/a"], gaps
assert "KSPSolve n/a" in texts, texts
print("model: nan and inf shown as n/a")' --report @rnan.csv --report @rmnan.csv --figure model
  t_grep plot-nan-distribution 'distribution: nan and inf shown as n/a' plot_nan '
import re
a = figs[0].axes[0]
labels = [t.get_text() for t in a.get_legend().get_texts()] if a.get_legend() else []
labels += [t.get_text() for c in a.get_children() if hasattr(c, "get_texts") for t in c.get_texts()]
assert not any(re.search(r"\b(nan|inf)\b", t, re.I) for t in labels + [a.get_title()]), (labels, a.get_title())
assert "KSPSolve n/a in all" in a.get_title(), a.get_title()
marks = [l for l in a.lines if l.get_gid() == "mark"]
assert len(marks) == 2, len(marks)
print("distribution: nan and inf shown as n/a")' @t.csv --report @rmnan.csv --figure distribution
  t_grep plot-sigint 'exit status 130' plot_sigint
  t_fail plot-no-such-ksp 'no ksp 5 in .* \(ksps 0, 1\)' sh -c "f=\$(mktemp); printf 'solve,ksp,rank,node,iter,t_iter_s,t_spmv_s,t_pc_s,t_vec_s,t_halo_s,t_reduce_s,t_overlap_s\n0,0,0,0,1,1e-4,0,0,0,0,0,0\n0,1,0,0,1,1e-4,0,0,0,0,0,0\n' > \$f; $PK_ROOT/bin/pipekrylov-plot \$f --ksp 5 -o \$f.png; rc=\$?; rm -f \$f \$f.png; exit \$rc"
  t_fail plot-not-a-trace 'is not a pipekrylov trace' sh -c "f=\$(mktemp); echo 'a,b' > \$f; echo '1,2' >> \$f; $PK_ROOT/bin/pipekrylov-plot \$f; rc=\$?; rm -f \$f; exit \$rc"
  t_fail plot-missing-file 'cannot read the pipekrylov trace' $PK_ROOT/bin/pipekrylov-plot /nonexistent/trace.csv
  t_fail plot-empty-file 'is empty' sh -c "f=\$(mktemp); $PK_ROOT/bin/pipekrylov-plot \$f; rc=\$?; rm -f \$f; exit \$rc"
  t_fail plot-header-only 'has a header but no rows' sh -c "f=\$(mktemp); printf 'solve,rank,node,iter,t_iter_s,t_spmv_s,t_pc_s,t_vec_s,t_halo_s,t_reduce_s,t_overlap_s\n' > \$f; $PK_ROOT/bin/pipekrylov-plot \$f; rc=\$?; rm -f \$f; exit \$rc"
  t_fail plot-nan-solve 'line 3: the solve column is not a number' sh -c "f=\$(mktemp); printf 'solve,rank,node,iter,t_iter_s,t_spmv_s,t_pc_s,t_vec_s,t_halo_s,t_reduce_s,t_overlap_s\n0,0,0,1,1e-4,0,0,0,0,0,0\nnan,0,0,2,1e-4,0,0,0,0,0,0\n' > \$f; $PK_ROOT/bin/pipekrylov-plot \$f; rc=\$?; rm -f \$f; exit \$rc"
  t_fail plot-unknown-figure "unknown figure 'pie'" $PK_ROOT/bin/pipekrylov-plot --noise /dev/null --figure pie
  t_fail plot-figure-needs-input "figure 'model' needs --report" sh -c "d=\$(mktemp -d); printf 'solver,level,slowdown_measured,slowdown_predicted\na,1,1,1\n' > \$d/n.csv; $PK_ROOT/bin/pipekrylov-plot --noise \$d/n.csv --figure model; rc=\$?; rm -rf \$d; exit \$rc"
  t_fail plot-not-a-report 'is not a pipekrylov report in CSV form' sh -c "f=\$(mktemp); echo 'x,y' > \$f; $PK_ROOT/bin/pipekrylov-plot --report \$f; rc=\$?; rm -f \$f; exit \$rc"
  t_fail plot-bad-extension 'must end in .png or .svg' sh -c "d=\$(mktemp -d); printf 'solver,level,slowdown_measured,slowdown_predicted\na,1,1,1\n' > \$d/n.csv; $PK_ROOT/bin/pipekrylov-plot --noise \$d/n.csv -o \$d/x.jpg; rc=\$?; rm -rf \$d; exit \$rc"
else
  skip plot-trace "python3-numpy or python3-matplotlib not installed (make deps installs them)"
fi
