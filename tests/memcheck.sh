#!/bin/sh
# tests/memcheck.sh CMD...: run CMD under valgrind memcheck; fail on any memory error or definite leak of ours
# (Open MPI's own allocations from MPI_Init are suppressed, see tests/valgrind.supp).
root=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
exec valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
  --suppressions=/usr/share/openmpi/openmpi-valgrind.supp --suppressions="$root/tests/valgrind.supp" "$@"
