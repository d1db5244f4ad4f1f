static const char help[] = "Leaks one vector on purpose: shows that tests/mallocdump.sh catches leaks.\n";
#include <petscvec.h>
int main(int argc, char **argv)
{
  Vec v;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 10, &v));
  PetscCall(PetscFinalize());
  return 0;
}
