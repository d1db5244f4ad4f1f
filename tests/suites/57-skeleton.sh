# shellcheck shell=bash
# What the report says, case by case, against tests/golden/*.{text,info,detail,csv}: its skeleton (tests/report_skeleton.sh,
# numbers and the few measurement-decided words masked) must not change unless a change means it to (issue 20: the
# report restructured into sections prints what it printed), and is the same on every PETSc and Open MPI supported.
# Cases: each type and PETSc's cg, the three text formats and CSV, one rank, a calibrated profile (the what-if table),
# hypre BoomerAMG (the AMG section), injected noise (the noise section).
G=$PK_ROOT/tests/golden.sh
M=$PK_ROOT/tests/mpirun.sh
P27="$PK_BUILD/examples/poisson27 -rows_per_rank 2000 -pc_type jacobi"
PROF=$PK_ROOT/config/profiles/emulated-2node-1gbit.profile
for typ in pcg sapcg nbpcg pipecg pipe2cg; do
  t_grep skel-$typ-text "as tests/golden" $G $typ text $M 2 $P27 -ksp_type $typ
done
t_grep skel-pipecg-info "as tests/golden" $G pipecg info $M 2 $P27 -ksp_type pipecg
t_grep skel-pipe2cg-detail "as tests/golden" $G pipe2cg detail $M 2 $P27 -ksp_type pipe2cg
t_grep skel-nbpcg-csv "as tests/golden" $G nbpcg csv $M 2 $P27 -ksp_type nbpcg
t_grep skel-pgmres-text "as tests/golden" $G pgmres text $M 2 $PK_BUILD/examples/convdiff -n 32 -pc_type jacobi -ksp_type pgmres
t_grep skel-pgmres-csv "as tests/golden" $G pgmres csv $M 2 $PK_BUILD/examples/convdiff -n 32 -pc_type jacobi -ksp_type pgmres
t_grep skel-pcg-np1-text "as tests/golden" $G pcg-np1 text $M 1 $P27 -ksp_type pcg
t_grep skel-pipecg-profile-detail "as tests/golden" $G pipecg-profile detail $M 2 $P27 -ksp_type pipecg -ksp_perfmodel_machine $PROF
t_grep skel-pipecg-profile-csv "as tests/golden" $G pipecg-profile csv $M 2 $P27 -ksp_type pipecg -ksp_perfmodel_machine $PROF
if grep -q '^#define PETSC_HAVE_HYPRE 1' "$(pkg-config --variable=includedir PETSc)/petscconf.h" 2>/dev/null; then
  t_grep skel-pcg-amg-detail "as tests/golden" $G pcg-amg detail $M 2 $PK_BUILD/examples/poisson27 -rows_per_rank 2000 -pc_type hypre -ksp_type pcg
else
  skip skel-pcg-amg-detail "PETSc without hypre"
fi
t_grep skel-pcg-noise-text "as tests/golden" $G pcg-noise text $M 2 $P27 -ksp_type pcg -nsolves 4 -ksp_perf_noise 200,500 -ksp_perf_noise_skip 2
if [ -x "$PK_BUILD/petsc-tutorials/ex2" ]; then
  t_grep skel-petsc-cg-text "as tests/golden" $G petsc-cg text $M 2 $PK_BUILD/petsc-tutorials/ex2 -m 40 -n 40 -dll_append $PK_LIB -ksp_type cg
  t_grep skel-petsc-cg-csv "as tests/golden" $G petsc-cg csv $M 2 $PK_BUILD/petsc-tutorials/ex2 -m 40 -n 40 -dll_append $PK_LIB -ksp_type cg
else
  skip skel-petsc-cg "PETSc's tutorials were not built"
fi
