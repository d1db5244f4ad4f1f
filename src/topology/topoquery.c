/*
   Questions to a switch tree (topology.c builds it): its sizes, a node or switch by name, and the route, hops and
   link names between two nodes (up the tree to the lowest common switch and down; docs/models.md §7).
*/
#include "topoimpl.h"

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
  e = PKTopoHashFind(topo, &topo->hnode, name, len);
  if (e < 0) e = PKTopoHashFind(topo, &topo->hshort, name, PKTopoShortLen(name));
  if (e < -1) {
    PetscInt i = -2 - e, j;
    for (j = 0; j < topo->nnode; j++) {
      const char *s = topo->arena + topo->node[j].name;
      if (j != i && PKTopoShortLen(s) == PKTopoShortLen(name) && !strncmp(s, name, PKTopoShortLen(name))) break;
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
  *sw = PKTopoHashFind(topo, &topo->hsw, name, len);
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
