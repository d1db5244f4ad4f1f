#!/bin/bash
# tests/monitor-match.sh CMD...: run a tests/compare command with -ksp_monitor added and check that every solver's
# monitor lines match the reference's: same iteration numbers, in the same order, and the same norms to a relative
# 1e-4 (rounding differs between the solvers' recurrences; the iteration numbering, ksp->its, must not).
# The reference solves first, then each type; compare prints a line after each solve, which delimits the blocks.
out=$("$@" -ksp_monitor 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc = 0 ] || exit $rc
printf '%s\n' "$out" | awk '
  BEGIN { b = 0 }
  /KSP Residual norm/ { n[b]++; it[b, n[b]] = $1; nv[b, n[b]] = $5; next }
  /^compare: / || /^  (ok  |FAIL) / { b++ }
  END {
    bad = 0
    for (k = 1; k < b; k++) {
      if (n[k] != n[0]) { printf "monitor-match: solve %d printed %d monitor lines, the reference %d\n", k, n[k], n[0]; bad = 1; continue }
      for (i = 1; i <= n[0]; i++) {
        a = nv[0, i]; c = nv[k, i]; d = a - c; if (d < 0) d = -d; s = a < 0 ? -a : a
        if (it[k, i] != it[0, i] || d > 1e-4 * s) { printf "monitor-match: solve %d line %d: \"%s %s\" vs reference \"%s %s\"\n", k, i, it[k, i], c, it[0, i], a; bad = 1; break }
      }
    }
    if (b < 2 || n[0] == 0) { print "monitor-match: no monitor output to compare"; bad = 1 }
    if (!bad) printf "monitor-match: %d solves, %d monitor lines each, all match the reference\n", b - 1, n[0]
    exit bad
  }'
