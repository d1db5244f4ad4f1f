#!/bin/sh
# Every shell script of the project through shellcheck, at its warning level (what can go wrong: a cd that fails
# unchecked, a variable unset or unused, a word split where one word was meant, ...); the suites, which tests/run
# sources, say "# shellcheck shell=bash". Exit 77 (SKIP) where shellcheck is not installed (make deps installs it).
cd "$(dirname "$0")/.." || exit 1
command -v shellcheck >/dev/null 2>&1 || { echo "shellcheck is not installed (apt-get install shellcheck; make deps)"; exit 77; }
files=$(git ls-files 2>/dev/null || find bin bench config tests -type f)
list=""
for f in $files; do
  [ -f "$f" ] || continue
  case "$f" in
    *.sh) list="$list $f" ;;
    *.c | *.h | *.py | *.md | *.txt | *.csv | *.conf | *.profile | *.json) ;;
    *) head -1 "$f" 2>/dev/null | grep -qE '^#!.*[/ ](ba|da)?sh( |$)' && list="$list $f" ;;
  esac
done
n=$(echo "$list" | wc -w)
# shellcheck disable=SC2086 # the list of files, a word each (no blank in the project's file names)
if shellcheck -x -S warning $list; then echo "shellcheck: $n scripts clean"; else exit 1; fi
