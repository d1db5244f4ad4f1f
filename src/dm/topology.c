/*
   Slurm's topology.conf (topology/tree plugin) as a switch tree, and hops and routes on it (the formulas
   that use them are in docs/models.md §7). The file's text is handed in as a buffer: reading it is the
   report's business (no I/O in src/perf/models).

   The syntax is Slurm's configuration syntax (its parse_config.c), applied to a buffer:
     - '#' starts a comment unless escaped as '\#'; a line whose last non-blank characters are an odd number of
       backslashes continues on the next line; then "\x" stands for "x";
     - a line is Key=Value pairs separated by white space, keys case-insensitive, white space allowed around '=',
       a value either "quoted" (may hold white space) or a run of non-blank characters;
     - every line starts with SwitchName=<one name>, followed by Nodes=<host list> or Switches=<host list> (not
       both, as Slurm 23 refuses), and an optional LinkSpeed=<integer> (kept, not used: Slurm says its units are
       arbitrary).
   How the cases Slurm only warns about are handled here (an error names the line and what is wrong):
     - a switch defined twice: error (Slurm: fatal);
     - a node under two leaf switches: error (Slurm: warning "Multiple leaf switches contain nodes"): the route would
       be ambiguous. Listed twice under the same switch: once;
     - a switch listed under two parents: error (Slurm keeps the last parent). Several spines over the same leaves
       (a fat tree) are not a tree; describe them with one top switch;
     - a child switch nobody defines, a switch listing itself, a cycle: errors (Slurm: fatal);
     - several roots (Slurm: warning "no switch can reach all nodes"): accepted; two nodes under different roots
       have no route (PKTopoRoute says so; the link loads count such messages as not routed);
     - nodes not listed: not in the topology (PKTopoFindNode returns -1; the link loads count them as not routed);
     - BlockName= (topology/block) and topology.yaml are not read.
*/
#include <ctype.h>
#include <pipekrylov/private/pktopo.h>

typedef struct {
  PetscInt name;   /* offset of the name in the arena */
  PetscInt parent; /* switch index, -1 for a root */
  PetscInt level;  /* links from its root */
  PetscInt line, parent_line;
  PetscInt speed; /* LinkSpeed= (1 if not given, as Slurm) */
} PKSwitch;

typedef struct {
  PetscInt name, leaf, line;
} PKNode;

typedef struct {
  PetscInt name, parent, line; /* a Switches= entry, resolved once every switch is known */
} PKChild;

/* Open addressing over indices; a slot holds -1 (empty), i >= 0, or -2 - i (a short name shared by several nodes) */
typedef enum {
  PK_HASH_SWITCH,
  PK_HASH_NODE,
  PK_HASH_SHORT /* a node's name up to its first '.' */
} PKHashKind;

typedef struct {
  PKHashKind kind;
  PetscInt   cap, n;
  PetscInt  *slot;
} PKNameHash;

struct _n_PKTopo {
  char      *arena;
  size_t     arena_len, arena_cap;
  PKSwitch  *sw;
  PKNode    *node;
  PKChild   *child;
  PetscInt   nsw, nnode, nchild, sw_cap, node_cap, child_cap, nexpanded;
  PetscInt   nroots, depth;
  PKNameHash hsw, hnode, hshort;
};

/* ------------------------------------------------------------------------------------------------------------ */
/* Names */

static PetscErrorCode Grow(void *p, size_t elem, PetscInt *cap, PetscInt need)
{
  PetscFunctionBegin;
  if (need > *cap) {
    *cap = PetscMax(need, 2 * *cap + 16);
    PetscCall(PetscRealloc(elem * (size_t)*cap, (void **)p));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ArenaAdd(PKTopo t, const char s[], size_t len, PetscInt *off)
{
  PetscFunctionBegin;
  if (t->arena_len + len + 1 > t->arena_cap) {
    t->arena_cap = PetscMax(t->arena_len + len + 1, 2 * t->arena_cap + 1024);
    PetscCall(PetscRealloc(t->arena_cap, (void **)&t->arena));
  }
  PetscCall(PetscMemcpy(t->arena + t->arena_len, s, len));
  t->arena[t->arena_len + len] = 0;
  *off                         = (PetscInt)t->arena_len;
  t->arena_len += len + 1;
  PetscFunctionReturn(0);
}

static size_t ShortLen(const char s[])
{
  const char *d = strchr(s, '.');
  return d ? (size_t)(d - s) : strlen(s);
}

/* The key of entry i of a hash table */
static const char *HashKey(PKTopo t, const PKNameHash *h, PetscInt i, size_t *len)
{
  const char *s = t->arena + (h->kind == PK_HASH_SWITCH ? t->sw[i].name : t->node[i].name);
  *len          = h->kind == PK_HASH_SHORT ? ShortLen(s) : strlen(s);
  return s;
}

static PetscInt HashStart(const PKNameHash *h, const char key[], size_t len)
{
  PetscInt64 x = 1469598103934665603LL; /* FNV-1a */
  for (size_t i = 0; i < len; i++) x = (PetscInt64)(((unsigned long long)x ^ (unsigned char)key[i]) * 1099511628211ULL);
  return (PetscInt)((unsigned long long)x & (unsigned long long)(h->cap - 1));
}

/* The slot holding key, or the empty slot where it would go */
static PetscInt HashSlot(PKTopo t, const PKNameHash *h, const char key[], size_t len)
{
  PetscInt k = HashStart(h, key, len);
  for (;; k = (k + 1) & (h->cap - 1)) {
    PetscInt    e = h->slot[k], i = e >= 0 ? e : -2 - e;
    size_t      kl;
    const char *s;
    if (e == -1) return k;
    s = HashKey(t, h, i, &kl);
    if (kl == len && !strncmp(s, key, len)) return k;
  }
}

static PetscErrorCode HashGrow(PKTopo t, PKNameHash *h)
{
  PetscInt *old = h->slot, oldcap = h->cap;

  PetscFunctionBegin;
  h->cap = oldcap ? 2 * oldcap : 64;
  PetscCall(PetscMalloc1(h->cap, &h->slot));
  for (PetscInt k = 0; k < h->cap; k++) h->slot[k] = -1;
  for (PetscInt k = 0; k < oldcap; k++) {
    size_t      len;
    const char *key;
    if (old[k] == -1) continue;
    key                               = HashKey(t, h, old[k] >= 0 ? old[k] : -2 - old[k], &len);
    h->slot[HashSlot(t, h, key, len)] = old[k];
  }
  PetscCall(PetscFree(old));
  PetscFunctionReturn(0);
}

/* Entry i under its key; a second node of the same short name makes that short name ambiguous */
static PetscErrorCode HashInsert(PKTopo t, PKNameHash *h, PetscInt i)
{
  size_t      len;
  const char *key;
  PetscInt    k;

  PetscFunctionBegin;
  if (2 * (h->n + 1) > h->cap) PetscCall(HashGrow(t, h));
  key = HashKey(t, h, i, &len);
  k   = HashSlot(t, h, key, len);
  if (h->slot[k] == -1) {
    h->slot[k] = i;
    h->n++;
  } else if (h->slot[k] >= 0 && h->slot[k] != i) h->slot[k] = -2 - h->slot[k];
  PetscFunctionReturn(0);
}

/* -1 if key is not there, its entry i, or -2 - i if it is an ambiguous short name */
static PetscInt HashFind(PKTopo t, const PKNameHash *h, const char key[], size_t len)
{
  if (!h->cap) return -1;
  return h->slot[HashSlot(t, h, key, len)];
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Slurm's configuration syntax */

/* The next logical line of text[] from *pos into buf (PK_TOPO_MAX_LINE + 1 characters): comments stripped,
   continuation lines joined, escapes removed. *first is the number of its first physical line. */
static PetscErrorCode NextLine(const char text[], size_t len, size_t *pos, PetscInt *lineno, PetscInt *first, char buf[], PetscBool *got)
{
  size_t n = 0;

  PetscFunctionBegin;
  *got = PETSC_FALSE;
  if (*pos >= len) PetscFunctionReturn(0);
  *got   = PETSC_TRUE;
  *first = *lineno + 1;
  while (*pos < len) {
    size_t   s = *pos, e = *pos, start = n, k;
    PetscInt bs = 0;

    while (e < len && text[e] != '\n') e++;
    *pos = e < len ? e + 1 : e;
    (*lineno)++;
    if (e > s && text[e - 1] == '\r') e--;
    PetscCheck(!memchr(text + s, 0, e - s), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": a NUL byte (not a text file?)", *lineno);
    PetscCheck(n + (e - s) <= PK_TOPO_MAX_LINE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "topology.conf line %" PetscInt_FMT ": longer than %d characters (continuation lines joined)", *first, PK_TOPO_MAX_LINE);
    PetscCall(PetscMemcpy(buf + n, text + s, e - s));
    n += e - s;
    for (k = start; k < n; k++) { /* '#' after an even number of backslashes starts a comment */
      if (buf[k] == '#' && bs % 2 == 0) {
        n = k;
        break;
      }
      bs = buf[k] == '\\' ? bs + 1 : 0;
    }
    for (k = n; k > start && isspace((unsigned char)buf[k - 1]); k--) { }
    for (bs = 0; k > start && buf[k - 1] == '\\'; k--) bs++;
    if (bs % 2 == 0) break;
    n = k + (size_t)bs - 1; /* an odd run of backslashes at the end: drop the last one, go on with the next line */
  }
  buf[n] = 0;
  for (size_t i = 0, j = 0; i <= n; i++, j++) { /* "\x" is "x" */
    if (buf[i] == '\\' && i < n) i++;
    buf[j] = buf[i];
  }
  PetscFunctionReturn(0);
}

/* The next Key=Value pair of buf at *i; *key and *val point into buf, terminated in place */
static PetscErrorCode NextPair(char buf[], size_t *i, PetscInt line, char **key, char **val, PetscBool *got)
{
  size_t k = *i, ks;

  PetscFunctionBegin;
  *got = PETSC_FALSE;
  while (buf[k] && isspace((unsigned char)buf[k])) k++;
  if (!buf[k]) PetscFunctionReturn(0);
  ks = k;
  while (isalnum((unsigned char)buf[k]) || buf[k] == '_' || buf[k] == '.') k++;
  PetscCheck(k > ks, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": expected Key=Value, found '%.40s'", line, buf + ks);
  *key = buf + ks;
  while (buf[k] && isspace((unsigned char)buf[k])) buf[k++] = 0;
  PetscCheck(!buf[k] || !strchr("+-*/", buf[k]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": operator '%c=' not accepted in topology.conf", line, buf[k]);
  PetscCheck(buf[k] == '=', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": expected '=' after '%.*s'", line, (int)PetscMin(k - ks, 40), *key);
  buf[k++] = 0;
  while (buf[k] && isspace((unsigned char)buf[k])) k++;
  if (buf[k] == '"') {
    char *q = strchr(buf + k + 1, '"');
    PetscCheck(q, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": %s=\"...: the quote is not closed", line, *key);
    *val = buf + k + 1;
    *q   = 0;
    k    = (size_t)(q - buf) + 1;
    PetscCheck(!buf[k] || isspace((unsigned char)buf[k]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": text right after the closing quote of %s=", line, *key);
  } else {
    PetscCheck(buf[k], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": %s= has no value", line, *key);
    *val = buf + k;
    while (buf[k] && !isspace((unsigned char)buf[k])) k++;
  }
  if (buf[k]) buf[k++] = 0;
  *i   = k;
  *got = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Building the tree */

typedef struct {
  PKTopo   t;
  PetscInt sw, line;
} PKAddCtx;

static PetscErrorCode AddNode(void *ctx, const char name[])
{
  PKAddCtx *a = (PKAddCtx *)ctx;
  PKTopo    t = a->t;
  PetscInt  e, off;

  PetscFunctionBegin;
  e = HashFind(t, &t->hnode, name, strlen(name));
  if (e >= 0) {
    PetscCheck(t->node[e].leaf == a->sw, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": node '%s' is under switch '%s' here and under '%s' on line %" PetscInt_FMT ": a node has one leaf switch", a->line, name,
               t->arena + t->sw[a->sw].name, t->arena + t->sw[t->node[e].leaf].name, t->node[e].line);
    PetscFunctionReturn(0);
  }
  PetscCall(Grow(&t->node, sizeof(PKNode), &t->node_cap, t->nnode + 1));
  PetscCall(ArenaAdd(t, name, strlen(name), &off));
  t->node[t->nnode].name = off;
  t->node[t->nnode].leaf = a->sw;
  t->node[t->nnode].line = a->line;
  PetscCall(HashInsert(t, &t->hnode, t->nnode));
  PetscCall(HashInsert(t, &t->hshort, t->nnode));
  t->nnode++;
  PetscFunctionReturn(0);
}

static PetscErrorCode AddChild(void *ctx, const char name[])
{
  PKAddCtx *a = (PKAddCtx *)ctx;
  PKTopo    t = a->t;

  PetscFunctionBegin;
  PetscCall(Grow(&t->child, sizeof(PKChild), &t->child_cap, t->nchild + 1));
  PetscCall(ArenaAdd(t, name, strlen(name), &t->child[t->nchild].name));
  t->child[t->nchild].parent = a->sw;
  t->child[t->nchild].line   = a->line;
  t->nchild++;
  PetscFunctionReturn(0);
}

/* One SwitchName= line */
static PetscErrorCode ParseLine(PKTopo t, char buf[], PetscInt line)
{
  const char *keys[] = {"SwitchName", "Nodes", "Switches", "LinkSpeed"};
  char       *val[4] = {NULL, NULL, NULL, NULL}, *key, *v, where[96];
  size_t      i      = 0;
  PetscBool   got, eq;
  PetscInt    e, count = 0;
  PKAddCtx    a = {t, t->nsw, line};

  PetscFunctionBegin;
  PetscCall(NextPair(buf, &i, line, &key, &v, &got));
  if (!got) PetscFunctionReturn(0); /* blank or comment only */
  PetscCall(PetscStrcasecmp(key, "SwitchName", &eq));
  if (!eq) {
    PetscCall(PetscStrcasecmp(key, "BlockName", &eq));
    PetscCheck(!eq, PETSC_COMM_SELF, PETSC_ERR_SUP, "topology.conf line %" PetscInt_FMT ": BlockName= is Slurm's topology/block plugin; only topology/tree's SwitchName= lines are read", line);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": unknown key '%s': a topology/tree line starts with SwitchName=", line, key);
  }
  val[0] = v;
  for (;;) {
    PetscInt k;
    PetscCall(NextPair(buf, &i, line, &key, &v, &got));
    if (!got) break;
    for (k = 1; k < 4; k++) {
      PetscCall(PetscStrcasecmp(key, keys[k], &eq));
      if (eq) break;
    }
    PetscCheck(k < 4, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": unknown key '%s' (a SwitchName line takes Nodes=, Switches= and LinkSpeed=)", line, key);
    PetscCheck(!val[k], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": %s= given twice", line, keys[k]);
    val[k] = v;
  }
  PetscCall(PetscSNPrintf(where, sizeof(where), "topology.conf line %" PetscInt_FMT ": SwitchName=", line));
  PetscCall(PKHostlistCheckName(val[0], where));
  PetscCheck(!(val[1] && val[2]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": switch '%s' has both Nodes= and Switches= (a switch holds nodes or switches, as Slurm requires)", line, val[0]);
  e = HashFind(t, &t->hsw, val[0], strlen(val[0]));
  PetscCheck(e < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": switch '%s' is defined twice (first on line %" PetscInt_FMT ")", line, val[0], t->sw[e].line);
  PetscCheck(t->nsw < PK_TOPO_MAX_SWITCHES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "topology.conf line %" PetscInt_FMT ": more than %d switches", line, PK_TOPO_MAX_SWITCHES);
  PetscCall(Grow(&t->sw, sizeof(PKSwitch), &t->sw_cap, t->nsw + 1));
  PetscCall(PetscMemzero(&t->sw[t->nsw], sizeof(PKSwitch)));
  PetscCall(ArenaAdd(t, val[0], strlen(val[0]), &t->sw[t->nsw].name));
  t->sw[t->nsw].parent = -1;
  t->sw[t->nsw].line   = line;
  t->sw[t->nsw].speed  = 1;
  if (val[3]) {
    char     *end;
    long long s = strtoll(val[3], &end, 10);
    PetscCheck(*end == 0 && s >= 0 && s <= 4294967295LL && isdigit((unsigned char)val[3][0]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": LinkSpeed=%s is not an integer from 0 to 4294967295", line, val[3]);
    t->sw[t->nsw].speed = (PetscInt)s;
  }
  PetscCall(HashInsert(t, &t->hsw, t->nsw));
  t->nsw++;
  if (val[1]) {
    PetscCall(PetscSNPrintf(where, sizeof(where), "topology.conf line %" PetscInt_FMT ": Nodes=", line));
    count = t->nexpanded;
    PetscCall(PKHostlistForEach(val[1], PK_TOPO_MAX_NODES, where, AddNode, &a, &count));
    t->nexpanded = count;
  }
  if (val[2]) {
    PetscCall(PetscSNPrintf(where, sizeof(where), "topology.conf line %" PetscInt_FMT ": Switches=", line));
    count = t->nchild;
    PetscCall(PKHostlistForEach(val[2], PK_TOPO_MAX_SWITCHES, where, AddChild, &a, &count));
  }
  PetscFunctionReturn(0);
}

/* Children resolved to parents; levels from the roots; cycles and depth checked */
static PetscErrorCode TopoBuild(PKTopo t)
{
  PetscInt *stamp;

  PetscFunctionBegin;
  PetscCheck(t->nsw > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf: no SwitchName= line");
  PetscCheck(t->nnode > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf: no switch has Nodes=");
  for (PetscInt c = 0; c < t->nchild; c++) {
    const char *name = t->arena + t->child[c].name;
    PetscInt    p = t->child[c].parent, s = HashFind(t, &t->hsw, name, strlen(name));

    PetscCheck(s >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": switch '%s' lists '%s' in Switches=, which no SwitchName= line defines", t->child[c].line, t->arena + t->sw[p].name, name);
    PetscCheck(s != p, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": switch '%s' lists itself in Switches=", t->child[c].line, name);
    PetscCheck(t->sw[s].parent < 0 || t->sw[s].parent == p, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": switch '%s' is under '%s' here and under '%s' on line %" PetscInt_FMT ": a switch has one parent in a tree (for several spines over the same leaf switches, write one top switch)",
               t->child[c].line, name, t->arena + t->sw[p].name, t->arena + t->sw[t->sw[s].parent].name, t->sw[s].parent_line);
    t->sw[s].parent      = p;
    t->sw[s].parent_line = t->child[c].line;
  }
  /* levels: walk up from each switch to a root or to a switch whose level is known; a walk that revisits a switch
     of its own (stamp) has found a cycle */
  PetscCall(PetscMalloc1(t->nsw, &stamp));
  for (PetscInt s = 0; s < t->nsw; s++) {
    stamp[s]       = -1;
    t->sw[s].level = -1;
  }
  t->nroots = 0;
  t->depth  = 0;
  for (PetscInt s = 0; s < t->nsw; s++) {
    PetscInt x = s, n = 0, top;
    while (x >= 0 && t->sw[x].level < 0 && stamp[x] != s) {
      stamp[x] = s;
      x        = t->sw[x].parent;
      n++;
    }
    if (x >= 0 && t->sw[x].level < 0) { /* stamp[x] == s: x is on a cycle */
      char     msg[256] = "";
      size_t   ml;
      PetscInt y = x, line = t->sw[x].parent_line;
      do {
        PetscCall(PetscStrlen(msg, &ml));
        if (ml < sizeof(msg) - PK_TOPO_MAX_NAME / 4) PetscCall(PetscSNPrintf(msg + ml, sizeof(msg) - ml, "'%.40s' under ", t->arena + t->sw[y].name));
        y = t->sw[y].parent;
      } while (y != x);
      PetscCall(PetscStrlen(msg, &ml));
      PetscCall(PetscSNPrintf(msg + ml, sizeof(msg) - ml, "'%.40s'", t->arena + t->sw[x].name));
      PetscCall(PetscFree(stamp));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "topology.conf line %" PetscInt_FMT ": the switches form a cycle: %s", line, msg);
    }
    top = x < 0 ? -1 : t->sw[x].level;        /* the level of where the walk stopped (-1 above a root) */
    for (PetscInt y = s, k = n; k > 0; k--) { /* y is k steps below where the walk stopped */
      t->sw[y].level = top + k;
      y              = t->sw[y].parent;
    }
    if (t->sw[s].level > PK_TOPO_MAX_DEPTH) {
      PetscInt line = t->sw[s].line;
      PetscCall(PetscFree(stamp));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "topology.conf line %" PetscInt_FMT ": switch '%s' is %" PetscInt_FMT " levels below its root: more than %d", line, t->arena + t->sw[s].name, t->sw[s].level, PK_TOPO_MAX_DEPTH);
    }
    t->depth = PetscMax(t->depth, t->sw[s].level);
    if (t->sw[s].parent < 0) t->nroots++;
  }
  PetscCall(PetscFree(stamp));
  PetscFunctionReturn(0);
}

/*@C
   PKTopoCreateFromString - Reads a Slurm topology.conf (the topology/tree plugin's file) from a buffer.

   Not Collective

   Input Parameters:
+  text - the file's text (need not be NUL-terminated)
-  len  - its length in bytes, at most PK_TOPO_MAX_TEXT

   Output Parameter:
.  topo - the switch tree; destroy with PKTopoDestroy()

   Notes:
   The syntax accepted, how duplicates, cycles, several roots and nodes not listed are handled, and the bounds are
   described at the top of src/dm/topology.c and in include/pipekrylov/private/pktopo.h. An error names
   the line ("topology.conf line 3: ...") and what is wrong; nothing is left allocated after an error, so a caller
   may report it and go on without a topology. Nodes and switches are numbered in the order the file first names
   them.

   Level: developer

.seealso: `PKTopoDestroy()`, `PKTopoFindNode()`, `PKTopoRoute()`, `PKTopoLoadsAdd()`
@*/
PetscErrorCode PKTopoCreateFromString(const char text[], size_t len, PKTopo *topo)
{
  PKTopo         t;
  char          *buf;
  size_t         pos    = 0;
  PetscInt       lineno = 0, first;
  PetscBool      got    = PETSC_TRUE;
  PetscErrorCode ierr   = 0;

  PetscFunctionBegin;
  PetscCheck(topo, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "No place for the topology");
  *topo = NULL;
  PetscCheck(text || !len, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "topology.conf: no text");
  PetscCheck(len <= PK_TOPO_MAX_TEXT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "topology.conf: %zu bytes, more than %d", len, PK_TOPO_MAX_TEXT);
  PetscCall(PetscNew(&t));
  t->hsw.kind    = PK_HASH_SWITCH;
  t->hnode.kind  = PK_HASH_NODE;
  t->hshort.kind = PK_HASH_SHORT;
  PetscCall(PetscMalloc1(PK_TOPO_MAX_LINE + 1, &buf));
  while (!ierr && got) {
    ierr = NextLine(text, len, &pos, &lineno, &first, buf, &got);
    if (!ierr && got) ierr = ParseLine(t, buf, first);
  }
  if (!ierr) ierr = TopoBuild(t);
  PetscCall(PetscFree(buf));
  if (ierr) PetscCall(PKTopoDestroy(&t));
  PetscCall(ierr);
  *topo = t;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoDestroy - Frees a switch tree.

   Not Collective

   Input Parameter:
.  topo - the tree (may be NULL); set to NULL

   Level: developer

.seealso: `PKTopoCreateFromString()`
@*/
PetscErrorCode PKTopoDestroy(PKTopo *topo)
{
  PKTopo t;

  PetscFunctionBegin;
  if (!topo || !*topo) PetscFunctionReturn(0);
  t = *topo;
  PetscCall(PetscFree(t->arena));
  PetscCall(PetscFree(t->sw));
  PetscCall(PetscFree(t->node));
  PetscCall(PetscFree(t->child));
  PetscCall(PetscFree(t->hsw.slot));
  PetscCall(PetscFree(t->hnode.slot));
  PetscCall(PetscFree(t->hshort.slot));
  PetscCall(PetscFree(*topo));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Queries */

/*@C
   PKTopoGetSizes - The sizes of a switch tree.

   Not Collective

   Input Parameter:
.  topo - the tree

   Output Parameters (each may be NULL):
+  nswitches - switches
.  nnodes    - nodes
.  nroots    - switches without a parent (1 for a tree; more for a forest, whose trees have no route between them)
-  depth     - switch-to-switch links from the deepest switch to its root (1 for leaves under one spine)

   Level: developer

.seealso: `PKTopoCreateFromString()`
@*/
PetscErrorCode PKTopoGetSizes(PKTopo topo, PetscInt *nswitches, PetscInt *nnodes, PetscInt *nroots, PetscInt *depth)
{
  PetscFunctionBegin;
  if (nswitches) *nswitches = topo->nsw;
  if (nnodes) *nnodes = topo->nnode;
  if (nroots) *nroots = topo->nroots;
  if (depth) *depth = topo->depth;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoFindNode - The node of a name, as MPI_Get_processor_name returns it.

   Not Collective

   Input Parameters:
+  topo - the tree
-  name - the node's name (at most PK_TOPO_MAX_NAME characters; longer names are in no topology)

   Output Parameter:
.  node - its index, or -1 if the topology does not list it

   Notes:
   A name the file lists is found as it is. Otherwise the short names (up to the first '.') are compared, so that
   "node01.cluster.org" finds "node01" and "node01" finds "node01.cluster.org". A short name that stands for
   several listed nodes ("node01.a" and "node01.b") is an error that names both. Names are compared with their
   case, as Slurm compares node names.

   Level: developer

.seealso: `PKTopoGetNode()`, `PKTopoFindSwitch()`
@*/
PetscErrorCode PKTopoFindNode(PKTopo topo, const char name[], PetscInt *node)
{
  size_t   len;
  PetscInt e;

  PetscFunctionBegin;
  *node = -1;
  PetscCall(PetscStrlen(name, &len));
  if (!len || len > PK_TOPO_MAX_NAME) PetscFunctionReturn(0);
  e = HashFind(topo, &topo->hnode, name, len);
  if (e < 0) e = HashFind(topo, &topo->hshort, name, ShortLen(name));
  if (e < -1) {
    PetscInt i = -2 - e, j;
    for (j = 0; j < topo->nnode; j++) {
      const char *s = topo->arena + topo->node[j].name;
      if (j != i && ShortLen(s) == ShortLen(name) && !strncmp(s, name, ShortLen(name))) break;
    }
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "node name '%s' could be '%s' (topology.conf line %" PetscInt_FMT ") or '%s' (line %" PetscInt_FMT "): give the full name", name, topo->arena + topo->node[i].name, topo->node[i].line,
            topo->arena + topo->node[j].name, topo->node[j].line);
  }
  *node = e;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoFindSwitch - The switch of a name.

   Not Collective

   Input Parameters:
+  topo - the tree
-  name - the switch's name (SwitchName=)

   Output Parameter:
.  sw - its index, or -1 if there is no such switch

   Level: developer

.seealso: `PKTopoGetSwitch()`
@*/
PetscErrorCode PKTopoFindSwitch(PKTopo topo, const char name[], PetscInt *sw)
{
  size_t len;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(name, &len));
  *sw = HashFind(topo, &topo->hsw, name, len);
  PetscFunctionReturn(0);
}

/*@C
   PKTopoGetNode - A node's name and leaf switch.

   Not Collective

   Input Parameters:
+  topo - the tree
-  node - the node, 0 <= node < nnodes

   Output Parameters (each may be NULL):
+  name - its name as the file gives it (owned by topo)
-  leaf - the switch whose Nodes= lists it

   Level: developer

.seealso: `PKTopoFindNode()`, `PKTopoGetSwitch()`
@*/
PetscErrorCode PKTopoGetNode(PKTopo topo, PetscInt node, const char **name, PetscInt *leaf)
{
  PetscFunctionBegin;
  PetscCheck(node >= 0 && node < topo->nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Node %" PetscInt_FMT " not in [0, %" PetscInt_FMT ")", node, topo->nnode);
  if (name) *name = topo->arena + topo->node[node].name;
  if (leaf) *leaf = topo->node[node].leaf;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoGetSwitch - A switch's name, parent, level and link speed.

   Not Collective

   Input Parameters:
+  topo - the tree
-  sw   - the switch, 0 <= sw < nswitches

   Output Parameters (each may be NULL):
+  name      - its name (owned by topo)
.  parent    - the switch whose Switches= lists it, -1 for a root
.  level     - switch-to-switch links between it and its root (0 for a root; Slurm counts levels from the leaves)
-  linkspeed - its LinkSpeed= (1 if not given, as Slurm; units arbitrary; not used by the models)

   Level: developer

.seealso: `PKTopoFindSwitch()`, `PKTopoGetNode()`
@*/
PetscErrorCode PKTopoGetSwitch(PKTopo topo, PetscInt sw, const char **name, PetscInt *parent, PetscInt *level, PetscInt *linkspeed)
{
  PetscFunctionBegin;
  PetscCheck(sw >= 0 && sw < topo->nsw, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Switch %" PetscInt_FMT " not in [0, %" PetscInt_FMT ")", sw, topo->nsw);
  if (name) *name = topo->arena + topo->sw[sw].name;
  if (parent) *parent = topo->sw[sw].parent;
  if (level) *level = topo->sw[sw].level;
  if (linkspeed) *linkspeed = topo->sw[sw].speed;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoRoute - The links a message from node a to node b crosses, in order: a's host link up, up the tree to the
   lowest switch above both, down to b's leaf switch, b's host link down.

   Not Collective

   Input Parameters:
+  topo - the tree
.  a    - the sending node
-  b    - the receiving node

   Output Parameters:
+  nlinks - the number of links: the hop count (0 if a == b; -1 if there is no route)
-  links  - the links, an array of at least PK_TOPO_MAX_ROUTE entries

   Notes:
   A tree has one path between two switches, so the route is deterministic. Two nodes under different roots (a
   topology.conf with several top switches, which Slurm accepts with a warning) have no route: nlinks = -1.

   Level: developer

.seealso: `PKTopoHops()`, `PKTopoLinkName()`, `PKTopoLoadsAdd()`
@*/
PetscErrorCode PKTopoRoute(PKTopo topo, PetscInt a, PetscInt b, PetscInt *nlinks, PKTopoLink links[])
{
  PetscInt x, y, nup = 0, ndown = 0, down[PK_TOPO_MAX_DEPTH + 1];

  PetscFunctionBegin;
  PetscCheck(a >= 0 && a < topo->nnode && b >= 0 && b < topo->nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Nodes %" PetscInt_FMT " and %" PetscInt_FMT ": not both in [0, %" PetscInt_FMT ")", a, b, topo->nnode);
  *nlinks = 0;
  if (a == b) PetscFunctionReturn(0);
  x            = topo->node[a].leaf;
  y            = topo->node[b].leaf;
  links[nup++] = (PKTopoLink){topo->nsw + a, PK_TOPO_UP};
  while (x != y) { /* climb the deeper side, or both at the same level, to the lowest common switch */
    PetscInt lx = topo->sw[x].level, ly = topo->sw[y].level;
    if (lx >= ly) {
      if (topo->sw[x].parent < 0) break;
      links[nup++] = (PKTopoLink){x, PK_TOPO_UP};
      x            = topo->sw[x].parent;
    }
    if (ly >= lx && x != y) {
      if (topo->sw[y].parent < 0) break;
      down[ndown++] = y;
      y             = topo->sw[y].parent;
    }
  }
  if (x != y) { /* two roots */
    *nlinks = -1;
    PetscFunctionReturn(0);
  }
  while (ndown > 0) links[nup++] = (PKTopoLink){down[--ndown], PK_TOPO_DOWN};
  links[nup++] = (PKTopoLink){topo->nsw + b, PK_TOPO_DOWN};
  *nlinks      = nup;
  PetscFunctionReturn(0);
}

/*@C
   PKTopoHops - The hop count between two nodes: the switch-to-switch links of the route plus the two host links
   (2 under one leaf switch, 4 across one spine; 0 for a == b).

   Not Collective

   Input Parameters:
+  topo - the tree
.  a    - one node
-  b    - the other

   Output Parameter:
.  hops - the hop count, -1 if there is no route (under two roots)

   Level: developer

.seealso: `PKTopoRoute()`
@*/
PetscErrorCode PKTopoHops(PKTopo topo, PetscInt a, PetscInt b, PetscInt *hops)
{
  PKTopoLink links[PK_TOPO_MAX_ROUTE];

  PetscFunctionBegin;
  PetscCall(PKTopoRoute(topo, a, b, hops, links));
  PetscFunctionReturn(0);
}

/*@C
   PKTopoLinkName - A link direction as text: "s0->top" (s0's uplink, up), "top->s0" (down), "node01->s0" (a host
   link, up), "s0->node01" (down).

   Not Collective

   Input Parameters:
+  topo - the tree
.  l    - the link and direction
-  len  - the size of buf

   Output Parameter:
.  buf - the text (truncated to len - 1 characters)

   Level: developer

.seealso: `PKTopoRoute()`, `PKTopoLoadsSummarize()`
@*/
PetscErrorCode PKTopoLinkName(PKTopo topo, PKTopoLink l, char buf[], size_t len)
{
  const char *lo, *hi;

  PetscFunctionBegin;
  PetscCheck(l.link >= 0 && l.link < topo->nsw + topo->nnode, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Link %" PetscInt_FMT " not in [0, %" PetscInt_FMT ")", l.link, topo->nsw + topo->nnode);
  if (l.link < topo->nsw) {
    PetscCheck(topo->sw[l.link].parent >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Switch '%s' is a root: it has no uplink", topo->arena + topo->sw[l.link].name);
    lo = topo->arena + topo->sw[l.link].name;
    hi = topo->arena + topo->sw[topo->sw[l.link].parent].name;
  } else {
    lo = topo->arena + topo->node[l.link - topo->nsw].name;
    hi = topo->arena + topo->sw[topo->node[l.link - topo->nsw].leaf].name;
  }
  PetscCall(PetscSNPrintf(buf, len, "%s->%s", l.dir == PK_TOPO_UP ? lo : hi, l.dir == PK_TOPO_UP ? hi : lo));
  PetscFunctionReturn(0);
}
