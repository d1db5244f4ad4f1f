/*
   Slurm host-list expressions, as topology.conf's Nodes= and Switches= values use them.

   What Slurm accepts (slurm.conf(5) and topology.conf(5), NodeName and "Slurm's hostlist expression parser"):
     - names separated by commas (or white space): alpha,beta,gamma
     - a bracket group of numbers and ranges after a prefix: tux[0-3,12,18-20]
     - zero padding: the width of a range is the number of digits of its lower end: linux[0000-1023], node[001-016]
     - several bracket groups in one name, expanded as a Cartesian product, the first group varying slowest:
       rack[0-1]_blade[0-2] -> rack0_blade0 rack0_blade1 rack0_blade2 rack1_blade0 ...
     - text after the last bracket (node[1-2]-ib; Slurm 23.11 and later)
   Not accepted here (errors that say so): Blue Gene's box syntax (bgl[123x456]), a decreasing range, an empty or
   unclosed group, white space inside brackets, numbers of more than 9 digits. Names keep the order of the
   expression; a name repeated is passed on twice (the caller decides what a duplicate means).
*/
#include <ctype.h>
#include <pipekrylov/private/pktopo.h>

#define PK_HOSTLIST_MAX_DIGITS 9

typedef struct {
  PetscInt64 lo, hi;
  PetscInt   width;
} PKRange;

/* Characters a host or switch name may hold: printable ASCII but the host-list and configuration syntax */
static PetscBool NameChar(char c)
{
  if (c <= ' ' || c > '~') return PETSC_FALSE;
  return strchr("[],=\"#\\/", c) ? PETSC_FALSE : PETSC_TRUE;
}

/* Decimal digits of v, zero padded to width, appended at name[*len] (bounded by PK_TOPO_MAX_NAME) */
static void AppendNumber(char name[], size_t *len, PetscInt64 v, PetscInt width)
{
  char     d[24];
  PetscInt n = 0;

  do {
    d[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0);
  for (PetscInt k = n; k < width; k++) name[(*len)++] = '0';
  while (n > 0) name[(*len)++] = d[--n];
}

/* One number of a bracket group at item[*i]: value and digit count */
static PetscErrorCode ParseNumber(const char item[], size_t len, size_t *i, const char where[], PetscInt64 *v, PetscInt *ndig)
{
  size_t s = *i;

  PetscFunctionBegin;
  *v = 0;
  while (*i < len && item[*i] >= '0' && item[*i] <= '9') {
    PetscCheck(*i - s < PK_HOSTLIST_MAX_DIGITS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s '%.*s': a number of more than %d digits", where, (int)PetscMin(len, 80), item, PK_HOSTLIST_MAX_DIGITS);
    *v = 10 * *v + (item[*i] - '0');
    (*i)++;
  }
  if (*i == s) {
    if (*i >= len) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%.*s': bracket group not closed with ']'", where, (int)PetscMin(len, 80), item);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%.*s': expected a number in the bracket group, found '%c'", where, (int)PetscMin(len, 80), item, item[*i]);
  }
  *ndig = (PetscInt)(*i - s);
  PetscFunctionReturn(0);
}

/* One bracket group at item[*i] (just after '['): its ranges appended to r[*nr] */
static PetscErrorCode ParseGroup(const char item[], size_t len, size_t *i, const char where[], PKRange r[], PetscInt *nr)
{
  PetscFunctionBegin;
  for (;;) {
    PKRange g;
    PetscCall(ParseNumber(item, len, i, where, &g.lo, &g.width));
    g.hi = g.lo;
    if (*i < len && item[*i] == '-') {
      PetscInt w;
      (*i)++;
      PetscCall(ParseNumber(item, len, i, where, &g.hi, &w));
      PetscCheck(g.hi >= g.lo, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%.*s': range %" PetscInt64_FMT "-%" PetscInt64_FMT " decreases", where, (int)PetscMin(len, 80), item, g.lo, g.hi);
    }
    r[(*nr)++] = g;
    PetscCheck(*i < len, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%.*s': bracket group not closed with ']'", where, (int)PetscMin(len, 80), item);
    if (item[*i] == ']') break;
    PetscCheck(item[*i] != 'x' && item[*i] != 'X', PETSC_COMM_SELF, PETSC_ERR_SUP, "%s '%.*s': Blue Gene's box syntax (AxB) is not supported", where, (int)PetscMin(len, 80), item);
    PetscCheck(item[*i] == ',', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%.*s': unexpected '%c' in a bracket group (numbers, ranges a-b and commas only)", where, (int)PetscMin(len, 80), item, item[*i]);
    (*i)++;
  }
  (*i)++;
  PetscFunctionReturn(0);
}

/* One name of the list, item[0..len), with its bracket groups expanded; r[] has room for len/2 + 1 ranges (a range
   takes at least 2 characters: "1," or "1]") */
static PetscErrorCode ExpandItem(const char item[], size_t len, PKRange r[], PetscInt maxnames, const char where[], PKHostlistFn fn, void *ctx, PetscInt *count)
{
  size_t     lit_at[PK_TOPO_MAX_BRACKETS + 1], lit_len[PK_TOPO_MAX_BRACKETS + 1], i = 0, longest = 0;
  PetscInt   ng = 0, nr                     = 0, first[PK_TOPO_MAX_BRACKETS + 1], ri[PK_TOPO_MAX_BRACKETS];
  PetscInt64 v[PK_TOPO_MAX_BRACKETS], total = 1;
  char       name[PK_TOPO_MAX_NAME + 1];

  PetscFunctionBegin;
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: an empty name (two commas in a row, or one at an end)", where);
  lit_at[0] = 0;
  while (i < len) {
    if (item[i] == '[') {
      PetscCheck(ng < PK_TOPO_MAX_BRACKETS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s '%.*s': more than %d bracket groups in one name", where, (int)PetscMin(len, 80), item, PK_TOPO_MAX_BRACKETS);
      lit_len[ng] = i - lit_at[ng];
      first[ng]   = nr;
      i++;
      PetscCall(ParseGroup(item, len, &i, where, r, &nr));
      lit_at[++ng] = i;
    } else {
      PetscCheck(item[i] != ']', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%.*s': ']' without '['", where, (int)PetscMin(len, 80), item);
      PetscCheck(NameChar(item[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%.*s': character 0x%02x not allowed in a name", where, (int)PetscMin(len, 80), item, (unsigned)(unsigned char)item[i]);
      i++;
    }
  }
  lit_len[ng] = len - lit_at[ng];
  first[ng]   = nr;
  /* how many names, and the longest, bounded before any is made */
  for (PetscInt g = 0; g <= ng; g++) longest += lit_len[g];
  for (PetscInt g = 0; g < ng; g++) {
    PetscInt64 n = 0;
    PetscInt   w = 0;
    for (PetscInt k = first[g]; k < first[g + 1]; k++) {
      PetscInt dig = 1;
      for (PetscInt64 h = r[k].hi; h >= 10; h /= 10) dig++;
      n += r[k].hi - r[k].lo + 1;
      w = PetscMax(w, PetscMax(dig, r[k].width));
    }
    longest += (size_t)w;
    PetscCheck(n <= maxnames && total <= maxnames / n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s '%.*s': expands to more than %" PetscInt_FMT " names", where, (int)PetscMin(len, 80), item, maxnames);
    total *= n;
  }
  PetscCheck(total <= maxnames - *count, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: more than %" PetscInt_FMT " names in all", where, maxnames);
  PetscCheck(longest <= PK_TOPO_MAX_NAME, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s '%.*s': a name longer than %d characters", where, (int)PetscMin(len, 80), item, PK_TOPO_MAX_NAME);
  /* an odometer over the groups, the last one fastest */
  for (PetscInt g = 0; g < ng; g++) {
    ri[g] = first[g];
    v[g]  = r[first[g]].lo;
  }
  for (PetscInt64 k = 0; k < total; k++) {
    size_t nl = 0;
    for (PetscInt g = 0; g <= ng; g++) {
      PetscCall(PetscMemcpy(name + nl, item + lit_at[g], lit_len[g]));
      nl += lit_len[g];
      if (g < ng) AppendNumber(name, &nl, v[g], r[ri[g]].width);
    }
    name[nl] = 0;
    PetscCall((*fn)(ctx, name));
    (*count)++;
    for (PetscInt g = ng - 1; g >= 0; g--) { /* next value of group g; on wrapping around, carry into g - 1 */
      if (v[g] < r[ri[g]].hi) {
        v[g]++;
        break;
      }
      if (++ri[g] == first[g + 1]) ri[g] = first[g];
      v[g] = r[ri[g]].lo;
      if (ri[g] != first[g]) break;
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode HostlistItem(const char item[], size_t len, PetscInt maxnames, const char where[], PKHostlistFn fn, void *ctx, PetscInt *count)
{
  PKRange       *r;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(len / 2 + 1, &r));
  ierr = ExpandItem(item, len, r, maxnames, where, fn, ctx, count); /* freed on an error too: callers may go on */
  PetscCall(PetscFree(r));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/*@C
   PKHostlistForEach - Expands a Slurm host-list expression and calls a function on each name, in order.

   Not Collective

   Input Parameters:
+  expr     - the expression (a NUL-terminated string of at most PK_TOPO_MAX_LINE characters), e.g. "node[01-16,20],login1"
.  maxnames - the most names the expression may expand to (with *count's start value); at most PK_TOPO_MAX_NODES
.  where    - what the expression is, for error messages (e.g. "topology.conf line 3: Nodes=")
.  fn       - called as fn(ctx, name) for every name (the name is valid during the call only)
-  ctx      - passed to fn

   Input/Output Parameter:
.  count - incremented by the number of names

   Notes:
   Names are separated by commas or white space outside brackets. Each name is printable ASCII without
   '[', ']', ',', '=', '"', '#', '\\' and '/', at most PK_TOPO_MAX_NAME characters once expanded. The syntax and
   what is not supported are described at the top of src/topology/hostlist.c. Errors name the expression and
   what is wrong with it; nothing is expanded past an error in a name.

   Level: developer

.seealso: `PKHostlistExpand()`, `PKTopoCreateFromString()`
@*/
PetscErrorCode PKHostlistForEach(const char expr[], PetscInt maxnames, const char where[], PKHostlistFn fn, void *ctx, PetscInt *count)
{
  size_t len, i = 0;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(expr, &len));
  PetscCheck(len <= PK_TOPO_MAX_LINE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: a host list longer than %d characters", where, PK_TOPO_MAX_LINE);
  PetscCheck(maxnames >= 0 && maxnames <= PK_TOPO_MAX_NODES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: at most %d names may be asked for, not %" PetscInt_FMT, where, PK_TOPO_MAX_NODES, maxnames);
  while (i < len && isspace((unsigned char)expr[i])) i++;
  PetscCheck(i < len, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: an empty host list", where);
  for (;;) {
    size_t s     = i;
    int    depth = 0;
    while (i < len && (depth > 0 || (expr[i] != ',' && !isspace((unsigned char)expr[i])))) {
      if (expr[i] == '[') depth++;
      else if (expr[i] == ']') depth--;
      PetscCheck(depth == 0 || !isspace((unsigned char)expr[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%.*s': white space inside brackets", where, (int)PetscMin(i - s + 1, 80), expr + s);
      i++;
    }
    PetscCall(HostlistItem(expr + s, i - s, maxnames, where, fn, ctx, count));
    while (i < len && isspace((unsigned char)expr[i])) i++;
    if (i == len) break;
    if (expr[i] == ',') { /* "a,b", "a, b" and "a b" separate names alike; "a,,b" and "a," are errors */
      i++;
      while (i < len && isspace((unsigned char)expr[i])) i++;
      PetscCheck(i < len, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: an empty name (two commas in a row, or one at an end)", where);
    }
  }
  PetscFunctionReturn(0);
}

typedef struct {
  char   **names;
  PetscInt n, cap;
} PKNameList;

static PetscErrorCode NameListPush(void *ctx, const char name[])
{
  PKNameList *l = (PKNameList *)ctx;

  PetscFunctionBegin;
  if (l->n + 1 >= l->cap) {
    l->cap = 2 * l->cap + 8;
    PetscCall(PetscRealloc(sizeof(char *) * (size_t)l->cap, &l->names));
  }
  PetscCall(PetscStrallocpy(name, &l->names[l->n++]));
  l->names[l->n] = NULL;
  PetscFunctionReturn(0);
}

/*@C
   PKHostlistExpand - Expands a Slurm host-list expression into its names.

   Not Collective

   Input Parameters:
+  expr     - the expression, e.g. "rack[0-1]_blade[0-2],node[001-016]"
-  maxnames - the most names it may expand to (at most PK_TOPO_MAX_NODES)

   Output Parameters:
+  n     - the number of names
-  names - the names, NULL-terminated; free with PetscStrArrayDestroy()

   Level: developer

.seealso: `PKHostlistForEach()`
@*/
PetscErrorCode PKHostlistExpand(const char expr[], PetscInt maxnames, PetscInt *n, char ***names)
{
  PKNameList     l     = {NULL, 0, 0};
  PetscInt       count = 0;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *n     = 0;
  *names = NULL;
  ierr   = PKHostlistForEach(expr, maxnames, "host list", NameListPush, &l, &count);
  if (ierr) PetscCall(PetscStrArrayDestroy(&l.names)); /* nothing left behind: callers may go on */
  PetscCall(ierr);
  *n     = l.n;
  *names = l.names;
  PetscFunctionReturn(0);
}

/*@C
   PKHostlistCheckName - Checks that a string is one plain name (no host-list syntax), as SwitchName= takes.

   Not Collective

   Input Parameters:
+  name  - the name
-  where - what it is, for the error message

   Level: developer

.seealso: `PKHostlistForEach()`
@*/
PetscErrorCode PKHostlistCheckName(const char name[], const char where[])
{
  size_t len;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(name, &len));
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: an empty name", where);
  PetscCheck(len <= PK_TOPO_MAX_NAME, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s '%.80s...': a name longer than %d characters", where, name, PK_TOPO_MAX_NAME);
  for (size_t i = 0; i < len; i++) {
    PetscCheck(name[i] != '[' && name[i] != ',', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%s': one name, not a host list", where, name);
    PetscCheck(NameChar(name[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s '%s': character 0x%02x not allowed in a name", where, name, (unsigned)(unsigned char)name[i]);
  }
  PetscFunctionReturn(0);
}
