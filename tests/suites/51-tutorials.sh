# shellcheck shell=bash
# PETSc's own unmodified tutorials with each of the six types loaded through -dll_append (issue 18: on every PETSc
# supported): ksp ex2 (2-D Laplacian), ksp ex23 (1-D Laplacian), snes ex5 (Bratu, one linear solve per Newton step),
# each iteration count against PETSc's cg (the CG types) or gmres (pgmres) on the same stack, within each type's
# tolerance (+-1 pcg, sapcg, nbpcg; +-2 pipecg; 2% pipe2cg; pgmres exactly as gmres). The solvers' full comparisons
# (true residual, error, solution) are in the suites 10 to 14; this is the loaded-plugin path on real applications.
TI=$PK_ROOT/tests/tutorial_its.sh
TUT=$PK_BUILD/petsc-tutorials
if [ -x "$TUT/ex2" ] && [ -x "$TUT/ex23" ] && [ -x "$TUT/snes-ex5" ]; then
  for spec in pcg:cg:1 sapcg:cg:1 nbpcg:cg:1 pipecg:cg:2 pipe2cg:cg:2% pgmres:gmres:0; do
    typ=${spec%%:*} rest=${spec#*:} ref=${rest%%:*} tol=${rest#*:}
    t_grep tut-ex2-$typ-np2 '^PASS' $TI 2 $TUT/ex2 $ref $typ $tol -m 50 -n 50
    # ex23's 1-D Laplacian: cg terminates at n/2 = 100; pipe2cg's plain recurrences lost that by 4 iterations (104);
    # the recompute policy predicts a solve of 0.5 x the unknowns and recomputes from the start (100, issue 22)
    t_grep tut-ex23-$typ-np2 '^PASS' $TI 2 $TUT/ex23 $ref $typ $tol -n 200 -ksp_converged_reason
    t_grep tut-snes-ex5-$typ-np2 '^PASS' $TI 2 $TUT/snes-ex5 $ref $typ $tol -da_grid_x 24 -da_grid_y 24 -pc_type jacobi -ksp_converged_reason -snes_converged_reason
  done
else
  skip tut-six-types "PETSc's tutorials were not built (make deps installs them)"
fi
