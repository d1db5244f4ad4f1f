/*
   A switch tree from a topology.conf file (issue 21): rank 0 reads the file as the repository reads every input
   (a regular file, at most PK_TOPO_MAX_TEXT bytes; docs/security.md), every rank gets its text and parses it, so
   every rank has the tree or every rank has the same error.
*/
#include <pipekrylov/private/pktopo.h>
#include <pipekrylov/private/pkfiles.h>
#include <stdlib.h>

/*@C
   PKTopoLoad - Reads a Slurm topology.conf into a switch tree on every rank of a communicator.

   Collective

   Input Parameters:
+  comm - the ranks that want the tree
-  path - the file

   Output Parameter:
.  topo - the tree; destroy with PKTopoDestroy()

   Notes:
   A file that cannot be read, is not a regular file, is larger than PK_TOPO_MAX_TEXT bytes, holds NUL bytes or does
   not parse is an error on every rank, naming the file (and the line, for a parse error).

   Level: developer

.seealso: `PKTopoCreateFromString()`
@*/
PetscErrorCode PKTopoLoad(MPI_Comm comm, const char path[], PKTopo *topo)
{
  PetscMPIInt rank;
  char       *text = NULL;
  struct {
    long long n;
    int       rc;
    char      msg[PETSC_MAX_PATH_LEN + 256];
  } st = {0, 0, ""};

  PetscFunctionBegin;
  *topo = NULL;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    char   why[256];
    size_t n = 0;
    if (PKFileReadRegular(path, 0, PK_TOPO_MAX_TEXT, &text, &n, why, sizeof(why))) {
      st.rc = PETSC_ERR_FILE_READ;
      (void)PetscSNPrintf(st.msg, sizeof(st.msg), "cannot read the topology file '%s': %s", path, why);
    } else if (strlen(text) != n) {
      st.rc = PETSC_ERR_FILE_UNEXPECTED;
      (void)PetscSNPrintf(st.msg, sizeof(st.msg), "topology file '%s' contains NUL bytes: not a text file", path);
    }
    st.n = (long long)n;
  }
  PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, comm));
  if (st.rc) {
    free(text);
    SETERRQ(comm, st.rc, "%s", st.msg);
  }
  if (rank) PetscCall(PetscMalloc1(st.n + 1, &text));
  PetscCallMPI(MPI_Bcast(text, (PetscMPIInt)st.n + 1, MPI_CHAR, 0, comm));
  {
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PKTopoCreateFromString(text, (size_t)st.n, topo);
    PetscCall(PetscPopErrorHandler());
    if (rank) PetscCall(PetscFree(text));
    else free(text);
    /* the parser names the line ("topology.conf line 3: ..."); the file's name is added here (it never sees it) */
    if (ierr) {
      char *specific = NULL;
      PetscCall(PetscErrorMessage(ierr, NULL, &specific));
      SETERRQ(comm, ierr, "topology file '%s': %s", path, specific ? specific : "not a topology.conf this reader accepts");
    }
  }
  PetscFunctionReturn(0);
}
