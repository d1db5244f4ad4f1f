# shellcheck shell=bash
# make install PREFIX=... installs the library, the header and pipekrylov.pc; a program builds against them.
install_test() {
  local pre
  pre=$(mktemp -d) || return 1
  make -s -C "$PK_ROOT" install PREFIX="$pre" >/dev/null || return 1
  test -f "$pre/lib/libpipekrylov.so" -a -f "$pre/include/pipekrylov.h" -a -f "$pre/lib/pkgconfig/pipekrylov.pc" || return 1
  # the petsc4py module, which finds the installed library
  [ "$(PYTHONPATH=$pre/lib/python3/dist-packages /usr/bin/python3 -c 'import pipekrylov; print(pipekrylov.library())')" = "$pre/lib/libpipekrylov.so" ] || { echo "the installed python module does not name the installed library"; return 1; }
  # the plot's fit tool beside it (the plot runs the one in its own directory)
  [ -f "$pre/bin/pipekrylov-plot" ] && [ "$(echo 1 2 3 | "$pre/bin/pipekrylov-fit")" = "none 3" ] || { echo "no working pipekrylov-fit beside the installed pipekrylov-plot"; return 1; }
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
  # shellcheck disable=SC2046 # pkg-config's flags, a word each
  mpicc "$pre/app.c" -o "$pre/app" $(pkg-config --cflags --libs pipekrylov) $(pkg-config --libs PETSc) -Wl,-rpath,$(pkg-config --variable=libdir PETSc) || return 1
  "$pre/app" && rm -rf "$pre"
}
t_grep install-and-link 'installed pipekrylov works' install_test

# The whole public API from the installed header alone: a program that includes only pipekrylov.h and calls every
# public function (reading fields of PKStats), built with pkg-config --cflags --libs pipekrylov only; the library
# exports at most 40 dynamic symbols, each declared in the installed header.
install_api_test() {
  local pre syms s
  pre=$(mktemp -d) || return 1
  make -s -C "$PK_ROOT" install PREFIX="$pre" >/dev/null || return 1
  export PKG_CONFIG_PATH=$pre/lib/pkgconfig:${PKG_CONFIG_PATH:-}
  # shellcheck disable=SC2046 # pkg-config's flags, a word each
  mpicc "$PK_ROOT/tests/install/app.c" -o "$pre/app" $(pkg-config --cflags --libs pipekrylov) || return 1
  "$pre/app" || return 1
  syms=$(nm -D --defined-only "$pre/lib/libpipekrylov.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v -E '^(_edata|_end|__bss_start|_init|_fini)$')
  echo "exported: $(echo "$syms" | wc -l) symbols"
  [ "$(echo "$syms" | wc -l)" -le 40 ] || { echo "more than 40 exported symbols"; return 1; }
  for s in $syms; do grep -q "\\b$s\\b" "$pre/include/pipekrylov.h" || { echo "$s is exported but not declared in pipekrylov.h"; return 1; }; done
  for s in $(sed -n 's/^PETSC_EXTERN [A-Za-z_]* \**\([A-Za-z_0-9]*\)(.*/\1/p' "$pre/include/pipekrylov.h"); do grep -q "\\b$s\\b" "$pre/app.c" "$PK_ROOT/tests/install/app.c" 2>/dev/null || { echo "the test does not call $s"; return 1; }; done
  echo "every exported symbol is declared in pipekrylov.h"
  rm -rf "$pre"
}
t_grep install-public-api 'installed pipekrylov API works' install_api_test
