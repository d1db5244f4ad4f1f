#!/bin/sh
# tests/report.sh NP TYPE [ARGS...]: poisson27 (or -problem ...) with -ksp_perfmodel_view ::ascii_csv into a file,
# checked by report_check.py (terms add up to the total, all sections, positive predictions).
root=$(cd "$(dirname "$0")/.." && pwd)
np=$1 typ=$2; shift 2
out=$(mktemp /tmp/pk-report-XXXXXX.csv)
"$root/tests/mpirun.sh" "$np" "$root/build/examples/poisson27" -rows_per_rank 1000 -pc_type jacobi -ksp_type "$typ" \
  -ksp_perfmodel_view "ascii:$out:ascii_csv" "$@" || { rm -f "$out"; exit 1; }
/usr/bin/python3 "$root/tests/report_check.py" "$out" --type "$typ"; rc=$?
rm -f "$out"; exit $rc
