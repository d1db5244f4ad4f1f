#!/usr/bin/env bash
# The C sources and headers follow .clang-format: each tracked *.c and *.h formatted by clang-format is unchanged.
# Prints the files that differ (and the first differing lines); exit 1 if any, 0 with "sources follow .clang-format".
# Exit 77 (the suite says SKIP) where clang-format 14 is not installed: the sources are laid out by version 14
# (Debian 12's), and other versions lay out some constructs differently.
#   tests/format.sh [--available]   (run from anywhere; CLANG_FORMAT=path picks the program; --available: only say
#                                    whether the check can run, exit 0 or 77)
set -u
cd "$(dirname "$0")/.." || exit 1
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  for c in clang-format-14 clang-format; do
    command -v "$c" >/dev/null 2>&1 && { cf=$c; break; }
  done
fi
[ -n "$cf" ] || { echo "no clang-format installed (Debian 12: clang-format, version 14)"; exit 77; }
major=$("$cf" --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p' | head -1)
[ "${major:-0}" = 14 ] || { echo "$cf is version ${major:-unknown}; the sources are laid out by clang-format 14"; exit 77; }
[ "${1:-}" = --available ] && { echo "$cf, version $major"; exit 0; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null)
[ -n "$files" ] || files=$(find src include bench bin examples tests -name '*.[ch]' -not -path '*/build/*' 2>/dev/null)
[ -n "$files" ] || { echo "no sources found"; exit 1; }
# one clang-format for all files (one process per file took half a minute); the loop below, which says what differs,
# only where this finds a file to lay out again
# shellcheck disable=SC2086
if "$cf" --style=file --dry-run -Werror $files >/dev/null 2>&1; then
  echo "sources follow .clang-format ($("$cf" --version | head -1))"
  exit 0
fi
bad=0
for f in $files; do
  out=$("$cf" --style=file "$f") || { echo "$f: clang-format failed"; bad=1; continue; }
  if ! printf '%s\n' "$out" | cmp -s - "$f"; then
    echo "$f does not follow .clang-format (clang-format -i $f):"
    printf '%s\n' "$out" | diff "$f" - | head -6 | sed 's/^/    /'
    bad=1
  fi
done
[ $bad = 0 ] && echo "sources follow .clang-format ($("$cf" --version | head -1))"
exit $bad
