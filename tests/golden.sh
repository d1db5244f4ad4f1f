#!/bin/sh
# tests/golden.sh NAME KIND CMD...: the names of what CMD writes, values aside, against the golden file NAME.KIND in tests/golden.
#   KIND report: the report's CSV rows (section,name) of CMD run with -ksp_perfmodel_view ascii:FILE:ascii_csv
#   KIND trace:  the trace's columns (its header line) of CMD run with -ksp_perf_trace FILE
#   KIND text, info, detail: the skeleton (tests/report_skeleton.sh: numbers and measurement-decided words masked) of
#                the report in the default format, ::ascii_info or ::ascii_info_detail
#   KIND csv:    the skeleton of the whole CSV report (values masked)
# PAPI is off (-ksp_perf_papi_events none), so that no machine adds counter columns. The golden files hold what
# pipekrylov writes on every PETSc and Open MPI it supports (make check and make check-debian13 compare with the
# same files) and what a change to the report's code must keep. PK_GOLDEN_UPDATE=1 rewrites the file instead.
set -u
name=$1 kind=$2; shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${PK_BUILD:-$root/build}/tests/golden
mkdir -p "$dir"
out=$dir/$name.$kind.csv
rm -f "$out"
case $kind in
  report) "$@" -ksp_perf_papi_events none -ksp_perfmodel_view "ascii:$out:ascii_csv" >"$dir/$name.log" 2>&1 ;;
  trace) "$@" -ksp_perf_papi_events none -ksp_perf_trace "$out" >"$dir/$name.log" 2>&1 ;;
  csv) "$@" -ksp_perf_papi_events none -ksp_perfmodel_view "ascii:$out:ascii_csv" >"$dir/$name.log" 2>&1 ;;
  text) "$@" -ksp_perf_papi_events none -ksp_perfmodel_view "ascii:$out" >"$dir/$name.log" 2>&1 ;;
  info) "$@" -ksp_perf_papi_events none -ksp_perfmodel_view "ascii:$out:ascii_info" >"$dir/$name.log" 2>&1 ;;
  detail) "$@" -ksp_perf_papi_events none -ksp_perfmodel_view "ascii:$out:ascii_info_detail" >"$dir/$name.log" 2>&1 ;;
  *) echo "golden: KIND is report, trace, csv, text, info or detail, not '$kind'"; exit 2 ;;
esac
rc=$?
[ $rc = 0 ] && [ -s "$out" ] || { cat "$dir/$name.log"; echo "golden: the command failed (exit status $rc) or wrote nothing to $out"; exit 1; }
case $kind in
  report) grep -v '^slowrank,' "$out" | cut -d, -f1,2 | sort -u >"$dir/$name.$kind" ;; # slow ranks: as measured
  trace) head -1 "$out" | tr ',' '\n' >"$dir/$name.$kind" ;;
  *) "$root/tests/report_skeleton.sh" "$out" >"$dir/$name.$kind" ;;
esac
want=$root/tests/golden/$name.$kind
if [ "${PK_GOLDEN_UPDATE:-0}" = 1 ]; then cp "$dir/$name.$kind" "$want" && echo "golden: wrote $want"; exit $?; fi
[ -f "$want" ] || { echo "golden: no $want (PK_GOLDEN_UPDATE=1 tests/run -k golden makes it)"; exit 1; }
if diff "$want" "$dir/$name.$kind"; then echo "golden: $name.$kind as tests/golden/$name.$kind ($(wc -l <"$want") lines)"; else echo "golden: $name.$kind differs from tests/golden/$name.$kind (< golden, > now)"; exit 1; fi
