#!/bin/sh
# make deps: install what pipekrylov needs from Debian's packages, or say exactly what is missing.
# Run as root on Debian/Ubuntu to install; elsewhere (or as a normal user) it only reports.
PKGS="petsc-dev libopenmpi-dev openmpi-bin libhypre-dev libpapi-dev papi-tools libpetsc3.18-dev-examples \
      iproute2 python3 python3-numpy python3-matplotlib valgrind"
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $PKGS; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
    case "$st" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
  done
else
  # Not a Debian system: check the tools and files the build uses directly.
  pkg-config --exists PETSc 2>/dev/null || missing="$missing PETSc(pkg-config PETSc.pc)"
  command -v mpicc >/dev/null 2>&1 || missing="$missing mpicc"
  command -v mpiexec >/dev/null 2>&1 || missing="$missing mpiexec"
  [ -n "$missing" ] && { echo "deps: missing:$missing"; echo "deps: install PETSc 3.18 (with hypre), an MPI, and PAPI, then set PKG_CONFIG_PATH or PETSC_DIR/PETSC_ARCH"; exit 1; }
  echo "deps: not a Debian system; PETSc and MPI found"; exit 0
fi
[ -z "$missing" ] && { echo "deps: all present"; exit 0; }
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends $missing >/tmp/pipekrylov-deps.log 2>&1 || {
    apt-get update -q >>/tmp/pipekrylov-deps.log 2>&1
    apt-get install -y -q --no-install-recommends $missing >>/tmp/pipekrylov-deps.log 2>&1 || {
      echo "deps: apt-get failed, see /tmp/pipekrylov-deps.log"; tail -5 /tmp/pipekrylov-deps.log; exit 1; }
  }
  echo "deps: done"
else
  echo "deps: missing:$missing"
  echo "deps: as root run: apt-get install$missing"
  exit 1
fi
