/*
   PAPI counters where there are none to read: the build for SimGrid's simulator (PK_SMPI), whose simulated ranks
   are threads of one process sharing its counters (and whose time is simulated, not what a counter would see). The
   monitor records no counter column; a list asked for is warned about once and ignored.
*/
#include <pipekrylov/private/pkmonitor.h>
#if defined(PK_SMPI)

static PetscBool pk_papi_warned = PETSC_FALSE;

const char *PKPapiUnavailable(void)
{
  return "";
}

const char *PKPapiSoftwareEvents(void)
{
  return "";
}

const char *PKPapiUnavailableReason(void)
{
  return "PAPI is not available in the build for SimGrid's simulator";
}

int PKPapiCount(void)
{
  return 0;
}

void PKPapiRead(int n, const int col[], long long *v)
{
  (void)n;
  (void)col;
  (void)v;
}

PetscErrorCode PKPapiAgree(MPI_Comm comm, const char prefix[], int *n, int col[], const char *names[])
{
  PetscFunctionBegin;
  (void)comm;
  (void)prefix;
  (void)col;
  (void)names;
  *n = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode PKPapiCheckList(MPI_Comm comm, const char prefix[], char list[], size_t len)
{
  PetscBool deflt;

  PetscFunctionBegin;
  (void)len;
  PetscCall(PetscStrcmp(list, "default", &deflt));
  if (list[0] && !deflt && !pk_papi_warned) {
    pk_papi_warned = PETSC_TRUE;
    PetscCall(PetscPrintf(comm, "Warning: -%sksp_perf_papi_events %s is not recorded: %s\n", prefix ? prefix : "", list, PKPapiUnavailableReason()));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKPapiSetUp(MPI_Comm comm, const char prefix[], const char list[])
{
  PetscFunctionBegin;
  (void)comm;
  (void)prefix;
  (void)list;
  PetscFunctionReturn(0);
}

PetscErrorCode PKPapiFinalize(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(0);
}
#endif
