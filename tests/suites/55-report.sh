# shellcheck shell=bash
# The end-of-solve report (-ksp_perfmodel_view): for all six solvers and PETSc's cg and gmres (and groppcg,
# petsc_pipecg), on 1, 2 and 4 ranks, the CSV form is complete and its analytic terms add up to the total
# (tests/report_check.py); the readable forms print their sections; profiles are read or rejected clearly.
R=$PK_ROOT/tests/report.sh
EX=$PK_BUILD/examples
for np in 1 2 4; do
  for typ in pcg sapcg nbpcg pipecg pipe2cg cg groppcg petsc_pipecg; do
    t report-$typ-np$np $R $np $typ
  done
  t report-pgmres-np$np $R $np pgmres -problem convdiff -n 40
  t report-gmres-np$np $R $np gmres -problem convdiff -n 40
done
# -ksp_perfmodel_summary: one summary over all solves (at KSPDestroy here), the report rendered at solves 1, 2, 4
summary_text() { # 5 solves: one summary, one report (the 4th solve's, index 3), the totals 5 x the solve's count
  local out its
  out=$("$PK_ROOT/tests/mpirun.sh" "$1" "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type "$2" -pc_type jacobi -nsolves 5 -ksp_perfmodel_summary 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  its=$(echo "$out" | sed -n 's/.*CONVERGED_RTOL, \([0-9]*\) iterations.*/\1/p' | head -1)
  [ "$(echo "$out" | grep -c 'pipekrylov performance summary: KSP ('"$2"', PC jacobi, '"$1"' rank')" = 1 ] &&
    [ "$(echo "$out" | grep -c '^pipekrylov performance report')" = 1 ] &&
    echo "$out" | grep -q "^  iterations     $((5 * its)) in all; a solve $its min, $its.0 median, $its max; 5 of 5 converged" &&
    echo "$out" | grep -q 'the report of solve 3 follows' && echo "$out" | grep -q 'performance report: KSP '"$2"'.*, solve 3'
}
summary_csv() { # the CSV: the report's rows (checked as a report's), then the summary's, iterations summed
  local f=$PK_BUILD/tests/summary-$1.csv its
  rm -f "$f"
  "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type "$1" -pc_type jacobi -nsolves 3 -ksp_perfmodel_summary "ascii:$f:ascii_csv" || return 1
  /usr/bin/python3 "$PK_ROOT/tests/report_check.py" "$f" || return 1
  its=$(awk -F, '$1 == "run" && $2 == "iterations" { print $3 }' "$f")
  head -1 "$f" | grep -qx 'section,name,value,unit,status' && grep -qx 'summary,solves,3,count,measured' "$f" &&
    grep -qx "summary,iterations,$((3 * its)),count,measured" "$f" && grep -qx 'summary,report_solve,1,index,measured' "$f" &&
    grep -q '^summary,per_iteration_median,[0-9.e+-]*,s,measured$' "$f"
}
export -f summary_text summary_csv
t summary-text-pcg-np1 summary_text 1 pcg
t summary-text-pipe2cg-np2 summary_text 2 pipe2cg
t summary-text-petsc-cg-np2 summary_text 2 cg
t summary-csv-pipecg summary_csv pipecg
t_grep summary-with-view 'solve 2(.|\n)*performance summary(.|\n)*report of solve 1 follows' sh -c "$EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -nsolves 3 -ksp_perfmodel_view ::ascii_info -ksp_perfmodel_summary 2>&1 | tr '\\n' ' '"
t_grep summary-help '-ksp_perfmodel_summary: Print one summary over all solves' $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -help
t_grep summary-ksp-view 'summary \(-ksp_perfmodel_summary\)' $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_summary ascii:/dev/null -ksp_view
t_fail summary-bad-viewer '-ksp_perfmodel_summary supports ASCII viewers' $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_summary binary:x.bin
t_grep summary-dev-full 'ksp_perfmodel_summary: the summary could not be written to /dev/full: (No space left on device|Input/output error)' $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -nsolves 2 -ksp_perfmodel_summary ascii:/dev/full
t summary-malloc-dump sh -c "$PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type pipecg -nsolves 3 -ksp_perfmodel_summary ascii:/dev/null -malloc_dump > $PK_BUILD/tests/summary-md.out 2>&1; rc=\$?; cat $PK_BUILD/tests/summary-md.out; [ \$rc = 0 ] && ! grep -q 'unfreed\|Malloc' $PK_BUILD/tests/summary-md.out"
t report-repeated-solves sh -c "$R 2 pipecg -nsolves 3 | grep -c '^report' | grep -qx 3"
t report-node-size $R 4 pipe2cg -ksp_perf_node_size 2
t report-hypre $R 2 pcg -pc_type hypre
t_grep report-default-sections 'analytic model.*seconds(.|\n)*stochastic model \(001\)(.|\n)*predicted KSPSolve time of each change' \
  sh -c "$PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view | tr '\n' ' '"
for sec in 'measured KSPSolve' 'gap to the measured KSPSolve' 'measured overlap:' 'upper bounds of E\[T\]: Cramer' 'KS ranks [0-9]+, [0-9]+' \
           'what-if larger runs' 'machine profile: embedded default'; do
  name=$(echo "$sec" | tr -cd 'a-zA-Z' | cut -c1-24)
  t_grep report-has-$name "$sec" $PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view
done
# the progress calls' cost as this run timed it (every 7th call, with the monitor on): shown, in the CSV too
t_grep report-test-call-timed '[0-9.e+-]+ us each \([0-9]+ timed; the model uses them from 16' $PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 2000 -ksp_type nbpcg -pc_type jacobi -ksp_perfmodel_view
t_grep report-test-call-csv '^measured,test_call,[0-9.e+-]+,s,measured' $PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 2000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view ::ascii_csv
# posting each non-blocking reduction, timed: shown, in the CSV, and charged to the window it opens (work.overlap
# holds the posts: the mean rank's posts cost at most that), not to the vector work; a blocking type posts none
t_grep report-post-timed 'posting one \(MPI_Iallreduce\) [0-9.e+-]+ us \(all [0-9]+ timed' $PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 2000 -ksp_type nbpcg -pc_type jacobi -ksp_perfmodel_view
report_post_csv() {
  local out
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view ::ascii_csv) || return 1
  echo "$out" | grep '^measured,\(post_call\|work.overlap\|reductions.nonblocking\)'
  echo "$out" | awk -F, '$1 == "measured" && $2 == "post_call" { p = $3 } $1 == "measured" && $2 == "work.overlap" { w = $3 }
    $1 == "measured" && $2 == "reductions.nonblocking" { n = $3 }
    END { if (!(p > 0) || !(n > 0)) { print "no post_call or no reductions"; exit 1 }
          if (p * n > w * (1 + 1e-6) + 1e-12) { print "posts " p * n " s exceed work.overlap " w " s"; exit 1 }
          print "posts within the window: " p * n " <= " w }'
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view ::ascii_csv) || return 1
  ! echo "$out" | grep -q '^measured,post_call' || { echo "pcg posted a non-blocking reduction"; return 1; }
}
t report-post-csv report_post_csv
# a non-blocking type whose halo sends wait for a late receiver (the profile's sync_limit below its messages) is
# charged the neighbours' share of the gap every iteration, and the report says so; with sends that never wait, not
# (docs/models.md §2.2). 2 ranks of 2000 rows: 1.4-1.6 KB halo messages
report_sync_halo() {
  local f out
  f=$(mktemp) || return 1
  printf 'pipekrylov_machine_profile = 1\nsync_limit_on = 1\nsync_limit_off = 1\n' > "$f"
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view -ksp_perfmodel_machine "$f") || { rm -f "$f"; return 1; }
  echo "$out" | grep "halo's sends wait" || { rm -f "$f"; echo "no line with sync_limit 1"; return 1; }
  printf 'pipekrylov_machine_profile = 1\nsync_limit_on = 1048576\nsync_limit_off = 1048576\n' > "$f"
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view -ksp_perfmodel_machine "$f") || { rm -f "$f"; return 1; }
  rm -f "$f"
  ! echo "$out" | grep -q "halo's sends wait" || { echo "the line with sync_limit 1 MiB"; return 1; }
  echo "said where the sends wait, not where they do not"
}
t report-sync-halo report_sync_halo
# issue 9: as users run it (plain mpiexec binds each rank to its own core), no rank shares a core and the report
# must not say so; two ranks bound to one CPU do share it (taskset binds them, the same way under Open MPI 4 and 5)
t report-plain-mpiexec sh -c "$PK_ROOT/tests/usermpi.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type pipe2cg -pc_type jacobi -ksp_perfmodel_view > $PK_BUILD/tests/plain.out 2>&1 && grep -q 'gap to the measured KSPSolve' $PK_BUILD/tests/plain.out && ! grep -q 'share each core' $PK_BUILD/tests/plain.out"
t_grep report-shared-core '2 ranks share each core' $PK_ROOT/tests/usermpi.sh 2 --bind-to none taskset -c 0 $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view
# a matrix-free operator (SNES ex5 -snes_mf_operator): the report says what is unknown and every solve goes on
t report-matrix-free sh -c "$PK_ROOT/tests/mpirun.sh 2 $PK_BUILD/petsc-tutorials/snes-ex5 -dll_append $PK_LIB -snes_mf_operator -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view -snes_converged_reason > $PK_BUILD/tests/mf.out 2>&1; cat $PK_BUILD/tests/mf.out; grep -q 'CONVERGED_FNORM' $PK_BUILD/tests/mf.out && grep -q 'matrix-free: its nonzeros and halo are unknown' $PK_BUILD/tests/mf.out && ! grep -q 'PETSC ERROR' $PK_BUILD/tests/mf.out"
t_grep report-100-columns '^widest line [0-9]+: ok' sh -c "$PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type nbpcg -pc_type jacobi -ksp_perfmodel_view | awk '/pipekrylov performance report/{on=1} on && length > w {w = length} END {print \"widest line \" w \": \" (w <= 100 ? \"ok\" : \"too wide\")}'"
# the same for pipe2cg's accuracy policy and autocg's choice, its reasons after measured solves too
t_grep report-100-columns-pipe2cg-autocg '^widest line [0-9]+: ok' sh -c "for t in pipe2cg autocg; do $PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type \$t -ksp_autocg_explore 1000 -nsolves 3 -pc_type jacobi -ksp_perfmodel_view; done | awk '/pipekrylov performance report/{on=1} on && length > w {w = length} END {print \"widest line \" w \": \" (w <= 100 ? \"ok\" : \"too wide\")}'"
t_grep report-info-format 'best change|largest overhead' $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view ::ascii_info
t_grep report-detail-format 'spmv_per_nnz' $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view ::ascii_info_detail
t_grep report-to-file 'report 1: pcg' sh -c "f=\$(mktemp); $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view ascii:\$f:ascii_csv >/dev/null && /usr/bin/python3 $PK_ROOT/tests/report_check.py \$f; rm -f \$f"
# machine profiles: a good one is used and named; a malformed one is rejected with its line; no file is an error
good_profile() { f=$(mktemp); printf 'pipekrylov_machine_profile = 1\nalpha_on_short = 3e-6\nmem_bw = 1.2e10\n' > "$f"; "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view -ksp_perfmodel_machine "$f"; rc=$?; rm -f "$f"; return $rc; }
bad_profile() { f=$(mktemp); printf 'pipekrylov_machine_profile = 1\nalpha_on_short = -3e-6\n' > "$f"; "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view -ksp_perfmodel_machine "$f"; rc=$?; rm -f "$f"; return $rc; }
t_grep report-profile-used 'alpha_on_short +3e-06 +s +\[profile\]' good_profile
t_fail report-profile-malformed "line 2: .*alpha_on_short" bad_profile
t_fail report-profile-missing 'cannot open|Unable to open|not found|No such file' $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view -ksp_perfmodel_machine /nonexistent/machine.profile
# the issue's acceptance: PETSc's unmodified ex2 loaded with -dll_append prints the report
t_grep report-ex2-dll-pipecg 'pipekrylov performance report: KSP pipecg' $PK_ROOT/tests/mpirun.sh 2 $PK_BUILD/petsc-tutorials/ex2 -dll_append $PK_LIB -ksp_type pipecg -ksp_perfmodel_view
t_grep report-ex2-dll-cg 'pipekrylov performance report: KSP cg \(PETSc\)' $PK_ROOT/tests/mpirun.sh 2 $PK_BUILD/petsc-tutorials/ex2 -dll_append $PK_LIB -ksp_type cg -ksp_perfmodel_view
# issue 9: what can fail is checked at KSPSetFromOptions, before any solve, with its own error (inside the 3.18 event
# hooks every error read "out-of-range error code 1"); a bad profile is found without -ksp_perfmodel_view too
early_error() { # REGEX options...: fails with REGEX, from KSPSetFromOptions, before any iteration, no "error code 1"
  re=$1; shift
  out=$("$PK_BUILD/petsc-tutorials/ex2" -dll_append "$PK_LIB" -ksp_monitor "$@" 2>&1) && { echo "$out"; echo "expected an error"; return 1; }
  echo "$out"
  echo "$out" | grep -Eq "$re" && echo "$out" | grep -q "KSPSetFromOptions" && ! echo "$out" | grep -q "error code 1" && ! echo "$out" | grep -q "KSP Residual norm"
}
t report-early-binary-viewer early_error 'supports ASCII viewers.*not binary' -ksp_perfmodel_view binary:$PK_BUILD/tests/x.bin
t report-early-draw-viewer early_error 'supports ASCII viewers.*not draw' -ksp_perfmodel_view draw
t report-early-xml-format early_error 'supports the formats.*not ASCII_XML' -ksp_perfmodel_view ::ascii_xml
t report-early-profile-no-view early_error 'cannot read machine profile' -ksp_perfmodel_machine /nonexistent/machine.profile
t report-early-node-size early_error 'ksp_perf_node_size must be positive' -ksp_perf_monitor -ksp_perf_node_size -3
# ... this host's cached profile too, which the report uses without -ksp_perfmodel_machine: a broken one was read
# only after the solve, inside the hooks ("error code 1")
early_cached_profile() {
  local x p rc
  x=$(mktemp -d)
  p=$(XDG_CACHE_HOME=$x "$PK_ROOT/bin/pipekrylov-calibrate" -cache_path | tail -1)
  mkdir -p "$(dirname "$p")" && printf 'pipekrylov_machine_profile = 1\nalpha_on_short = banana\n' > "$p"
  XDG_CACHE_HOME=$x early_error "line 2: value 'banana' of 'alpha_on_short' is not a number" -ksp_perfmodel_view
  rc=$?; rm -rf "$x"; return $rc
}
export -f early_error early_cached_profile
t report-early-cached-profile early_cached_profile
# issue 11: the report's halo accounting from the operator's actual scatter, against hand-computed values. 2-D 64 x 64,
# 5-point, 16 ranks as 4 nodes x 4 (-ksp_perf_node_size 4): PETSc's 4 x 4 grid puts a 4 x 1 row of 16 x 16 blocks on
# each node: 3 node boundaries x 4 columns x 2 directions = 24 off-node messages of 16 values (128 bytes); a 2 x 2
# block per node: 2 boundaries x 4 x 2 = 16. All 24 neighbour pairs exchange both ways: 48 messages in all.
halo_rows() { "$PK_ROOT/tests/mpirun.sh" 16 "$PK_BUILD/tests/perfmon" -problem laplace2d -n 64 -ksp_type pcg -ksp_perf_node_size 4 -nsolves 1 -ksp_perfmodel_view ::ascii_csv -dump "$PK_BUILD/tests/halo.json" "$@" | grep -E '^(halo|run,nodes)' | sort -u | tr '\n' ' '; }
t_grep report-halo-default 'halo,offnode_bytes_total,3072,.*halo,offnode_msgs_total,24,.*halo,onnode_bytes_total,3072,.*halo,onnode_msgs_total,24,.*run,nodes,4,' halo_rows
t_grep report-halo-nodeaware 'halo,offnode_bytes_total,2048,.*halo,offnode_msgs_total,16,.*halo,onnode_msgs_total,32,.*run,nodes,4,' halo_rows -nodeaware
# the same counts for PETSc's own cg (the operator's scatter, whatever the solver)
t_grep report-halo-petsc-cg 'halo,offnode_bytes_total,3072,.*halo,offnode_msgs_total,24,.*halo,onnode_bytes_total,3072,.*halo,onnode_msgs_total,24,.*run,nodes,4,' halo_rows -ksp_type cg
# ... and the ranked changes suggest the node-aware layout, with the exact command, only where it cuts off-node bytes;
# here the slowest rank keeps 2 off-node messages in both layouts: the report says the model predicts no saving
# shellcheck disable=SC2120 # called with no argument here, with more where a test needs
place_report() { "$PK_ROOT/tests/mpirun.sh" 16 "$PK_BUILD/tests/perfmon" -problem laplace2d -n 64 -ksp_type pcg -ksp_perf_node_size 4 -nsolves 1 -ksp_perfmodel_view -ksp_perfmodel_machine "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" -dump "$PK_BUILD/tests/halo.json" "$@"; }
t_grep report-place-suggested 'node-aware DMDA \(off-node bytes 3072->2048\)' place_report
place_report_line() { place_report | tr '\n' ' '; }
export -f place_report place_report_line
t_grep report-place-command 'bin/pipekrylov-place --nodes 4 --ppn 4 --grid 64x64 --rankfile ranks.txt.*mpiexec -n 16 (--rankfile |--map-by rankfile:file=)ranks.txt <your application and its options> -da_processors_x 4 -da_processors_y 4.*model predicts no time saved' place_report_line
t report-place-not-when-placed sh -c "! { $PK_ROOT/tests/mpirun.sh 16 $PK_BUILD/tests/perfmon -problem laplace2d -n 64 -nodeaware -ksp_type pcg -ksp_perf_node_size 4 -nsolves 1 -ksp_perfmodel_view -dump $PK_BUILD/tests/halo.json | grep 'node-aware'; }"

# The ranked changes (issue 9): the ratio is >= 1 both ways, change time over the model for a slower change
# ("1.15x slower", never "0.87x slower"), the model over the change time for a faster one; checked by recomputing
report_ratios() {
  "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view |
    awk '/gap to the measured KSPSolve/ { m = $0; sub(/.*model /, "", m); sub(/ s,.*/, "", m); model = m + 0 }
         / -ksp_type [a-z0-9_]+ +[0-9.e+-]+ s +[0-9.]+x (faster|slower)$/ {
           t = $(NF-3) + 0; r = $(NF-1); sub(/x$/, "", r); r += 0; n++
           want = ($NF == "slower") ? t / model : model / t
           if (r < 1 || (r - want > 0.006 || want - r > 0.006)) { print "bad ratio: " $0 " (want " want ")"; bad = 1 }
         }
         END { if (!n || !model) { print "no ranked changes"; exit 1 } if (!bad) print "ranked ratios ok: " n " changes"; exit bad }'
}
export -f report_ratios
t_grep report-ranked-ratio-at-least-1 "ranked ratios ok" report_ratios
# Cross-solver predictions (issue 12): every solver's report predicts every other, PETSc's cg and gmres too; across
# method families (CG vs GMRES) it says the iteration counts differ instead of ranking them at the same count
t_grep report-cross-cg-predicts-all "ksp_type (cg|nbpcg|sapcg|pipecg|pipe2cg) .*other method family \(GMRES.*iterations differ.*ksp_type pgmres .* s per iteration.*ksp_type gmres " \
  sh -c "$PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view | tr '\n' ' '"
t_grep report-cross-pgmres-predicts-all "ksp_type gmres .*other method family \(CG: needs an SPD.*ksp_type pcg .* s per iteration.*ksp_type pipe2cg .*ksp_type cg " \
  sh -c "$PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type pgmres -pc_type jacobi -ksp_perfmodel_view | tr '\n' ' '"
t_grep report-cross-csv "^whatif.solver_per_iteration,pgmres,[0-9.e+-]+,s,iterations differ" \
  "$PK_ROOT/tests/mpirun.sh" 2 "$EX/poisson27" -rows_per_rank 1000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view ::ascii_csv
# issue 13: the time by activity, overlap windows included, for bin/pipekrylov-plot --figure overlap
t_grep report-work-rows '^measured,work\.spmv,[0-9.e+-]+,s,measured$' $PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type pipecg -ksp_perfmodel_view ::ascii_csv
# what ran inside the overlap windows, measured at the marks: window.* rows that add up to the time charged to the
# windows (phase.overlap, the iterations) plus at most the set-up's and finish's windows; a blocking solver has none
report_windows() {
  local out
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type "$1" -pc_type jacobi -ksp_perfmodel_view ::ascii_csv 2>&1) || { echo "$out"; return 1; }
  echo "$out" | grep -E '^measured,(window|phase\.overlap|setup|finish)'
  echo "$out" | awk -F, -v blocking="$2" '
    $1 == "measured" && $2 ~ /^window\./ { w += $3; n++ } $1 == "measured" && $2 == "phase.overlap" { o = $3 }
    $1 == "measured" && ($2 == "setup" || $2 == "finish") { sf += $3 }
    END { ok = n == 6 && (blocking ? w == 0 : (w >= o * (1 - 1e-9) && w <= o + sf + 1e-12 && o > 0))
          printf "%s: window rows %d, their sum %.3e s, phase.overlap %.3e s, set-up + finish %.3e s\n", ok ? "ok" : "FAIL", n, w, o, sf; exit !ok }'
}
export -f report_windows
t_grep report-window-rows-pipecg '^ok: window rows 6' report_windows pipecg 0
t_grep report-window-rows-pipe2cg '^ok: window rows 6' report_windows pipe2cg 0
t_grep report-window-rows-pcg '^ok: window rows 6' report_windows pcg 1
# every term of the model has a hint: with 3 ranks bound to one core, oversubscription is the largest overhead and
# its explanation was an empty line
oversub_hint() {
  local out
  out=$(timeout 120 "$PK_ROOT/tests/usermpi.sh" 3 --oversubscribe --bind-to none taskset -c 0 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  echo "$out" | grep -q "largest overhead: ranks sharing a core (oversubscription)" || { echo "oversubscription is not the largest overhead"; return 1; }
  echo "$out" | awk '/largest overhead:/ { getline h; if (h ~ /^ *$/) bad = 1 } END { exit bad }' || { echo "an empty hint"; return 1; }
}
t report-hint-oversub oversub_hint
# a ranked change that prints as 1.00x has no direction (it was "1.00x slower"): full overlap of the reductions of a
# solver whose reductions are already hidden (nbpcg, pipe2cg on 2 ranks) is predicted at this run's model
ratio_neutral() {
  local out bad=0
  for typ in nbpcg pipe2cg; do
    out=$(timeout 120 "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -ksp_type $typ -pc_type jacobi -ksp_perfmodel_view 2>&1) || { echo "$out"; return 1; }
    echo "$out" | grep -E '^ +[0-9]+\. .*x (faster|slower|same time)$'
    ! echo "$out" | grep -Eq ' 1\.00x (faster|slower)' || bad=1
  done
  return $bad
}
t report-ratio-neutral ratio_neutral

# The halo hidden behind the SpMV's own rows is measured (issue 12): the exposed wait, against the modelled exchange,
# sets halo.overlap as the share of the SpMV's compute it hid (000's model hid nothing and over-charged every solver
# across nodes); checked by recomputing the share from the printed figures
halo_hidden_check() {
  "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 3000 -ksp_type "$1" -pc_type jacobi -ksp_perfmodel_view |
    awk '/per iteration: SpMV/ { for (i = 1; i <= NF; i++) if ($i == "SpMV") t = $(i + 1) + 0 }
         /halo exchange per SpMV: modelled/ { m = $6 + 0; w = $10 + 0; print }
         /is hidden behind the SpMV/ { p = $(NF - 4); sub(/%/, "", p); got = p + 0; print }
         END { h = m - (w < m ? w : m); want = (t > 0) ? 100 * h / t : 0; if (want > 100) want = 100
               printf "modelled %g, wait %g, SpMV %g: hidden %g%% of the SpMV, printed %g%%\n", m, w, t, want, got
               exit !(m > 0 && t > 0 && got - want <= 1 && want - got <= 1) }'
}
export -f halo_hidden_check
for t in pcg pipecg; do t halo-hidden-share-$t halo_hidden_check $t; done
# the ranks entering the solve apart: the last rank sleeps 50 ms before each solve; the second solve's report
# measures about that as the arrival term (the first waited in its set-up; a sleep can only run long, and the other
# rank may be descheduled before it enters: the bounds are wide), the model's total holds it, and the model's set-up
# (the arrival and the modelled start-up) is within 25% of the measured set-up (without the term it would be some 99%
# low). The set-up, not the whole solve: on a loaded machine (two CPU hogs beside the test) the iterations' waits took
# 70-230 ms of descheduling that no term of this model sees, and the whole solve's gap read -33% to -84%
arrival_report() {
  local out
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/tests/perfmon" -problem poisson27 -rows_per_rank 1000 -pc_type jacobi -ksp_type "$1" -nsolves 2 -late_rank_delay 0.05 -dump "$PK_BUILD/tests/arrival-$1.json" -ksp_perfmodel_view ::ascii_csv 2>&1) || { echo "$out"; return 1; }
  echo "$out" | grep -E '^analytic,(arrival|init|total|gap)|^measured,(ksp_solve|setup),' | tail -6
  echo "$out" | awk -F, '$1 == "analytic" && $2 == "arrival" { a = $3; s = $5 } $1 == "analytic" && $2 == "init" { i = $3 }
    $1 == "analytic" && $2 == "total" { tot = $3 } $1 == "measured" && $2 == "setup" { su = $3 }
    END { d = a + i - su; if (d < 0) d = -d; exit !(s == "measured" && a >= 0.025 && a <= 0.3 && tot >= a && su > 0 && d <= 0.25 * su) }'
}
t report-arrival-pcg arrival_report pcg
t report-arrival-cg arrival_report cg
