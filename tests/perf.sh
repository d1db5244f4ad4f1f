#!/usr/bin/env bash
# Helpers of tests/suites/30-monitor.sh (the runner exports PK_ROOT, PK_BUILD, PK_LIB):
#   perf.sh run [--nnodes N] NAME NP ARGS...  tests/perfmon with a trace and a JSON dump, then perf_check.py on both
#   perf.sh ex2 NAME NP ARGS...               PETSc's unmodified ex2 through -dll_append with a trace; the trace must
#                                             have as many rows per rank as ex2's iterations (and match -log_view)
#   perf.sh once REGEX COUNT CMD...           CMD succeeds, converges and prints exactly COUNT lines matching REGEX
#   perf.sh head NAME NP ARGS...              "run", then print the first line of the trace
#   perf.sh rec NAME NP                       tests/perfrec (the recorder's API, a synthetic KSP type) with a trace
#   perf.sh comms ORDER NP                    PETSc's ex9 with a whole-communicator KSP and one block's KSP naming one
#                                             trace file, the whole communicator's first (ORDER world) or the
#                                             block's (ORDER sub): one refusal, no hang, the file written whole
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

# t.csv.0 is named by the whole-communicator KSP (-ksp_perf_trace t.csv.0) and by rank 0's block KSP
# (-sub_ksp_perf_trace t.csv: a KSP on a smaller communicator writes <file>.<its first world rank>)
comms() {
  local order=$1 np=$2 d=$OUT/comms-$1-np$2 out rc args ranks want
  rm -rf "$d" && mkdir -p "$d"
  if [ "$order" = world ]; then # ksp1 (world) solves first; ex9's second KSP has the blocks
    args=(-ksp_perf_trace "$d/t.csv.0" -s2_pc_type bjacobi -s2_sub_ksp_type cg -s2_sub_ksp_perf_trace "$d/t.csv")
    want=0 # the file is the world KSP's: its rows come from every rank
  else # the blocks of ksp1 solve (inside ksp1's solve) before the world KSP s2 ends its first solve
    args=(-pc_type bjacobi -sub_ksp_type cg -sub_ksp_perf_trace "$d/t.csv" -s2_ksp_perf_trace "$d/t.csv.0")
    want=1 # the file is rank 0's block KSP's: its rows come from rank 0 only
  fi
  out=$(timeout 60 "$PK_ROOT/tests/mpirun.sh" "$np" "$PK_BUILD/petsc-tutorials/ex9" -dll_append "$PK_LIB" -m 8 -t 2 \
    -ksp_type cg -ksp_max_it 20 -s2_ksp_type gmres -s2_ksp_max_it 20 "${args[@]}" 2>&1)
  rc=$?
  echo "$out"
  [ $rc = 0 ] || { echo "ex9 failed or hung (exit $rc)"; return 1; }
  c=$(echo "$out" | grep -c "t.csv.0 (-ksp_perf_trace) is already written by a KSP on another communicator")
  [ "$c" = 1 ] || { echo "expected one refusal of t.csv.0, got $c"; return 1; }
  [ "$(tr -d -c '\000' < "$d/t.csv.0" | wc -c)" = 0 ] || { echo "t.csv.0 has NUL bytes"; return 1; }
  head -1 "$d/t.csv.0" | grep -q '^solve,ksp,rank,' || { echo "t.csv.0 has no header"; return 1; }
  /usr/bin/awk -F, 'NR == 1 { nf = NF; next } NF != nf || $2 != 0 { bad = 1 } END { exit bad }' "$d/t.csv.0" || { echo "t.csv.0: a row of another KSP, or a broken row"; return 1; }
  ranks=$(tail -n +2 "$d/t.csv.0" | cut -d, -f3 | sort -u | wc -l)
  if [ $want = 0 ]; then [ "$ranks" = "$np" ]; else [ "$ranks" = 1 ]; fi || { echo "t.csv.0 has rows of $ranks ranks"; return 1; }
  for r in $(seq 1 $((np - 1))); do # the other blocks' files are theirs alone
    [ -s "$d/t.csv.$r" ] || { echo "no t.csv.$r"; return 1; }
  done
}

cmd=$1; shift
case "$cmd" in
  run) run "$@" ;;
  ex2) ex2 "$@" ;;
  once) once "$@" ;;
  head) head1 "$@" ;;
  rec) rec "$@" ;;
  comms) comms "$@" ;;
  *) echo "perf.sh: unknown command $cmd"; exit 2 ;;
esac
