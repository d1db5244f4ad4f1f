/*
   The switch tree from Slurm itself. Under srun with the topology/tree plugin every task has its path in the tree in
   its environment: SLURM_TOPOLOGY_ADDR, the names from a root switch down to the task's node ("spine.leaf0.n1"), and
   SLURM_TOPOLOGY_ADDR_PATTERN, what each name is ("switch.switch.node"). The paths of the ranks of a communicator are
   the part of the tree they run on, which is all that their hops, routes and link loads need: the tree is written as
   the topology.conf it stands for and parsed by topology.c, so that it obeys the same rules and bounds as a file.
*/
#include <pipekrylov/private/pktopo.h>
#include <pipekrylov/private/pkfiles.h> /* PKTextEscape */
#include <stdlib.h>

/* One parent-child link of a path: "parent\tkind\tchild" sorts by parent, then kind (n: a node, s: a switch) */
static int PKCmpStr(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of a dotted path into comp[] (pointing into buf, a copy), at most PK_TOPO_MAX_DEPTH + 2 */
static PetscErrorCode PKSplitPath(const char s[], char buf[], size_t len, const char *what, PetscInt rank, char *comp[], PetscInt *n)
{
  PetscFunctionBegin;
  PetscCheck(strlen(s) < len, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Rank %" PetscInt_FMT "'s %s is longer than %zu characters", rank, what, len - 1);
  PetscCall(PetscStrncpy(buf, s, len));
  *n = 0;
  for (char *p = buf;;) {
    char *dot = strchr(p, '.');
    PetscCheck(*n < PK_TOPO_MAX_DEPTH + 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Rank %" PetscInt_FMT "'s %s '%s' has more than %d levels", rank, what, s, PK_TOPO_MAX_DEPTH + 2);
    comp[(*n)++] = p;
    if (!dot) break;
    *dot = 0;
    p    = dot + 1;
  }
  PetscFunctionReturn(0);
}

/* The parent-child links of every address into link[] (*nlink of them, each allocated), checked */
static PetscErrorCode PKSlurmLinks(PetscInt n, const char *const addr[], const char *const pattern[], char a[], char p[], char *link[], PetscInt *nlink)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    char    *ca[PK_TOPO_MAX_DEPTH + 2], *cp[PK_TOPO_MAX_DEPTH + 2];
    PetscInt na, np;
    PetscCall(PKSplitPath(addr[i], a, PK_TOPO_MAX_LINE, "SLURM_TOPOLOGY_ADDR", i, ca, &na));
    PetscCall(PKSplitPath(pattern[i], p, PK_TOPO_MAX_LINE, "SLURM_TOPOLOGY_ADDR_PATTERN", i, cp, &np));
    PetscCheck(na == np && na >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Rank %" PetscInt_FMT ": SLURM_TOPOLOGY_ADDR '%s' does not match SLURM_TOPOLOGY_ADDR_PATTERN '%s' (a switch, then a name per level, the node last)", i, addr[i], pattern[i]);
    for (PetscInt k = 0; k < na; k++) {
      PetscCheck(!strcmp(cp[k], k == na - 1 ? "node" : "switch"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Rank %" PetscInt_FMT ": SLURM_TOPOLOGY_ADDR_PATTERN '%s' is not switch.[switch.]...node", i, pattern[i]);
      PetscCall(PKHostlistCheckName(ca[k], "SLURM_TOPOLOGY_ADDR"));
    }
    for (PetscInt k = 0; k + 1 < na; k++) {
      size_t l = strlen(ca[k]) + strlen(ca[k + 1]) + 4;
      PetscCall(PetscMalloc1(l, &link[*nlink]));
      PetscCall(PetscSNPrintf(link[(*nlink)++], l, "%s\t%c\t%s", ca[k], k + 2 == na ? 'n' : 's', ca[k + 1]));
    }
  }
  PetscFunctionReturn(0);
}

/* The topology.conf of the sorted links: one SwitchName= line per parent with its nodes or its switches, each once */
static PetscErrorCode PKSlurmText(char *link[], PetscInt nlink, char **text, size_t *at)
{
  size_t len = 0;

  PetscFunctionBegin;
  *text = NULL;
  *at   = 0;
  for (PetscInt i = 0; i < nlink; i++) {
    const size_t plen = (size_t)(strchr(link[i], '\t') - link[i]);
    /* the same parent as the link before: a child of the same kind (Slurm refuses a switch with both) */
    if (i > 0 && !strncmp(link[i - 1], link[i], plen + 1)) PetscCheck(link[i - 1][plen + 1] == link[i][plen + 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Slurm's topology addresses put both nodes and switches under switch %.*s", (int)plen, link[i]);
    len += strlen(link[i]) + 32;
  }
  PetscCheck(len <= PK_TOPO_MAX_TEXT, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The tree of the Slurm topology addresses is larger than %d bytes", PK_TOPO_MAX_TEXT);
  PetscCall(PetscMalloc1(len + 1, text));
  for (PetscInt i = 0; i < nlink; i++) {
    const char  *tab = strchr(link[i], '\t'), *kind = tab + 1, *child = tab + 3;
    const size_t plen = (size_t)(tab - link[i]);
    if (i > 0 && !strcmp(link[i - 1], link[i])) continue; /* a link two tasks share */
    if (i > 0 && !strncmp(link[i - 1], link[i], plen + 1)) *at += (size_t)snprintf(*text + *at, len + 1 - *at, ",%s", child);
    else *at += (size_t)snprintf(*text + *at, len + 1 - *at, "%sSwitchName=%.*s %s=%s", *at ? "\n" : "", (int)plen, link[i], *kind == 'n' ? "Nodes" : "Switches", child);
  }
  (*text)[*at] = 0;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoCreateFromSlurmAddrs - The switch tree that Slurm's topology addresses of some tasks describe.

   Not Collective

   Input Parameters:
+  n       - the number of tasks
.  addr    - each task's SLURM_TOPOLOGY_ADDR: names from a root switch down to its node, separated by '.'
-  pattern - each task's SLURM_TOPOLOGY_ADDR_PATTERN: "switch" for each switch of its address and "node" last

   Output Parameter:
.  topo - the tree (only the switches and nodes the addresses name); destroy with PKTopoDestroy()

   Notes:
   A switch holds either nodes or switches, and one switch has one parent: an address that breaks this, a name
   that is not a plain name, or a pattern that does not match its address is an error naming the task.

   Level: developer

.seealso: `PKTopoLoadSlurm()`, `PKTopoCreateFromString()`
@*/
PetscErrorCode PKTopoCreateFromSlurmAddrs(PetscInt n, const char *const addr[], const char *const pattern[], PKTopo *topo)
{
  char         **link, *text = NULL, *a, *p;
  PetscInt       nlink = 0;
  size_t         at    = 0;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *topo = NULL;
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No topology address");
  PetscCall(PetscMalloc2(PK_TOPO_MAX_LINE, &a, PK_TOPO_MAX_LINE, &p));
  PetscCall(PetscMalloc1(n * (PK_TOPO_MAX_DEPTH + 1), &link));
  /* errors go through ierr so that what was allocated is freed first */
  ierr = PKSlurmLinks(n, addr, pattern, a, p, link, &nlink);
  if (!ierr) {
    qsort(link, (size_t)nlink, sizeof(*link), PKCmpStr);
    ierr = PKSlurmText(link, nlink, &text, &at);
  }
  for (PetscInt i = 0; i < nlink; i++) PetscCall(PetscFree(link[i]));
  PetscCall(PetscFree(link));
  PetscCall(PetscFree2(a, p));
  if (!ierr) ierr = PKTopoCreateFromString(text, at, topo);
  PetscCall(PetscFree(text));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLoadSlurm - The switch tree from Slurm's environment, when every rank of a communicator runs as a Slurm
   task with a topology address (srun, the topology/tree plugin).

   Collective

   Input Parameter:
.  comm - the ranks

   Output Parameters:
+  topo  - the tree their addresses describe, NULL when some rank has no address (not under Slurm, or no tree)
-  node  - this rank's node as Slurm names it (the last name of its address; empty without a tree), len characters

   Notes:
   Every rank gets the same tree or the same error (a malformed address names its rank).

   Level: developer

.seealso: `PKTopoCreateFromSlurmAddrs()`, `PKTopoLoad()`
@*/
PetscErrorCode PKTopoLoadSlurm(MPI_Comm comm, PKTopo *topo, char node[], size_t len)
{
  const char    *ea = getenv("SLURM_TOPOLOGY_ADDR"), *ep = getenv("SLURM_TOPOLOGY_ADDR_PATTERN");
  PetscMPIInt    size;
  int            have, all;
  char          *buf, **addr, **pat;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *topo   = NULL;
  node[0] = 0;
  have    = ea && ep && ea[0] && ep[0] && strlen(ea) < PK_SLURM_ADDR_MAX && strlen(ep) < PK_SLURM_ADDR_MAX;
  PetscCallMPI(MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_LAND, comm));
  if (!all) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscCalloc1((size_t)(size + 1) * 2 * PK_SLURM_ADDR_MAX, &buf));
  PetscCall(PetscStrncpy(buf, ea, PK_SLURM_ADDR_MAX));
  PetscCall(PetscStrncpy(buf + PK_SLURM_ADDR_MAX, ep, PK_SLURM_ADDR_MAX));
  PetscCallMPI(MPI_Allgather(buf, 2 * PK_SLURM_ADDR_MAX, MPI_CHAR, buf + 2 * PK_SLURM_ADDR_MAX, 2 * PK_SLURM_ADDR_MAX, MPI_CHAR, comm));
  PetscCall(PetscMalloc2(size, &addr, size, &pat));
  for (PetscMPIInt r = 0; r < size; r++) {
    addr[r] = buf + (size_t)(r + 1) * 2 * PK_SLURM_ADDR_MAX;
    pat[r]  = addr[r] + PK_SLURM_ADDR_MAX;
  }
  ierr = PKTopoCreateFromSlurmAddrs(size, (const char *const *)addr, (const char *const *)pat, topo); /* freed first */
  PetscCall(PetscFree2(addr, pat));
  PetscCall(PetscFree(buf));
  PetscCall(ierr);
  {
    const char *dot = strrchr(ea, '.');
    PetscCall(PetscStrncpy(node, dot ? dot + 1 : ea, len));
  }
  PetscFunctionReturn(0);
}

/*@C
   PKTopoCreateFromScontrol - The switch tree that `scontrol show topology` prints (Slurm's topology/tree plugin).

   Not Collective

   Input Parameters:
+  text - its output: one line per switch, "SwitchName=spine Level=1 LinkSpeed=1 Nodes=n[0-3] Switches=leaf[0-1]"
-  len  - its length, at most PK_TOPO_MAX_TEXT

   Output Parameter:
.  topo - the tree; destroy with PKTopoDestroy()

   Notes:
   scontrol lists under a switch of a higher level every node below it too; topology.conf names a switch's
   switches or its nodes, not both, so a line with Switches= keeps those and drops its Nodes=. Level= and keys
   unknown to topology.conf are dropped; what remains is parsed as a topology.conf, with its rules and errors. Output
   with no SwitchName= line (no tree configured) is an error that quotes its first line.

   Level: developer

.seealso: `PKTopoCreateFromString()`, `PKTopoCreateFromSlurmAddrs()`
@*/
PetscErrorCode PKTopoCreateFromScontrol(const char text[], size_t len, PKTopo *topo)
{
  char          *in, *out, *save = NULL;
  size_t         at   = 0;
  PetscInt       nsw  = 0;
  PetscErrorCode ierr = 0;

  PetscFunctionBegin;
  *topo = NULL;
  PetscCheck(len <= PK_TOPO_MAX_TEXT, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "scontrol show topology printed more than %d bytes", PK_TOPO_MAX_TEXT);
  PetscCall(PetscMalloc2(len + 1, &in, len + 2, &out));
  PetscCall(PetscMemcpy(in, text, len));
  in[len] = 0;
  out[0]  = 0;
  for (char *line = strtok_r(in, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *sw = NULL, *nodes = NULL, *switches = NULL, *speed = NULL, *tsave = NULL;

    for (char *tok = strtok_r(line, " \t\r", &tsave); tok; tok = strtok_r(NULL, " \t\r", &tsave)) {
      if (!strncmp(tok, "SwitchName=", 11)) sw = tok;
      else if (!strncmp(tok, "Nodes=", 6)) nodes = tok;
      else if (!strncmp(tok, "Switches=", 9)) switches = tok;
      else if (!strncmp(tok, "LinkSpeed=", 10)) speed = tok;
    }
    if (!sw) continue;
    if (!switches && !nodes) continue; /* a switch with nothing below it: topology.conf has no use for it */
    /* each token is shorter than its line, and the kept ones together no longer than the input */
    at += (size_t)snprintf(out + at, len + 2 - at, "%s %s%s%s\n", sw, switches ? switches : nodes, speed ? " " : "", speed ? speed : "");
    nsw++;
  }
  if (nsw) ierr = PKTopoCreateFromString(out, at, topo);
  PetscCall(PetscFree2(in, out));
  PetscCall(ierr);
  if (!nsw) {
    char first[128], esc[512];

    (void)snprintf(first, sizeof(first), "%.*s", (int)strcspn(text, "\n"), text);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Slurm has no switch tree: scontrol show topology printed no SwitchName= line (it printed '%s')", PKTextEscape(first, esc, sizeof(esc)));
  }
  PetscFunctionReturn(0);
}
