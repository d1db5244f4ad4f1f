/*
   Where a rank sits inside its node (paper 004 section 3): the socket (hwloc's package) and NUMA node of
   each rank's CPU mask, from hwloc, so that a pair of ranks is classified same socket / other socket / other node,
   004's three levels of cost.

   In src/topology (locality.c) with the switch tree: the shape of the machine, used by the report (pricing a halo
   message by its level) and by the DMDA placement (src/dm/placement.c, bin/pipekrylov-place: which ranks of a node
   share a socket). The header names no hwloc type, so its users do not compile against hwloc.

   The masks are hwloc's and Linux's list syntax ("0-3,8", as /proc/self/status's Cpus_allowed_list), in the
   operating system's CPU numbers: plain text that a rank can compute for itself (PKNodeTopoGetBinding) or that a
   test writes. Tests load synthetic ("synthetic:pack:2 core:4 pu:1") or XML topologies through hwloc's own API,
   so a one-socket machine tests two-socket code.
*/
#ifndef PKLOCALITY_H
#define PKLOCALITY_H

#include <petscsys.h>

#define PK_CPULIST_MAX 16384 /* characters of a CPU list (every other CPU of 1024 is about 4000) */

typedef enum {
  PK_LEVEL_SAME_SOCKET,  /* both masks inside one package */
  PK_LEVEL_OTHER_SOCKET, /* one node, each inside a different package */
  PK_LEVEL_SAME_NODE,    /* one node, socket unknown: a mask spans packages (a rank not bound to one socket) */
  PK_LEVEL_OTHER_NODE,
  PK_NLEVEL
} PKLevel;

PETSC_INTERN const char *const PKLevelNames[];

typedef struct _n_PKNodeTopo *PKNodeTopo;

PETSC_INTERN PetscErrorCode PKNodeTopoCreate(const char spec[], PKNodeTopo *);
PETSC_INTERN PetscErrorCode PKNodeTopoDestroy(PKNodeTopo *);
PETSC_INTERN PetscErrorCode PKNodeTopoGetSizes(PKNodeTopo, PetscInt *npackages, PetscInt *nnuma, PetscInt *npus);
PETSC_INTERN PetscErrorCode PKNodeTopoGetBinding(PKNodeTopo, char list[], size_t len);
PETSC_INTERN PetscErrorCode PKNodeTopoPlace(PKNodeTopo, PetscInt n, const char *const lists[], PetscInt package[], PetscInt numa[]);
PETSC_INTERN PKLevel        PKLevelOf(PetscInt node_a, PetscInt package_a, PetscInt node_b, PetscInt package_b);

#endif
