# shellcheck shell=bash
# The recompute policy of pipecg and pipe2cg (issue 22; src/ksp/utils/cgpolicy.c, docs/pipelined-accuracy.md): by
# default the recompute goes on where the rounding of the recurrences would cost iterations or accuracy and stays
# off where it would only cost time; the user's -ksp_pipecg_recompute / -ksp_pipe2cg_recompute force either way;
# -ksp_view and -info say what it did and why. Each test failed before the policy (pipecg recurred w always,
# pipe2cg recomputed below rtol 5e-10 only, and neither said so in these words).
CMP=$PK_BUILD/tests/compare

# The unpreconditioned variable-coefficient problem by default: within 5% of cg's iterations (before: pipecg 1644 /
# 1692 against cg's 1383 / 1413 at 1e-8 on 1 / 2 ranks, 2520 / 2542 against 2159 / 2152 at 1e-12; pipe2cg 1834 /
# 1767 at 1e-8). Not here because not met (docs/pipelined-accuracy.md): pipecg at 1e-8 on 1 rank (1458, +5.4%, as
# with the recompute forced from the start) and pipe2cg at 1e-12 (2329 / 2280, +7.9% / +5.9%: its three-term
# recurrences' gap reaches 320 x the tolerance and a refuted claim costs the rest).
t_mpi policy-varcoef-none-1e-8-np2-pipecg 2 $CMP -problem varcoef -n 48 -pc_type none -types pipecg -ksp_rtol 1e-8 -its_rtol 0.05 -res_factor 2 -sol_rtol 1e-3
for np in 1 2; do
  t_mpi policy-varcoef-none-1e-12-np$np-pipecg $np $CMP -problem varcoef -n 48 -pc_type none -types pipecg -ksp_rtol 1e-12 -its_rtol 0.05 -res_factor 2 -sol_rtol 1e-3
  t_mpi policy-varcoef-none-1e-8-np$np-pipe2cg $np $CMP -problem varcoef -n 48 -pc_type none -types pipe2cg -ksp_rtol 1e-8 -its_rtol 0.05 -res_factor 2 -sol_rtol 1e-3
done

# The easy problem (poisson27, jacobi, 8000 rows per rank) recomputes nothing at 1e-8 (pipecg and pipe2cg) and 1e-12
# (pipecg), with cg's iterations (poisson27 prints them; tests/compare checks the rest). pipe2cg at 1e-12 does: the
# gap forces a replacement there and more are predicted, and each one injects the gap into its three-term
# recurrences; the error's promise (within 2x of cg's, 14-tight.sh) takes the recompute.
policy_none() { # policy_none NP TYPE RTOL: -ksp_view's count of recomputed passes is 0
  local out
  out=$("$PK_ROOT/tests/mpirun.sh" "$1" "$PK_BUILD/examples/poisson27" -rows_per_rank 8000 -pc_type jacobi -ksp_type "$2" -ksp_rtol "$3" -ksp_view 2>&1)
  echo "$out" | grep -E 'passes recomputed|unknowns'
  echo "$out" | grep -Eq 'last solve: 0 passes recomputed in [0-9]+ iterations, switched on 0 and off 0 times'
}
export -f policy_none
for np in 1 2; do
  for c in "1e-8 pipecg" "1e-8 pipe2cg" "1e-12 pipecg"; do
    read -r rt ty <<<"$c"
    t policy-poisson27-off-$ty-$rt-np$np policy_none $np $ty $rt
  done
done
t_mpi policy-poisson27-jacobi-1e-12-np2-its 2 $CMP -problem poisson27 -rows_per_rank 8000 -pc_type jacobi -types pipecg,pipe2cg -ksp_rtol 1e-12 -its_tol 0 -res_factor 2 -sol_rtol 1e-3

# The user forces either way: on for poisson27 (every pass but the first recomputes), off for varcoef
policy_forced() { # policy_forced TYPE ON|OFF ARGS...
  local ty=$1 how=$2 out its n; shift 2
  out=$("$PK_BUILD/examples/poisson27" -ksp_type "$ty" -ksp_view "$@" 2>&1)
  echo "$out" | grep -E 'recompute policy|passes recomputed|unknowns'
  its=$(echo "$out" | sed -n 's/.* \([0-9]*\) iterations, relative error.*/\1/p')
  n=$(echo "$out" | sed -n 's/.*last solve: \([0-9]*\) passes recomputed.*/\1/p')
  echo "$out" | grep -q "recompute policy: .*forced $(echo "$how" | tr A-Z a-z)" || return 1
  if [ "$how" = OFF ]; then [ "$n" = 0 ]; return; fi
  # every pass but the first (fresh) and the last (held back for the verdict): pipe2cg's passes make two iterations
  if [ "$ty" = pipe2cg ]; then [ "$n" -ge $((its / 2 - 2)) ]; else [ "$n" -ge $((its - 2)) ]; fi
}
export -f policy_forced
for ty in pipecg pipe2cg; do
  t policy-forced-on-$ty policy_forced $ty ON -rows_per_rank 8000 -pc_type jacobi -ksp_rtol 1e-8 -ksp_${ty}_recompute 1
  t policy-forced-off-$ty policy_forced $ty OFF -problem varcoef -n 48 -pc_type none -ksp_rtol 1e-8 -ksp_max_it 10000 -ksp_${ty}_recompute 0
done
# and from code: KSPPipeCGSetRecompute / KSPPipe2CGSetRecompute are the same switch (-help names them)
t_grep policy-help-options 'ksp_pipecg_recompute.*the policy decides.*KSPPipeCGSetRecompute' sh -c "$PK_BUILD/examples/poisson27 -rows_per_rank 1000 -ksp_type pipecg -help | grep ksp_pipecg_recompute"

# What -ksp_view and -info say: the switch, its iteration and its reason
t_grep policy-view-lanczos-pipecg 'last solve: [0-9]+ passes recomputed in [0-9]+ iterations, switched on 1 .*recompute on from iteration [0-9]+: [0-9]+ iterations predicted to the tolerance, [0-9.]+ x the 2304 unknowns' \
  "$PK_BUILD/examples/poisson27" -problem varcoef -n 48 -pc_type none -ksp_type pipecg -ksp_rtol 1e-8 -ksp_max_it 10000 -ksp_view
t_grep policy-info-lanczos-pipe2cg 'PKRecomputeSwitch\(\): recompute on from iteration [0-9]+: .*unknowns' \
  "$PK_BUILD/examples/poisson27" -problem varcoef -n 48 -pc_type none -ksp_type pipe2cg -ksp_rtol 1e-8 -ksp_max_it 10000 -info :ksp
t_grep policy-view-gap-pipe2cg 'recompute on from iteration [0-9]+: the measured gap between recursive and true residual forced replacement [0-9]+' \
  "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/petsc-tutorials/ex2" -m 300 -n 300 -pc_type jacobi -ksp_rtol 1e-12 -ksp_max_it 5000 -dll_append "$PK_LIB" -ksp_type pipe2cg -ksp_view
