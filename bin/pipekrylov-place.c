static const char usage[] = "usage: pipekrylov-place --nodes N --ppn K --grid MxN[xP] [--stencil star|box] [--width W] [--dof D]\n"
                            "                        [--procs mxn[xp]] [--hosts h0,h1,...] [--topology TOPO] --rankfile FILE\n"
                            "                        [--format openmpi|slurm]\n"
                            "\n"
                            "Node-aware placement for an unmodified PETSc application that uses a DMDA (the same optimum as\n"
                            "DMDACreateNodeAware): each node gets a compact block of the process grid, chosen to minimise off-node halo\n"
                            "bytes among the process grids with no more halo bytes in all than PETSc's default grid (otherwise the default\n"
                            "layout is kept). PETSc numbers the DMDA's ranks x-fastest, so the placement is expressed as\n"
                            "  - FILE: which node each MPI rank runs on (Open MPI rankfile, 'rank R=host slot=S', for mpiexec --rankfile;\n"
                            "    or with --format slurm one host name per line, line R for rank R, for SLURM_HOSTFILE with\n"
                            "    srun --distribution=arbitrary),\n"
                            "  - standard output: the PETSc options fixing the process grid, on one line (-da_processors_x .. -da_processors_y ..).\n"
                            "Standard error: off-node halo messages and bytes per SpMV of the default layout (PETSc's grid, ranks x-fastest,\n"
                            "K consecutive ranks per node) and of the placed one.\n"
                            "  --grid     global grid points (the DMDA's M x N [x P])\n"
                            "  --stencil  DMDA stencil type (default star), --width its width (default 1), --dof unknowns per point (default 1)\n"
                            "  --procs    fix (parts of) the process grid; 0 = free (default: all free)\n"
                            "  --hosts    node host names (default: the emulated cluster's pknode0, pknode1, ...): letters, digits, '.', '-'\n"
                            "             and '_', one per node, none empty, no host twice (case and domain aside: a and A.x are one)\n"
                            "  --topology Slurm's topology.conf (topology/tree plugin: SwitchName=s0 Nodes=node[01-16], SwitchName=top\n"
                            "             Switches=s[0-1]) that locates the hosts on a switch tree: the node blocks go to the hosts so that\n"
                            "             neighbouring blocks share a leaf switch (fewest halo bytes on switch-to-switch links, then the lightest\n"
                            "             busiest link; never worse than the node-aware order, which is kept when the tree gains nothing or a\n"
                            "             host is not in TOPO, with a note). TOPO 'slurm': Slurm's own tree (scontrol show topology, run from\n"
                            "             PATH only when it and its directory are root's or yours and no one else may write them); inside a\n"
                            "             Slurm job (SLURM_JOB_ID) that is the default, and --hosts defaults to the job's nodes. Standard error\n"
                            "             adds, for the default, node-aware and topology-aware layouts: the bytes per SpMV summed over the\n"
                            "             switch-to-switch link directions, the busiest direction's bytes and the bytes that leave a leaf switch.\n"
                            "             TOPO: a regular file of at most 4 MiB; a malformed one is an error naming its line. Host names match\n"
                            "             the file's in full or up to the first '.'\n"
                            "At most 16777216 ranks (--nodes x --ppn). FILE is written to a temporary file beside it and renamed (an existing\n"
                            "FILE must be a regular file, not a link).\n";

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pipekrylov.h>
#include <pipekrylov/private/pkcompat.h>
#include <pipekrylov/private/pkfiles.h>
#include <pipekrylov/private/pkplace.h>

/* The most ranks placed: far beyond any machine's (millions of cores), small enough that a rank number fits an int
   everywhere and the rankfile (about 35 bytes a rank) stays below a gigabyte */
#define PK_PLACE_MAX_RANKS (1 << 24)

/* A non-negative decimal integer of at most 9 digits: *s points at its first digit, on return past its last.
   -1 when there is no digit (an empty field, a sign, a space). */
static long parse_uint(const char **s)
{
  long x = 0;
  int  n = 0;
  for (; **s >= '0' && **s <= '9'; (*s)++, n++) {
    if (n == 9) return -1;
    x = 10 * x + (**s - '0');
  }
  return n ? x : -1;
}

/* "M", "MxN" or "MxNxP" (x or X): 1 to 3 non-negative integers, each separator between two of them. Anything else
   (an empty size as in 64x64x, 64xx64 or x64, a sign, a space, a fourth size) is -1, never a shorter grid. */
static int parse_dims(const char *s, PetscInt v[3])
{
  int n = 0;
  for (;;) {
    long x = parse_uint(&s);
    if (x < 0 || n == 3) return -1;
    v[n++] = (PetscInt)x;
    if (!*s) return n;
    if (*s != 'x' && *s != 'X') return -1;
    s++;
  }
}

/* a whole option value as a non-negative integer, else -1 (so "4x" or "" is not 4 or 0) */
static long parse_count(const char *s)
{
  long x = parse_uint(&s);
  return *s ? -1 : x;
}

static void die(const char *msg, const char *arg)
{
  fprintf(stderr, "pipekrylov-place: %s%s\n\n%s", msg, arg ? arg : "", usage);
  exit(2);
}

/* die with the offending value quoted, so that an empty or space-containing value is visible */
static void die2(const char *msg, const char *arg)
{
  fprintf(stderr, "pipekrylov-place: %s'%s'\n\n%s", msg, arg, usage);
  exit(2);
}

static const char *const options[] = {"--nodes", "--ppn", "--grid", "--procs", "--stencil", "--width", "--dof", "--hosts", "--topology", "--rankfile", "--format"};

static int is_option(const char *a)
{
  for (size_t k = 0; k < sizeof(options) / sizeof(options[0]); k++)
    if (!strcmp(a, options[k])) return 1;
  return 0;
}

/* One host named twice: the same host whatever the case of its letters (host names are case-insensitive), or with
   and without its domain (the topology matches a name up to its first '.') */
static int same_host(const char *a, const char *b)
{
  size_t la = strcspn(a, "."), lb = strcspn(b, ".");
  if (!strcasecmp(a, b)) return 1;
  return la == lb && (!a[la] || !b[lb]) && !strncasecmp(a, b, la);
}

/* A program to run: the first NAME on PATH (or /usr/bin:/bin) that is a regular executable file owned by root or
   by us and writable by its owner alone, in a directory of the same kind (docs/security.md: nothing is executed
   from a path another user could have made). 0 and its real path, or -1 and why. */
static int trusted_program(const char *name, char path[], size_t len, char why[], size_t whylen)
{
  const char *env = getenv("PATH");
  char        list[4096], cand[PATH_MAX + 64], real[PATH_MAX];

  snprintf(list, sizeof(list), "%s", env && env[0] ? env : "/usr/bin:/bin");
  snprintf(why, whylen, "%s is not on PATH", name);
  for (char *save = NULL, *dir = strtok_r(list, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
    struct stat st, sd;
    char       *slash;
    if (dir[0] != '/') continue; /* a relative entry names whatever the current directory holds */
    snprintf(cand, sizeof(cand), "%s/%s", dir, name);
    if (access(cand, X_OK) || !realpath(cand, real) || stat(real, &st)) continue;
    slash  = strrchr(real, '/');
    *slash = 0;
    if (stat(real[0] ? real : "/", &sd)) continue;
    *slash = '/';
    if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022) || (sd.st_uid != 0 && sd.st_uid != geteuid()) || (sd.st_mode & 022)) {
      snprintf(why, whylen, "%.1000s is not owned by root or you, or others may write it or its directory: not run", real);
      return -1;
    }
    snprintf(path, len, "%s", real);
    return 0;
  }
  return -1;
}

/* The output of `scontrol show topology` (at most PK_TOPO_MAX_TEXT bytes, standard error with it): 0, or -1 and why */
static int scontrol_topology(char **text, size_t *len, char why[], size_t whylen)
{
  char  prog[PATH_MAX];
  int   fd[2], status;
  pid_t pid;

  *text = NULL;
  *len  = 0;
  if (trusted_program("scontrol", prog, sizeof(prog), why, whylen)) return -1;
  if (pipe(fd)) {
    snprintf(why, whylen, "pipe: %s", strerror(errno));
    return -1;
  }
  if ((pid = fork()) < 0) {
    snprintf(why, whylen, "fork: %s", strerror(errno));
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (!pid) {
    char *const av[] = {(char *)"scontrol", (char *)"show", (char *)"topology", NULL};
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    execv(prog, av);
    _exit(127);
  }
  close(fd[1]);
  *text = (char *)malloc(PK_TOPO_MAX_TEXT + 1);
  for (ssize_t got = 1; *text && got > 0 && *len <= PK_TOPO_MAX_TEXT;) {
    got = read(fd[0], *text + *len, PK_TOPO_MAX_TEXT + 1 - *len);
    if (got > 0) *len += (size_t)got;
    else if (got < 0 && errno == EINTR) got = 1;
  }
  close(fd[0]); /* a longer output: scontrol gets SIGPIPE */
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
  if (!*text) snprintf(why, whylen, "no memory for scontrol's output");
  else if (*len > PK_TOPO_MAX_TEXT) snprintf(why, whylen, "%s show topology printed more than %d bytes", prog, PK_TOPO_MAX_TEXT);
  else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    char esc[600];
    (*text)[*len]                 = 0;
    (*text)[strcspn(*text, "\n")] = 0;
    snprintf(why, whylen, "%s show topology failed (%s %d): %s", prog, WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), PKTextEscape(*text, esc, sizeof(esc)));
  } else {
    (*text)[*len] = 0;
    return 0;
  }
  free(*text);
  *text = NULL;
  return -1;
}

/* One layout's traffic on the switch-to-switch links, for standard error */
static PetscErrorCode PrintTraffic(PKTopo topo, const char what[], const PKTopoTraffic *tr)
{
  char link[2 * PK_TOPO_MAX_NAME + 8] = "none";

  PetscFunctionBegin;
  if (tr->busiest.link >= 0) PetscCall(PKTopoLinkName(topo, tr->busiest, link, sizeof(link)));
  fprintf(stderr, "switch links, %s: %.0f bytes per SpMV (busiest %s %.0f bytes; %.0f bytes leave a leaf switch)", what, (double)tr->link_bytes, link, (double)tr->busiest_bytes, (double)tr->leaf_bytes);
  if (tr->n_unknown) fprintf(stderr, "; %d messages not routed (a host not in the topology)", (int)tr->n_unknown);
  fprintf(stderr, "\n");
  PetscFunctionReturn(0);
}

/* The switch-to-switch traffic of the three layouts and the hosts of the node blocks */
static PetscErrorCode PrintTopology(const char file[], PKTopo topo, const PKTopoPlacement *tp, const char *const hostv[])
{
  PetscFunctionBegin;
  fprintf(stderr, "topology %s: %d hosts, leaf switches holding them: %d\n", file, (int)tp->nnodes, (int)tp->nleaves);
  PetscCall(PrintTraffic(topo, "default", &tp->def));
  PetscCall(PrintTraffic(topo, "node-aware", &tp->nodeaware));
  if (tp->usable) PetscCall(PrintTraffic(topo, "topology-aware", &tp->topo));
  if (tp->placed) {
    fprintf(stderr, "topology-aware: %s; node blocks 0..%d on hosts", tp->note, (int)tp->nnodes - 1);
    if (tp->nnodes <= 64)
      for (PetscInt b = 0; b < tp->nnodes; b++) fprintf(stderr, " %s", hostv[tp->order[b]]);
    else fprintf(stderr, " (see the rankfile)");
    fprintf(stderr, "\n");
  } else fprintf(stderr, "topology-aware: %s\n", tp->note);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt        nodes = 0, ppn = 0, M[3] = {1, 1, 1}, procs[3] = {0, 0, 0}, width = 1, dof = 1, dim = 0, pdim = 0;
  const char     *rankfile = NULL, *format = "openmpi", *hosts = NULL, *stencil = "star", *topofile = NULL;
  char          **hostv = NULL, *hostbuf = NULL; /* --hosts: the names point into hostbuf; else each its own */
  PKPlacement     pl;
  PKTopoPlacement tp;
  PKTopo          topo = NULL;
  FILE           *f;
  PKAtomicFile    af;
  char            why[4200];
  const char     *jobnodes;
  int             fromslurm;
  char           *sctext = NULL; /* what scontrol show topology printed */
  size_t          sclen  = 0;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 0;
    }
    /* an option of another tool or a typo is named as such, before its missing value is looked for */
    if (!is_option(a)) die("unknown option ", a);
    if (!v) die("missing value after ", a);
    i++;
    if (!strcmp(a, "--nodes")) {
      if ((nodes = parse_count(v)) < 1) die2("--nodes must be a positive integer, not ", v);
    } else if (!strcmp(a, "--ppn")) {
      if ((ppn = parse_count(v)) < 1) die2("--ppn must be a positive integer, not ", v);
    } else if (!strcmp(a, "--grid")) {
      if ((dim = parse_dims(v, M)) < 1) die2("--grid must be M, MxN or MxNxP (1 to 3 sizes, one x between two), not ", v);
    } else if (!strcmp(a, "--procs")) {
      if ((pdim = parse_dims(v, procs)) < 1) die2("--procs must be m, mxn or mxnxp (1 to 3 counts, one x between two; 0 = free), not ", v);
    } else if (!strcmp(a, "--stencil")) stencil = v;
    else if (!strcmp(a, "--width")) {
      if ((width = parse_count(v)) < 0) die2("--width must be a non-negative integer, not ", v);
    } else if (!strcmp(a, "--dof")) {
      if ((dof = parse_count(v)) < 1) die2("--dof must be a positive integer, not ", v);
    } else if (!strcmp(a, "--hosts")) hosts = v;
    else if (!strcmp(a, "--topology")) topofile = v;
    else if (!strcmp(a, "--rankfile")) rankfile = v;
    else if (!strcmp(a, "--format")) format = v;
    else die("unknown option ", a);
  }
  if (nodes < 1) die("--nodes N (N >= 1) is required", NULL);
  if (ppn < 1) die("--ppn K (K >= 1) is required", NULL);
  if (!dim) die("--grid MxN[xP] is required", NULL);
  if (!rankfile) die("--rankfile FILE is required", NULL);
  if (pdim && pdim != dim) die("--procs must have as many entries as --grid", NULL);
  if (strcmp(stencil, "star") && strcmp(stencil, "box")) die("--stencil must be star or box, not ", stencil);
  if (strcmp(format, "openmpi") && strcmp(format, "slurm")) die("--format must be openmpi or slurm, not ", format);
  if (width < 0 || dof < 1) die("--width must be >= 0 and --dof >= 1", NULL);
  if ((long long)nodes * (long long)ppn > PK_PLACE_MAX_RANKS) { /* 65536 x 32768 overflowed to "No ranks" */
    fprintf(stderr, "pipekrylov-place: --nodes %d x --ppn %d = %lld ranks: more than the %d this tool places\n\n%s", (int)nodes, (int)ppn, (long long)nodes * (long long)ppn, PK_PLACE_MAX_RANKS, usage);
    exit(2);
  }
  for (PetscInt d = 0; d < dim; d++)
    if (M[d] < 1) die("--grid sizes must be >= 1", NULL);
  hostv = (char **)calloc((size_t)nodes, sizeof(char *));
  if (hosts) { /* every comma separates two names: "a,,c" has an empty one (strtok read it as two hosts) */
    char    *tok = hostbuf = strdup(hosts);
    PetscInt n             = 0;
    for (;;) {
      char *comma = strchr(tok, ',');
      if (comma) *comma = 0;
      if (!tok[0]) die2("--hosts has an empty host name in ", hosts);
      /* the names go into the rankfile's lines: a space or a newline would make lines of its own */
      for (const char *c = tok; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_') die2("--hosts: a host name holds letters, digits, '.', '-' and '_' only, not ", tok);
      if (n == nodes) die("--hosts names more hosts than --nodes: ", hosts);
      /* two nodes on one host would share its slots (both blocks' ranks at slot 0 on) while the counts took them
         for two nodes: refused rather than merged, since --nodes and the blocks are computed for distinct hosts */
      for (PetscInt m = 0; m < n; m++)
        if (same_host(hostv[m], tok)) {
          if (!strcmp(hostv[m], tok)) fprintf(stderr, "pipekrylov-place: --hosts names host '%s' twice: one host per node, --nodes distinct hosts\n\n%s", tok, usage);
          else fprintf(stderr, "pipekrylov-place: --hosts names one host twice, as '%s' and as '%s': one host per node, --nodes distinct hosts\n\n%s", hostv[m], tok, usage);
          exit(2);
        }
      hostv[n++] = tok;
      if (!comma) break;
      tok = comma + 1;
    }
    if (n != nodes) die("--hosts must name exactly --nodes hosts: ", hosts);
  } else {
    for (PetscInt n = 0; n < nodes; n++) {
      hostv[n] = (char *)malloc(32);
      snprintf(hostv[n], 32, "pknode%d", (int)n);
    }
  }
  for (PetscInt d = 0; d < 3; d++)
    if (procs[d] == 0) procs[d] = PETSC_DECIDE;
  jobnodes  = getenv("SLURM_JOB_NODELIST");
  fromslurm = (topofile && !strcmp(topofile, "slurm")) || (!topofile && getenv("SLURM_JOB_ID"));
  /* Slurm's tree, asked for (--topology slurm: an error without one) or by default in a job (a note) */
  if (fromslurm) {
    if (!scontrol_topology(&sctext, &sclen, why, sizeof(why)) && !strstr(sctext, "SwitchName=")) {
      char esc[600];
      sctext[strcspn(sctext, "\n")] = 0;
      snprintf(why, sizeof(why), "Slurm has no switch tree: scontrol show topology printed no SwitchName= line (it printed '%s')", PKTextEscape(sctext, esc, sizeof(esc)));
      free(sctext);
      sctext = NULL;
    }
    if (!sctext && topofile) {
      fprintf(stderr, "pipekrylov-place: --topology slurm: %s\n", why);
      exit(1);
    }
    if (!sctext) fprintf(stderr, "pipekrylov-place: inside a Slurm job, but no switch tree from Slurm: %s (the node-aware order is kept)\n", why);
  }

  PetscCall(PetscInitializeNoArguments());
  {
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PKDMDAPlacementCompute(dim, M, strcmp(stencil, "box") ? DMDA_STENCIL_STAR : DMDA_STENCIL_BOX, width, dof, nodes, ppn, pdim ? procs : NULL, &pl);
    /* inside a Slurm allocation, without --hosts: the job's nodes, in Slurm's order */
    if (!ierr && !hosts && jobnodes && jobnodes[0]) {
      PetscInt n;
      char   **names;
      ierr = PKHostlistExpand(jobnodes, PK_TOPO_MAX_NODES, &n, &names);
      if (!ierr && n != nodes) {
        fprintf(stderr, "pipekrylov-place: the job has %d node(s) (SLURM_JOB_NODELIST=%s) and --nodes says %d: give --hosts\n", (int)n, jobnodes, (int)nodes);
        exit(2);
      }
      for (PetscInt k = 0; !ierr && k < n; k++) {
        if (strlen(names[k]) > 31) die2("a node name of SLURM_JOB_NODELIST is longer than 31 characters: give --hosts: ", names[k]);
        snprintf(hostv[k], 32, "%s", names[k]);
      }
      if (!ierr) PetscCall(PetscStrArrayDestroy(&names));
      if (!ierr) fprintf(stderr, "pipekrylov-place: hosts from the Slurm job (SLURM_JOB_NODELIST=%s)\n", jobnodes);
    }
    /* the switch tree: the blocks go to the hosts by it (a host it does not list leaves the node-aware order).
       --topology slurm, or by default inside a Slurm allocation: Slurm's own (scontrol show topology) */
    if (!ierr && fromslurm) {
      if (sctext) ierr = PKTopoCreateFromScontrol(sctext, sclen, &topo);
      if (!ierr && !topofile && topo) topofile = "slurm";
    } else if (!ierr && topofile) ierr = PKTopoCreateFromFile(topofile, &topo);
    if (!ierr && topo) ierr = PKDMDAPlacementComputeTopology(&pl, NULL, topo, (const char *const *)hostv, PETSC_DEFAULT, &tp);
    PetscCall(PetscPopErrorHandler());
    free(sctext);
    if (ierr) {
      const char *text;
      char       *specific;
      PetscErrorMessage(ierr, &text, &specific);
      fprintf(stderr, "pipekrylov-place: %s\n", specific ? specific : text);
      PetscCall(PKTopoDestroy(&topo));
      if (!hostbuf)
        for (PetscInt n = 0; n < nodes; n++) free(hostv[n]);
      free(hostbuf);
      free(hostv);
      PetscFinalize();
      return 1;
    }
  }

  /* a temporary file beside it, renamed when complete: never written through a link, never left half-written */
  if (PKFileAtomicOpen(rankfile, &af, why, sizeof(why))) {
    fprintf(stderr, "pipekrylov-place: cannot write the rankfile: %s\n", why);
    PetscFinalize();
    return 1;
  }
  f = af.fp;
  for (PetscInt r = 0; r < nodes * ppn; r++) {
    PetscInt node, slot;
    PetscCall(PKDMDAPlacementRankNode(&pl, r, &node, &slot));
    if (topo) node = tp.order[node]; /* block node runs on host order[node] */
    if (!strcmp(format, "slurm")) fprintf(f, "%s\n", hostv[node]);
    else fprintf(f, "rank %d=%s slot=%d\n", (int)r, hostv[node], (int)slot);
  }
  if (PKFileAtomicCommit(&af, why, sizeof(why))) {
    fprintf(stderr, "pipekrylov-place: cannot write the rankfile: %s\n", why);
    PetscFinalize();
    return 1;
  }

  {
    const char *ax[3] = {"x", "y", "z"};
    for (PetscInt d = 0; d < dim; d++) printf("%s-da_processors_%s %d", d ? " " : "", ax[d], (int)pl.procs[d]);
    printf("\n");
  }
  fprintf(stderr, "pipekrylov-place: %d nodes x %d ranks, grid %d", (int)nodes, (int)ppn, (int)M[0]);
  for (PetscInt d = 1; d < dim; d++) fprintf(stderr, "x%d", (int)M[d]);
  fprintf(stderr, ", %s stencil of width %d, %d dof\n", stencil, (int)width, (int)dof);
  fprintf(stderr, "default: process grid %dx%dx%d, ranks x-fastest, %d consecutive ranks per node: %lld off-node messages, %lld bytes per SpMV (on node %lld messages, %lld bytes)\n", (int)pl.def_procs[0], (int)pl.def_procs[1], (int)pl.def_procs[2], (int)ppn,
          (long long)pl.def_msgs_off, (long long)pl.def_bytes_off, (long long)pl.def_msgs_on, (long long)pl.def_bytes_on);
  if (pl.placed)
    fprintf(stderr, "placed: process grid %dx%dx%d, each node a %dx%dx%d block: %lld off-node messages, %lld bytes per SpMV (on node %lld messages, %lld bytes)\n", (int)pl.procs[0], (int)pl.procs[1], (int)pl.procs[2], (int)pl.block[0], (int)pl.block[1],
            (int)pl.block[2], (long long)pl.msgs_off, (long long)pl.bytes_off, (long long)pl.msgs_on, (long long)pl.bytes_on);
  else fprintf(stderr, "placed: %s\n", pl.note);
  if (topo) PetscCall(PrintTopology(!strcmp(topofile, "slurm") ? "from Slurm (scontrol show topology)" : topofile, topo, &tp, (const char *const *)hostv));
  {
    char rfopt[64]; /* Open MPI 5 (PRRTE) deprecates --rankfile; its parser also refuses a '-' in the path */
    PetscCall(PKMPIRankfileOption("FILE", rfopt, sizeof(rfopt)));
    fprintf(stderr, "wrote %s (%s); run with %s%s\n", rankfile, format, !strcmp(format, "slurm") ? "SLURM_HOSTFILE=FILE srun --distribution=arbitrary" : "mpiexec ", !strcmp(format, "slurm") ? "" : rfopt);
    if (strcmp(format, "slurm") && strstr(rfopt, "--map-by") && strpbrk(rankfile, "-:")) fprintf(stderr, "note: Open MPI 5.0 refuses a rankfile path with '-' or ':' in it: rename %s before you run\n", rankfile);
  }
  if (topo) {
    PetscCall(PKTopoPlacementDestroy(&tp));
    PetscCall(PKTopoDestroy(&topo));
  }
  if (!hostbuf)
    for (PetscInt n = 0; n < nodes; n++) free(hostv[n]);
  free(hostbuf);
  free(hostv);
  PetscCall(PetscFinalize());
  return 0;
}
