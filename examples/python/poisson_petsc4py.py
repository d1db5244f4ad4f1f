#!/usr/bin/python3
"""3-D Poisson on a DMDA (7-point Laplacian, n^3 points, Dirichlet), solved in petsc4py with PETSc's cg and with each
of pipekrylov's types, loaded by `pipekrylov.register()`; prints, per type, the iterations, the true residual and the
difference from cg's solution. Run from anywhere:

    mpiexec -n 2 python3 examples/python/poisson_petsc4py.py [-n 24] [-pc_type jacobi] [-ksp_rtol 1e-8]
                                                            [-types pcg,pipe2cg] [-ksp_perfmodel_view]

PETSc options go on the command line (petsc4py.init takes them); -ksp_perfmodel_view gives each solve its report.
"""
import os
import sys

import petsc4py

petsc4py.init(sys.argv)
from petsc4py import PETSc  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "python"))
import pipekrylov  # noqa: E402

pipekrylov.register()
opts = PETSc.Options()
n = opts.getInt("n", 24)
types = opts.getString("types", "pcg,sapcg,nbpcg,pipecg,pipe2cg,pgmres").split(",")

da = PETSc.DMDA().create([n, n, n], stencil_width=1, stencil_type=PETSc.DMDA.StencilType.STAR)
A = da.createMatrix()
h2 = 1.0 / (n + 1) ** 2
(xs, xe), (ys, ye), (zs, ze) = da.getRanges()
row, col = PETSc.Mat.Stencil(), PETSc.Mat.Stencil()
for k in range(zs, ze):
    for j in range(ys, ye):
        for i in range(xs, xe):
            row.index = (i, j, k)
            A.setValueStencil(row, row, 6.0 / h2)
            for di, dj, dk in ((-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)):
                ii, jj, kk = i + di, j + dj, k + dk
                if 0 <= ii < n and 0 <= jj < n and 0 <= kk < n:
                    col.index = (ii, jj, kk)
                    A.setValueStencil(row, col, -1.0 / h2)
A.assemble()
b = da.createGlobalVec()
b.set(1.0)


def solve(ksp_type):
    ksp = PETSc.KSP().create()
    ksp.setOperators(A)
    ksp.setType(ksp_type)
    ksp.getPC().setType("jacobi")
    ksp.setTolerances(rtol=1e-8)
    ksp.setFromOptions()
    x = b.duplicate()
    x.set(0.0)
    ksp.solve(b, x)
    r = b.duplicate()
    A.mult(x, r)
    r.aypx(-1.0, b)
    res = r.norm() / b.norm()
    out = (ksp.getIterationNumber(), ksp.getConvergedReason(), res, x)
    ksp.destroy()
    return out


rtol = opts.getReal("ksp_rtol", 1e-8)
its0, reason0, res0, x0 = solve("cg")
PETSc.Sys.Print(f"petsc4py {petsc4py.__version__}, {PETSc.COMM_WORLD.getSize()} ranks, {n}^3 points, rtol {rtol:g}: cg {its0} iterations, reason {reason0}, true residual {res0:.3e}")
for t in types:
    its, reason, res, x = solve(t)
    d = x.copy()
    d.axpy(-1.0, x0)
    PETSc.Sys.Print(f"  {t:8s} {its:4d} iterations, reason {reason}, true residual {res:.3e}, |x - x_cg| / |x_cg| {d.norm() / x0.norm():.2e}")
