/*
   The DMDA's placement on the switch tree (src/dm/topoplace.c, toposearch.c): which allocation node runs which node
   block of the node-aware layout (PKDMDAPlacementCompute, pipekrylov.h). src/dm's own header: the DMDA placement
   uses the machine's topology (pktopo.h, src/topology) and never the reverse.
*/
#ifndef PKPLACE_H
#define PKPLACE_H

#include <pipekrylov.h> /* PKPlacement */
#include <pipekrylov/private/pktopo.h>

/*
   Topology-aware placement (topoplace.c; docs/models.md §7.8; paper 000 §6.3). The node-aware layout gives each
   node a block of the process grid (PKDMDAPlacementCompute); here the blocks are assigned to the allocation's nodes
   so that neighbouring blocks share a leaf switch: fewest bytes on the switch-to-switch links, then the lightest
   busiest link direction, never worse than the node-aware order on either (else that order is kept). Plain
   functions of their inputs, one process, no MPI.

   The halo traffic a layout puts on the switch-to-switch links of the tree, counted with PKTopoLoads from the
   DMDA's messages of one ghost update (as PKDMDAPlacementCompute counts them: one message per neighbour, periodic
   boundaries not counted).
*/
typedef struct {
  PetscReal  link_bytes;    /* bytes summed over the switch-to-switch link directions (a message over one spine
                               counts twice: up to it and down from it): the load the halo puts on the network */
  PetscReal  leaf_bytes;    /* bytes of the messages that leave their leaf switch (= bytes up the leaves' uplinks) */
  PetscReal  busiest_bytes; /* the busiest switch-to-switch link direction's bytes: 004's contention l */
  PetscInt   busiest_nmsg;  /* its messages */
  PKTopoLink busiest;       /* that link direction (PKTopoLinkName()); link -1 when no byte leaves a leaf switch */
  PetscInt   n_off;         /* messages between two nodes, routed */
  PetscInt   n_unknown;     /* messages with a node the tree does not list, or between two roots: not routed */
} PKTopoTraffic;

typedef struct {
  PetscInt      nnodes;
  PetscBool     placed;    /* PETSC_TRUE: the node blocks are moved by the tree; else the node-aware order is kept (note) */
  PetscBool     usable;    /* the tree describes the allocation: every node in it once, all under one root, equal
                             node sizes (PETSC_FALSE: the note says what is wrong; the caller should tell the user) */
  PetscBool     optimal;   /* every assignment was compared (or all of them are equivalent): no better one exists */
  PetscInt64    steps;     /* search steps: assignments tried (exhaustive), then swaps tried (heuristic) */
  PetscInt      nleaves;   /* leaf switches that hold nodes of the allocation */
  PetscInt     *order;     /* [nnodes]: node block b (PKDMDAPlacementRankNode()'s node b) runs on allocation node order[b] */
  PetscInt     *tnode;     /* [nnodes]: allocation node i is the tree's node tnode[i] (-1: not listed) */
  PKTopoTraffic def;       /* PETSc's grid, ranks x-fastest, rank r on allocation node r / ppn (or rank_node[r]) */
  PKTopoTraffic nodeaware; /* the node-aware layout, block b on allocation node b */
  PKTopoTraffic topo;      /* the topology-aware layout, block b on allocation node order[b] (= nodeaware if not placed) */
  char          note[320]; /* why the node-aware order is kept, or how the order was found */
} PKTopoPlacement;

#define PK_TOPO_PLACE_STEPS 1000000 /* default: the exhaustive search gives up (for the heuristic) after this many steps */

PETSC_INTERN PetscErrorCode PKDMDAPlacementComputeTopology(const PKPlacement *, const PetscMPIInt rank_node[], PKTopo, const char *const names[], PetscInt maxsteps, PKTopoPlacement *);
PETSC_INTERN PetscErrorCode PKTopoPlacementDestroy(PKTopoPlacement *);
/* The traffic of any layout of a DMDA's ghost update: node_of_pos[] the node (0 ..) of every grid position
   (x-fastest), where[] the tree node of every node (-1: not listed) */
PETSC_INTERN PetscErrorCode PKDMDATopoTraffic(PetscInt dim, const PetscInt M[], DMDAStencilType, PetscInt s, PetscInt dof, const PetscInt procs[], const PetscInt node_of_pos[], PKTopo, const PetscInt where[], PKTopoTraffic *);

#endif
