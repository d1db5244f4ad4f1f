#!/usr/bin/env bash
# The layers, checked on the objects (nm): no object under src/ksp references a symbol defined under src/perf and
# none under src/perf one defined under src/ksp; the core (src/core) references neither. Beside them, the machine's
# shape (src/topology) uses only the core, and the DMDA placement (src/dm) only the core and src/topology: neither
# uses the solvers or the instrumentation, which may use both. Inside src/perf, bottom up:
# the models (src/perf/models) reference nothing else of src/perf; the monitor (src/perf/monitor) and the report
# (src/perf/report) reference nothing of each other (they meet only in the record of a solve, pkrecord.h, which
# the package level hands from one to the other) and nothing of the package level (the files directly in
# src/perf: registration, hooks, the public functions), which may use both. On the sources, no layer includes the
# private headers of a layer beside or above it. Prints every crossing found; exit 1 if any.
#   tests/layers.sh [OBJDIR]     (default build/obj/src)
set -u
obj=${1:-build/obj/src}
[ -d "$obj/core" ] && [ -d "$obj/ksp" ] && [ -d "$obj/perf" ] && [ -d "$obj/dm" ] && [ -d "$obj/topology" ] || { echo "no objects under $obj (run make)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# only the objects of sources that exist: a build tree may keep objects of files since moved or removed
# (objects live at build/obj/<path of the source>.o)
objs()   { # objs D: the objects under the source folder D; "perf_pkg": those directly in src/perf
  local d=$1 depth=""
  [ "$d" = perf_pkg ] && { d=perf; depth="-maxdepth 1"; }
  # shellcheck disable=SC2086
  find "$obj/$d" $depth -name '*.o' | while read -r o; do s=${o#*build/obj/}; [ -f "${s%.o}.c" ] && echo "$o"; done
}
defs()   { objs "$1" | xargs -r nm -g --defined-only | awk 'NF == 3 {print $3}' | sort -u; }
undefs() { objs "$1" | xargs -r nm -u | awk 'NF >= 2 {print $NF}' | sort -u; }
for l in ksp perf core dm topology perf/models perf/monitor perf/report perf_pkg; do
  n=${l//\//_}
  defs "$l" > "$tmp/def_$n"
  undefs "$l" > "$tmp/und_$n"
done
bad=0
name() { [ "$1" = perf_pkg ] && echo "the package level (src/perf/*.c)" || echo "src/${1//_//}"; }
check() { # check USER PROVIDER: USER's undefined symbols that PROVIDER defines
  local s
  s=$(comm -12 "$tmp/und_$1" "$tmp/def_$2" | tr '\n' ' ')
  if [ -n "$s" ]; then echo "$(name "$1") uses $(name "$2"): $s"; bad=1; else echo "$(name "$1") uses nothing of $(name "$2")"; fi
}
check ksp perf
check perf ksp
check core ksp
check core perf
check core dm
check core topology
for l in ksp perf dm; do check topology "$l"; done
check dm ksp
check dm perf
check ksp dm
check ksp topology
check perf_models perf_monitor
check perf_models perf_report
check perf_models perf_pkg
check perf_models ksp
check perf_monitor perf_report
check perf_report perf_monitor
check perf_monitor perf_pkg
check perf_report perf_pkg
# the models are plain functions of their inputs: no MPI, no KSP, no files (profiles are read and written by the
# report's profile_io.c and machine_cache.c, network counters read by the monitor's netcounters.c). PETSc's error macros name
# PETSC_COMM_SELF (ompi_mpi_comm_self): not a call into MPI
s=$(grep -E '^(MPI_|PMPI_|ompi_|KSP[A-Z]|fopen|fread|fwrite|fgets|getline|open|read|scandir|stat|fstat)' "$tmp/und_perf_models" | grep -v '^ompi_mpi_comm_self$' | tr '\n' ' ')
if [ -n "$s" ]; then echo "src/perf/models uses MPI, KSP or files: $s"; bad=1; else echo "src/perf/models uses no MPI, no KSP and no files"; fi
# The same on the sources: a layer includes only its own private headers and those of the core (the core only its
# own), so that no layer compiles against the data structures of one beside or above it
root=$(cd "$(dirname "$0")/.." && pwd)
hcore="pkcore.h pkrecimpl.h pkcost.h pkcompat.h pkfiles.h"
hksp="pkkspimpl.h pkcgimpl.h pksimd.h"
hperf="pkperfimpl.h pkstats.h pklog.h pkmodel.h pkmachine.h pkprofile.h pkamg.h pknoise.h pkmonitor.h pkrecord.h pkreport.h pknet.h"
# src/topology's headers (the switch tree, the sockets of a node) and src/dm's (the placement on the tree); the
# instrumentation may include both
htopo="pklocality.h pktopo.h"
hdm="$htopo pkplace.h"
includes() { # includes DIR ALLOWED...: the private headers included under src/<DIR> but not ALLOWED (one grep)
  local d=$1; shift
  grep -rE --include='*.[ch]' '^ *# *include *<pipekrylov/private/[a-z0-9_]*\.h>' "$root/src/$d" |
    sed -E 's|^([^:]*):.*<pipekrylov/private/([a-z0-9_]*\.h)>.*|\1 \2|' |
    awk -v ok=" $* " -v root="$root/" 'index(ok, " " $2 " ") == 0 { f = $1; sub("^" root, "", f); print f " includes " $2 }'
}
for l in core ksp perf dm topology; do
  case $l in core) allowed=$hcore ;; topology) allowed="$hcore $htopo" ;; dm) allowed="$hcore $hdm" ;; ksp) allowed="$hcore $hksp" ;; perf) allowed="$hcore $hperf $hdm" ;; esac
  # shellcheck disable=SC2086
  s=$(includes "$l" $allowed)
  if [ -n "$s" ]; then echo "$s"; bad=1; else echo "src/$l includes only its own and the core's private headers"; fi
done
# inside src/perf: the models include only the models' headers; the monitor and the report not each other's nor the
# package's (pkperfimpl.h)
hmodels="pkmodel.h pkmachine.h pkprofile.h pknet.h"
for l in perf/models perf/monitor perf/report; do
  case $l in
    perf/models) allowed="$hcore $hmodels" ;;
    perf/monitor) allowed="$hcore $hmodels $hdm pkmonitor.h pkrecord.h pkstats.h pklog.h pknoise.h" ;;
    perf/report) allowed="$hcore $hmodels $hdm pkreport.h pkrecord.h pkamg.h" ;;
  esac
  # shellcheck disable=SC2086
  s=$(includes "$l" $allowed)
  if [ -n "$s" ]; then echo "$s"; bad=1; else echo "src/$l includes only the private headers of its layer and those below"; fi
done
# no loops between the files of src/ksp: where one object uses another's symbols, the other uses none of its own
# (the common code reaches a family's steps through function pointers the family sets, as after_solve)
# (awk pairs the symbols each object defines with those the others use)
# (nm -A names the object on each line: two nm runs in all)
ko=$(objs ksp)
s=$({
  echo "$ko" | xargs -r nm -A -g --defined-only | awk '{ o = $1; sub(/:.*/, "", o); sub(/.*obj\//, "", o); if (NF == 3) print "D", o, $3 }'
  echo "$ko" | xargs -r nm -A -u | awk '{ o = $1; sub(/:.*/, "", o); sub(/.*obj\//, "", o); if (NF >= 2) print "U", o, $NF }'
} | awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[$2, $3] = 1 }
  END { for (k in use) { split(k, p, SUBSEP); d = def[p[2]]; if (d != "" && d != p[1]) edge[p[1], d] = p[2] }
        for (k in edge) { split(k, p, SUBSEP); if (p[1] < p[2] && ((p[2], p[1]) in edge))
          print "a loop in src/ksp: " p[1] " and " p[2] " use each other (" edge[p[1], p[2]] ", " edge[p[2], p[1]] ")" } }')
if [ -n "$s" ]; then echo "$s"; bad=1; fi
[ $bad = 0 ] && echo "src/ksp: no two files use each other"
[ $bad = 0 ] && echo "layers: ok"
exit $bad
