# make install PREFIX=... installs the library, the header and pipekrylov.pc; a program builds against them.
install_test() {
  local pre
  pre=$(mktemp -d) || return 1
  make -s -C "$PK_ROOT" install PREFIX="$pre" >/dev/null || return 1
  test -f "$pre/lib/libpipekrylov.so" -a -f "$pre/include/pipekrylov.h" -a -f "$pre/lib/pkgconfig/pipekrylov.pc" || return 1
  cat > "$pre/app.c" <<'EOC'
#include <pipekrylov.h>
int main(int argc, char **argv)
{
  KSP ksp;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetType(ksp, KSPPKPCG));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "installed pipekrylov works\n"));
  PetscCall(PetscFinalize());
  return 0;
}
EOC
  export PKG_CONFIG_PATH=$pre/lib/pkgconfig:${PKG_CONFIG_PATH:-}
  mpicc "$pre/app.c" -o "$pre/app" $(pkg-config --cflags --libs pipekrylov) $(pkg-config --libs PETSc) -Wl,-rpath,$(pkg-config --variable=libdir PETSc) || return 1
  "$pre/app" && rm -rf "$pre"
}
t_grep install-and-link 'installed pipekrylov works' install_test
