#!/usr/bin/env bash
# tests/variants.sh (make check-variants): build pipekrylov against each of Debian's PETSc 3.18 variants in its own
# directory build/variants/<name> and run a core subset there: the six solvers against PETSc's own on the unmodified
# tutorial ex2 (and pgmres against gmres on ex23), the performance report and the trace. A variant that is not
# installed is skipped with the package to install; one that does not build is reported with the build's last lines.
# Last line "N passed, N failed, N skipped"; exit status 1 if anything failed.
#
#   PK_VARIANTS="int64 complex" (default both)
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
PASSED=0 FAILED=0 SKIPPED=0
ok() { PASSED=$((PASSED + 1)); printf 'PASS %s\n' "$1"; }
ko() { FAILED=$((FAILED + 1)); printf 'FAIL %s: %s\n' "$1" "$2"; [ -n "${3:-}" ] && tail -8 "$3" | sed 's/^/     | /'; }
variant_dir() {
  case $1 in
    int64) echo "/usr/lib/petscdir/petsc64-3.18 x86_64-linux-gnu-real libpetsc64-real3.18-dev" ;;
    complex) echo "/usr/lib/petscdir/petsc3.18 x86_64-linux-gnu-complex libpetsc-complex3.18-dev" ;;
    real) echo "/usr/lib/petscdir/petsc3.18 x86_64-linux-gnu-real libpetsc-real3.18-dev" ;;
    *) return 1 ;;
  esac
}
# limited CMD...: CMD (a program or a function of this script) with a time limit of 120 s
limited() {
  if declare -F "$1" >/dev/null; then
    export -f "${1?}"
    timeout --kill-after=10 120 bash -c '"$@"' _ "$@"
  else
    timeout --kill-after=10 120 "$@"
  fi
}
# check NAME LOG CMD...: pass if CMD exits 0
check() {
  local name=$1 log=$2; shift 2
  if limited "$@" >"$log" 2>&1; then ok "$name"; else ko "$name" "exit status $?" "$log"; fi
}
# check_grep NAME LOG REGEX CMD...
check_grep() {
  local name=$1 log=$2 re=$3; shift 3
  if ! limited "$@" >"$log" 2>&1; then ko "$name" "exit status $?" "$log"
  elif ! grep -Eq -- "$re" "$log"; then ko "$name" "output does not match /$re/" "$log"
  else ok "$name"; fi
}

for v in ${PK_VARIANTS:-int64 complex}; do
  # shellcheck disable=SC2046 # the directory, the architecture and the package: three words
  set -- $(variant_dir "$v") || { ko "variant-$v" "unknown variant (int64, complex, real)"; continue; }
  pdir=$1 parch=$2 pkg=$3
  if [ ! -f "$pdir/$parch/lib/pkgconfig/PETSc.pc" ]; then
    SKIPPED=$((SKIPPED + 1)); printf 'SKIP variant-%s: %s not installed (apt-get install %s)\n' "$v" "$pdir/$parch" "$pkg"; continue
  fi
  B=build/variants/$v
  mkdir -p "$B/logs"
  export PK_LIB=$ROOT/$B/lib/libpipekrylov.so
  if ! nice make --no-print-directory -j2 PETSC_DIR="$pdir" PETSC_ARCH="$parch" BUILD="$B" LIB="$B/lib/libpipekrylov.so" variant-build >"$B/logs/build.log" 2>&1; then
    ko "variant-$v-build" "the build against $pdir/$parch failed (log $B/logs/build.log)" "$B/logs/build.log"
    continue
  fi
  ok "variant-$v-build"
  L=$B/logs
  # the plugin refuses a PETSc of another configuration: this one must be accepted
  for spec in pcg:1 sapcg:1 nbpcg:1 pipecg:2 pipe2cg:2%; do
    typ=${spec%%:*} itol=${spec##*:}
    check "variant-$v-ex2-$typ-np2" "$L/ex2-$typ.log" tests/tutorial_compare.sh dll 2 "$B/petsc-tutorials/ex2" cg "$typ" "$itol" 0.02 -m 60 -n 60
  done
  check "variant-$v-ex2-pgmres-np2" "$L/ex2-pgmres.log" tests/tutorial_compare.sh dll 2 "$B/petsc-tutorials/ex2" gmres pgmres 0 1e-6 -m 60 -n 60
  check "variant-$v-ex23-pgmres-np2" "$L/ex23-pgmres.log" tests/cmp-types.sh --lines "Norm of error|Iterations" 2 gmres pgmres "$B/petsc-tutorials/ex23" -n 100
  check_grep "variant-$v-report-np2" "$L/report.log" "analytic model \(pipe2cg pattern\)" tests/mpirun.sh 2 "$B/examples/poisson27" -rows_per_rank 4000 -ksp_type pipe2cg -pc_type jacobi -ksp_perfmodel_view
  # a plugin of another configuration is refused at registration with the way to rebuild, never a crash: this
  # variant's plugin in the default build's ex2, and the default build's plugin in this variant's ex2
  refused() { # EXE LIB REGEX: fails, says REGEX, no signal
    local out rc
    out=$(tests/mpirun.sh 1 "$1" -m 10 -n 10 -dll_append "$2" -ksp_type pcg 2>&1); rc=$?
    echo "$out"
    [ $rc != 0 ] && echo "$out" | grep -Eq "$3" && echo "$out" | grep -q "Rebuild pipekrylov against the running PETSc: make clean && PKG_CONFIG_PATH=" && ! echo "$out" | grep -Eiq "segmentation|signal [0-9]|SEGV"
  }
  want=$(case $v in int64) echo "64-bit PetscInt, real double" ;; complex) echo "32-bit PetscInt, complex double" ;; *) echo "32-bit PetscInt, real double" ;; esac)
  if [ -x build/petsc-tutorials/ex2 ] && [ -f lib/libpipekrylov.so ] && [ "$v" != real ]; then
    check "variant-$v-plugin-refused-by-default-petsc" "$L/refused1.log" refused build/petsc-tutorials/ex2 "$PK_LIB" "built for a PETSc with $want PetscScalar, but the running PETSc .* has 32-bit PetscInt, real double PetscScalar"
    check "variant-$v-refuses-default-plugin" "$L/refused2.log" refused "$B/petsc-tutorials/ex2" "$ROOT/lib/libpipekrylov.so" "built for a PETSc with 32-bit PetscInt, real double PetscScalar, but the running PETSc .* has $want PetscScalar"
  else
    SKIPPED=$((SKIPPED + 1)); printf 'SKIP variant-%s-refused: the default build (make) is not there\n' "$v"
  fi
  rm -f "$L/trace.csv"
  check "variant-$v-trace-np2" "$L/trace.log" tests/mpirun.sh 2 "$B/petsc-tutorials/ex2" -m 60 -n 60 -dll_append "$PK_LIB" -ksp_type pcg -ksp_perf_trace "$L/trace.csv"
  if [ "$(grep -c '^0,0,[01],' "$L/trace.csv" 2>/dev/null)" -gt 10 ] && head -1 "$L/trace.csv" | grep -q '^solve,ksp,rank,'; then ok "variant-$v-trace-rows"; else ko "variant-$v-trace-rows" "no trace rows in $L/trace.csv"; fi
done
echo "----"
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ $FAILED = 0 ]
