# shellcheck shell=bash
# bench/smpi/common.sh: what bench/smpi/run and the simulated tests (tests/suites/95-smpi.sh) share; sourced, with
# ROOT (the repository) and OUT (build/smpi) set.
#   smpi_petsc build|cached   PETSc built with smpicc: build it if need be (20-40 minutes), or only use a cached one;
#                             sets PETSC_DIR and PETSC_ARCH; fails with the reason
#   smpi_build_pk             pipekrylov against it (make SMPI=1) in $OUT/pk: poisson27 and pipekrylov-calibrate
#   smpi_settings PROFILE     the simulator's settings (CFG), MPI_Test's cost from a native PROFILE's test_on
#   smpi_native_settings      the same with $OUT/native-test.profile, calibrated natively on 2 ranks if need be
#   smpi_platform PLAT NODES PPN DIR   the platform's files in DIR (bench/smpi/platform.py): XML, HOSTS, PCFG
#   sim NP LOG CMD...         one simulated run on the platform in XML and HOSTS (and its options in PCFG)
# shellcheck disable=SC2034 # SMPI_WHY, PETSC_ARCH, PK, CFG, XML, HOSTS, PCFG are for the caller
smpi_petsc() {
  local stamp
  if [ "$1" = cached ] && [ ! -f "$OUT/petsc.stamp" ]; then
    SMPI_WHY="PETSc is not built with smpicc here (make check-smpi builds it once, 20-40 minutes, under build/smpi)"
    return 1
  fi
  stamp=$("$ROOT/bench/smpi/build-petsc" "$OUT") || { SMPI_WHY="PETSc could not be built with smpicc: $(echo "$stamp" | tail -1)"; return 1; }
  PETSC_DIR=$(echo "$stamp" | tail -1 | sed -n 's/^PETSC_DIR=\([^ ]*\) PETSC_ARCH=.*/\1/p')
  PETSC_ARCH=$(echo "$stamp" | tail -1 | sed -n 's/.* PETSC_ARCH=\([^ ]*\)$/\1/p')
  if [ -z "$PETSC_DIR" ] || [ ! -d "$PETSC_DIR" ]; then SMPI_WHY="bad stamp $OUT/petsc.stamp"; return 1; fi
}
smpi_build_pk() {
  local rel
  PK=$OUT/pk
  # the build directory as the compiler's dependency files name it (relative to the repository): an absolute one
  # would be another name to make, and a changed header would not rebuild the objects that include it
  rel=${PK#"$ROOT"/}
  make -s -C "$ROOT" SMPI=1 PETSC_DIR="$PETSC_DIR" PETSC_ARCH="$PETSC_ARCH" BUILD="$rel" LIB="$rel/lib/libpipekrylov.so" -j2 \
    "$rel/examples/poisson27" "$rel/bin/pipekrylov-calibrate" >"$OUT/make-pk.log" 2>&1 ||
    { tail -20 "$OUT/make-pk.log"; echo "FAIL: pipekrylov did not build against $PETSC_DIR"; return 1; }
}
smpi_settings() {
  TTEST=$(awk '$1 == "test_on" { print $3 }' "$1" 2>/dev/null)
  [ -n "$TTEST" ] || TTEST=1e-6
  # the simulator's settings: SimGrid's collectives chosen as MPICH does; each rank its own copy of the executable
  # (dlopen: 2 GB and 40 s of set-up at 256 ranks; mmap, which swaps the data segment at every switch between ranks,
  # charged about 12 us of that swapping to every computation between two MPI calls, which made an 8-byte ping-pong
  # take 15 us instead of 3); computation timed for real at 1 Gflop/s on both sides (the platform's hosts run at the
  # speed of this machine); PETSc's two-sided set-up by allreduce (its default polls MPI_Iprobe behind an
  # MPI_Ibarrier, which SimGrid simulates slowly)
  CFG=(--cfg=smpi/host-speed:1Gf "--cfg=smpi/test:$TTEST" --cfg=smpi/grow-injected-times:no --cfg=smpi/coll-selector:mpich
    --cfg=smpi/privatization:dlopen --cfg=smpi/tmpdir:/dev/shm --log=smpi_mpi.thresh:error --log=xbt_cfg.thresh:warning
    --log=smpi_coll.thresh:warning --log=smpi_config.thresh:error --log=smpi_request.thresh:error)
  export PETSC_OPTIONS="${PETSC_OPTIONS:-} -build_twosided allreduce"
  export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
}
smpi_native_settings() {
  if [ ! -s "$OUT/native-test.profile" ]; then
    make -s -C "$ROOT" build/bin/pipekrylov-calibrate >/dev/null 2>&1
    # ranks that do not yield, as on a machine with a core per rank (a yielding MPI_Test, the test suite's setting,
    # adds a sched_yield: 2.5 us a call against 25 ns, AMD EPYC VM 2026-11-29)
    OMPI_MCA_mpi_yield_when_idle=0 "$ROOT/tests/mpirun.sh" 2 "$ROOT/build/bin/pipekrylov-calibrate" -quick -o "$OUT/native-test.profile" >"$OUT/native-test.log" 2>&1 ||
      { tail -5 "$OUT/native-test.log"; echo "FAIL: the native calibration failed"; return 1; }
  fi
  smpi_settings "$OUT/native-test.profile"
}
smpi_platform() {
  local pinfo
  mapfile -t pinfo < <(/usr/bin/python3 "$ROOT/bench/smpi/platform.py" "$1" "$2" "$3" "$4") || { echo "FAIL: platform $1"; return 1; }
  XML=${pinfo[0]} HOSTS=${pinfo[1]}
  PCFG=("${pinfo[@]:2}")
}
sim() {
  local np=$1 log=$2 t0 rc
  shift 2
  t0=$(date +%s.%N)
  # a bound on each simulation's wall time (SMPI_TIMEOUT seconds, default 1200): a case the simulator cannot finish
  # (PETSc's pipecg at 256 ranks: SimGrid's MPI_Iallreduce) fails with exit 124 instead of stalling the study
  timeout -k 10 "${SMPI_TIMEOUT:-1200}" smpirun -np "$np" -platform "$XML" -hostfile "$HOSTS" "${CFG[@]}" "${PCFG[@]}" "$@" >"$log" 2>&1
  rc=$?
  echo "wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s, exit $rc" >>"$log"
  return $rc
}
# smpi_results_dir DIR SETTINGS: DIR holds the results of runs made with SETTINGS (ranks per node, iterations, ...):
# the runs skip a case whose CSV is there and reuse the profile, so results of other settings must not be mixed in.
# A DIR made with other settings, or with results and no record of its settings, is moved aside to $OUT/old/ (out of
# the readers' way), never deleted: simulated runs take hours.
smpi_results_dir() {
  local dir=$1 want=$2 old had
  had=$(cat "$dir/settings" 2>/dev/null)
  if { [ -n "$had" ] && [ "$had" != "$want" ]; } || { [ -z "$had" ] && compgen -G "$dir/*.csv" >/dev/null; }; then
    mkdir -p "$OUT/old" && old=$(mktemp -d "$OUT/old/${dir##*/}.$(date +%Y%m%d-%H%M%S).XXXX") && mv -T "$dir" "$old" || return 1
    echo "smpi: $dir was made with ${had:-settings not recorded} - moved to $old; starting over with $want"
  fi
  mkdir -p "$dir" && printf '%s\n' "$want" >"$dir/settings.tmp" && mv "$dir/settings.tmp" "$dir/settings"
}
