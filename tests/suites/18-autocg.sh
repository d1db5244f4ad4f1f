# shellcheck shell=bash
# -ksp_type autocg (src/perf/autocg.c): it becomes the CG type the model predicts fastest at KSPSetUp and, between
# solves, the one measured fastest. Which type it picks depends on this machine's timings, so no test expects a
# particular one: every test holds whatever it picks (cg's answers, a report of the choice, a clear refusal of bad
# input, nothing leaked).
CMP=$PK_BUILD/tests/compare
export EX=$PK_BUILD/examples/poisson27
EX2=$PK_BUILD/petsc-tutorials/ex2
for np in 1 2 4; do
  for rt in 1e-6 1e-10; do
    t_mpi autocg-laplace2d-jacobi-$rt-np$np $np $CMP -problem laplace2d -n 48 -pc_type jacobi -ksp_rtol $rt -types autocg -its_tol 1
  done
  t_mpi autocg-poisson27-bjacobi-np$np $np $CMP -problem poisson27 -rows_per_rank 1000 -pc_type bjacobi -sub_pc_type icc -types autocg -its_tol 1
done
# several solves with the same KSP: with a margin that makes it try every candidate whatever the model says (1000),
# it switches type between solves and every solve still gives cg's answer; the changed operator too
t_mpi autocg-nsolves-switch-np2 2 $CMP -problem poisson27 -rows_per_rank 1000 -pc_type jacobi -types autocg -nsolves 7 -ksp_autocg_explore 1000 -its_tol 1
t_mpi autocg-nsolves-change-operator-np2 2 $CMP -problem laplace2d -n 48 -pc_type jacobi -types autocg -nsolves 3 -change_operator -its_tol 1
autocg_switches() { # every candidate runs once when the margin is wide, and the choice is said each time
  local out n
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$EX" -rows_per_rank 1000 -pc_type jacobi -ksp_type autocg -ksp_autocg_types pcg,pipecg,pipe2cg -ksp_autocg_explore 1000 -nsolves 4 -info 2>&1) || { echo "$out"; return 1; }
  echo "$out" | grep -E "autocg (runs|keeps)"
  n=$(echo "$out" | grep "autocg runs" | sed 's/.*autocg runs \([a-z0-9]*\):.*/\1/' | sort -u | wc -l)
  [ "$n" = 3 ] || { echo "expected all three candidates run, got $n"; return 1; }
  echo "$out" | grep -q "the fastest measured" || { echo "no choice by measurement after the three were run"; return 1; }
}
t autocg-tries-each autocg_switches
autocg_no_switch() { # -ksp_autocg_switch 0: the model's choice for every solve
  local out
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$EX" -rows_per_rank 1000 -pc_type jacobi -ksp_type autocg -ksp_autocg_switch 0 -nsolves 3 -info 2>&1) || { echo "$out"; return 1; }
  echo "$out" | grep "autocg runs"
  [ "$(echo "$out" | grep -c "autocg runs")" = 1 ] && echo "$out" | grep -q "the model's fastest"
}
t autocg-no-switch autocg_no_switch
# what it chose and why: -ksp_view and the report (text and CSV), every candidate's prediction
t_grep autocg-view 'chosen by -ksp_type autocg: [a-z0-9]+, the model.s fastest' $PK_ROOT/tests/mpirun.sh 2 $EX2 -m 40 -n 40 -dll_append $PK_LIB -ksp_type autocg -ksp_view
autocg_report() {
  local out
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$EX" -rows_per_rank 1000 -pc_type jacobi -ksp_type autocg -ksp_perfmodel_view 2>&1) || { echo "$out"; return 1; }
  echo "$out" | grep -A2 "chosen by"
  echo "$out" | grep -Eq "chosen by -ksp_type autocg: (pcg|sapcg|nbpcg|pipecg|pipe2cg|cg), " || return 1
  for t in pcg sapcg nbpcg pipecg pipe2cg cg; do echo "$out" | grep -A1 "chosen by" | grep -q " $t [0-9]" || { echo "no prediction for $t"; return 1; }; done
  out=$("$PK_ROOT/tests/mpirun.sh" 2 "$EX" -rows_per_rank 1000 -pc_type jacobi -ksp_type autocg -ksp_perfmodel_view ::ascii_csv 2>&1) || return 1
  echo "$out" | grep '^choice'
  [ "$(echo "$out" | grep -c '^choice.predicted_per_iteration,')" = 6 ] && echo "$out" | grep -Eq '^choice,chosen,[a-z0-9]+,,autocg$'
}
t autocg-report autocg_report
# the synchronization gap its samples of each rank's compute show (the same rule as a report's): none on one rank,
# and the first quartile's rule never above the median's
autocg_gap() {
  local np=$1 out g q
  out=$("$PK_ROOT/tests/mpirun.sh" "$np" "$EX" -rows_per_rank 1000 -pc_type jacobi -ksp_type autocg -ksp_perfmodel_view ::ascii_csv 2>&1) || { echo "$out"; return 1; }
  g=$(echo "$out" | awk -F, '$1 == "choice" && $2 == "sync_gap" { print $3 }')
  q=$(echo "$out" | awk -F, '$1 == "choice" && $2 == "sync_gap_q1" { print $3 }')
  echo "np $np: synchronization gap $g s, Q1 rule $q s"
  [ -n "$g" ] && [ -n "$q" ] || return 1
  if [ "$np" = 1 ]; then awk -v g="$g" -v q="$q" 'BEGIN { exit !(g == 0 && q == 0) }'; else awk -v g="$g" -v q="$q" 'BEGIN { exit !(g >= 0 && q >= 0 && q <= g && g < 1) }'; fi
}
t autocg-gap-np1 autocg_gap 1
t autocg-gap-np2 autocg_gap 2
# a matrix-free operator: no halo to read, the choice is still made and the solve right
t_grep autocg-matrix-free 'CONVERGED_FNORM' $PK_ROOT/tests/mpirun.sh 2 $PK_BUILD/petsc-tutorials/snes-ex5 -dll_append $PK_LIB -snes_mf_operator -ksp_type autocg -pc_type jacobi -snes_converged_reason
# bad input: a clear error, before any solve
t_fail autocg-types-unknown "unknown KSP type 'bogus'" $PK_ROOT/tests/mpirun.sh 1 $EX2 -dll_append $PK_LIB -ksp_type autocg -ksp_autocg_types pcg,bogus
t_fail autocg-types-gmres "'gmres' is not a CG method" $PK_ROOT/tests/mpirun.sh 1 $EX2 -dll_append $PK_LIB -ksp_type autocg -ksp_autocg_types pcg,gmres
t_fail autocg-types-self "cannot list autocg itself" $PK_ROOT/tests/mpirun.sh 1 $EX2 -dll_append $PK_LIB -ksp_type autocg -ksp_autocg_types autocg
t_fail autocg-types-empty "lists no type" $PK_ROOT/tests/mpirun.sh 1 $EX2 -dll_append $PK_LIB -ksp_type autocg -ksp_autocg_types ,
t_fail autocg-explore-negative "a fraction from 0 to 1000" $PK_ROOT/tests/mpirun.sh 1 $EX2 -dll_append $PK_LIB -ksp_type autocg -ksp_autocg_explore -1
t_grep autocg-help 'ksp_autocg_explore' $PK_ROOT/tests/mpirun.sh 1 $EX2 -dll_append $PK_LIB -ksp_type autocg -help
# no leak over switches and a destroyed KSP
t autocg-malloc-dump-np2 $PK_ROOT/tests/mallocdump.sh 2 $EX -rows_per_rank 1000 -pc_type jacobi -ksp_type autocg -ksp_autocg_explore 1000 -nsolves 4
# an application that sets a type itself after autocg chose keeps it (autocg stops switching), -malloc_dump clean
t_grep autocg-application-settype "kept the application's type over 3 solves" $PK_ROOT/tests/mallocdump.sh 2 $PK_BUILD/tests/autocg_settype -ksp_autocg_explore 1000
# a preconditioner that fails to set up (ICC(0) on a zero diagonal): autocg's timing does not apply it, and the
# solve says DIVERGED_PC_FAILED as every CG type does
t autocg-pc-failed-np1 $CMP -problem indefinite -n 32 -pc_type icc -pc_factor_shift_type none -types autocg -expect_reason DIVERGED_PC_FAILED -expect_its 0
t_mpi autocg-pc-failed-np2 2 $CMP -problem indefinite -n 32 -pc_type bjacobi -sub_pc_type icc -sub_pc_factor_shift_type none -types autocg -expect_reason DIVERGED_PC_FAILED -expect_its 0
