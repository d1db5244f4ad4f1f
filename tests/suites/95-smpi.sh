# shellcheck shell=bash
# tests/run: alone (SimGrid simulates dozens of ranks on the two cores)
# pipekrylov under SimGrid's simulator (bench/smpi): built against PETSc built with smpicc (make SMPI=1), run with
# 16 and 64 simulated ranks on the simulated fat tree. What is checked is what must hold whatever the machine's
# speed: the iterations and the reason of a solve are those of the same solve run natively, the report sees the
# simulated nodes (and no oversubscription: every simulated rank has a core of its own), pipekrylov-calibrate
# writes a profile under the simulator, and -ksp_type autocg chooses there. The PETSc it needs is built once under
# build/smpi (bench/smpi/build-petsc, 20-40 minutes on 2 cores: make check-smpi builds it); where it is not built, or
# SimGrid is missing, the tests say SKIP with the reason. The model's accuracy at scale is a benchmark
# (bench/smpi/run), not a test.
SMPI_OUT=$PK_BUILD/smpi
smpi_why=""
if ! command -v smpirun >/dev/null 2>&1; then smpi_why="SimGrid is not installed (libsimgrid-dev; make deps)"
elif [ ! -f "$SMPI_OUT/petsc.stamp" ]; then smpi_why="PETSc is not built with smpicc here (make check-smpi builds it once under build/smpi, 20-40 minutes)"
fi
if [ -n "$smpi_why" ]; then
  for n in smpi-build smpi-iterations-np16 smpi-report-nodes-np64 smpi-report-np256 smpi-calibrate smpi-autocg-np16; do skip $n "$smpi_why"; done
else
  # one set-up for the suite's tests: the plugin built against the simulated PETSc, a fat tree of 4 nodes x 16
  smpi_setup() {
    ROOT=$PK_ROOT OUT=$SMPI_OUT
    # shellcheck source=bench/smpi/common.sh
    . "$PK_ROOT/bench/smpi/common.sh"
    smpi_petsc cached || { echo "$SMPI_WHY"; return 1; }
    smpi_build_pk || return 1
    smpi_settings /dev/null
    CFG+=(--cfg=smpi/test:1e-6)
    mkdir -p "$SMPI_OUT/test"
    smpi_platform fattree 4 16 "$SMPI_OUT/test"
  }
  export SMPI_OUT
  export -f smpi_setup
  t smpi-build smpi_setup
  smpi_iterations() { # the same solve natively and simulated: same iterations (to rounding of the sums' order) and reason
    local typ nat simd
    smpi_setup || return 1
    for typ in pcg pipecg pipe2cg cg; do
      nat=$("$PK_ROOT/tests/mpirun.sh" 16 "$PK_BUILD/examples/poisson27" -rows_per_rank 1000 -pc_type jacobi -ksp_type "$typ" -ksp_rtol 1e-8 -ksp_converged_reason 2>&1 | grep -m1 'solve converged')
      sim 16 "$SMPI_OUT/test/its-$typ.log" "$PK/examples/poisson27" -rows_per_rank 1000 -pc_type jacobi -ksp_type "$typ" -ksp_rtol 1e-8 -ksp_converged_reason || { tail -5 "$SMPI_OUT/test/its-$typ.log"; return 1; }
      simd=$(grep -m1 'solve converged' "$SMPI_OUT/test/its-$typ.log")
      echo "$typ native: $nat | simulated: $simd"
      [ -n "$nat" ] && [ -n "$simd" ] || return 1
      awk -v a="${nat##* }" -v b="${simd##* }" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }' || { echo "  iterations differ"; return 1; }
    done
  }
  export -f smpi_iterations
  t smpi-iterations-np16 smpi_iterations
  smpi_report_nodes() { # 64 simulated ranks, 16 per node: the report counts 4 nodes, off-node halo, no shared cores
    local f=$SMPI_OUT/test/report64.csv
    smpi_setup || return 1
    sim 64 "$SMPI_OUT/test/report64.log" "$PK/examples/poisson27" -rows_per_rank 1000 -pc_type jacobi -ksp_type pipecg -ksp_norm_type none -ksp_max_it 10 -ksp_perfmodel_view "ascii:$f:ascii_csv" || { tail -5 "$SMPI_OUT/test/report64.log"; return 1; }
    grep -E '^run,(ranks|nodes)|^halo,offnode_msgs|^analytic,(oversub|total|gap)' "$f"
    grep -q '^run,ranks,64,' "$f" && grep -q '^run,nodes,4,' "$f" && grep -q '^analytic,oversub,0.000000000e+00,s,n/a' "$f" && ! grep -q '^halo,offnode_msgs_total,0,' "$f"
  }
  export -f smpi_report_nodes
  t smpi-report-nodes-np64 smpi_report_nodes
  smpi_report_256() { # 256 simulated ranks on 16 nodes: the solve and its report complete within the suite's time
    # limit (the monitor's end-of-solve collectives were SimGrid's non-blocking ones, P^2 concurrent flows: over 400 s
    # of wall time for a pcg solve at this size, 17-21 s since), and the report sees 16 nodes. The simulation stops
    # itself before the suite's limit (SMPI_TIMEOUT), so that none is left running
    local f=$SMPI_OUT/test/report256.csv
    smpi_setup || return 1
    smpi_platform fattree 16 16 "$SMPI_OUT/test" || return 1
    SMPI_TIMEOUT=$((${PK_TEST_TIMEOUT:-300} - 20)) sim 256 "$SMPI_OUT/test/report256.log" "$PK/examples/poisson27" -rows_per_rank 1000 -pc_type jacobi -ksp_type pcg -ksp_norm_type none -ksp_max_it 5 -ksp_perfmodel_view "ascii:$f:ascii_csv" || { tail -5 "$SMPI_OUT/test/report256.log"; return 1; }
    grep -E '^run,(ranks|nodes)|^analytic,(total|gap)' "$f"; tail -1 "$SMPI_OUT/test/report256.log"
    grep -q '^run,ranks,256,' "$f" && grep -q '^run,nodes,16,' "$f"
  }
  export -f smpi_report_256
  t smpi-report-np256 smpi_report_256
  smpi_calibrate() { # the calibration under the simulator, 2 nodes x 4: a profile with off-node values
    local p=$SMPI_OUT/test/cal.profile
    smpi_setup || return 1
    rm -f "$p"
    smpi_platform fattree 2 4 "$SMPI_OUT/test" || return 1
    sim 8 "$SMPI_OUT/test/cal.log" "$PK/bin/pipekrylov-calibrate" -quick -o "$p" || { tail -5 "$SMPI_OUT/test/cal.log"; return 1; }
    grep -E '^(alpha_off_short|allreduce_alpha_off|nbc_async|msg_gap_on|msg_gap_off|ppn|nodes) ' "$p"
    grep -Eq '^alpha_off_short = [0-9.e+-]+ ' "$p" && grep -Eq '^nodes = 2 ' "$p" && grep -Eq '^ppn = 4 ' "$p" || return 1
    # SimGrid's MPI_Iallreduce posts every message at once and its network moves them with no further call: the
    # calibration must find it complete at the first call after the ranks' busy work (Open MPI's libNBC: never)
    awk '$1 == "nbc_async" { ok = ($3 + 0 >= 0.9) } END { exit !ok }' "$p" || return 1
    # nor does it charge a message for being posted behind another (no send overhead configured): the burst gap
    # between nodes must be a small part of the off-node latency (a serializing library: about all of it)
    awk '$1 == "alpha_off_short" { a = $3 + 0 } $1 == "msg_gap_off" { g = $3 } END { exit !(g != "none" && g + 0 < 0.2 * a) }' "$p"
  }
  export -f smpi_calibrate
  t smpi-calibrate smpi_calibrate
  smpi_autocg() { # the model chooses under the simulator too, and the solve is cg's
    local log=$SMPI_OUT/test/autocg.log
    smpi_setup || return 1
    sim 16 "$log" "$PK/examples/poisson27" -rows_per_rank 1000 -pc_type jacobi -ksp_type autocg -ksp_rtol 1e-8 -ksp_converged_reason -ksp_view || { tail -5 "$log"; return 1; }
    grep -E 'chosen by|solve converged' "$log"
    grep -q 'chosen by -ksp_type autocg' "$log" && grep -q 'CONVERGED_RTOL' "$log"
  }
  export -f smpi_autocg
  t smpi-autocg-np16 smpi_autocg
fi
