#!/bin/sh
# tests/tutorial_its.sh NP EXE REF TYPE TOL [ARGS...]: one of PETSc's unmodified programs run with PETSc's -ksp_type REF
# and with pipekrylov's TYPE loaded through -dll_append; every iteration count it prints (ex2's "iterations N",
# ex23's "Iterations N", and with -ksp_converged_reason / -snes_converged_reason each solve's "iterations N") must
# come in the same number and order, each within TOL of the reference (TOL iterations, or, if it ends in %, TOL% of
# the reference but at least 1); nonlinear ("Nonlinear solve ...") counts must be equal.
set -u
np=$1 exe=$2 ref=$3 typ=$4 tol=$5; shift 5
root=$(cd "$(dirname "$0")/.." && pwd)
lib=${PK_LIB:-$root/lib/libpipekrylov.so}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$root/tests/mpirun.sh" "$np" "$exe" "$@" -ksp_type "$ref" >"$tmp/ref" 2>&1 || { cat "$tmp/ref"; echo "FAIL: the $ref run failed"; exit 1; }
"$root/tests/mpirun.sh" "$np" "$exe" "$@" -dll_append "$lib" -ksp_type "$typ" >"$tmp/new" 2>&1 || { cat "$tmp/new"; echo "FAIL: the $typ run failed"; exit 1; }
# the solves' own counts (-ksp_converged_reason, -snes_converged_reason) where the program prints them, else its
# "Norm of error ... iterations N" line (ex23 prints that only when the error is above 1000 epsilon)
counts() {
  if grep -Eiq 'linear solve .*iterations [0-9]+' "$2"; then grep -Eio '(nonlinear solve|linear solve) .*iterations [0-9]+' "$1"
  else grep -Eio 'norm of error.*iterations [0-9]+' "$1"; fi | awk '{ k = tolower($1) == "nonlinear" ? "N" : "L"; print k, $NF }'
}
counts "$tmp/ref" "$tmp/ref" >"$tmp/ref.c"
counts "$tmp/new" "$tmp/ref" >"$tmp/new.c"
echo "$ref: $(tr '\n' ' ' <"$tmp/ref.c")"
echo "$typ: $(tr '\n' ' ' <"$tmp/new.c")"
[ -s "$tmp/ref.c" ] || { cat "$tmp/ref"; echo "FAIL: no iteration count printed"; exit 1; }
[ "$(wc -l <"$tmp/ref.c")" = "$(wc -l <"$tmp/new.c")" ] || { cat "$tmp/new"; echo "FAIL: $(wc -l <"$tmp/new.c") counts with $typ, $(wc -l <"$tmp/ref.c") with $ref"; exit 1; }
paste "$tmp/ref.c" "$tmp/new.c" | awk -v tol="$tol" '
  { pct = (tol ~ /%$/); t = tol + 0; allow = pct ? t / 100 * $2 : t; if (pct && allow < 1) allow = 1; d = $4 - $2; if (d < 0) d = -d
    if ($1 == "N" && d > 0) { printf "FAIL: %d nonlinear iterations, reference %d\n", $4, $2; bad = 1 }
    else if (d > allow + 1e-9) { printf "FAIL: %d iterations, reference %d (allowed %s)\n", $4, $2, tol; bad = 1 } }
  END { if (!bad) printf "PASS: %d counts within %s of the reference\n", NR, tol; exit bad }'
