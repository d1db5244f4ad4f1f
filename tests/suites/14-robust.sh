# shellcheck shell=bash
# Robustness of the solvers on the user's path (issue 9): ranks that own no rows, the norm PCMG and GAMG set on
# smoothers and coarse solvers (KSP_NORM_NONE), restarts far above the steps a solve takes, out of memory.
CMP=$PK_BUILD/tests/compare
TUT=$PK_BUILD/petsc-tutorials
P27=$PK_BUILD/examples/poisson27
CGTYPES=pcg,sapcg,nbpcg,pipecg,pipe2cg
PGREF="-ref_type gmres -types pgmres -its_tol 0"

# Ranks that own no rows: every array of theirs is NULL (the fused kernels, multi-vectors and chunked SpMV run
# with zero local rows). The odd ranks own nothing; same iterations and solution as PETSc's cg and gmres.
for np in 2 3 4; do
  t_mpi empty-ranks-cg-np$np $np $CMP -empty_ranks -problem laplace2d -n 30 -ref_type cg -types $CGTYPES -its_tol 2 -pc_type jacobi
  t_mpi empty-ranks-pgmres-np$np $np $CMP -empty_ranks -problem convdiff -n 30 $PGREF -pc_type jacobi
done
t_mpi empty-ranks-pgmres-right-np3 3 $CMP -empty_ranks -problem convdiff -n 30 $PGREF -pc_type jacobi -ksp_pc_side right -ksp_norm_type unpreconditioned -ksp_gmres_restart 10
t_mpi empty-ranks-unfused-np3 3 $CMP -empty_ranks -problem laplace2d -n 30 -ref_type cg -types pcg,pipecg,pipe2cg -its_tol 2 -pc_type jacobi -ksp_pipecg_fused 0 -ksp_pipe2cg_fused 0 -ksp_pipe_chunks 1
t_mpi empty-ranks-monitor-np3 3 $CMP -empty_ranks -problem laplace2d -n 30 -ref_type cg -types pipe2cg,pcg -its_tol 2 -pc_type jacobi -ksp_perfmodel_view
# PETSc's unmodified ex2 with 2 rows on 3 ranks (the case of the issue), every type
if [ -x "$TUT/ex2" ]; then
  for typ in pcg sapcg nbpcg pipecg pipe2cg pgmres; do
    t_grep empty-ranks-ex2-$typ-np3 "Norm of error [0-9.e+-]+ iterations 1" "$PK_ROOT/tests/mpirun.sh" 3 "$TUT/ex2" -m 1 -n 2 -dll_append "$PK_LIB" -ksp_type $typ
  done
else
  skip empty-ranks-ex2 "PETSc's tutorials were not built"
fi
# GAMG's coarse solver lives on fewer ranks than the fine grid: each type as the coarse solver on 3 ranks
for typ in pcg sapcg nbpcg pipecg pipe2cg pgmres; do
  t_grep gamg-coarse-$typ-np3 "CONVERGED_RTOL, 8 iterations" "$PK_ROOT/tests/mpirun.sh" 3 $P27 -rows_per_rank 1000 -ksp_type cg -pc_type gamg -mg_coarse_ksp_type $typ -mg_coarse_pc_type jacobi -mg_coarse_ksp_max_it 5
done

# ... and with GAMG's own coarse settings (norm none, max_it 10000, a few rows): run past convergence, the sign tests
# on products that underflowed stopped pcg, sapcg and pipe2cg as indefinite (DIVERGED_PC_FAILED), and pipecg's
# recurrences amplified their rounding until the coarse solution was garbage (the outer solve "converged" with an
# error of 1.7e18); every type must give cg's iterations and error (PETSc 3.18: 3 iterations, 4.30e-4; GAMG differs
# from one PETSc version to the next, so cg is run first on the same stack)
gamg_coarse_normnone() { # TYPE: the coarse solver of GAMG; ex2's "Norm of error E iterations K" as with cg
  local ref out
  ref=$("$PK_ROOT/tests/mpirun.sh" 3 "$PK_BUILD/petsc-tutorials/ex2" -m 4 -n 4 -ksp_type cg -pc_type gamg -mg_coarse_ksp_type cg -mg_coarse_pc_type jacobi 2>&1 | grep -o 'Norm of error .*') || return 1
  out=$("$PK_ROOT/tests/mpirun.sh" 3 "$PK_BUILD/petsc-tutorials/ex2" -m 4 -n 4 -dll_append "$PK_LIB" -ksp_type cg -pc_type gamg -mg_coarse_ksp_type "$1" -mg_coarse_pc_type jacobi -ksp_converged_reason 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  echo "cg: $ref"
  echo "$out" | grep -o 'Norm of error .*' | awk -v ref="$ref" '{ split(ref, r, " "); e = $4; d = e - r[4]; if (d < 0) d = -d
    if ($6 != r[6] || d > 0.05 * r[4]) { print "FAIL: " $0 " where cg gives " ref; exit 1 } print "ok: as cg" }'
}
export -f gamg_coarse_normnone
if [ -x "$TUT/ex2" ]; then
  for typ in pcg sapcg nbpcg pipecg pipe2cg; do
    t_grep gamg-coarse-normnone-$typ-np3 "^ok: as cg" gamg_coarse_normnone $typ
  done
  # the same past convergence alone: 2000 iterations of norm none on ex2 4x4, the error stays at the rounding level
  for typ in pipecg pipe2cg nbpcg; do
    t_grep normnone-long-$typ "Norm of error ([0-9.]+e-1[0-9]|0\.) iterations" "$TUT/ex2" -m 4 -n 4 -pc_type none -ksp_norm_type none -ksp_max_it 2000 -dll_append "$PK_LIB" -ksp_type $typ
  done
fi

# Norm none far past convergence on problems small against the iteration count (10000 iterations, 400 and 100
# unknowns): nothing stops the solve, and the recurred auxiliary vectors of the pipelined types are rounding alone
# there (pipecg drifted to errors of 1e7 and 1e51). pipecg's x must stay within 10x of cg's error; every type's
# within 10x of the larger of cg's and its own after 300 iterations (converged, where each variant's attainable
# accuracy is its own): it never drifts. The error is ||x - 1|| (both tutorials solve for ones), read from the
# solution written at full precision.
normnone_err() { # MAX_IT PROG ARGS...: ||x - 1||_2 of the solution
  local f its=$1 rc; shift
  f=$(mktemp) || return 1
  "$@" -ksp_norm_type none -ksp_max_it "$its" -ksp_view_solution ":$f:ascii_matlab" >/dev/null 2>&1 || { rm -f "$f"; return 1; }
  awk '/^[-+0-9.]+e[-+][0-9]+$/ { d = $1 - 1; s += d * d; n++ } /nan|inf/ { bad = 1 }
       END { if (!n || bad) { print "nan"; exit 1 } printf "%.3e\n", sqrt(s) }' "$f"
  rc=$?
  rm -f "$f"
  return $rc
}
normnone_as_cg() { # TYPE PROG ARGS...
  local typ=$1 ecg e e300 f=1000; shift
  ecg=$(normnone_err 10000 "$@" -ksp_type cg) || { echo "cg failed"; return 1; }
  e=$(normnone_err 10000 "$@" -dll_append "$PK_LIB" -ksp_type "$typ") || { echo "$typ failed: $e"; return 1; }
  e300=$(normnone_err 300 "$@" -dll_append "$PK_LIB" -ksp_type "$typ") || { echo "$typ failed at 300: $e300"; return 1; }
  [ "$typ" = pipecg ] && f=10
  echo "error after 10000 iterations: cg $ecg, $typ $e ($e300 after 300); allowed: 10 x the larger of cg's and that, at most $f x cg's"
  awk -v a="$e" -v c="$ecg" -v s="$e300" -v f="$f" 'BEGIN { if (c < 1e-15) c = 1e-15; m = s > c ? s : c; exit !(a <= 10 * m && a <= f * c) }'
}
export -f normnone_err normnone_as_cg
if [ -x "$TUT/ex2" ] && [ -x "$TUT/ex23" ]; then
  for typ in pipecg pipe2cg nbpcg sapcg pcg; do
    for pc in none jacobi; do
      t normnone-10000-ex2-$typ-$pc normnone_as_cg $typ "$TUT/ex2" -m 20 -n 20 -pc_type $pc
      t normnone-10000-ex23-$typ-$pc normnone_as_cg $typ "$TUT/ex23" -n 100 -pc_type $pc
    done
  done
fi

# KSP_NORM_NONE in pgmres, as PETSc's gmres: the usual max_it stop, same iterate
t pgmres-norm-none $CMP -problem convdiff $PGREF -pc_type jacobi -ksp_norm_type none -ksp_max_it 40 -expect_reason DIVERGED_ITS -sol_always
t pgmres-norm-none-right $CMP -problem convdiff $PGREF -pc_type jacobi -ksp_pc_side right -ksp_norm_type none -ksp_max_it 40 -expect_reason DIVERGED_ITS -sol_always
# pgmres as the smoother of PCMG (PETSc's unmodified ex45) and GAMG: the same output as with gmres
mg_levels_same() { # NP PROG ARGS...: -mg_levels_ksp_type gmres without the plugin, pgmres with it
  local np=$1 prog=$2; shift 2
  local a b
  a=$("$PK_ROOT/tests/mpirun.sh" "$np" "$prog" "$@" -mg_levels_ksp_type gmres 2>&1) || { echo "$a"; return 1; }
  b=$("$PK_ROOT/tests/mpirun.sh" "$np" "$prog" "$@" -mg_levels_ksp_type pgmres -dll_append "$PK_LIB" 2>&1) || { echo "$b"; return 1; }
  echo "== gmres"; echo "$a"; echo "== pgmres"; echo "$b"
  [ "$(echo "$a" | grep -E 'iterations|norm|error' | sed 's/KSPSolve.*//')" = "$(echo "$b" | grep -E 'iterations|norm|error' | sed 's/KSPSolve.*//')" ]
}
if [ -x "$TUT/ex45" ]; then
  t pgmres-mg-levels-ex45-np2 mg_levels_same 2 "$TUT/ex45" -ksp_type cg -pc_type mg -pc_mg_levels 3 -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -ksp_converged_reason
else
  skip pgmres-mg-levels-ex45-np2 "PETSc's tutorials were not built"
fi
t pgmres-gamg-levels-np3 mg_levels_same 3 $P27 -dll_append "$PK_LIB" -rows_per_rank 1000 -ksp_type cg -pc_type gamg -ksp_converged_reason

# A restart far above the steps taken: the basis and the Hessenberg matrix grow in blocks (464 steps: 8 growths).
# Against gmres at restart 2000 (PETSc's GMRES allocates its whole Hessenberg matrix: at 100000 it takes minutes).
t pgmres-restart-2000 $CMP -problem convdiff -rotating $PGREF -ksp_gmres_restart 2000 -pc_type jacobi
t pgmres-restart-2000-right $CMP -problem convdiff -rotating $PGREF -ksp_gmres_restart 2000 -pc_type jacobi -ksp_pc_side right -ksp_norm_type unpreconditioned
t_grep pgmres-restart-100000 "pgmres, CONVERGED_RTOL, 464 iterations" $PK_BUILD/examples/convdiff -rotating -ksp_type pgmres -ksp_gmres_restart 100000 -pc_type jacobi -ksp_rtol 1e-10
t_mpi pgmres-restart-100-np2 2 $CMP -problem convdiff -rotating $PGREF -ksp_gmres_restart 100 -pc_type jacobi
# Memory by need, not by request: a cycle never needs more steps than the problem has unknowns, so a restart of 1e8
# or 2e9 on 4096 unknowns runs in the memory of restart 4096 (it took 8 GB and 100 s on 200 rows: the O(restart)
# bookkeeping), with -ksp_view saying so; under a 300 MB address-space limit
pgmres_big_restart() { ulimit -v 300000; "$PK_BUILD/examples/convdiff" -ksp_type pgmres -ksp_gmres_restart "$1" -ksp_view; }
export -f pgmres_big_restart
t_grep pgmres-restart-1e8-capped "cycles of at most 4096 steps" pgmres_big_restart 100000000
t_grep pgmres-restart-2e9-capped "pgmres, CONVERGED_RTOL, 33 iterations" pgmres_big_restart 2000000000

# bin/pipekrylov-calibrate checks its output before measuring (nothing measured: no "On-node" line)

cal_unwritable() { # EXPECTED-REGEX -o FILE: fails at once, with the reason, before any measurement
  local re=$1; shift
  local out
  out=$("$PK_ROOT/bin/pipekrylov-calibrate" -quick "$@" 2>&1) && { echo "$out"; echo "succeeded"; return 1; }
  echo "$out"
  echo "$out" | grep -Eq "$re" && ! echo "$out" | grep -q "On-node"
}
t cal-output-no-dir cal_unwritable "cannot write the profile '/nonexistent-pk-dir/m.profile' \(-o\): No such file or directory. Nothing was measured" -o /nonexistent-pk-dir/m.profile
t cal-output-is-dir cal_unwritable "cannot write the profile '/tmp' \(-o\): it is not a regular file \(a directory\)" -o /tmp
if [ "$(id -u)" != 0 ]; then
  t cal-output-no-permission cal_unwritable "Permission denied" -o /m.profile
else
  t cal-output-no-permission cal_unwritable "cannot write the profile '/proc/version'" -o /proc/version
fi
