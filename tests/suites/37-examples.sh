# shellcheck shell=bash
# The papers' experiments as examples (README "Examples"): each runs tiny and prints its model beside its
# measurement. Times are never checked, only that both are printed and the counts are right.
EXB=$PK_BUILD/examples
# laplace1d: exactly the forced count, with the norm none where the type supports it, and the report's model read back
# pgmres supports KSP_NORM_NONE (as PETSc's GMRES does, for smoothers): the forced count needs no norm
t_grep ex-laplace1d-pgmres 'pgmres, norm NONE, 20 iterations \(forced, DIVERGED_ITS\)[^$]*$' "$PK_ROOT/tests/mpirun.sh" 2 $EXB/laplace1d -ksp_type pgmres -its 20 -rows_per_rank 200
t_grep ex-laplace1d-model 'model: +analytic [0-9.e+-]+ s \(gap' "$PK_ROOT/tests/mpirun.sh" 2 $EXB/laplace1d -ksp_type pgmres -its 20 -rows_per_rank 200
t_grep ex-laplace1d-stochastic "model: +stochastic E\[T\] [0-9.e+-]+ s \(blocking\), E\[T'\] [0-9.e+-]+ s" "$PK_ROOT/tests/mpirun.sh" 2 $EXB/laplace1d -ksp_type gmres -its 20 -rows_per_rank 200
t_grep ex-laplace1d-gmres-right 'gmres, norm NONE, 15 iterations \(forced, DIVERGED_ITS\)' "$PK_ROOT/tests/mpirun.sh" 2 $EXB/laplace1d -ksp_type gmres -ksp_pc_side right -its 15 -rows_per_rank 200
t_grep ex-laplace1d-pcg-none 'pcg, norm NONE, 12 iterations \(forced, DIVERGED_ITS\)' $EXB/laplace1d -ksp_type pcg -its 12 -n 500
t_grep ex-laplace1d-norm-kept 'pcg, norm NATURAL, 12 iterations' $EXB/laplace1d -ksp_type pcg -its 12 -n 500 -ksp_norm_type natural
t_grep ex-laplace1d-converge 'CONVERGED_RTOL' $EXB/laplace1d -its 0 -n 100
t_grep ex-laplace1d-user-report 'the model is in the report' sh -c "f=\$(mktemp); $EXB/laplace1d -its 5 -n 100 -ksp_perfmodel_view ascii:\$f:ascii_csv; rc=\$?; grep -q '^analytic,total' \$f || rc=1; rm -f \$f; exit \$rc"
t_fail ex-laplace1d-bad-its '-its must be >= 0' $EXB/laplace1d -its -3

# kernels: every kernel and mode prints measured and modelled times; the CSV has a row for each
KTINY="-its 2 -tests 1 -wait_us 20 -sizes 8,4096"
t_grep ex-kernels-allreduce '^  allreduce +nonblocking +4096 +1 +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% ' "$PK_ROOT/tests/mpirun.sh" 2 $EXB/kernels $KTINY
t_grep ex-kernels-halo3d '^  halo3d +blocking +8 +1 +[0-9.]+ +[0-9.]+ ' "$PK_ROOT/tests/mpirun.sh" 2 $EXB/kernels $KTINY -kernel halo3d
t_grep ex-kernels-halo2d-np4 '^  halo2d +blocking +8 +2 ' "$PK_ROOT/tests/mpirun.sh" 4 $EXB/kernels $KTINY -kernel halo2d -mode blocking
t_grep ex-kernels-one-rank '^  allreduce +blocking +8 +1 +[0-9.]+ +[0-9.]+ ' $EXB/kernels $KTINY -kernel allreduce
ex_kernels_csv() {
  f=$(mktemp) && "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/kernels" -its 2 -tests 1 -wait_us 20 -sizes 8,4096 -csv "$f" >/dev/null || return 1
  head -1 "$f" | grep -q '^kernel,mode,bytes,msgs,ranks,nodes,wait_s,post_s,t_iter_s,t_model_s,t_comm_s,t_comm_model_s,overlap,early$' && [ "$(wc -l < "$f")" = 13 ] && echo "12 rows"; rc=$?
  rm -f "$f"; return $rc
}
t_grep ex-kernels-csv '12 rows' ex_kernels_csv
# the model from a profile with off-node parameters, 2 ranks as 2 nodes: the halo goes off node, max-rate applies
t_grep ex-kernels-profile 'from profile .*emulated-2node-1gbit.profile$' "$PK_ROOT/tests/mpirun.sh" 2 $EXB/kernels $KTINY -kernel allreduce -machine $PK_ROOT/config/profiles/emulated-2node-1gbit.profile -node_size 1
t_grep ex-kernels-no-offnode 'no off-node parameters: on-node values used off node' $EXB/kernels $KTINY -kernel allreduce
t_fail ex-kernels-bad-kernel '-kernel ring: allreduce, halo2d or halo3d' $EXB/kernels -kernel ring
t_fail ex-kernels-bad-profile "cannot read machine profile '/nonexistent'" $EXB/kernels -machine /nonexistent

# The model's machine profile in the kernels and amg examples: as the report's (README "Calibrating the model"): the
# file given, else this host's cached profile, else the embedded default, and they say which. A cache of the tests'
# own: one with this host's profile (a copy of a shipped profile under this host's name), one empty.
ex_xdg() { # $1: with | empty; prints the XDG_CACHE_HOME to use
  local d=$PK_BUILD/tests/ex-xdg-$1
  rm -rf "$d" && mkdir -p "$d" || return 1
  if [ "$1" = with ]; then
    local f
    f=$(XDG_CACHE_HOME=$d "$PK_ROOT/bin/pipekrylov-calibrate" -cache_path) && mkdir -p "$(dirname "$f")" && cp "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" "$f" || return 1
  fi
  echo "$d"
}
ex_kernels_cache() { XDG_CACHE_HOME=$(ex_xdg "$1") "$PK_BUILD/examples/kernels" -its 2 -tests 1 -wait_us 20 -sizes 8 -kernel allreduce; }
ex_amg_cache() { XDG_CACHE_HOME=$(ex_xdg "$1") "$PK_BUILD/examples/amg" -local 8,8,8 -types pcg -nsolves 2 -napply 1; }
export -f ex_xdg ex_kernels_cache ex_amg_cache
t_grep ex-kernels-host-profile "from this host's profile .*/ex-xdg-with/pipekrylov/.*\.profile$" ex_kernels_cache with
t_grep ex-kernels-no-host-profile "from the embedded default$" ex_kernels_cache empty
t_grep ex-amg-host-profile "machine profile of the model: this host's profile .*/ex-xdg-with/pipekrylov/.*\.profile$" ex_amg_cache with
t_grep ex-amg-no-host-profile "machine profile of the model: the embedded default$" ex_amg_cache empty
# a profile that does not read stops amg before its solves (it used to fail after all of them)
ex_amg_bad_machine() {
  local out rc
  out=$("$PK_BUILD/examples/amg" -local 8,8,8 -types pcg -nsolves 2 -napply 1 -machine /nonexistent 2>&1); rc=$?
  echo "$out"
  [ $rc != 0 ] && echo "$out" | grep -q "cannot read machine profile '/nonexistent'" || { echo "no error on the profile"; return 1; }
  if echo "$out" | grep -q "KSPSolve (s)"; then echo "solved before reading the profile"; return 1; fi
  echo "profile refused before any solve"
}
t_grep ex-amg-bad-machine-before-solves "profile refused before any solve" ex_amg_bad_machine

# hypre_pcg: the same iteration count on the three sides, and each side's model beside its measurement (hypre's PCG:
# the report's blocking-CG model with hypre's counts and its kernels timed in the run; it printed "-" before)
if [ -x $EXB/hypre_pcg ]; then
  ex_hypre_pcg() {
    out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/hypre_pcg" -rows_per_rank 1000 -nsolves 1) || return 1
    echo "$out"
    h=$(echo "$out" | awk '$1 == "hypre" {print $3}'); p=$(echo "$out" | awk '$1 == "pcg" {print $2}'); n=$(echo "$out" | awk '$1 == "nbpcg" {print $2}')
    [ -n "$h" ] && [ "$h" = "$p" ] && [ "$p" = "$n" ] && echo "same iterations: $h"
  }
  t_grep ex-hypre-pcg-iterations 'same iterations: [0-9]+' ex_hypre_pcg
  t_grep ex-hypre-pcg-model '^  nbpcg +[0-9]+ +[0-9.e+-]+ +[0-9.]+ +[0-9.e+-]+ +[0-9.e+-]+ +[-+][0-9.]+% ' "$PK_ROOT/tests/mpirun.sh" 2 $EXB/hypre_pcg -rows_per_rank 1000 -nsolves 1
  ex_hypre_pcg_hypre_model() {
    out=$("$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/hypre_pcg" -rows_per_rank 1000 -nsolves 1) || return 1
    echo "$out"
    echo "$out" | grep -Eq '^  hypre PCG +[0-9]+ +[0-9.e+-]+ +[0-9.]+ +- +[0-9.e+-]+ +[-+][0-9.]+% ' || { echo "no model on hypre's row"; return 1; }
    echo "$out" | grep -Eq '^    matvec [0-9.]+, scaling [0-9.]+, vectors [0-9.]+, halo [0-9.]+, inner products [0-9.]*[1-9][0-9.]*, synchronization [0-9.]+' || { echo "no per-iteration terms (2 ranks: the inner products cost)"; return 1; }
    echo "hypre PCG modelled"
  }
  t_grep ex-hypre-pcg-hypre-model 'hypre PCG modelled' ex_hypre_pcg_hypre_model
else
  skip ex-hypre-pcg "PETSc has no hypre: examples/hypre_pcg is not built"
fi
