#!/bin/sh
# tests/golden.sh NAME KIND CMD...: the names of what CMD writes, values aside, against the golden file NAME.KIND in tests/golden.
#   KIND report: the report's CSV rows (section,name) of CMD run with -ksp_perfmodel_view ascii:FILE:ascii_csv
#   KIND trace:  the trace's columns (its header line) of CMD run with -ksp_perf_trace FILE
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
  *) echo "golden: KIND is report or trace, not '$kind'"; exit 2 ;;
esac
rc=$?
[ $rc = 0 ] && [ -s "$out" ] || { cat "$dir/$name.log"; echo "golden: the command failed (exit status $rc) or wrote nothing to $out"; exit 1; }
if [ "$kind" = report ]; then cut -d, -f1,2 "$out" | sort -u >"$dir/$name.$kind"; else head -1 "$out" | tr ',' '\n' >"$dir/$name.$kind"; fi
want=$root/tests/golden/$name.$kind
if [ "${PK_GOLDEN_UPDATE:-0}" = 1 ]; then cp "$dir/$name.$kind" "$want" && echo "golden: wrote $want"; exit $?; fi
[ -f "$want" ] || { echo "golden: no $want (PK_GOLDEN_UPDATE=1 tests/run -k golden makes it)"; exit 1; }
if diff "$want" "$dir/$name.$kind"; then echo "golden: $name.$kind as tests/golden/$name.$kind ($(wc -l <"$want") names)"; else echo "golden: $name.$kind differs from tests/golden/$name.$kind (< golden, > now)"; exit 1; fi
