#!/bin/sh
# tests/bindrank.sh socket|stride K  cmd args...: binds this MPI rank (Open MPI's OMPI_COMM_WORLD_RANK, 4 and 5) with
# taskset before running cmd, for the cross-socket calibration tests: 'socket' to the CPUs of socket r (lscpu),
# 'stride K' to CPU r x K (rank 1 in package 1 of hwloc's synthetic 'pack:2 core:K pu:1').
r=${OMPI_COMM_WORLD_RANK:-0}
case "$1" in
  socket) cpus=$(lscpu -p=CPU,SOCKET | awk -F, -v s="$r" '!/^#/ && $2 == s { l = l (l ? "," : "") $1 } END { print l }'); shift ;;
  stride) cpus=$((r * $2)); shift 2 ;;
  *) echo "usage: tests/bindrank.sh socket|stride K cmd..." >&2; exit 2 ;;
esac
[ -n "$cpus" ] || { echo "bindrank: no CPU for rank $r" >&2; exit 1; }
exec taskset -c "$cpus" "$@"
