/*
   A switch tree from a topology.conf on disk (issue 21). The parser (topology.c) takes a buffer; this is the one
   place in src/dm that opens a file, with the repository's rules for files on a shared machine (docs/security.md):
   a regular file only (a FIFO, a device or /dev/zero is refused before anything is read, never waited on), at most
   PK_TOPO_MAX_TEXT bytes, read once. One process reads: callers on many ranks read on one and share the result.
*/
#include <pipekrylov/private/pktopo.h>
#include <pipekrylov/private/pkfiles.h>
#include <stdlib.h>

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

.seealso: `PKTopoCreateFromString()`, `PKTopoDestroy()`
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
  /* the parser's message names the line; the file's name is added here, where it is known */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PKTopoCreateFromString(text, len, topo);
  PetscCall(PetscPopErrorHandler());
  free(text);
  if (ierr) {
    const char *generic;
    char       *specific = NULL;

    PetscCall(PetscErrorMessage(ierr, &generic, &specific));
    SETERRQ(PETSC_COMM_SELF, ierr, "Topology file '%s': %s", path, specific && specific[0] ? specific : generic);
  }
  PetscFunctionReturn(0);
}
