#!/bin/sh
# make deps: install what pipekrylov needs from Debian's packages, or say exactly what is missing.
# Run as root on Debian/Ubuntu to install; elsewhere (or as a normal user) it only reports.
# Package names do not depend on the release: PETSc's own (petsc-dev) is whatever version the release ships (3.18 on
# Debian 12, 3.22 on Debian 13), and its tutorials package is named after that version.
PKGS="petsc-dev libopenmpi-dev openmpi-bin libhypre-dev libpapi-dev papi-tools libhwloc-dev \
      iproute2 python3 python3-numpy python3-matplotlib valgrind"
# the tutorials of the PETSc that petsc-dev brings: libpetsc<major.minor>-dev-examples
petsc_examples() {
  v=$(pkg-config --modversion PETSc 2>/dev/null | cut -d. -f1,2)
  [ -n "$v" ] || v=$(apt-cache depends petsc-dev 2>/dev/null | sed -n 's/.*libpetsc-real\([0-9][0-9]*\.[0-9][0-9]*\)-dev.*/\1/p' | head -1)
  [ -n "$v" ] && echo "libpetsc$v-dev-examples"
}
missing_of() {
  m=""
  for p in "$@"; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
    case "$st" in *"install ok installed"*) ;; *) m="$m $p" ;; esac
  done
  echo "$m"
}
install() { # PACKAGES...: as root with apt-get, else say what to run
  [ $# = 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing: $*"
    export DEBIAN_FRONTEND=noninteractive
    # apt's output to a file of our own (mktemp: new, private), never to a fixed name in the shared /tmp
    log=$(mktemp "${TMPDIR:-/tmp}/pipekrylov-deps.XXXXXX") || { echo "deps: cannot create a log file"; exit 1; }
    apt-get install -y -q --no-install-recommends "$@" >"$log" 2>&1 || {
      apt-get update -q >>"$log" 2>&1
      apt-get install -y -q --no-install-recommends "$@" >>"$log" 2>&1 || {
        echo "deps: apt-get failed, see $log"; tail -5 "$log"; exit 1; }
    }
    rm -f "$log"
  else
    echo "deps: missing: $*"
    echo "deps: as root run: apt-get install $*"
    exit 1
  fi
}
if ! command -v dpkg-query >/dev/null 2>&1; then
  # Not a Debian system: check the tools and files the build uses directly.
  missing=""
  pkg-config --exists PETSc 2>/dev/null || missing="$missing PETSc(pkg-config PETSc.pc)"
  command -v mpicc >/dev/null 2>&1 || missing="$missing mpicc"
  command -v mpiexec >/dev/null 2>&1 || missing="$missing mpiexec"
  [ -n "$missing" ] && { echo "deps: missing:$missing"; echo "deps: install PETSc 3.18 or later (with hypre), an MPI, and PAPI, then set PKG_CONFIG_PATH or PETSC_DIR/PETSC_ARCH"; exit 1; }
  echo "deps: not a Debian system; PETSc and MPI found"; exit 0
fi
# shellcheck disable=SC2046,SC2086
install $(missing_of $PKGS)
ex=$(petsc_examples)
[ -n "$ex" ] || { echo "deps: cannot tell which PETSc petsc-dev brings (no PETSc.pc, no apt-cache)"; exit 1; }
# shellcheck disable=SC2046
install $(missing_of "$ex")
# optional: clang-format 14, the version the sources are laid out by (tests/format.sh; SKIP without it). Only where
# the release ships it (Debian 12), and only as root: its absence never stops the build.
if [ "$(id -u)" = 0 ] && [ -n "$(missing_of clang-format-14)" ] && apt-cache show clang-format-14 >/dev/null 2>&1; then
  ( install clang-format-14 ) || echo "deps: clang-format-14 not installed; the format check will say SKIP"
fi
# optional: SimGrid (the simulated runs, tests/suites/95-smpi.sh and bench/smpi; SKIP without it), shellcheck,
# petsc4py and DOLFINx (the Python module and its examples, tests/suites/52-python.sh), Slurm and MUNGE (the
# emulated cluster's launcher, tests/suites/44-slurm.sh; the daemons are started only by bin/pipekrylov-cluster)
for opt in libsimgrid-dev shellcheck python3-petsc4py python3-dolfinx slurm-wlm munge; do
  if [ "$(id -u)" = 0 ] && [ -n "$(missing_of $opt)" ] && apt-cache show $opt >/dev/null 2>&1; then
    ( install $opt ) || echo "deps: $opt not installed; the tests that need it will say SKIP"
  fi
done
echo "deps: all present (PETSc $(pkg-config --modversion PETSc 2>/dev/null))"
