#!/bin/sh
# tests/tutorial_compare.sh MODE NP EXE REFTYPE TYPE ITS_TOL ERR_RTOL [ARGS...]
# Runs one of PETSc's unmodified tutorials (which print "Norm of error E iterations N") with PETSc's REFTYPE and
# with pipekrylov's TYPE loaded as a plugin, and compares iterations (within ITS_TOL, or ITS_TOL% if it ends in %)
# and error norms (relative difference within ERR_RTOL).
# MODE: dll = -dll_append on the command line; env = -dll_append through PETSC_OPTIONS.
set -u
mode=$1 np=$2 exe=$3 ref=$4 typ=$5 itol=$6 etol=$7; shift 7
root=$(cd "$(dirname "$0")/.." && pwd)
lib=${PK_LIB:-$root/lib/libpipekrylov.so}
run() { # run TYPE load|noload ARGS...
  t=$1 how=$2; shift 2
  if [ "$how" = load ] && [ "$mode" = env ]; then
    PETSC_OPTIONS="-dll_append $lib" "$root/tests/mpirun.sh" "$np" "$exe" -ksp_type "$t" "$@"
  elif [ "$how" = load ]; then
    "$root/tests/mpirun.sh" "$np" "$exe" -dll_append "$lib" -ksp_type "$t" "$@"
  else
    "$root/tests/mpirun.sh" "$np" "$exe" -ksp_type "$t" "$@"
  fi
}

out_ref=$(run "$ref" noload "$@" 2>&1) || { echo "reference run failed:"; echo "$out_ref"; exit 1; }
out_new=$(run "$typ" load "$@" 2>&1) || { echo "pipekrylov run failed:"; echo "$out_new"; exit 1; }
echo "reference $ref: $(echo "$out_ref" | grep 'Norm of error')"
echo "pipekrylov $typ: $(echo "$out_new" | grep 'Norm of error')"
parse() { echo "$1" | sed -n 's/.*Norm of error \([^ ,]*\),* *[Ii]terations \([0-9]*\).*/\1 \2/p' | tail -1; }
# shellcheck disable=SC2046 # error and iterations, two words from each
set -- $(parse "$out_ref") $(parse "$out_new")
[ $# = 4 ] || { echo "could not parse the tutorial's output"; echo "$out_new"; exit 1; }
awk -v e1="$1" -v i1="$2" -v e2="$3" -v i2="$4" -v itol="$itol" -v etol="$etol" 'BEGIN {
  allowed = itol; if (itol ~ /%$/) { sub(/%$/, "", itol); allowed = int(itol / 100 * i1 + 0.999999) }
  d = i2 - i1; if (d < 0) d = -d
  rel = (e1 > 0) ? (e2 - e1) / e1 : e2 - e1; if (rel < 0) rel = -rel
  ok = (d <= allowed) && (rel <= etol)
  printf "iterations %d vs %d (allowed difference %d), error %g vs %g (relative difference %.2e, allowed %g): %s\n", i2, i1, allowed, e2, e1, rel, etol, ok ? "same" : "DIFFERENT"
  exit ok ? 0 : 1 }'
