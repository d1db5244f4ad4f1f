# shellcheck shell=bash
# The logging monitor (issue 4): exact rows, phases and times, cross-rank statistics equal to the trace's, the
# hooks into unmodified applications (-dll_append, with -log_view), failure handling, PAPI warnings.
#   PERF_TYPES        our types to check (placeholders that say "not written yet" are skipped)
#   PERF_PETSC_TYPES  PETSc's own types to check
PERF_TYPES=${PERF_TYPES:-pcg sapcg nbpcg pipecg pipe2cg pgmres}
PERF_PETSC_TYPES=${PERF_PETSC_TYPES:-cg gmres groppcg petsc_pipecg}
PM=$PK_BUILD/tests/perfmon
P=$PK_ROOT/tests/perf.sh
PT=$PK_BUILD/tests/perf
PROB="-problem poisson27 -rows_per_rank 512 -pc_type jacobi"

# a type is probed (one short run) only when one of its tests is selected
_perf_wanted() { ! declare -F _selected >/dev/null || [ "${LIST:-0}" = 1 ] || _selected "$1-np1" || _selected "$1-np2" || _selected "$1-np4" || _selected "$1-ex2-np2"; }
for type in $PERF_TYPES $PERF_PETSC_TYPES; do
  _perf_wanted "perf-$type" || continue
  if "$PM" -problem laplace2d -n 4 -ksp_type "$type" -expect_off 2>&1 | grep -q "not written yet"; then
    skip "perf-$type" "$type is a placeholder (not written yet)"
    continue
  fi
  for np in 1 2 4; do
    t "perf-$type-np$np" "$P" run "$type-np$np" $np $PROB -ksp_type $type -nsolves 2
  done
  # and in PETSc's unmodified ex2 through -dll_append
  t "perf-$type-ex2-np2" "$P" ex2 "$type-ex2-np2" 2 -ksp_type $type
done

# the recorder's API as our solvers use it: non-blocking reductions early on some ranks only, an iteration jump,
# a breakdown before PKRecIterEnd (tests/perfrec.c checks PKStats exactly)
for np in 1 2 4; do
  t perf-recorder-np$np "$P" rec recorder-np$np $np
done
# kept apart: three solves with different iteration counts (rows sized from the previous solve)
t perf-solves-np2 "$P" run solves 2 $PROB -nsolves 3
# a breakdown inside an iteration: rows still equal KSPGetIterationNumber
t perf-breakdown-pcg-np2 "$P" run breakdown-pcg 2 -problem indefinite -n 24 -pc_type none -ksp_type pcg
t perf-breakdown-cg-np2 "$P" run breakdown-cg 2 -problem indefinite -n 24 -pc_type none -ksp_type cg
# GMRES reports an iteration twice to the monitor at each restart
t perf-gmres-restart-np2 "$P" run gmres-restart 2 $PROB -ksp_type gmres -ksp_gmres_restart 5
# emulated nodes; recorded solves nested in a recorded solve (bjacobi's KSPs on PETSC_COMM_SELF write sub.csv.<rank>)
t perf-node-size-np4 "$P" run --nnodes 2 node-size 4 $PROB -ksp_perf_node_size 2
t perf-nested-np2 "$P" run nested 2 -problem laplace2d -n 32 -ksp_type cg -pc_type bjacobi -sub_ksp_perf_trace "$PT/sub.csv"
# from code, without options; with no perf option nothing is installed (PETSc's logging stays off)
t_mpi perf-from-code-np2 2 "$PM" $PROB -perf_code -dump "$PT/code.json"
t_mpi perf-off-np2 2 "$PM" $PROB -expect_off
t_grep perf-help "ksp_perf_node_size" "$PM" -problem laplace2d -n 4 -ksp_perf_monitor -help -dump "$PT/help.json"

# PETSc's unmodified ex2 through -dll_append on 1 rank (its default gmres); with -log_view at the same time
t perf-ex2-np1 "$P" ex2 ex2-np1 1
for np in 1 2; do
  t perf-ex2-log-view-np$np "$P" ex2 ex2-log-view-np$np $np -log_view
  t perf-ex2-log-view-pcg-np$np "$P" ex2 ex2-log-view-pcg-np$np $np -log_view -ksp_type pcg
done

# failures: one clear message, nothing else lost (the solves converge, every report is printed)
MPI="$PK_ROOT/tests/mpirun.sh"
t perf-unwritable-ex2 "$P" once "cannot open the trace file /nonexistent/dir/t.csv.*(-ksp_perf_trace).*(No such|no such)" 1 \
  "$MPI" 2 "$PK_BUILD/petsc-tutorials/ex2" -dll_append "$PK_LIB" -ksp_perf_trace /nonexistent/dir/t.csv -ksp_converged_reason
t perf-unwritable-once "$P" once "cannot open the trace file" 1 \
  "$MPI" 2 "$PM" $PROB -nsolves 3 -ksp_perf_trace /nonexistent/dir/t.csv -ksp_converged_reason -dump "$PT/unwritable.json"
t perf-unwritable-report "$P" once "pipekrylov performance report: KSP pcg" 3 \
  "$MPI" 2 "$PM" $PROB -nsolves 3 -ksp_perf_trace /nonexistent/dir/t.csv -ksp_perfmodel_view -ksp_converged_reason -dump "$PT/unwritable.json"
t perf-papi-unknown "$P" once "WARNING.*PAPI event NOSUCH_EVENT cannot be recorded" 1 \
  "$MPI" 2 "$PM" $PROB -nsolves 2 -ksp_perf_papi_events perf::TASK-CLOCK,NOSUCH_EVENT -ksp_perf_monitor -ksp_converged_reason -dump "$PT/papi.json"
t perf-papi-unknown-trace "$P" run papi-unknown 2 $PROB -ksp_perf_papi_events NOSUCH_EVENT,perf::TASK-CLOCK
t_grep perf-papi-none "^solve,ksp,rank,node,iter,t_begin_s,t_end_s,t_iter_s,t_spmv_s,t_pc_s,t_vec_s,t_halo_s,t_reduce_s,t_overlap_s,red_n,red_early,red_tests,t_solve_s,t_enter_s$" \
  "$P" head papi-none 1 $PROB -ksp_perf_papi_events none
t_fail perf-bad-node-size "ksp_perf_node_size must be positive.*not -1" "$PM" $PROB -ksp_perf_monitor -ksp_perf_node_size -1
# issue 9: a trace path longer than Open MPI's shared-file-pointer buffers (it aborted from 245 characters on)
LONGDIR=$PT/$(printf 'd%.0s' $(seq 1 120))/$(printf 'e%.0s' $(seq 1 120))
mkdir -p "$LONGDIR"
t perf-trace-long-path bash -c "rm -f '$LONGDIR/t.csv' && '$MPI' 2 '$PK_BUILD/petsc-tutorials/ex2' -dll_append '$PK_LIB' -ksp_perf_trace '$LONGDIR/t.csv' && test \$(wc -l < '$LONGDIR/t.csv') -gt 2"
mkdir -p "$PT/oc"
# a file already open for a KSP on another communicator (the outer KSP names the file one block's KSP writes):
# refused with one message on every rank at once (ranks used to enter different collectives and hang)
t perf-trace-other-comm "$P" once "t.csv.0 \(-ksp_perf_trace\) is already written by a KSP on another communicator" 1 \
  "$MPI" 2 "$PK_BUILD/petsc-tutorials/ex2" -dll_append "$PK_LIB" -pc_type bjacobi -sub_ksp_type cg -ksp_converged_reason \
  -ksp_perf_trace "$PT/oc/t.csv.0" -sub_ksp_perf_trace "$PT/oc/t.csv"
# the same in both orders (the whole communicator's KSP opening the file first used to hang on 3 ranks and, on 2,
# to put rank 0's block rows and NUL bytes into the whole communicator's file), on 2 and 3 ranks
for np in 2 3; do
  for order in world sub; do
    t perf-trace-other-comm-$order-first-np$np "$P" comms $order $np
  done
done
# two KSPs given one file (PETSc's ex9 solves two systems, the second with prefix s2_): the ksp column tells them apart
t perf-trace-two-ksps bash -c "rm -f '$PT/two.csv' && '$MPI' 2 '$PK_BUILD/petsc-tutorials/ex9' -dll_append '$PK_LIB' -ksp_type pipecg -s2_ksp_type cg -ksp_perf_trace '$PT/two.csv' -s2_ksp_perf_trace '$PT/two.csv' && cut -d, -f2 '$PT/two.csv' | sort -u | tr '\n' ' ' | grep -qx '0 1 ksp '"
t_fail perf-trace-no-file "ksp_perf_trace needs a file name" "$PM" $PROB -ksp_perf_trace
# issue 9: where PAPI has no counters (libpfm4 forced onto a PMU that does not exist, as on a VM whose perf_event
# component is disabled), the default event list records what exists and warns for nothing; the report and
# -ksp_view say once what is unavailable and why (a list the user gives is still warned about: perf-papi-unknown)
papi_none() {
  out=$(LIBPFM_FORCE_PMU=nonexistent "$PK_BUILD/petsc-tutorials/ex2" -dll_append "$PK_LIB" -ksp_type pcg -ksp_perfmodel_view -ksp_view 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  ! echo "$out" | grep -q "WARNING pipekrylov: PAPI" && echo "$out" | grep -q "no PAPI counters on this machine" && echo "$out" | grep -q "PAPI: the default events are not recorded on this machine"
}
t perf-papi-default-adapts papi_none
# without hardware counters the default records no software events either (each read is a system call, 7 us between
# a solve's memory-bound kernels on one VM): no papi_ column in the trace, and -ksp_view names what to ask for
papi_default_no_sw() {
  local f=$PK_BUILD/tests/perf/papi-default.csv out
  out=$(LIBPFM_FORCE_PMU=nonexistent "$PK_BUILD/tests/perfmon" -problem poisson27 -rows_per_rank 512 -pc_type jacobi -ksp_perf_trace "$f" -ksp_view 2>&1) || { echo "$out"; return 1; }
  echo "$out" | grep -q -- "-ksp_perf_papi_events perf::TASK-CLOCK,perf::CONTEXT-SWITCHES,perf::PAGE-FAULTS" || { echo "$out"; echo "no hint"; return 1; }
  # on this machine as it is (hardware counters or not), the default trace has no software-event column
  rm -f "$f"
  "$PK_BUILD/tests/perfmon" -problem poisson27 -rows_per_rank 512 -pc_type jacobi -ksp_perf_trace "$f" >/dev/null 2>&1 || return 1
  ! head -1 "$f" | grep -q papi_perf__ || { head -1 "$f"; echo "software events recorded by default"; return 1; }
  echo "default without hardware counters: no software events, the hint given"
}
t perf-papi-default-no-software papi_default_no_sw

# (the functions run in a bash of their own: only the PK_ variables are there)
# errors of the monitor's options are raised at KSPSetFromOptions, before any solve, with their own code: more
# PAPI events than the event set holds (it was raised inside the solve hooks, where PETSc 3.18 turns every code into
# 1: "out-of-range error code 1"); a name PAPI does not know is warned about there, once, before the first iteration
papi_early() {
  local out
  out=$(timeout 60 "$PK_ROOT/tests/mpirun.sh" 1 "$PK_BUILD/petsc-tutorials/ex2" -dll_append "$PK_LIB" -ksp_perf_papi_events a,b,c,d,e,f,g,h,i -ksp_perf_monitor 2>&1)
  echo "$out"
  echo "$out" | grep -q -- "-ksp_perf_papi_events: at most 8 distinct PAPI events, not 9" || { echo "no clear message"; return 1; }
  echo "$out" | grep -q "KSPSetFromOptions()" || { echo "not raised at KSPSetFromOptions"; return 1; }
  ! echo "$out" | grep -q "KSPSolve" || { echo "raised inside a solve"; return 1; }
  ! echo "$out" | grep -q "out-of-range error code" || { echo "the error code was lost"; return 1; }
}
t perf-papi-too-many papi_early
papi_unknown_early() {
  local out
  out=$(timeout 60 "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/petsc-tutorials/ex2" -dll_append "$PK_LIB" -ksp_type pcg -ksp_monitor -ksp_perf_monitor -ksp_perf_papi_events NOSUCH_EVENT,perf::TASK-CLOCK 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  [ "$(echo "$out" | grep -c "PAPI event NOSUCH_EVENT cannot be recorded.*does not know it")" = 1 ] || { echo "expected one warning"; return 1; }
  echo "$out" | grep -n "NOSUCH_EVENT\| 0 KSP Residual" | head -1 | grep -q NOSUCH_EVENT || { echo "warned after the solve began"; return 1; }
}
t perf-papi-unknown-early papi_unknown_early
# an error raised inside the solve hooks (a KSP never given KSPSetFromOptions: its options are read and checked at
# its first solve) keeps its message and its code
hook_error() {
  local out rc
  out=$(timeout 60 "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/tests/perfmon" -problem poisson27 -rows_per_rank 512 -pc_type jacobi -no_set_from_options -ksp_perf_monitor -ksp_perf_node_size -1 2>&1)
  rc=$?
  echo "$out"
  echo "$out" | grep -q "ksp_perf_node_size must be positive.*not -1" || { echo "no clear message"; return 1; }
  [ $rc = 63 ] || { echo "exit status $rc, not PETSC_ERR_ARG_OUTOFRANGE (63): MPI_Abort gets the error code main returns"; return 1; }
  ! echo "$out" | grep -q "out-of-range error code" || { echo "the error code was lost"; return 1; }
}
t perf-hook-error-code hook_error
# PAPI's events differ from one machine of this kind to the next (perf_event working, or disabled: "libpfm4 no
# default PMU found", no event at all): a test that needs events takes them from what the library records here, at
# run time (the papi_ columns of a one-rank trace), and says SKIP with the reason where there are none
papi_columns() { # EVENTS: the papi_ columns of a one-rank trace recorded with -ksp_perf_papi_events EVENTS
  local f
  f=$(mktemp) || return 1
  "$PK_BUILD/tests/perfmon" -problem poisson27 -rows_per_rank 512 -pc_type jacobi -ksp_perf_trace "$f" -ksp_perf_papi_events "$1" >/dev/null 2>&1
  head -1 "$f" | tr ',' '\n' | grep '^papi_'
  rm -f "$f"
}
export -f papi_columns
# An event PAPI records here that the default list does not: the software events, the usual presets, then the
# first events papi_avail and papi_native_avail list as available (at most 12 tried); empty when there is none
papi_other_event() {
  local def e col n=0 names
  def=$(papi_columns default)
  names="perf::PAGE-FAULTS perf::CONTEXT-SWITCHES perf::TASK-CLOCK PAPI_TOT_INS PAPI_TOT_CYC"
  command -v papi_avail >/dev/null 2>&1 && names="$names $(papi_avail -a 2>/dev/null | awk '/^PAPI_/ {print $1}' | head -4)"
  command -v papi_native_avail >/dev/null 2>&1 && names="$names $(papi_native_avail 2>/dev/null | awk -F'|' '/^\| [A-Za-z]/ {gsub(/ /, "", $2); print $2}' | head -4)"
  for e in $names; do
    n=$((n + 1)); [ $n -le 12 ] || break
    col=$(papi_columns "$e")
    if [ -n "$col" ] && ! printf '%s\n' "$def" | grep -qxF -- "$col"; then echo "$e"; return 0; fi
  done
}
# why PAPI has no event here, for the SKIP: its perf_event component's state
papi_why_none() {
  local why
  why=$(papi_component_avail 2>/dev/null | grep -A1 '^Name: *perf_event ' | sed -n 's/.*Disabled: //p' | head -1)
  echo "PAPI records no event here beyond the default list's${why:+ (papi_component_avail: perf_event disabled: $why)}"
}
# PAPI has one event set per process, fixed by the first recorded KSP: a second KSP's other list (ex9's s2_) is said
# once not to be used, naming the events it records, and its trace has the first KSP's columns. The other list is
# an event PAPI records here (perf::PAGE-FAULTS where perf_event works); without one the test cannot tell the lists
# apart by what they record, and says SKIP
papi_second() {
  local d=$PK_BUILD/tests/perf/papi2 out ev=$PAPI_OTHER
  rm -rf "$d" && mkdir -p "$d"
  out=$(timeout 60 "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/petsc-tutorials/ex9" -dll_append "$PK_LIB" -m 8 -t 2 -ksp_type cg -ksp_max_it 20 -s2_ksp_type gmres -s2_ksp_max_it 20 \
    -ksp_perf_trace "$d/one.csv" -s2_ksp_perf_trace "$d/two.csv" -s2_ksp_perf_papi_events "$ev" 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  echo "(the second KSP asks for $ev)"
  ! echo "$out" | grep -q "cannot be recorded" || { echo "an event was refused"; return 1; }
  [ "$(echo "$out" | grep -c -- "-s2_ksp_perf_papi_events $ev is not used: PAPI counts one event set per process, fixed at the first recorded solve by -ksp_perf_papi_events default; this KSP records")" = 1 ] || { echo "expected one warning"; return 1; }
  [ "$(head -1 "$d/one.csv")" = "$(head -1 "$d/two.csv")" ] || { head -1 "$d/one.csv" "$d/two.csv"; echo "the second trace's columns differ"; return 1; }
}
PAPI_OTHER=""
if _perf_wanted perf-papi-second-ksp && [ "${LIST:-0}" != 1 ]; then PAPI_OTHER=$(papi_other_event); fi
export PAPI_OTHER
if [ -n "$PAPI_OTHER" ] || [ "${LIST:-0}" = 1 ]; then
  t perf-papi-second-ksp papi_second
else
  skip perf-papi-second-ksp "$(papi_why_none): a second KSP's other list cannot be told apart by what it records"
fi
# KSPs on overlapping sub-communicators recorded first in different orders (3 ranks: rank 1's first KSP is Y, rank
# 0's is X): the process-wide PAPI set-up does not communicate over either, so the solves neither hang nor mismatch
# messages (they did: MPI_ERR_TRUNCATE), and each KSP's ranks record the same counters
subcomm_order() {
  local out
  out=$(timeout 120 "$PK_ROOT/tests/mpirun.sh" 3 "$PK_BUILD/tests/subcomm_ksps" 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  echo "$out" | grep -q "^x_ 50 iterations, [0-9]* PAPI counters on every rank: OK" && echo "$out" | grep -q "^y_ 50 iterations, [0-9]* PAPI counters on every rank: OK"
}
t perf-papi-subcomm-order subcomm_order
# the same with Y asking for another event: rank 1's set is Y's, rank 0's the default; X records what both count
# (nothing in common here) and says why on its rank 0; Y records its event
subcomm_lists() {
  local out ev=$PAPI_OTHER
  out=$(timeout 120 "$PK_ROOT/tests/mpirun.sh" 3 "$PK_BUILD/tests/subcomm_ksps" -y_ksp_perf_papi_events "$ev" 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  echo "(Y asks for $ev)"
  echo "$out" | grep -q "^x_ 50 iterations, 0 PAPI counters on every rank: OK" || { echo "X should record no counter"; return 1; }
  echo "$out" | grep -q "^y_ 50 iterations, 1 PAPI counters on every rank: OK" || { echo "Y should record its event"; return 1; }
  echo "$out" | grep -q "WARNING pipekrylov: \(PAPI event .* is not counted on every rank of this KSP\|some ranks of this KSP count PAPI events that its rank 0 does not\) (-x_ksp_perf_papi_events" || { echo "X did not say why"; return 1; }
}
if [ -n "$PAPI_OTHER" ] || [ "${LIST:-0}" = 1 ]; then
  t perf-papi-subcomm-lists subcomm_lists
else
  skip perf-papi-subcomm-lists "$(papi_why_none): the two lists cannot be told apart by what they record"
fi
# a second KSP that names only events PAPI does not know (on any machine): one warning that it does not know them,
# before the solve; and the one-event-set warning only where the process records events (the default's), since
# otherwise this KSP records what it was left with, nothing (it said "none is not used ... records no PAPI events")
papi_second_unknown() {
  local d=$PK_BUILD/tests/perf/papi3 out def n
  rm -rf "$d" && mkdir -p "$d"
  def=$(papi_columns default)
  out=$(timeout 60 "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/petsc-tutorials/ex9" -dll_append "$PK_LIB" -m 8 -t 2 -ksp_type cg -ksp_max_it 20 -s2_ksp_type gmres -s2_ksp_max_it 20 \
    -ksp_perf_trace "$d/one.csv" -s2_ksp_perf_trace "$d/two.csv" -s2_ksp_perf_papi_events NOSUCH_EVENT 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  [ "$(echo "$out" | grep -c "PAPI event NOSUCH_EVENT cannot be recorded.*does not know it")" = 1 ] || { echo "expected one unknown-event warning"; return 1; }
  n=$(echo "$out" | grep -c -- "-s2_ksp_perf_papi_events .* is not used")
  if [ -n "$def" ]; then
    [ "$n" = 1 ] || { echo "the default records $(echo "$def" | tr '\n' ' '): expected one one-event-set warning, not $n"; return 1; }
  else
    [ "$n" = 0 ] || { echo "nothing recorded either way: expected no one-event-set warning, not $n"; return 1; }
  fi
  [ "$(head -1 "$d/one.csv")" = "$(head -1 "$d/two.csv")" ] || { head -1 "$d/one.csv" "$d/two.csv"; echo "the second trace's columns differ"; return 1; }
  echo "default records: ${def:-nothing}; warnings as expected"
}
t perf-papi-second-ksp-unknown papi_second_unknown
