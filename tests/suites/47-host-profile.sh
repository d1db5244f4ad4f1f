# shellcheck shell=bash
# tests/run: alone (the cached host profile)
# Calibrate where the user is (issue 12): bin/pipekrylov-calibrate writes this host's profile to the user's cache
# ($XDG_CACHE_HOME/pipekrylov/<host>.profile, ~/.cache without XDG_CACHE_HOME); the report uses it without options;
# -ksp_perfmodel_machine overrides it; without one the report says so in its first lines, with the command.
# Absurd (finite) values in a profile are rejected with the key and the sane range.
export HP=$PK_BUILD/tests/hostprofile
export CAL=$PK_ROOT/bin/pipekrylov-calibrate
export EX=$PK_BUILD/examples
rm -rf "$HP"
mkdir -p "$HP"

hp_calibrate_xdg() { # the profile lands in $XDG_CACHE_HOME/pipekrylov/<host>.profile, host = node name + CPU
  XDG_CACHE_HOME=$HP/xdg "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick || return 1
  f=$(ls "$HP"/xdg/pipekrylov/*.profile) || return 1
  case "$(basename "$f")" in "$(uname -n)"*.profile) echo "cache profile at $f" ;; *) echo "unexpected name $f"; return 1 ;; esac
}
hp_calibrate_home() { # no XDG_CACHE_HOME: $HOME/.cache
  env -u XDG_CACHE_HOME HOME=$HP/home "$PK_ROOT/tests/mpirun.sh" 2 "$CAL" -quick >/dev/null || return 1
  ls "$HP"/home/.cache/pipekrylov/*.profile && echo "home cache used"
}
hp_report() { # report first lines and the provenance line
  "$PK_ROOT/tests/mpirun.sh" 2 "$EX/poisson27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view "$@"
}
hp_first_run() { # no profile for this host: says so in the FIRST lines, with the one command
  XDG_CACHE_HOME=$HP/empty hp_report | head -5 | tr '\n' ' '
}
hp_have_cache() { ls "$HP"/xdg/pipekrylov/*.profile >/dev/null 2>&1 || hp_calibrate_xdg >/dev/null; } # run alone (-k) too
hp_uses_cache() { # the cached profile, and no warning
  local out
  hp_have_cache || return 1
  out=$(XDG_CACHE_HOME=$HP/xdg hp_report) || return 1
  if echo "$out" | grep -q "NO MACHINE PROFILE"; then echo "warned although this host has a profile"; return 1; fi
  echo "$out" | grep "machine profile:"
}
hp_option_wins() {
  hp_have_cache || return 1
  XDG_CACHE_HOME=$HP/xdg hp_report -ksp_perfmodel_machine "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" | grep -E "NO MACHINE PROFILE|machine profile:"
}
hp_other_node() { # no profile of this node, one of another node with this processor (a cluster's shared home): used
  local f base
  hp_have_cache || return 1
  mkdir -p "$HP/other/pipekrylov"
  f=$(ls "$HP"/xdg/pipekrylov/*.profile) || return 1
  base=$(basename "$f")
  cp "$f" "$HP/other/pipekrylov/othernode${base#"$(uname -n)"}"
  XDG_CACHE_HOME=$HP/other hp_report | grep -A2 -E 'NO MACHINE PROFILE|machine profile:' | awk '{ sub(/^ +/, ""); printf "%s", $0 }'
}
hp_no_home() { # run directly, not under mpiexec: Open MPI 5's launcher does not start without HOME
  env -u XDG_CACHE_HOME -u HOME "$CAL" -quick
}
hp_broken_cache() { # a cached profile that does not read is an error naming it, never silently the default
  hp_have_cache || return 1
  mkdir -p "$HP/broken/pipekrylov"
  cp "$HP"/xdg/pipekrylov/*.profile "$HP/broken/pipekrylov/" && f=$(ls "$HP"/broken/pipekrylov/*.profile)
  sed -i 's/^alpha_on_short = .*/alpha_on_short = 1e308/' "$f"
  XDG_CACHE_HOME=$HP/broken hp_report
}
export -f hp_have_cache hp_calibrate_xdg hp_calibrate_home hp_report hp_first_run hp_uses_cache hp_option_wins hp_no_home hp_broken_cache hp_other_node
t_grep hostprofile-calibrate-xdg "cache profile at .*/xdg/pipekrylov/" hp_calibrate_xdg
t_grep hostprofile-calibrate-home "home cache used" hp_calibrate_home
t_grep hostprofile-first-run-message "^pipekrylov performance report.* NO MACHINE PROFILE FOR THIS HOST: .*embedded default.*mpiexec -n 2 .*pipekrylov-calibrate.*this one is $(uname -n)" hp_first_run
t_grep hostprofile-cache-used "machine profile: this host's profile" hp_uses_cache
t_grep hostprofile-other-node-same-cpu "machine profile: the profile of another host with this processor,.*/other/pipekrylov/othernode_" hp_other_node
t_grep hostprofile-option-over-cache "machine profile: .*emulated-2node-1gbit.profile" hp_option_wins
t_fail hostprofile-no-cache-dir "Neither XDG_CACHE_HOME nor HOME is set" hp_no_home
t_fail hostprofile-broken-cache "alpha_on_short' is outside the sane range" hp_broken_cache

# range validation of any profile: finite but absurd values
v='pipekrylov_machine_profile = 1'
printf '%s\nalpha_on_short = 1e308\n' "$v" >"$HP/huge-latency.profile"
printf '%s\nmem_bw = 1e300\n' "$v" >"$HP/huge-bw.profile"
printf '%s\nbeta_off_eager = 5\n' "$v" >"$HP/huge-beta.profile"
printf '%s\nspmv_per_nnz = 1e-30\n' "$v" >"$HP/tiny-spmv.profile"
t_fail profile-range-latency "line 2: value 1e308 of 'alpha_on_short' is outside the sane range \[1e-10, 1\] s" $PK_BUILD/tests/profile -load "$HP/huge-latency.profile"
t_fail profile-range-bandwidth "value 1e300 of 'mem_bw' is outside the sane range \[1000, 1e\+15\] bytes/s" $PK_BUILD/tests/profile -load "$HP/huge-bw.profile"
t_fail profile-range-per-byte "value 5 of 'beta_off_eager' is outside the sane range" $PK_BUILD/tests/profile -load "$HP/huge-beta.profile"
t_fail profile-range-spmv "value 1e-30 of 'spmv_per_nnz' is outside the sane range" $PK_BUILD/tests/profile -load "$HP/tiny-spmv.profile"
t_fail profile-range-in-report "alpha_on_short' is outside the sane range" hp_report -ksp_perfmodel_machine "$HP/huge-latency.profile"
t_grep hostprofile-cache-path-option "/xdg/pipekrylov/$(uname -n).*\.profile$" env XDG_CACHE_HOME=$HP/xdg "$CAL" -cache_path

# What-if for larger runs only with measured off-node parameters (issue 12): the embedded default has none, so the
# report refuses and says what is missing and how to measure it; a profile measured across nodes predicts.
t_grep whatif-ranks-refused-default "what-if larger runs: not predicted.*no off-node parameters +\(alpha_off_\*, beta_off_\* of the short, eager, rendezvous protocols.*pipekrylov-cluster run 4 2 .*pipekrylov-calibrate" \
  sh -c "XDG_CACHE_HOME=$HP/empty $PK_ROOT/tests/mpirun.sh 2 $EX/poisson27 -rows_per_rank 1000 -ksp_type pipecg -pc_type jacobi -ksp_perfmodel_view | tr '\n' ' '"
t_grep whatif-ranks-refused-csv "^whatif.ranks,refused,,,no off-node parameters" \
  env XDG_CACHE_HOME=$HP/empty "$PK_ROOT/tests/mpirun.sh" 2 "$EX/poisson27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view ::ascii_csv
t_grep whatif-ranks-with-offnode "what-if larger runs \(weak scaling.*\n?" \
  "$PK_ROOT/tests/mpirun.sh" 2 "$EX/poisson27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -ksp_perfmodel_view -ksp_perfmodel_machine "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile"
# ... and the larger runs' halo crosses nodes: from the DMDA's grid when the operator has one, else an upper bound
# with every message of the slowest rank off node; either way the predicted time grows from this run to 4x the ranks
# (this run: 2 ranks on one node, on-node halo only)
whatif_grows() { # whatif_grows HOW-REGEX PROGRAM ARGS...: the what-if names HOW and its first row exceeds this run's
  local how=$1 out; shift
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$@" -ksp_perfmodel_view -ksp_perfmodel_machine "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile") || return 1
  echo "$out" | sed -n '/what-if larger runs/,/^  ---/p'
  echo "$out" | grep -Eq "halo exchange: $how" || { echo "no 'halo exchange: $how'"; return 1; }
  echo "$out" | awk '/\(this run, modelled\)/ { t0 = $2 + 0; getline; t1 = $2 + 0; exit !(t1 > t0) }'
}
export -f whatif_grows
t whatif-ranks-halo-dmda whatif_grows "the DMDA's grid" "$EX/poisson27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi
t whatif-ranks-halo-bound whatif_grows "an upper bound: every halo message" "$PK_BUILD/petsc-tutorials/ex2" -m 40 -n 40 -dll_append "$PK_LIB" -ksp_type pcg -pc_type jacobi
# a profile with off-node latencies but without the off-node allreduce: the on-node values stand in, and the report
# names them (they were filled in silently)
partial_offnode() {
  sed -e 's/^allreduce_alpha_off = .*/allreduce_alpha_off = none/' -e 's/^allreduce_beta_off = .*/allreduce_beta_off = none/' "$PK_ROOT/config/profiles/emulated-2node-1gbit.profile" >"$HP/partial-offnode.profile"
  "$PK_ROOT/tests/mpirun.sh" 2 "$EX/poisson27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view -ksp_perfmodel_machine "$HP/partial-offnode.profile"
}
export -f partial_offnode
t_grep profile-partial-offnode-named "not in the profile, the on-node value used off node: allreduce_alpha_off, allreduce_beta_off" partial_offnode
