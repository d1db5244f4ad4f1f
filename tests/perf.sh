#!/usr/bin/env bash
# Helpers of tests/suites/30-monitor.sh (the runner exports PK_ROOT, PK_BUILD, PK_LIB):
#   perf.sh run [--nnodes N] NAME NP ARGS...  tests/perfmon with a trace and a JSON dump, then perf_check.py on both
#   perf.sh ex2 NAME NP ARGS...               PETSc's unmodified ex2 through -dll_append with a trace; the trace must
#                                             have as many rows per rank as ex2's iterations (and match -log_view)
#   perf.sh once REGEX COUNT CMD...           CMD succeeds, converges and prints exactly COUNT lines matching REGEX
#   perf.sh head NAME NP ARGS...              "run", then print the first line of the trace
#   perf.sh rec NAME NP                       tests/perfrec (the recorder's API, a synthetic KSP type) with a trace
set -u
PY=/usr/bin/python3
CHECK=$PK_ROOT/tests/perf_check.py
OUT=$PK_BUILD/tests/perf
mkdir -p "$OUT"
mpi() { "$PK_ROOT/tests/mpirun.sh" "$@"; }

run() {
  local extra=()
  if [ "$1" = --nnodes ]; then extra=(--nnodes "$2"); shift 2; fi
  local name=$1 np=$2; shift 2
  rm -f "$OUT/$name.csv" "$OUT/$name.json"
  mpi "$np" "$PK_BUILD/tests/perfmon" -ksp_perf_trace "$OUT/$name.csv" -dump "$OUT/$name.json" "$@" &&
    $PY "$CHECK" "$OUT/$name.csv" "$OUT/$name.json" --nranks "$np" "${extra[@]}"
}

ex2() {
  local name=$1 np=$2 out its lv=(); shift 2
  rm -f "$OUT/$name.csv"
  out=$(mpi "$np" "$PK_BUILD/petsc-tutorials/ex2" -dll_append "$PK_LIB" -ksp_perf_trace "$OUT/$name.csv" "$@" 2>&1) || { echo "$out"; return 1; }
  echo "$out" > "$OUT/$name.out"
  its=$(echo "$out" | sed -n 's/.*iterations \([0-9][0-9]*\).*/\1/p' | head -1)
  [ -n "$its" ] || { echo "$out"; echo "ex2 printed no iteration count"; return 1; }
  echo "ex2: $its iterations"
  [[ " $* " == *" -log_view "* ]] && lv=(--log-view "$OUT/$name.out")
  $PY "$CHECK" "$OUT/$name.csv" --its "$its" --nranks "$np" "${lv[@]}"
}

once() {
  local re=$1 n=$2 out c; shift 2
  out=$("$@" 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  c=$(echo "$out" | grep -Ec -- "$re")
  [ "$c" = "$n" ] || { echo "expected $n line(s) matching /$re/, got $c"; return 1; }
  echo "$out" | grep -q CONVERGED || { echo "the solve did not converge"; return 1; }
}

head1() {
  run "$@" && head -1 "$OUT/$1.csv"
}

rec() {
  local name=$1 np=$2
  rm -f "$OUT/$name.csv"
  mpi "$np" "$PK_BUILD/tests/perfrec" -its 12 -ksp_perf_trace "$OUT/$name.csv" &&
    $PY "$CHECK" "$OUT/$name.csv" --its 13 --nranks "$np"
}

cmd=$1; shift
case "$cmd" in
  run) run "$@" ;;
  ex2) ex2 "$@" ;;
  once) once "$@" ;;
  head) head1 "$@" ;;
  rec) rec "$@" ;;
  *) echo "perf.sh: unknown command $cmd"; exit 2 ;;
esac
