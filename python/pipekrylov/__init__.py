"""pipekrylov for petsc4py: the six Krylov types and the performance report in a running petsc4py.

    from petsc4py import PETSc
    import pipekrylov
    pipekrylov.register()              # the types pcg, sapcg, nbpcg, pipecg, pipe2cg, pgmres (and autocg) are known
    PETSc.Options()["ksp_perfmodel_view"] = ""
    ksp.setType("pipe2cg"); ksp.setFromOptions(); ksp.solve(b, x)   # the report at the end of the solve

PETSc loads the libraries of -dll_append only inside PetscInitialize, which petsc4py has already run when a script
sets PETSc.Options: register() loads libpipekrylov.so into the process itself and calls its
PipeKrylovInitializePackage(), as -dll_append would have. The other ways that work: the options on petsc4py.init's
command line (petsc4py.init(["prog", "-dll_append", lib])) or in PETSC_OPTIONS, both before PETSc is imported.
"""
import ctypes
import os
import stat

__all__ = ["register", "library"]

_registered = None


def _check(path, what):
    """A file or directory that root or this user owns and no one else may write, and not a symbolic link: the
    library is loaded into the process as it is (docs/security.md)."""
    st = os.lstat(path)
    kind = stat.S_ISDIR(st.st_mode) if what == "directory" else stat.S_ISREG(st.st_mode)
    if not kind or st.st_uid not in (0, os.getuid()) or st.st_mode & 0o022:
        raise RuntimeError(f"pipekrylov: {path} is not a {what} owned by root or you and writable only by its owner: not loaded")


def library():
    """The libpipekrylov.so this module belongs to: the installed one (its path written at make install), else the
    source tree's lib/ (python/pipekrylov is two levels below the tree's root)."""
    here = os.path.dirname(os.path.realpath(__file__))
    try:
        from . import _config  # written by make install
        return _config.LIBRARY
    except ImportError:
        return os.path.join(os.path.dirname(os.path.dirname(here)), "lib", "libpipekrylov.so")


def register(lib=None):
    """Load libpipekrylov.so (lib, else library()) into this process and register its KSP types and options with
    the PETSc petsc4py runs on. Idempotent; returns the library's path. PETSc must be initialized (it is once
    petsc4py.PETSc is imported)."""
    global _registered
    from petsc4py import PETSc  # noqa: F401 (initializes PETSc)
    path = os.path.realpath(lib or library())
    if _registered is not None:
        if _registered != path:
            raise RuntimeError(f"pipekrylov: {_registered} is registered already; {path} is not loaded too")
        return path
    if not os.path.exists(path):
        raise RuntimeError(f"pipekrylov: no library at {path} (make, or pipekrylov.register(lib=...))")
    _check(os.path.dirname(path), "directory")
    _check(path, "file")
    dll = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    init = dll.PipeKrylovInitializePackage
    init.restype = ctypes.c_int
    init.argtypes = []
    rc = init()
    if rc != 0:
        raise RuntimeError(f"pipekrylov: PipeKrylovInitializePackage failed with PETSc error {rc}")
    _registered = path
    return path
