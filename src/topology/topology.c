/*
   Slurm's topology.conf (topology/tree plugin) as a switch tree (hops and routes on it: topoquery.c; the formulas
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
#include "topoimpl.h"

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

size_t PKTopoShortLen(const char s[])
{
  const char *d = strchr(s, '.');
  return d ? (size_t)(d - s) : strlen(s);
}

/* The key of entry i of a hash table */
static const char *HashKey(PKTopo t, const PKNameHash *h, PetscInt i, size_t *len)
{
  const char *s = t->arena + (h->kind == PK_HASH_SWITCH ? t->sw[i].name : t->node[i].name);
  *len          = h->kind == PK_HASH_SHORT ? PKTopoShortLen(s) : strlen(s);
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
PetscInt PKTopoHashFind(PKTopo t, const PKNameHash *h, const char key[], size_t len)
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
  e = PKTopoHashFind(t, &t->hnode, name, strlen(name));
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
  e = PKTopoHashFind(t, &t->hsw, val[0], strlen(val[0]));
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
    PetscInt    p = t->child[c].parent, s = PKTopoHashFind(t, &t->hsw, name, strlen(name));

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
   described at the top of src/topology/topology.c and in include/pipekrylov/private/pktopo.h. An error names
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
