#!/bin/sh
# tests/report_skeleton.sh [FILE]: the skeleton of a performance report (text or CSV) on standard input or in FILE:
# what the report says, without what a measurement decides. Numbers become '#', runs of blanks one blank, and the
# few words that depend on measured values are masked: the verdicts of the KS tests (fit accepted/rejected, same
# distribution/distributions differ), whether the ranks of a node move together, whether the JSU simulation ran,
# the largest overhead's term and hint, the direction of each ranked change (its lines sorted: their order is the
# measurement's; "full overlap" is ranked only when the measured overlap is below 95%: left out), the short
# format's best change (printed only when one beats the run), the halo exchange hidden by the SpMV (a term only when
# the measured wait is below the modelled exchange), the first applications' set-up (said when over 1% of the
# model), the slow ranks found, the PAPI line (machine-dependent), host
# names and paths. Two reports of the same case have the same
# skeleton whatever the timings (tests/suites/57-skeleton.sh).
awk '
  function mask(s) {
    gsub(/\/[^ ]*pipekrylov-calibrate/, "#calibrate", s)
    gsub(/ \/[^ ,)]+/, " #path", s)
    gsub(/\(\/[^ ,)]+/, "(#path", s)
    gsub(/^\/[^ ,)]+/, "#path", s)
    gsub(/this one is [^ )]*/, "this one is #host", s)
    gsub(/[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?/, "#", s)
    gsub(/[-+]?\.[0-9]+([eE][-+]?[0-9]+)?/, "#", s)
    gsub(/fit (accepted|rejected)/, "fit #verdict", s)
    gsub(/(same distribution|distributions differ)/, "#ks", s)
    gsub(/ \(the ranks of a node move together\)/, "", s)
    gsub(/(faster|slower|same time)$/, "#direction", s)
    gsub(/[ \t]+/, " ", s)
    return s
  }
  function flush(   i, j, t) {
    for (i = 2; i <= nr; i++) for (j = i; j > 1 && ranked[j - 1] > ranked[j]; j--) { t = ranked[j]; ranked[j] = ranked[j - 1]; ranked[j - 1] = t }
    for (i = 1; i <= nr; i++) print ranked[i]
    nr = 0
  }
  /no PAPI counters on this machine/ { next }
  /best change:/ { next }
  /halo exchange hidden by SpMV compute/ { next }
  /\(the first SpMV and PC took/ { skipnext = 1; next }
  skipnext { skipnext = 0; next }
  /^analytic,halo\.overlap,/ { print "analytic,halo.overlap,#,s,#status"; next }
  /below from the sample.s own distribution/ { next }
  /^slowrank,/ { next }
  /^ *slow ranks:/ { flush(); print " slow ranks: #"; skipslow = 1; next }
  skipslow && /^    / { next }
  { skipslow = 0 }
  /simulat(ed|ion) from JSU fits/ { flush(); print " simulation from JSU fits #"; next }
  /^ *largest overhead:/ { flush(); print " largest overhead: #term"; if ($0 ~ /:$/) skiphint = 1; next }
  skiphint { skiphint = 0; next }
  { line = mask($0) }
  line ~ /^ # full overlap of the reductions/ { next }
  line ~ /#direction$/ { ranked[++nr] = line; next }
  { flush(); print line }
  END { flush() }
' "${1:--}"
