/*
   A switch tree from a topology.conf on disk. The parser (topology.c) takes a buffer; this is the one
   place in src/topology that opens a file, with the repository's rules for files on a shared machine (docs/security.md):
   a regular file only (a FIFO, a device or /dev/zero is refused before anything is read, never waited on), at most
   PK_TOPO_MAX_TEXT bytes, read once. One process reads: callers on many ranks read on one and share the result.
*/
#include <pipekrylov/private/pktopo.h>
#include <pipekrylov/private/pkfiles.h>
#include <stdlib.h>

/* The parse of a file's text, its errors naming the file (the parser's message names the line) */
static PetscErrorCode PKTopoParseNamed(const char path[], const char text[], size_t len, PKTopo *topo)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PKTopoCreateFromString(text, len, topo);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *generic;
    char       *specific = NULL;

    char safe[1024];

    PetscCall(PetscErrorMessage(ierr, &generic, &specific));
    /* the parser's message quotes the file: its control characters are shown, not sent to the terminal */
    SETERRQ(PETSC_COMM_SELF, ierr, "Topology file '%s': %s", path, PKTextEscape(specific && specific[0] ? specific : generic, safe, sizeof(safe)));
  }
  PetscFunctionReturn(0);
}

/*@C
   PKTopoCreateFromFile - Reads a Slurm topology.conf (topology/tree) into a switch tree.

   Not Collective

   Input Parameter:
.  path - the file

   Output Parameter:
.  topo - the tree; destroy with PKTopoDestroy()

   Notes:
   The file must be a regular file of at most PK_TOPO_MAX_TEXT bytes without NUL bytes. Every error names the file;
   a malformed file's error is the parser's, with its line (PKTopoCreateFromString()).

   Level: developer

.seealso: `PKTopoCreateFromString()`, `PKTopoDestroy()`, `PKTopoLoad()`
@*/
PetscErrorCode PKTopoCreateFromFile(const char path[], PKTopo *topo)
{
  char          *text = NULL, why[512];
  size_t         len;
  int            e;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(path && path[0], PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "No topology file given");
  *topo = NULL;
  e     = PKFileReadRegular(path, 0, PK_TOPO_MAX_TEXT, &text, &len, why, sizeof(why));
  PetscCheck(!e, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read the topology file '%s': %s", path, why);
  ierr = PKTopoParseNamed(path, text, len, topo);
  free(text);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLoad - Reads a Slurm topology.conf into a switch tree on every rank of a communicator: rank 0 reads the
   file (as PKTopoCreateFromFile() does), every rank gets its text and parses it.

   Collective

   Input Parameters:
+  comm - the ranks that want the tree
-  path - the file

   Output Parameter:
.  topo - the tree; destroy with PKTopoDestroy()

   Notes:
   An error (the file cannot be read, is not a regular file, is too large, does not parse) is the same on every rank.

   Level: developer

.seealso: `PKTopoCreateFromFile()`
@*/
PetscErrorCode PKTopoLoad(MPI_Comm comm, const char path[], PKTopo *topo)
{
  PetscMPIInt rank;
  char       *text = NULL;
  struct {
    long long n;
    int       rc;
    char      msg[PETSC_MAX_PATH_LEN + 512];
  } st = {0, 0, ""};

  PetscFunctionBegin;
  *topo = NULL;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    char   why[512];
    size_t n = 0;
    if (PKFileReadRegular(path, 0, PK_TOPO_MAX_TEXT, &text, &n, why, sizeof(why))) {
      st.rc = PETSC_ERR_FILE_OPEN;
      (void)PetscSNPrintf(st.msg, sizeof(st.msg), "Cannot read the topology file '%s': %s", path, why);
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
    PetscErrorCode ierr = PKTopoParseNamed(path, text, (size_t)st.n, topo); /* the same outcome on every rank */
    if (rank) PetscCall(PetscFree(text));
    else free(text);
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}
