# Memory: PETSc's allocation tracking reports nothing unfreed, and one representative case is clean under valgrind
# (no invalid access, no definite leak).
B=$PK_BUILD
MD=$PK_ROOT/tests/mallocdump.sh
for typ in ${MEM_TYPES:-pcg}; do
  t_grep malloc-dump-$typ-np2 'nothing unfreed' $MD 2 $B/tests/compare -problem laplace2d -n 24 -pc_type jacobi -types $typ -nsolves 2 -change_operator
done
t_fail malloc-dump-detects-leaks 'unfreed memory' $MD 1 $B/tests/leak
t valgrind-pcg $PK_ROOT/tests/memcheck.sh $B/tests/compare -problem laplace2d -n 16 -types ${VALGRIND_TYPES:-pcg} -nsolves 2 -pc_type jacobi
