# shellcheck shell=bash
# tests/run: alone (the emulated cluster and the cached host profile)
# Safe as root on a shared machine (issue 19, docs/security.md): the tools and the library run as root beside other
# users. A hostile user's directory, symbolic link, FIFO or file in a shared place (a world-writable /tmp, a shared
# profile cache) is refused or ignored, and nothing outside is overwritten; failed writes are errors that leave
# nothing partial behind; profiles are read from regular files only.
#
# The hostile user is nobody (uid 65534), reached with setpriv; the shared place is a directory of mode 1777 under
# /tmp (the checkout may not be reachable for nobody). Tests that need root or setpriv say SKIP with the reason.
export SEC=$PK_BUILD/tests/security
export CAL=$PK_ROOT/bin/pipekrylov-calibrate
export EX=$PK_BUILD/examples
rm -rf "$SEC"
mkdir -p "$SEC"

# sec_shared: a fresh world-writable sticky directory (as /tmp is) under /tmp, printed; removed by sec_cleanup
sec_shared() { local d; d=$(mktemp -d /tmp/pk-sec.XXXXXX) && chmod 1777 "$d" && echo "$d"; }
# as_nobody CMD...: CMD as the unprivileged user, from / (it may not enter the checkout)
as_nobody() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
# the 2-rank report on poisson27 (the cache, when there is one, is $XDG_CACHE_HOME's)
sec_report() { "$PK_ROOT/tests/mpirun.sh" 2 "$EX/poisson27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view "$@"; }
# this host's profile name in a cache (as the calibration would write it)
sec_host_profile() { XDG_CACHE_HOME=$1 "$CAL" -cache_path; }
export -f sec_shared as_nobody sec_report sec_host_profile

# A cache directory planted by another user (XDG_CACHE_HOME in a shared place): root's report ignores it, with a
# warning, and uses the embedded default; the planted profile's marker value is never used
sec_cache_foreign_dir() {
  local s p rc
  s=$(sec_shared) || return 1
  p=$(sec_host_profile "$s/xdg") || return 1
  as_nobody sh -c "mkdir -p '$s/xdg/pipekrylov' && sed 's/^mem_bw = .*/mem_bw = 1.234e9/' > '$p'" < "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" || return 1
  ls -la "$s/xdg/pipekrylov"
  XDG_CACHE_HOME=$s/xdg sec_report -ksp_perfmodel_view ::ascii_info_detail 2>&1 | tee "$SEC/foreign-dir.txt" | grep -E "WARNING|machine profile|NO MACHINE|mem_bw"
  rc=$?
  rm -rf "$s"
  grep -q "1.234e+09\|1.234e9" "$SEC/foreign-dir.txt" && { echo "FAIL: the planted profile was used"; return 1; }
  return $rc
}
# A file in root's own cache that is not root's (another host's profile, owned by nobody): skipped with a warning
sec_cache_foreign_file() {
  local d=$SEC/cache-file cpu p
  mkdir -p "$d/pipekrylov" && chmod 700 "$d/pipekrylov" || return 1
  p=$(sec_host_profile "$d") || return 1
  cpu=${p##*/}; cpu=${cpu#"$(uname -n)"}
  cp "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" "$d/pipekrylov/othernode$cpu" && chown 65534:65534 "$d/pipekrylov/othernode$cpu" || return 1
  XDG_CACHE_HOME=$d sec_report 2>&1 | grep -E "WARNING|NO MACHINE|machine profile:"
}
# A broken profile of another host in the cache: skipped with a warning, the report goes on (it aborted every report)
sec_cache_other_broken() {
  local d=$SEC/cache-broken cpu p
  mkdir -p "$d/pipekrylov" && chmod 700 "$d/pipekrylov" || return 1
  p=$(sec_host_profile "$d") || return 1
  cpu=${p##*/}; cpu=${cpu#"$(uname -n)"}
  printf 'pipekrylov_machine_profile = 1\nalpha_on_short = 1e308\n' >"$d/pipekrylov/othernode$cpu"
  XDG_CACHE_HOME=$d sec_report 2>&1 | grep -E "WARNING|NO MACHINE|machine profile:|ksp_solve|KSPSolve"
}
# A cache directory writable by others (mode 0777, root's own): ignored with a warning
sec_cache_world_writable() {
  local d=$SEC/cache-ww p
  mkdir -p "$d/pipekrylov" && chmod 777 "$d/pipekrylov" || return 1
  p=$(sec_host_profile "$d") || return 1
  sed 's/^mem_bw = .*/mem_bw = 1.234e9/' "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" >"$p"
  XDG_CACHE_HOME=$d sec_report 2>&1 | grep -E "WARNING|NO MACHINE|machine profile:"
}
# This host's profile in the cache is a FIFO: ignored with a warning, never waited on
sec_cache_fifo() {
  local d=$SEC/cache-fifo p
  mkdir -p "$d/pipekrylov" && chmod 700 "$d/pipekrylov" || return 1
  p=$(sec_host_profile "$d") || return 1
  mkfifo "$p" || return 1
  XDG_CACHE_HOME=$d sec_report 2>&1 | grep -E "WARNING|NO MACHINE"
}
export -f sec_cache_foreign_dir sec_cache_foreign_file sec_cache_other_broken sec_cache_world_writable sec_cache_fifo
if [ "$(id -u)" != 0 ]; then
  skip sec-cache-foreign-dir-ignored "not root: the hostile user is made with setpriv, and root is what is attacked"
  skip sec-cache-foreign-file-skipped "not root: chown to another user needs root"
elif ! command -v setpriv >/dev/null 2>&1; then
  skip sec-cache-foreign-dir-ignored "setpriv (util-linux) not available to drop root"
  t_grep sec-cache-foreign-file-skipped "WARNING pipekrylov: another host's cached profile is skipped: .*othernode_.*is owned by uid 65534, not by you" sec_cache_foreign_file
else
  t_grep sec-cache-foreign-dir-ignored "WARNING pipekrylov: the profile cache is ignored: the directory '.*/xdg/pipekrylov' is owned by uid 65534, not by you \(uid 0\)" sec_cache_foreign_dir
  t_grep sec-cache-foreign-file-skipped "WARNING pipekrylov: another host's cached profile is skipped: .*othernode_.*is owned by uid 65534, not by you" sec_cache_foreign_file
fi
t_grep sec-cache-other-host-broken-skipped "WARNING pipekrylov: another host's cached profile is skipped: machine profile '.*othernode_.*line 2: value 1e308" sec_cache_other_broken
t_grep sec-cache-world-writable-ignored "WARNING pipekrylov: the profile cache is ignored: the directory '.*cache-ww/pipekrylov' is writable by group or others \(mode 0777\)" sec_cache_world_writable
t_grep sec-cache-fifo-ignored "WARNING pipekrylov: this host's cached profile is ignored: cannot read machine profile '.*': not a regular file \(a FIFO\)" sec_cache_fifo

# Profiles are read from regular files only, of a bounded size: a device or a FIFO is refused at once
mkfifo "$SEC/fifo.profile"
head -c 2000000 /dev/zero | tr '\0' '#' >"$SEC/huge.profile"
t_fail sec-profile-dev-zero "cannot read machine profile '/dev/zero': not a regular file \(a device\)" "$PK_BUILD/tests/profile" -load /dev/zero
t_fail sec-profile-dev-urandom "cannot read machine profile '/dev/urandom': not a regular file \(a device\)" "$PK_BUILD/tests/profile" -load /dev/urandom
t_fail sec-profile-fifo "cannot read machine profile '.*fifo.profile': not a regular file \(a FIFO\)" "$PK_BUILD/tests/profile" -load "$SEC/fifo.profile"
t_fail sec-profile-too-large "cannot read machine profile '.*huge.profile': 2000000 bytes, more than the 1048576 bytes" "$PK_BUILD/tests/profile" -load "$SEC/huge.profile"
t_fail sec-report-profile-fifo "cannot read machine profile '.*fifo.profile': not a regular file" sec_report -ksp_perfmodel_machine "$SEC/fifo.profile"

# The calibration never writes through a link planted in a shared cache: nobody makes XDG_CACHE_HOME/pipekrylov
# first, with this host's profile a link to a root-owned 0600 file; root's calibration refuses the cache and the
# file is unchanged (it was overwritten)
sec_calibrate_planted_link() {
  local s p rc
  s=$(sec_shared) || return 1
  printf 'root secret\n' >"$s/victim" && chmod 600 "$s/victim"
  p=$(sec_host_profile "$s/xdg") || return 1
  as_nobody sh -c "mkdir -p '$s/xdg/pipekrylov' && ln -s '$s/victim' '$p'" || return 1
  XDG_CACHE_HOME=$s/xdg "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick; rc=$?
  if [ "$(cat "$s/victim")" != "root secret" ]; then echo "FAIL: the root-owned file was overwritten"; rm -rf "$s"; return 1; fi
  echo "the root-owned file is unchanged"
  rm -rf "$s"
  [ $rc != 0 ]
}
export -f sec_calibrate_planted_link
if [ "$(id -u)" != 0 ]; then skip sec-calibrate-planted-link "not root: root is what is attacked"
elif ! command -v setpriv >/dev/null 2>&1; then skip sec-calibrate-planted-link "setpriv (util-linux) not available to drop root"
else t_grep sec-calibrate-planted-link "cannot use the profile cache: the directory '.*/xdg/pipekrylov' is owned by uid 65534.*Nothing was measured" sec_calibrate_planted_link
fi

# Failed writes: -o /dev/full is refused before anything is measured; a full disk (a 4 KiB tmpfs in a mount namespace
# of the test's own) is an error, not "Wrote", and leaves no profile, nor a temporary file, behind
t_fail sec-calibrate-dev-full "cannot write the profile '/dev/full' \(-o\): it is not a regular file \(a device\). Nothing was measured" "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick -o /dev/full
# sec_full_disk MOUNTPOINT CMD...: CMD with a 4 KiB tmpfs at MOUNTPOINT; passes when CMD failed and left no file
# with content on that disk (a temporary file is removed too)
sec_full_disk() {
  local m=$1; shift
  mkdir -p "$m" && unshare -m sh -c 'mount -t tmpfs -o size=4k tmpfs "$0" || exit 3; "$@"; rc=$?
    echo "exit status $rc; left on the disk: $(find "$0" -mindepth 1 | tr "\n" " ")"
    if find "$0" -type f | grep -q .; then echo "FAIL: a file was left on the full disk"; exit 1; fi
    [ $rc != 0 ] || { echo "FAIL: exit status 0 on a full disk"; exit 1; }' "$m" "$@"
}
sec_full_disk_o() { cd "$SEC" && sec_full_disk small "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick -o small/p.profile; }
sec_full_disk_cache() { cd "$SEC" && XDG_CACHE_HOME=$SEC/smallcache sec_full_disk smallcache "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick; }
export -f sec_full_disk sec_full_disk_o sec_full_disk_cache
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null || ! command -v mount >/dev/null; then
  skip sec-calibrate-full-disk "no mount namespace or no mount command here (needs root): a small tmpfs is the full disk"
  skip sec-calibrate-full-disk-cache "no mount namespace or no mount command here (needs root): a small tmpfs is the full disk"
else
  t_grep sec-calibrate-full-disk "cannot write 'small/p.profile': No space left on device \(nothing was changed there\)" sec_full_disk_o
  t_grep sec-calibrate-full-disk-cache "pipekrylov/.*\.profile': No space left on device" sec_full_disk_cache
fi
# communication needs two ranks: a one-rank calibration is refused (its profile made communication free)
t_fail sec-calibrate-one-rank "one rank cannot measure communication.*at least 2 ranks" "$CAL" -quick -o "$SEC/one.profile"
t_fail sec-calibrate-cache-path-no-home "Neither XDG_CACHE_HOME nor HOME is set: there is no cache directory \(-cache_path\)" env -u XDG_CACHE_HOME -u HOME "$CAL" -cache_path

# bin/pipekrylov-cluster as root: its state directory is private (mkdir 0700, or refused when it exists and is not
# root's alone), its config is parsed, never sourced, and its default is not a predictable name in /tmp. The
# refusals come before any namespace is made, so these tests need root but not network namespaces.
export CLU=$PK_ROOT/bin/pipekrylov-cluster
# another user made the state directory first, with a config that runs a command and an agent of their own
sec_cluster_foreign_state() {
  local s rc
  s=$(sec_shared) || return 1
  as_nobody sh -c "mkdir '$s/state' && printf 'N=2\ntouch $s/pwned\n' > '$s/state/config' && printf '#!/bin/sh\ntouch $s/pwned\n' > '$s/state/rsh-agent' && chmod 755 '$s/state/rsh-agent'" || return 1
  PK_CLUSTER_DIR=$s/state "$CLU" run 2 1 true; rc=$?
  PK_CLUSTER_DIR=$s/state "$CLU" up 2; rc2=$?
  if [ -e "$s/pwned" ]; then echo "FAIL: the other user's command ran as root"; rm -rf "$s"; return 1; fi
  echo "nothing of the other user's ran; run: $rc, up: $rc2"
  ip netns list 2>/dev/null | grep -q "^$(PK_CLUSTER_DIR=$s/state "$CLU" status 2>/dev/null | sed -n 's/^state .*, names \([a-z0-9]*\) .*/\1/p')[0-9-]" && { echo "FAIL: up made namespaces"; rm -rf "$s"; return 1; }
  rm -rf "$s"
  [ $rc != 0 ] && [ $rc2 != 0 ]
}
# root's own private state directory whose config holds a command: refused, the command never runs
sec_cluster_config_parsed() {
  local d=$SEC/cluster-state rc
  rm -rf "$d"; mkdir -m 700 "$d" || return 1
  printf 'N=2\nRATE=1gbit\ntouch %s/pwned\n' "$SEC" >"$d/config"
  printf '#!/bin/sh\nexit 0\n' >"$d/rsh-agent"; chmod 700 "$d/rsh-agent"
  rm -f "$SEC/pwned"
  PK_CLUSTER_DIR=$d "$CLU" run 2 1 true; rc=$?
  [ -e "$SEC/pwned" ] && { echo "FAIL: the config was executed"; return 1; }
  [ $rc != 0 ]
}
# the state directory is a symbolic link (to a directory root owns): refused
sec_cluster_state_link() {
  mkdir -p "$SEC" && mkdir -m 700 "$SEC/real-state" && ln -sfn "$SEC/real-state" "$SEC/link-state" || return 1
  printf 'N=2\n' >"$SEC/real-state/config"
  ! PK_CLUSTER_DIR=$SEC/link-state "$CLU" run 2 1 true
}
# the default state directory is not /tmp/pipekrylov-cluster: another user's directory there is never read (in a
# mount namespace of the test's own, with /tmp and /run empty tmpfs, so that no real cluster is touched)
sec_cluster_default_not_tmp() {
  unshare -m sh -c '
    mount -t tmpfs -o mode=1777 tmpfs /tmp && mount -t tmpfs -o mode=755 tmpfs /run || exit 3
    setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "mkdir /tmp/pipekrylov-cluster && printf \"N=2\ntouch /tmp/pwned\n\" > /tmp/pipekrylov-cluster/config"
    env -u PK_CLUSTER_DIR -u PK_CLUSTER_PREFIX "$0" run 2 1 true; rc=$?
    if [ -e /tmp/pwned ]; then echo "FAIL: the default state directory in /tmp was trusted"; exit 1; fi
    [ $rc != 0 ]' "$CLU"
}
# names (namespaces, bridge, links) derived from the state directory: two state directories, two sets of names
sec_cluster_prefix() {
  local a b
  a=$(PK_CLUSTER_DIR=$SEC/cl-a "$CLU" status | sed -n 's/^state .*, names \([a-z0-9]*\) .*/\1/p')
  b=$(PK_CLUSTER_DIR=$SEC/cl-b "$CLU" status | sed -n 's/^state .*, names \([a-z0-9]*\) .*/\1/p')
  echo "names: '$a' and '$b'"
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]
}
export -f sec_cluster_foreign_state sec_cluster_config_parsed sec_cluster_state_link sec_cluster_default_not_tmp sec_cluster_prefix
if [ "$(id -u)" != 0 ]; then
  for n in foreign-state config-parsed state-link default-not-tmp prefix-from-state; do skip "sec-cluster-$n" "not root: bin/pipekrylov-cluster needs root"; done
elif ! command -v ip >/dev/null 2>&1 || ! command -v tc >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1 || ! command -v mount >/dev/null 2>&1; then
  for n in foreign-state config-parsed state-link default-not-tmp prefix-from-state; do skip "sec-cluster-$n" "iproute2 (ip, tc), setpriv or mount is not installed"; done
else
  t_grep sec-cluster-foreign-state "state directory .*/state belongs to uid 65534, not to you \(uid 0\): refused" sec_cluster_foreign_state
  t_grep sec-cluster-config-parsed "cluster-state/config, line 3: not a setting of this tool: 'touch " sec_cluster_config_parsed
  t_grep sec-cluster-state-link "the state directory .*/link-state is a symbolic link: refused" sec_cluster_state_link
  t_grep sec-cluster-default-not-tmp "run: the cluster is not up \(/run/pipekrylov-cluster/config missing\)" sec_cluster_default_not_tmp
  t_grep sec-cluster-prefix-from-state "names: 'pk[0-9]{5}' and 'pk[0-9]{5}'" sec_cluster_prefix
fi
# ... and a profile without them (as a one-rank calibration wrote, every communication parameter 'none') is never
# modelled as free communication: the report says so in its machine lines and uses the embedded default's values
sec_profile_no_comm() {
  "$PK_BUILD/tests/profile" -write "$SEC/nocomm.profile" >/dev/null || return 1
  sed -i -E 's/^((alpha|beta)_o(n|ff)_[a-z]+|(eager|rendezvous)_limit_o(n|ff)|Rb_o(n|ff)|allreduce_(alpha|beta)_o(n|ff)|RN|delta) = [^ ]*/\1 = none/' "$SEC/nocomm.profile"
  grep -c '= none' "$SEC/nocomm.profile"
  sec_report -ksp_perfmodel_machine "$SEC/nocomm.profile"
}
export -f sec_profile_no_comm
t_grep sec-report-profile-without-communication "NO ON-NODE COMMUNICATION PARAMETERS IN THE PROFILE \(calibrated on one rank\?\): the embedded default's used" sec_profile_no_comm
