#!/usr/bin/python3
"""P1 Poisson on the unit cube with DOLFINx's LinearProblem (-div grad u = 1, u = 0 on the boundary, n^3 cells),
solved with PETSc's cg and with each of pipekrylov's types, loaded by `pipekrylov.register()`; prints, per type, the
iterations, the true residual and the difference from cg's solution. Run from anywhere:

    mpiexec -n 2 python3 examples/python/poisson_dolfinx.py [-n 16] [-pc_type jacobi] [-ksp_rtol 1e-8]
                                                           [-types pcg,pipe2cg] [-report pipe2cg]

DOLFINx gives each LinearProblem's KSP a prefix of its own (dolfinx_solve_<id>_), so options meant for it go in
petsc_options, not on the command line: -report TYPE asks for that type's report that way (ksp_perfmodel_view).
Works with DOLFINx 0.5 (Debian 12) and later (Debian 13's).
"""
import os
import sys

import petsc4py

petsc4py.init(sys.argv)  # before DOLFINx imports petsc4py, so that PETSc sees the command line
from petsc4py import PETSc  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "python"))
import pipekrylov  # noqa: E402

pipekrylov.register()

import dolfinx  # noqa: E402
import dolfinx.fem.petsc  # noqa: E402
import numpy as np  # noqa: E402
import ufl  # noqa: E402
from mpi4py import MPI  # noqa: E402

opts = PETSc.Options()
n = opts.getInt("n", 16)
types = opts.getString("types", "pcg,sapcg,nbpcg,pipecg,pipe2cg,pgmres").split(",")
pc_type = opts.getString("pc_type", "jacobi")
rtol = opts.getReal("ksp_rtol", 1e-8)
report = opts.getString("report", "")

mesh = dolfinx.mesh.create_unit_cube(MPI.COMM_WORLD, n, n, n)
if hasattr(dolfinx.fem, "functionspace"):  # DOLFINx 0.7 and later
    V = dolfinx.fem.functionspace(mesh, ("Lagrange", 1))
else:
    V = dolfinx.fem.FunctionSpace(mesh, ("Lagrange", 1))
tdim = mesh.topology.dim
mesh.topology.create_connectivity(tdim - 1, tdim)
facets = dolfinx.mesh.exterior_facet_indices(mesh.topology)
dofs = dolfinx.fem.locate_dofs_topological(V, tdim - 1, facets)
bc = dolfinx.fem.dirichletbc(PETSc.ScalarType(0), dofs, V)
u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
a = ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx
L = ufl.inner(dolfinx.fem.Constant(mesh, PETSc.ScalarType(1)), v) * ufl.dx


def solve(ksp_type):
    popts = {"ksp_type": ksp_type, "pc_type": pc_type, "ksp_rtol": rtol, "ksp_atol": 0.0}
    if ksp_type == report:
        popts["ksp_perfmodel_view"] = ""
    problem = dolfinx.fem.petsc.LinearProblem(a, L, bcs=[bc], petsc_options=popts)
    uh = problem.solve()
    x = uh.x.petsc_vec if hasattr(uh.x, "petsc_vec") else uh.vector  # DOLFINx 0.8 and later: x.petsc_vec
    ksp = problem.solver
    A, b = ksp.getOperators()[0], problem.b
    r = b.duplicate()
    A.mult(x, r)
    r.aypx(-1.0, b)
    res = r.norm() / b.norm()
    # DOLFINx 0.5 leaves the problem's options in the database under a prefix made of the problem's Python id(),
    # which a later problem can get back at one rank and not another: a stale option at some ranks only (the plugin
    # then ignores it with a warning). Remove them.
    prefix, opts_db = ksp.getOptionsPrefix(), PETSc.Options()
    for k in popts:
        opts_db.delValue(prefix + k)
    return ksp.getIterationNumber(), ksp.getConvergedReason(), res, x.copy()


its0, reason0, res0, x0 = solve("cg")
N = V.dofmap.index_map.size_global
PETSc.Sys.Print(f"dolfinx {dolfinx.__version__}, {MPI.COMM_WORLD.size} ranks, {N} unknowns (P1, {n}^3 cells), PC {pc_type}, rtol {rtol:g}: cg {its0} iterations, reason {reason0}, true residual {res0:.3e}")
for t in types:
    its, reason, res, x = solve(t)
    d = x.copy()
    d.axpy(-1.0, x0)
    PETSc.Sys.Print(f"  {t:8s} {its:4d} iterations, reason {reason}, true residual {res:.3e}, |x - x_cg| / |x_cg| {d.norm() / x0.norm():.2e}")
if not np.isfinite(res0):
    sys.exit(1)
