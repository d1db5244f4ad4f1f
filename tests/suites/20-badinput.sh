# shellcheck shell=bash
# Bad input for the CG family: every case runs PETSc's cg (or the PETSc solver named) and the types under test on
# the same problem and asserts the stop reason, or the error message, that a user sees. BAD_TYPES is the comma
# list of types under test (compare's -types); errors are checked one type at a time, since the first aborts.
CMP=$PK_BUILD/tests/compare
MPI=$PK_ROOT/tests/mpirun.sh
BAD_TYPES=${BAD_TYPES:-pcg,sapcg,nbpcg}
BT=$BAD_TYPES
L2="-problem laplace2d -n 32"

# $NOUNFREED CMD...: CMD succeeds and PETSc's -malloc_dump reports no unfreed block. PETSc 3.18 prints one line
# "[rank] N bytes function() at file:line" per block; the word "unfreed" appears only in some versions.
NOUNFREED=(bash -c 'out=$("$@" 2>&1); rc=$?; printf "%s\n" "$out"
  if printf "%s\n" "$out" | grep -Eiq "unfreed|^\[ *[0-9]+\] *[0-9]+ bytes "; then echo "LEAK reported by -malloc_dump"; exit 1; fi
  exit $rc' _)
MONITOR=$PK_ROOT/tests/monitor-match.sh

for np in 1 2; do
  if [ $np = 1 ]; then run=$CMP; else run="$MPI $np $CMP"; fi
  # the operator's symmetry: marked non-symmetric, detected by the check, or not checked at all
  for ty in ${BT//,/ }; do
    t_fail bad-marked-nonsym-$ty-np$np "KSP $ty needs a symmetric positive definite operator, but the operator is marked non-symmetric" \
      $run $L2 -types $ty -mark_nonsymmetric
    t_fail bad-check-symmetry-$ty-np$np "KSP $ty needs a symmetric positive definite operator, but the operator is not symmetric \(-ksp_pipe_check_symmetry" \
      $run -problem nonsym -n 32 -wind 0.01 -types $ty -ksp_pipe_check_symmetry
  done
  # the same mildly non-symmetric operator, unchecked: every type converges to cg's solution like cg does. pcg and
  # nbpcg take cg's iterations exactly; sapcg's (p,Ap) recurrence assumes symmetry and takes ~10% more (217 vs 198)
  t bad-nonsym-unchecked-np$np $run -problem nonsym -n 32 -wind 0.01 -pc_type jacobi -types $BT -expect_reason CONVERGED_RTOL -its_rtol 0.15 -sol_rtol 1e-8
  # strongly non-symmetric: cg stagnates (DIVERGED_ITS); pcg and nbpcg do exactly the same ...
  nbt=$(echo ",$BT," | sed 's/,sapcg,/,/g; s/^,//; s/,$//')
  [ -n "$nbt" ] && t bad-nonsym-strong-np$np $run -problem nonsym -n 32 -wind 0.1 -pc_type jacobi -ksp_max_it 300 -types $nbt -expect_reason DIVERGED_ITS -expect_its 300
  # ... while sapcg breaks down like PETSc's own single-reduction cg, at the same iteration
  case ",$BT," in *,sapcg,*)
    t bad-nonsym-strong-sapcg-np$np $run -problem nonsym -n 32 -wind 0.1 -pc_type jacobi -ksp_max_it 300 -ksp_cg_single_reduction -types sapcg -expect_reason DIVERGED_INDEFINITE_MAT -its_tol 0 ;;
  esac

  # breakdowns and bad data: the reason PETSc's cg gives, at the same iteration
  t bad-indefinite-mat-np$np $run -problem indefinite -n 32 -pc_type none -types $BT -expect_reason DIVERGED_INDEFINITE_MAT -expect_its 4
  t bad-indefinite-mat-jacobi-np$np $run -problem indefinite -n 32 -sigma 0.2 -pc_type jacobi -types $BT -expect_reason DIVERGED_INDEFINITE_MAT
  t bad-indefinite-pc-np$np $run $L2 -pc_indefinite -types $BT -expect_reason DIVERGED_INDEFINITE_PC -expect_its 2
  t bad-rhs-nan-np$np $run $L2 -rhs_nan -types $BT -expect_reason DIVERGED_NANORINF -expect_its 0
  t bad-rhs-inf-np$np $run $L2 -rhs_inf -types $BT -expect_reason DIVERGED_NANORINF -expect_its 0
  t bad-rhs-nan-natural-np$np $run $L2 -rhs_nan -ksp_norm_type natural -types $BT -expect_reason DIVERGED_NANORINF -expect_its 0
  t bad-rhs-inf-none-np$np $run $L2 -rhs_inf -ksp_norm_type none -types $BT -expect_reason DIVERGED_NANORINF -expect_its 0
  t bad-rhs-zero-np$np $run $L2 -rhs_zero -types $BT -expect_reason CONVERGED_ATOL -expect_its 0
  t bad-max-it-np$np $run $L2 -ksp_max_it 10 -types $BT -expect_reason DIVERGED_ITS -expect_its 10 -sol_always -sol_rtol 1e-10
  # a preconditioner that fails: ICC(0) meets a zero pivot on the zero diagonal of the shifted Laplacian
  if [ $np = 1 ]; then pcf="-pc_type icc -pc_factor_shift_type none"; else pcf="-pc_type bjacobi -sub_pc_type icc -sub_pc_factor_shift_type none"; fi
  t bad-pc-failed-np$np $run -problem indefinite -n 32 $pcf -types $BT -expect_reason DIVERGED_PC_FAILED -expect_its 0

  # what must simply work: repeated solves with a changed operator, a nonzero initial guess, every norm type
  t bad-resolve-changed-op-np$np $run $L2 -pc_type jacobi -nsolves 3 -change_operator -types $BT -its_tol 0
  t bad-nonzero-guess-np$np $run $L2 -pc_type jacobi -nonzero_guess -types $BT -its_tol 0
  if [ $np = 1 ]; then pcs="-pc_type icc"; else pcs="-pc_type bjacobi -sub_pc_type icc"; fi
  for nt in unpreconditioned natural; do
    t bad-norm-$nt-np$np $run $L2 $pcs -ksp_norm_type $nt -types $BT -its_tol 0
  done
  t bad-norm-none-np$np $run -problem laplace2d -n 48 $pcs -ksp_norm_type none -ksp_max_it 40 -types $BT -expect_reason DIVERGED_ITS -expect_its 40 -sol_always -sol_rtol 1e-10
  # -ksp_monitor prints the same lines as for cg: iteration numbers (ksp->its) equal, norms equal to 1e-4
  t bad-monitor-np$np $MONITOR $run $L2 $pcs -types $BT
  t bad-monitor-nonzero-guess-max-it-np$np $MONITOR $run $L2 -pc_type jacobi -nonzero_guess -ksp_max_it 20 -types $BT
  for nt in unpreconditioned natural none; do
    t bad-monitor-$nt-np$np $MONITOR $run $L2 $pcs -ksp_norm_type $nt -ksp_max_it 40 -types $BT
  done

done

# invalid option values: the message names the option and the value (the reference is the type under test, so
# that the error comes from it); option parsing does not depend on the rank count
for ty in ${BT//,/ }; do
  t_fail bad-chunks-zero-$ty "-ksp_pipe_chunks must be at least 1 \(1 = no MPI_Test progress\), not 0" \
    $CMP $L2 -ref_type $ty -types $ty -ksp_pipe_chunks 0
  t_fail bad-norm-bogus-$ty "Unknown option bogus for -ksp_norm_type" $CMP $L2 -ref_type $ty -types $ty -ksp_norm_type bogus
  t_fail bad-pc-right-$ty "KSP $ty does not support preconditioner side RIGHT" $CMP $L2 -ref_type $ty -types $ty -ksp_pc_side right
done
t_fail bad-chunks-zero-np2 "-ksp_pipe_chunks must be at least 1 \(1 = no MPI_Test progress\), not 0" $MPI 2 $CMP $L2 -types $BT -ksp_pipe_chunks 0

# a few cases on 4 ranks (oversubscribed here)
t_mpi bad-indefinite-pc-np4 4 $CMP $L2 -pc_indefinite -types $BT -expect_reason DIVERGED_INDEFINITE_PC -expect_its 2
t_mpi bad-rhs-nan-np4 4 $CMP $L2 -rhs_nan -types $BT -expect_reason DIVERGED_NANORINF -expect_its 0
t_mpi bad-pc-failed-np4 4 $CMP -problem indefinite -n 32 -pc_type bjacobi -sub_pc_type icc -sub_pc_factor_shift_type none -types $BT -expect_reason DIVERGED_PC_FAILED
t_mpi bad-resolve-changed-op-np4 4 $CMP $L2 -pc_type jacobi -nsolves 3 -change_operator -nonzero_guess -types $BT -its_tol 0

# no leaks, on the normal path and on the break-down and error-return paths
for ty in ${BT//,/ }; do
  t bad-malloc-dump-$ty "${NOUNFREED[@]}" $CMP $L2 -types $ty -nsolves 2 -change_operator -malloc_debug -malloc_dump
  t bad-malloc-dump-breakdown-$ty "${NOUNFREED[@]}" $CMP $L2 -pc_indefinite -types $ty -expect_reason DIVERGED_INDEFINITE_PC -malloc_debug -malloc_dump
  t bad-malloc-dump-nan-$ty "${NOUNFREED[@]}" $CMP $L2 -rhs_nan -types $ty -expect_reason DIVERGED_NANORINF -malloc_debug -malloc_dump
  t bad-malloc-dump-np2-$ty "${NOUNFREED[@]}" $MPI 2 $CMP $L2 -types $ty -malloc_debug -malloc_dump
done
