#!/usr/bin/env bash
# The layers, checked on the objects (nm): no object under src/ksp references a symbol defined under src/perf and
# none under src/perf one defined under src/ksp; the core (src/core) references neither; the models
# (src/perf/models) reference neither the monitor nor the report; the recorder and the report call nothing of the
# monitor's hooks.c (they are handed their context); and, on the sources, no layer includes the private
# headers of a layer beside or above it. Prints every crossing found; exit 1 if any.
#   tests/layers.sh [OBJDIR]     (default build/obj/src)
set -u
obj=${1:-build/obj/src}
[ -d "$obj/core" ] && [ -d "$obj/ksp" ] && [ -d "$obj/perf" ] || { echo "no objects under $obj (run make)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# only the objects of sources that exist: a build tree may keep objects of files since moved or removed
# (objects live at build/obj/<path of the source>.o)
objs()   { find "$obj/$1" -name '*.o' | while read -r o; do s=${o#*build/obj/}; [ -f "${s%.o}.c" ] && echo "$o"; done; }
defs()   { objs "$1" | xargs -r nm -g --defined-only | awk 'NF == 3 {print $3}' | sort -u; }
undefs() { objs "$1" | xargs -r nm -u | awk 'NF >= 2 {print $NF}' | sort -u; }
for l in ksp perf core perf/models perf/monitor perf/report; do
  n=${l//\//_}
  defs "$l" > "$tmp/def_$n"
  undefs "$l" > "$tmp/und_$n"
done
bad=0
check() { # check USER PROVIDER: USER's undefined symbols that PROVIDER defines
  local s
  s=$(comm -12 "$tmp/und_$1" "$tmp/def_$2" | tr '\n' ' ')
  if [ -n "$s" ]; then echo "src/${1//_//} uses src/${2//_//}: $s"; bad=1; else echo "src/${1//_//} uses nothing of src/${2//_//}"; fi
}
check ksp perf
check perf ksp
check core ksp
check core perf
check perf_models perf_monitor
check perf_models perf_report
check perf_models ksp
# inside src/perf: the recorder and the report work on the context they are handed; neither looks it up in hooks.c
nm -g --defined-only "$obj/perf/monitor/hooks.o" | awk 'NF == 3 {print $3}' | sort -u >"$tmp/def_perf_monitor_hooks"
nm -u "$obj/perf/monitor/recorder.o" | awk 'NF >= 2 {print $NF}' | sort -u >"$tmp/und_perf_monitor_recorder"
check perf_monitor_recorder perf_monitor_hooks
check perf_report perf_monitor_hooks
# the models are plain functions of their inputs: no MPI, no KSP, no files (profiles are read and written by the
# report's profile_io.c and machine_cache.c, network counters read by its netcounters.c). PETSc's error macros name
# PETSC_COMM_SELF (ompi_mpi_comm_self): not a call into MPI
s=$(grep -E '^(MPI_|PMPI_|ompi_|KSP[A-Z]|fopen|fread|fwrite|fgets|getline|open|read|scandir|stat|fstat)' "$tmp/und_perf_models" | grep -v '^ompi_mpi_comm_self$' | tr '\n' ' ')
if [ -n "$s" ]; then echo "src/perf/models uses MPI, KSP or files: $s"; bad=1; else echo "src/perf/models uses no MPI, no KSP and no files"; fi
# The same on the sources: a layer includes only its own private headers and those of the core (the core only its
# own), so that no layer compiles against the data structures of one beside or above it
root=$(cd "$(dirname "$0")/.." && pwd)
hcore="pkcore.h pkrecimpl.h pkcost.h pkcompat.h"
hksp="pkkspimpl.h pkcgimpl.h pksimd.h"
hperf="pkperfimpl.h pkstats.h pklog.h pkmodel.h pkmachine.h pkprofile.h pkamg.h pknoise.h pktopo.h"
# src/dm's own header, which the report may include too (include/pipekrylov/private/pklocality.h says why)
hdm="pklocality.h"
includes() { # includes DIR ALLOWED...: the private headers included under src/<DIR> but not ALLOWED
  local d=$1 f h; shift
  for f in $(find "$root/src/$d" -name '*.[ch]'); do
    for h in $(sed -n 's|^ *# *include *<pipekrylov/private/\([a-z0-9_]*\.h\)>.*|\1|p' "$f"); do
      case " $* " in *" $h "*) ;; *) echo "${f#"$root"/} includes $h" ;; esac
    done
  done
}
for l in core ksp perf dm; do
  case $l in core) allowed=$hcore ;; dm) allowed="$hcore $hdm" ;; ksp) allowed="$hcore $hksp" ;; perf) allowed="$hcore $hperf $hdm" ;; esac
  # shellcheck disable=SC2086
  s=$(includes "$l" $allowed)
  if [ -n "$s" ]; then echo "$s"; bad=1; else echo "src/$l includes only its own and the core's private headers"; fi
done
[ $bad = 0 ] && echo "layers: ok"
exit $bad
