#!/bin/sh
# tests/mallocdump.sh NP CMD...: run CMD on NP ranks with PETSc's allocation tracking (-malloc_debug -malloc_dump);
# fail if it exits non-zero or PETSc lists any unfreed allocation ("[rank] N bytes func() at file:line").
root=$(cd "$(dirname "$0")/.." && pwd)
np=$1; shift
out=$("$root/tests/mpirun.sh" "$np" "$@" -malloc_debug -malloc_dump 2>&1); rc=$?
echo "$out"
[ $rc = 0 ] || { echo "mallocdump: exit status $rc"; exit 1; }
if echo "$out" | grep -Eq '^\[ *[0-9]+\] *[0-9]+ bytes '; then echo "mallocdump: unfreed memory (lines above)"; exit 1; fi
echo "mallocdump: nothing unfreed"
