#!/bin/sh
# Overhead of the logging monitor (issue 4): pcg on poisson27 (8000 rows per rank) with the monitor and PAPI's
# default events on against off, interleaved in one run, on 1 and 2 ranks. Target: on/off <= 1.02.
#   bench/monitor-overhead.sh [repeats]     (default 200 pairs of solves per rank count)
cd "$(dirname "$0")/.." || exit 1
R=${1:-200}
for np in 1 2; do
  sh tests/mpirun.sh $np build/bench/monitor_overhead -rows_per_rank 8000 -ksp_type pcg -repeats "$R" || exit 1
done
