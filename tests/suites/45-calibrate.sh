# shellcheck shell=bash
# tests/run: alone (times the machine; writes the cached host profile)
# Machine profiles (reader, writer, viewer), bin/pipekrylov-calibrate and the emulated cluster (bin/pipekrylov-cluster).
PROF=$PK_BUILD/tests/profile
CAL=$PK_ROOT/bin/pipekrylov-calibrate
PD=$PK_BUILD/tests/calibrate
mkdir -p "$PD"

# Malformed profiles: each is rejected with the file name, the line and the reason
v='pipekrylov_machine_profile = 1'
printf '%s\nalpha_on_short = 1e-6\nfoo = 3\n' "$v" >"$PD/unknown.profile"
printf '# header\n%s\n\nmem_bw 3e9\n' "$v" >"$PD/noeq.profile"
printf '%s\ngamma = abc\n' "$v" >"$PD/nan.profile"
printf '%s\nmem_bw = -2.5e9   # bytes/s\n' "$v" >"$PD/negbw.profile"
printf '%s\nalpha_off_eager = 0\n' "$v" >"$PD/zerolat.profile"
printf '%s\nRN = 1e9\n# again\nRN = 2e9\n' "$v" >"$PD/dup.profile"
printf 'mem_bw = 1e9\n' >"$PD/nover.profile"
printf 'pipekrylov_machine_profile = 7\n' >"$PD/badver.profile"
: >"$PD/empty.profile"
t_fail profile-unknown-key "machine profile '.*unknown.profile', line 3: unknown key 'foo'" $PROF -load "$PD/unknown.profile"
t_fail profile-missing-eq "noeq.profile', line 4: missing '=' in 'mem_bw 3e9'" $PROF -load "$PD/noeq.profile"
t_fail profile-not-a-number "nan.profile', line 2: value 'abc' of 'gamma' is not a number" $PROF -load "$PD/nan.profile"
t_fail profile-negative-bandwidth "negbw.profile', line 2: impossible value -2.5e9 for 'mem_bw': it must be > 0" $PROF -load "$PD/negbw.profile"
t_fail profile-negative-bandwidth-np2 "negbw.profile', line 2: impossible value -2.5e9 for 'mem_bw'" "$PK_ROOT/tests/mpirun.sh" 2 $PROF -load "$PD/negbw.profile"
t_fail profile-zero-latency "zerolat.profile', line 2: impossible value 0 for 'alpha_off_eager': it must be > 0" $PROF -load "$PD/zerolat.profile"
t_fail profile-duplicate-key "dup.profile', line 4: duplicate key 'RN' \(first set on line 2\)" $PROF -load "$PD/dup.profile"
t_fail profile-no-version "nover.profile', line 1: not a pipekrylov machine profile" $PROF -load "$PD/nover.profile"
t_fail profile-bad-version "badver.profile', line 1: unsupported profile version 7" $PROF -load "$PD/badver.profile"
t_fail profile-empty "empty.profile', line 1: end of file without the version line" $PROF -load "$PD/empty.profile"
t_fail profile-unreadable "cannot read machine profile '.*does-not-exist.profile': No such file or directory" $PROF -load "$PD/does-not-exist.profile"
# control characters of a profile (an ESC sequence, BEL, a C1 CSI) are shown escaped in the messages, never sent to
# the terminal: by the profile viewer and by the report's -ksp_perfmodel_machine
printf '%s\n\033[31mred = 1\n' "$v" >"$PD/esc-key.profile"
printf '%s\nmem_bw = 3e9\a\302\233\n' "$v" >"$PD/esc-value.profile"
t_grep profile-control-chars-key "esc-key.profile', line 2: '\\\\x1b\\[31mred' is not a key" "$PK_ROOT/tests/fails-escaped.sh" "$PROF" -load "$PD/esc-key.profile"
t_grep profile-control-chars-value "esc-value.profile', line 2: value '3e9\\\\x07\\\\xc2\\\\x9b' of 'mem_bw' is not a number" "$PK_ROOT/tests/fails-escaped.sh" "$PROF" -load "$PD/esc-value.profile"
t_grep profile-control-chars-report "esc-key.profile', line 2: '\\\\x1b\\[31mred' is not a key" "$PK_ROOT/tests/fails-escaped.sh" "$PK_BUILD/examples/poisson27" -rows_per_rank 100 -ksp_perfmodel_view -ksp_perfmodel_machine "$PD/esc-key.profile"
printf '%s\nvec_pcg_diag_4096 = 0.5\n' "$v" >"$PD/vecrow.profile"
t_fail profile-vecwork-range "vecrow.profile', line 2: value 0.5 of 'vec_pcg_diag_4096' is outside the sane range \\[1e-14, 0.001\\] s/row" $PROF -load "$PD/vecrow.profile"
t_grep profile-parse-cases "all 21 cases rejected with their reason" $PROF -cases

# The embedded default, its provenance, and exact write/read round trips
t_grep profile-default-view "mem_bw +[0-9.e+]+ +bytes/s +embedded default" $PROF
t_grep profile-default-offnode "RN +n/a +bytes/s +not available" $PROF
t_grep profile-shipped-cluster "RN +[0-9.e+]+ +bytes/s +profile" $PROF -load "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" -roundtrip "$PD/shipped-rt.profile"
t_grep profile-default-roundtrip "roundtrip identical: [0-9]+ fields" $PROF -roundtrip "$PD/default-rt.profile"

# A quick calibration on 2 ranks (one node: off-node values are 'none'), then the same with -node_size 1 (two
# emulated nodes: every off-node value measured). Values are checked for sign and plausibility, never for speed.
t_mpi calibrate-quick-np2 2 $CAL -quick -o "$PD/quick.profile"
t_grep calibrate-quick-plausible "profile values positive and plausible" $PROF -load "$PD/quick.profile" -plausible
t_grep calibrate-quick-offnode-none "alpha_off_short +n/a +s +not available" $PROF -load "$PD/quick.profile"
t_grep calibrate-quick-roundtrip "roundtrip identical: [0-9]+ fields" $PROF -load "$PD/quick.profile" -roundtrip "$PD/quick-rt.profile"
# each CG type's own vector kernels timed (-quick: 16^3 and 32^3 rows, not 64^3), shown as a table by the viewer; a
# report with the profile scales another type's vector work by them (docs/models.md §3.3), and says so
t_grep calibrate-quick-vecwork "pipe2cg +[0-9]+[.][0-9]+ +[0-9]+[.][0-9]+ +- [|] +[0-9]+[.][0-9]+ +[0-9]+[.][0-9]+ +- +profile" $PROF -load "$PD/quick.profile"
t_grep calibrate-quick-vecwork-report "other CG types' vector work: this run's, scaled by their kernels as calibrated here" "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -rows_per_rank 2000 -pc_type jacobi -ksp_type pcg -ksp_perfmodel_view -ksp_perfmodel_machine "$PD/quick.profile"
t_grep calibrate-node-size "RN +[0-9.e+]+ +bytes/s +measured in this run" "$PK_ROOT/tests/mpirun.sh" 2 $CAL -quick -node_size 1 -o "$PD/nodesize.profile"
t_grep calibrate-help "-node_size:? <now 0" $CAL -help
# --help and -h (not PETSc's own -help) print the usage and do nothing else, on any number of ranks: no measurement
# and, with no -o, no profile in the cache (-quick keeps a wrongful calibration short); an unknown option, a stray
# word or a bare -o is refused before anything is measured or written
cal_clean() { # EXPECT(ok|fail) REGEX NP ARGS...: exit status as expected, output matching, nothing measured, nothing written
  local expect=$1 re=$2 np=$3 x out rc; shift 3
  x=$(mktemp -d)
  out=$(cd "$x" && XDG_CACHE_HOME=$x/cache "$PK_ROOT/tests/mpirun.sh" "$np" "$PK_ROOT/bin/pipekrylov-calibrate" "$@" 2>&1); rc=$?
  echo "$out"
  if [ -n "$(ls -A "$x")" ]; then echo "FAIL: wrote $(cd "$x" && find . -mindepth 1 | tr '\n' ' ')"; rc=-1; fi
  rm -rf "$x"
  [ $rc != -1 ] || return 1
  if [ "$expect" = ok ]; then [ $rc = 0 ] || return 1; else [ $rc != 0 ] || { echo "FAIL: succeeded"; return 1; }; fi
  echo "$out" | grep -Eq -- "$re" || { echo "FAIL: no /$re/"; return 1; }
  ! echo "$out" | grep -q "On-node"
}
CAL_USAGE="-node_size <k> +treat every k consecutive ranks"
t cal-help-long-np2 cal_clean ok "$CAL_USAGE" 2 --help -quick
t cal-help-short-np2 cal_clean ok "$CAL_USAGE" 2 -h -quick
t cal-help-long-np1 cal_clean ok "$CAL_USAGE" 1 --help
t cal-help-short-np1 cal_clean ok "$CAL_USAGE" 1 -h -quick
t cal-unknown-option cal_clean fail "unknown option -bogus: -help lists the options. Nothing was measured" 2 -quick -bogus
t cal-unknown-gnu-option cal_clean fail "unknown option --quick: -help lists the options" 2 --quick
t cal-stray-argument cal_clean fail "unexpected argument 'my.profile': options start with '-' \(the profile's file is -o <file>\)" 2 my.profile -quick
t cal-o-without-file cal_clean fail "-o needs the name of the profile file to write \(-o <file>\). Nothing was measured" 2 -quick -o
t cal-o-without-file-np1 cal_clean fail "-o needs the name of the profile file to write" 1 -o
t_fail calibrate-bad-node-size "-node_size -3 must be >= 1" $CAL -node_size -3 -o "$PD/never.profile"

# The emulated cluster: calibrate across two network namespaces, off-node must look off-node
if [ "$(id -u)" != 0 ]; then
  skip cluster-calibrate "not root: the emulated cluster needs root for network namespaces"
  skip cluster-not-root "not root already"
elif ! command -v ip >/dev/null 2>&1 || ! command -v tc >/dev/null 2>&1; then
  skip cluster-calibrate "iproute2 (ip, tc) is not installed"
elif ! ip netns add "pkprobe$$" >/dev/null 2>&1; then
  skip cluster-calibrate "network namespaces cannot be created here ($(ip netns add "pkprobe$$" 2>&1 | head -1))"
else
  ip netns del "pkprobe$$"
  t_grep cluster-calibrate "PASS: off-node alpha > on-node alpha" "$PK_ROOT/tests/calibrate-cluster.sh" "$PD/cluster"
  if command -v setpriv >/dev/null 2>&1; then
    # the unprivileged user may not be able to enter the checkout (/root/..., a mktemp -d) nor $TMPDIR (a copy
    # there failed when TMPDIR is private too): root opens the script, the user's sh reads it from stdin, from /
    cluster_not_root() {
      (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups sh -s up 2 < "$PK_ROOT/bin/pipekrylov-cluster")
    }
    t_fail cluster-not-root "needs root" cluster_not_root
  else
    skip cluster-not-root "setpriv (util-linux) not available to drop root"
  fi
fi
t_fail cluster-run-not-up "the cluster is not up|needs root" env PK_CLUSTER_DIR="$PD/no-such-cluster" "$PK_ROOT/bin/pipekrylov-cluster" run 2 1 true
t_fail cluster-bad-args "N must be a number of nodes" "$PK_ROOT/bin/pipekrylov-cluster" up two
