# shellcheck shell=bash
# petsc4py: the module python/pipekrylov registers the types in a running petsc4py (pipekrylov.register()), and
# the example examples/python/poisson_petsc4py.py solves a 3-D Poisson problem with every type against PETSc's cg on
# 1 and 2 ranks: cg's solution to 1e-6 and within 2 iterations of cg's count (pgmres: GMRES's own count), the true
# residual at the tolerance; the report's options work through PETSc.Options; a library that others may write is
# not loaded; PETSc's own cg under a prefix gets its report from an option set through PETSc.Options after start-up.
# SKIP where petsc4py is not installed (make deps installs python3-petsc4py).
PYEX=$PK_ROOT/examples/python/poisson_petsc4py.py
DFEX=$PK_ROOT/examples/python/poisson_dolfinx.py
# py_check NP ARGS...: the example's lines (PYEX, or the one given by EXAMPLE), each type checked against cg's
py_check() {
  local np=$1 out; shift
  out=$("$PK_ROOT/tests/mpirun.sh" "$np" /usr/bin/python3 "${EXAMPLE:-$PYEX}" "$@" 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  echo "$out" | awk '
    /^(petsc4py|dolfinx) .* cg [0-9]+ iterations/ {
      for (i = 1; i <= NF; i++) { if ($i == "iterations,") cg = $(i - 1) + 0; if ($i == "rtol") rtol = $(i + 1) + 0 }
      have = 1; next }
    /^  [a-z0-9]+ +[0-9]+ iterations/ {
      n++; t = $1; its = $2 + 0; d = $NF + 0
      for (i = 1; i <= NF; i++) if ($i == "residual") res = $(i + 1) + 0
      # the true residual at the tolerance (relative to b, x0 = 0); the solution that of cg to rounding, or to the
      # tolerance where the counts differ
      bad = d > (rtol > 1e-7 ? 10 * rtol : 1e-6) || res > 2 * rtol || (t != "pgmres" && (its > cg + 2 || its < cg - 2))
      if (bad) { print "  " t ": not as cg (" cg " iterations)"; fail = 1 }
    }
    END { if (!have || n == 0) { print "no solves"; exit 1 } if (fail) exit 1; print n " types as cg" }'
}
py_report() { # the report of a pipe2cg solve, asked for through the command line that petsc4py.init takes
  "$PK_ROOT/tests/mpirun.sh" 2 /usr/bin/python3 "$PYEX" -n 16 -types pipe2cg -ksp_perfmodel_view 2>&1
}
py_untrusted() { # a library in a directory others may write: refused, not loaded
  local d rc
  d=$(mktemp -d) || return 1
  cp "$PK_LIB" "$d/libpipekrylov.so" && chmod 777 "$d"
  /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$PK_ROOT/python')
import pipekrylov
try:
    pipekrylov.register('$d/libpipekrylov.so')
except RuntimeError as e:
    print(e); sys.exit(3)
print('loaded')" 2>&1
  rc=$?; rm -rf "$d"; [ $rc = 3 ]
}
# the scripts' start: petsc4py with the plugin registered, a 1-D Laplacian A (200 rows), b = 1, x. Its quotes
# are Python's, meant literally (it is pasted into python3 -c, never word-split by the shell)
# shellcheck disable=SC2089
PY_SETUP="import sys, petsc4py
petsc4py.init(sys.argv)
from petsc4py import PETSc
sys.path.insert(0, '$PK_ROOT/python')
import pipekrylov
pipekrylov.register()
n = 200
A = PETSc.Mat().createAIJ([n, n], nnz=3)
s, e = A.getOwnershipRange()
for i in range(s, e):
    A.setValue(i, i, 2.0)
    if i > 0: A.setValue(i, i - 1, -1.0)
    if i < n - 1: A.setValue(i, i + 1, -1.0)
A.assemble()
b = A.createVecLeft(); b.set(1.0); x = b.duplicate()
"
py_prefixed() { # PETSc's own cg under a prefix, its report asked for through PETSc.Options after start-up
  "$PK_ROOT/tests/mpirun.sh" "$1" /usr/bin/python3 -c "$PY_SETUP
ksp = PETSc.KSP().create(); ksp.setOptionsPrefix('app_'); ksp.setOperators(A); ksp.setType('cg')
PETSc.Options()['app_ksp_perfmodel_view'] = ''
ksp.setFromOptions(); ksp.solve(b, x)
PETSc.Sys.Print('solved:', ksp.getIterationNumber(), 'iterations')" 2>&1
}
py_summary() { # three solves of a KSP the script never destroys: its summary comes at PetscFinalize (at exit)
  "$PK_ROOT/tests/mpirun.sh" 2 /usr/bin/python3 -c "$PY_SETUP
ksp = PETSc.KSP().create(); ksp.setOptionsPrefix('step_'); ksp.setOperators(A); ksp.setType('pipe2cg')
PETSc.Options()['step_ksp_perfmodel_summary'] = ''
ksp.setFromOptions()
for k in range(3): x.set(0.0); ksp.solve(b, x)
PETSc.Sys.Print('solved 3 times:', ksp.getIterationNumber(), 'iterations')" 2>&1 | tr '\n' ' '
}
py_one_rank_option() { # a report asked for at rank 0 only (as a prefix that differs between ranks can do): a warning,
  # no hang. $1: the type; $2 = after-one: a first KSP with a report at every rank before (the hooks in everywhere,
  # DOLFINx's case), needed for PETSc's own types (at ranks without the hooks no code of ours runs for them)
  "$PK_ROOT/tests/mpirun.sh" 2 /usr/bin/python3 -c "$PY_SETUP
def solve(prefix, everywhere):
    ksp = PETSc.KSP().create(); ksp.setOptionsPrefix(prefix); ksp.setOperators(A); ksp.setType('$1')
    if everywhere or PETSc.COMM_WORLD.rank == 0: PETSc.Options()[prefix + 'ksp_perfmodel_view'] = ':/dev/null'
    ksp.setFromOptions(); x.set(0); ksp.solve(b, x)
    PETSc.Sys.Print(prefix, 'solved:', ksp.getIterationNumber(), 'iterations')
if '$2' == 'after-one': solve('one_', True)
solve('two_', False)" 2>&1 | tr '\n' ' '
}
# shellcheck disable=SC2090
export PYEX DFEX PY_SETUP
export -f py_check py_report py_untrusted py_prefixed py_summary py_one_rank_option
if /usr/bin/python3 -c 'import petsc4py' 2>/dev/null; then
  t_grep python-petsc4py-np1 '6 types as cg' py_check 1 -n 20
  t_grep python-petsc4py-np2 '6 types as cg' py_check 2 -n 20
  t_grep python-petsc4py-loose-np2 '6 types as cg' py_check 2 -n 16 -ksp_rtol 1e-4
  t_grep python-petsc4py-report 'performance report: KSP pipe2cg' py_report
  t_grep python-prefixed-petsc-cg-np1 'performance report: KSP cg \(PETSc\)' py_prefixed 1
  t_grep python-prefixed-petsc-cg-np2 'performance report: KSP cg \(PETSc\)' py_prefixed 2
  t_grep python-summary-at-finalize 'performance summary: KSP "step_" \(pipe2cg, PC [a-z]+, 2 ranks on 1 node\), 3 solves(.|\n)*report of solve 1 follows' py_summary
  for t in pcg pipe2cg; do
    t_grep "python-option-one-rank-$t" 'WARNING: -two_ksp_perfmodel_view is set at some ranks of the KSP and not at others .*ignored at all.*two_ solved: [0-9]+ iterations' py_one_rank_option $t
  done
  t_grep python-option-one-rank-after-cg 'WARNING: -two_ksp_perfmodel_view is set at some ranks.*two_ solved: [0-9]+ iterations' py_one_rank_option cg after-one
  t_grep python-register-untrusted 'writable only by its owner: not loaded' py_untrusted
  # DOLFINx's LinearProblem: its KSPs have prefixes of their own (dolfinx_solve_<id>_), options go through
  # petsc_options; the forms are compiled at the first run (ffcx, in the tests' own cache)
  if /usr/bin/python3 -c 'import dolfinx' 2>/dev/null; then
    t_grep python-dolfinx-np1 '6 types as cg' env EXAMPLE="$DFEX" bash -c 'py_check 1 -n 10'
    t_grep python-dolfinx-np2 '6 types as cg' env EXAMPLE="$DFEX" bash -c 'py_check 2 -n 12'
    t_grep python-dolfinx-loose-np2 '6 types as cg' env EXAMPLE="$DFEX" bash -c 'py_check 2 -n 12 -ksp_rtol 1e-4'
    t_grep python-dolfinx-report-pipe2cg 'performance report: KSP pipe2cg \(pipekrylov\)' "$PK_ROOT/tests/mpirun.sh" 2 /usr/bin/python3 "$DFEX" -n 10 -types pipe2cg -report pipe2cg
    t_grep python-dolfinx-report-petsc-cg 'performance report: KSP cg \(PETSc\)' "$PK_ROOT/tests/mpirun.sh" 2 /usr/bin/python3 "$DFEX" -n 10 -types pcg -report cg
  else
    skip python-dolfinx "DOLFINx is not installed (apt-get install python3-dolfinx; make deps)"
  fi
else
  skip python-petsc4py "petsc4py is not installed (apt-get install python3-petsc4py; make deps)"
fi
