/*
   What differs between the MPI libraries a user runs with (pkcompat.h).
*/
#include <pipekrylov/private/pkcompat.h>
#include <stdlib.h>
#include <string.h>

PetscErrorCode PKMPIRankfileOption(const char file[], char opt[], size_t len)
{
  char        lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int         n = 0, major = 0;
  const char *ompi;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Get_library_version(lib, &n));
  ompi = strstr(lib, "Open MPI v");
  if (ompi) major = atoi(ompi + strlen("Open MPI v"));
  PetscCall(PetscSNPrintf(opt, len, major >= 5 ? "--map-by rankfile:file=%s" : "--rankfile %s", file));
  PetscFunctionReturn(0);
}
