#!/usr/bin/env bash
# Every option the library registers (PetscOptions*("-name", ...) under src/) is listed in a manual page's
# "Options Database Keys" (a line "+  -name", ".  -name" or "-  -name" of a /*@ or /*MC comment).
# Prints the options without one; exit 1 if any.   tests/optdocs.sh   (run from anywhere)
set -u
cd "$(dirname "$0")/.." || exit 1
bad=0
for o in $(grep -rhoE 'PetscOptions[A-Za-z]*\("-[a-z0-9_]+"' src | sed -E 's/.*"(-[a-z0-9_]+)"/\1/' | sort -u); do
  grep -rqE -- "^[.+-] +$o( |$)" src || { echo "$o has no manual page entry"; bad=1; }
done
[ $bad = 0 ] && echo "every option has a manual page entry"
exit $bad
