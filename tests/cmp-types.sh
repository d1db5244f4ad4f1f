#!/usr/bin/env bash
# tests/cmp-types.sh: run one program twice, with -ksp_type REF and with -ksp_type TYPE (the second with
# -dll_append $PK_LIB, so unmodified PETSc programs load pipekrylov), and compare their outputs.
#
#   cmp-types.sh [--lines REGEX] [--monitor RTOL] NP REF TYPE PROG ARGS...
#
#   --lines REGEX   the lines matching REGEX must be identical (and there must be some)
#   --monitor RTOL  the KSP monitor lines ("N KSP ...") must be the same iterations in the same order, every
#                   number in them equal up to a relative RTOL (norms below 1e-300 compare as equal)
# Exit status 0 when everything compared equal; both outputs are printed.
set -u
LINES=""
MON=""
while [ $# -gt 0 ]; do
  case "$1" in
    --lines) LINES=$2; shift 2 ;;
    --monitor) MON=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 4 ] || { echo "usage: cmp-types.sh [--lines REGEX] [--monitor RTOL] NP REF TYPE PROG ARGS..."; exit 2; }
NP=$1 REF=$2 TYPE=$3
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
LIBPK=${PK_LIB:-$HERE/../lib/libpipekrylov.so}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$HERE/mpirun.sh" "$NP" "$@" -ksp_type "$REF" >"$TMP/ref" 2>&1 || { cat "$TMP/ref"; echo "cmp-types: $REF run failed"; exit 1; }
"$HERE/mpirun.sh" "$NP" "$@" -dll_append "$LIBPK" -ksp_type "$TYPE" >"$TMP/new" 2>&1 || { cat "$TMP/new"; echo "cmp-types: $TYPE run failed"; exit 1; }
echo "== $REF"; cat "$TMP/ref"; echo "== $TYPE"; cat "$TMP/new"
status=0
if [ -n "$LINES" ]; then
  grep -E -- "$LINES" "$TMP/ref" >"$TMP/ref.l"
  grep -E -- "$LINES" "$TMP/new" >"$TMP/new.l"
  if [ ! -s "$TMP/ref.l" ]; then echo "cmp-types: no line matches /$LINES/"; status=1
  elif ! diff "$TMP/ref.l" "$TMP/new.l"; then echo "cmp-types: lines matching /$LINES/ differ"; status=1
  else echo "cmp-types: $(wc -l <"$TMP/ref.l") line(s) matching /$LINES/ identical"; fi
fi
if [ -n "$MON" ]; then
  grep -E '^ *[0-9]+ KSP ' "$TMP/ref" >"$TMP/ref.m"
  grep -E '^ *[0-9]+ KSP ' "$TMP/new" >"$TMP/new.m"
  if [ ! -s "$TMP/ref.m" ]; then echo "cmp-types: no monitor output"; status=1
  elif [ "$(wc -l <"$TMP/ref.m")" != "$(wc -l <"$TMP/new.m")" ]; then
    echo "cmp-types: $(wc -l <"$TMP/new.m") monitor lines, reference $(wc -l <"$TMP/ref.m")"; status=1
  elif ! awk -v rtol="$MON" '
      function num(s) { return s + 0 }
      NR == FNR { ref[FNR] = $0; nref = FNR; next }
      {
        n = FNR
        split(ref[n], a, " "); m = split($0, b, " ")
        if (a[1] != b[1]) { printf "cmp-types: line %d: iteration %s, reference %s\n", n, b[1], a[1]; bad = 1; next }
        for (i = 2; i <= m; i++) if (b[i] ~ /^[-+]?[0-9.]+[eE][-+]?[0-9]+$/) {
          x = num(a[i]); y = num(b[i]); d = x - y; if (d < 0) d = -d; s = (x < 0 ? -x : x)
          if (d > rtol * s && d > 1e-300) { printf "cmp-types: line %d: %s vs reference %s (relative %.2g > %g)\n", n, b[i], a[i], d / s, rtol; bad = 1 }
        }
      }
      END { exit bad }
    ' "$TMP/ref.m" "$TMP/new.m"; then status=1
  else echo "cmp-types: $(wc -l <"$TMP/ref.m") monitor lines agree (iterations identical, numbers within $MON)"; fi
fi
exit $status
