/*
   The switch tree's representation, shared by the files that build it (topology.c) and query it (topoquery.c); no
   other file sees it (pktopo.h is the interface).
*/
#ifndef PK_TOPOIMPL_H
#define PK_TOPOIMPL_H

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

/* A node's short name: up to its first '.' */
PETSC_INTERN size_t PKTopoShortLen(const char s[]);
/* -1 if key is not there, its entry i, or -2 - i if it is an ambiguous short name */
PETSC_INTERN PetscInt PKTopoHashFind(PKTopo t, const PKNameHash *h, const char key[], size_t len);

#endif
