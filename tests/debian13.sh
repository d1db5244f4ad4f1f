#!/usr/bin/env bash
# tests/debian13.sh (make check-debian13): the whole suite on a second software stack, Debian 13's (PETSc 3.22,
# Open MPI 5, hypre 2.32, PAPI 7.1, gcc 14), in a root file system made here by mmdebstrap under build/debian13/
# (reused when present) and entered with chroot in a private mount namespace (its /proc, /sys and /dev mounts go
# away with it). The sources (what git tracks, and new files it does not ignore) are copied in fresh each time and
# built there with the stack's own PETSc; the suite's own "N passed, N failed" line ends the output.
#
#   tests/debian13.sh [-k REGEX]      -k: only the tests whose name matches (as tests/run -k)
#   tests/debian13.sh -c COMMAND      build there, then run COMMAND (a shell command line) in the sources instead
#                                     of the suite (bench/stacks uses it)
#   PK_DEBIAN13_ROOTFS=DIR            the root file system (default build/debian13/rootfs)
#   PK_DEBIAN13_MIRROR=URL            the Debian mirror for mmdebstrap (default: its own)
#
# Needs root (chroot, mounts), mmdebstrap and the package archive; where one is missing it prints SKIP with the
# reason and exits 0 (never a pass). Exit status: the suite's.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
FILTER="" CMD=""
while [ $# -gt 0 ]; do
  case "$1" in
    -k) FILTER=$2; shift 2 ;;
    -c) CMD=$2; shift 2 ;;
    *) echo "usage: tests/debian13.sh [-k REGEX | -c COMMAND]"; exit 2 ;;
  esac
done
FS=${PK_DEBIAN13_ROOTFS:-$ROOT/build/debian13/rootfs}
STAMP=$FS.ok
skip() { echo "SKIP check-debian13: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "needs root (mmdebstrap, chroot and the mounts of /proc, /sys and /dev)"
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is not installed"
# what the stack needs beyond the essential packages: the build, the suite's tools, and the libraries
PKGS="petsc-dev python3-petsc4py python3-dolfinx slurm-wlm munge libopenmpi-dev openmpi-bin libhypre-dev libpapi-dev papi-tools libhwloc-dev make gcc pkg-config \
iproute2 mount procps python3 python3-numpy python3-matplotlib valgrind git ca-certificates file"
WANT="trixie $PKGS"

if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  command -v mmdebstrap >/dev/null 2>&1 || skip "mmdebstrap is not installed (apt-get install mmdebstrap)"
  echo "check-debian13: making the Debian 13 root file system in $FS (about a minute, 1.7 GB)"
  rm -rf "$FS" "$FS.tmp" "$STAMP"
  mkdir -p "$(dirname "$FS")"
  # the archive first: unreachable is a SKIP, a failure once it answers is a failure
  host=$(echo "${PK_DEBIAN13_MIRROR:-http://deb.debian.org/debian}" | sed -E 's#^[a-z]+://##; s#[/:].*##')
  timeout 15 bash -c "exec 3<>/dev/tcp/$host/80" 2>/dev/null || skip "the Debian archive ($host) is not reachable from here"
  # PETSc's tutorials come in a package named after PETSc's version: found inside, once petsc-dev is there
  cat >"$ROOT/build/debian13/examples-hook.sh" <<'HOOK'
#!/bin/sh
chroot "$1" sh -c 'v=$(pkg-config --modversion PETSc | cut -d. -f1,2) && apt-get install -y -q --no-install-recommends "libpetsc$v-dev-examples"'
HOOK
  # shellcheck disable=SC2016
  if ! mmdebstrap --variant=apt --include="$(echo $PKGS | tr ' ' ,)" \
      --customize-hook='sh '"$ROOT"'/build/debian13/examples-hook.sh "$1"' \
      trixie "$FS.tmp" ${PK_DEBIAN13_MIRROR:-} >"$ROOT/build/debian13/mmdebstrap.log" 2>&1; then
    rm -rf "$FS.tmp"
    tail -5 "$ROOT/build/debian13/mmdebstrap.log" | sed 's/^/  | /'
    echo "FAIL check-debian13: mmdebstrap could not make the root file system (build/debian13/mmdebstrap.log)"
    echo "0 passed, 1 failed"
    exit 1
  fi
  mv "$FS.tmp" "$FS"
  echo "$WANT" >"$STAMP"
fi

# the sources, fresh: a file deleted here must not linger there
SRC=$FS/root/pipekrylov
rm -rf "$SRC" && mkdir -p "$SRC"
if [ -d .git ] && command -v git >/dev/null 2>&1; then
  git ls-files -z -c -o --exclude-standard | tar --null -T - -cf - | tar -C "$SRC" -xf -
else
  tar --exclude=./build --exclude=./lib -cf - . | tar -C "$SRC" -xf -
fi
cp /etc/resolv.conf "$FS/etc/resolv.conf" 2>/dev/null || true

# inside: the stack's versions for the log, then the README's test command, with any deprecated PETSc call in our
# sources an error. The root file system is bound onto itself
# so that / is a mount point inside (ip netns exec, which the emulated cluster uses, makes / a slave mount)
# shellcheck disable=SC2016
INNER='cd /root/pipekrylov
echo "check-debian13: Debian $(cat /etc/debian_version), PETSc $(pkg-config --modversion PETSc), $(mpiexec --version 2>&1 | head -1), hypre $(dpkg-query -W -f="\${Version}" libhypre-dev 2>/dev/null), PAPI $(dpkg-query -W -f="\${Version}" libpapi-dev 2>/dev/null), $(gcc --version | head -1)"
if [ -n "$PK_CMD" ]; then make --no-print-directory -j2 all CFLAGS=-Werror=deprecated-declarations >build.log 2>&1 || { tail -20 build.log; exit 1; }; exec bash -c "$PK_CMD"; fi
exec make --no-print-directory check CFLAGS=-Werror=deprecated-declarations ${PK_FILTER:+TESTS="$PK_FILTER"}'
# shellcheck disable=SC2016
exec unshare --mount --propagation private bash -c '
  FS=$1; shift
  mount --bind "$FS" "$FS" && mount -t proc proc "$FS/proc" && mount --rbind /sys "$FS/sys" && mount --rbind /dev "$FS/dev" || exit 1
  mkdir -p "$FS/run/netns" "$FS/tmp" && chmod 1777 "$FS/tmp"
  exec chroot "$FS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb PK_FILTER="$2" PK_CMD="$3" bash -c "$1"
' _ "$FS" "$INNER" "$FILTER" "$CMD"
