/*
   The cluster's network: a switch tree read from Slurm's topology.conf (the topology/tree plugin's file), hop counts
   and routes between nodes, and the bytes a message list puts on each link. Plain functions of their inputs, in
   src/topology (hostlist.c, topology.c, linkload.c): no MPI and no files; the text of topology.conf is handed in as
   a buffer (topofile.c reads it from a file, PKTopoLoad on one rank for a communicator). src/topology is the
   machine's shape and nothing else: the DMDA placement (src/dm, pkplace.h), the report and the tools use it, it
   uses only the core. The network terms it feeds and the counters are pknet.h's; docs/models.md §7 says where each
   input comes from.

   The tree. Switch s has at most one parent; a switch's uplink is link s (roots have none), node n's host link is
   link nswitches + n. A link carries two directions: PK_TOPO_UP (towards the root; for a host link: from the node
   into its leaf switch) and PK_TOPO_DOWN. Routing is deterministic, up the tree from the source's leaf switch to
   the lowest common switch and down to the destination's (a tree has no other path).

   Hops: the switch-to-switch links of the route plus the two host links: 2 between two nodes of one leaf
   switch, 4 across a spine; 0 for two ranks of one node (no link).

   Bounds: every input is bounded and the error names the bound (PK_TOPO_MAX_*).
*/
#ifndef PKTOPO_H
#define PKTOPO_H

#include <petscsys.h>

#define PK_TOPO_MAX_TEXT     (4 << 20)                   /* bytes of a topology.conf buffer */
#define PK_TOPO_MAX_LINE     65536                       /* characters of one logical line, continuation lines joined */
#define PK_TOPO_MAX_SWITCHES 65535                       /* Slurm numbers switches with 16 bits */
#define PK_TOPO_MAX_NODES    (1 << 20)                   /* nodes, and names one host-list expression may expand to */
#define PK_TOPO_MAX_NAME     255                         /* characters of a switch or node name (a DNS name has at most 253) */
#define PK_TOPO_MAX_DEPTH    20                          /* switch levels below a root; Slurm gives up resolving its tree after 20 */
#define PK_TOPO_MAX_BRACKETS 8                           /* bracket groups in one host-list name (rack[0-3]_blade[0-41] has 2) */
#define PK_TOPO_MAX_ROUTE    (2 * PK_TOPO_MAX_DEPTH + 2) /* links of the longest route */

/* Slurm host-list expressions (hostlist.c) */
typedef PetscErrorCode (*PKHostlistFn)(void *ctx, const char name[]);
PETSC_INTERN PetscErrorCode PKHostlistForEach(const char expr[], PetscInt maxnames, const char where[], PKHostlistFn fn, void *ctx, PetscInt *count);
PETSC_INTERN PetscErrorCode PKHostlistExpand(const char expr[], PetscInt maxnames, PetscInt *n, char ***names);
PETSC_INTERN PetscErrorCode PKHostlistCheckName(const char name[], const char where[]);

/* The switch tree */
typedef struct _n_PKTopo *PKTopo;

typedef enum {
  PK_TOPO_UP,
  PK_TOPO_DOWN
} PKTopoDir;

typedef struct {
  PetscInt  link; /* < nswitches: that switch's uplink; else the host link of node link - nswitches */
  PKTopoDir dir;
} PKTopoLink;

PETSC_INTERN PetscErrorCode PKTopoCreateFromString(const char text[], size_t len, PKTopo *);
PETSC_INTERN PetscErrorCode PKTopoLoad(MPI_Comm, const char path[], PKTopo *); /* topofile.c: rank 0 reads, all parse */
PETSC_INTERN PetscErrorCode PKTopoDestroy(PKTopo *);
PETSC_INTERN PetscErrorCode PKTopoGetSizes(PKTopo, PetscInt *nswitches, PetscInt *nnodes, PetscInt *nroots, PetscInt *depth);
PETSC_INTERN PetscErrorCode PKTopoFindNode(PKTopo, const char name[], PetscInt *node);
PETSC_INTERN PetscErrorCode PKTopoFindSwitch(PKTopo, const char name[], PetscInt *sw);
PETSC_INTERN PetscErrorCode PKTopoGetNode(PKTopo, PetscInt node, const char **name, PetscInt *leaf);
PETSC_INTERN PetscErrorCode PKTopoGetSwitch(PKTopo, PetscInt sw, const char **name, PetscInt *parent, PetscInt *level, PetscInt *linkspeed);
PETSC_INTERN PetscErrorCode PKTopoRoute(PKTopo, PetscInt a, PetscInt b, PetscInt *nlinks, PKTopoLink links[]);
PETSC_INTERN PetscErrorCode PKTopoHops(PKTopo, PetscInt a, PetscInt b, PetscInt *hops);
PETSC_INTERN PetscErrorCode PKTopoLinkName(PKTopo, PKTopoLink, char buf[], size_t len);
PETSC_INTERN PetscErrorCode PKTopoRecursiveDoublingHops(PKTopo, PetscInt n, const PetscInt where[], PetscReal *mean, PetscInt *known);

/*
   Link loads of a message list. The accumulators are sums (bytes, nmsg, n_*, hops_sum, hops_bytes) and one
   maximum (hops_max), so that each rank may add its own messages and the arrays be reduced across ranks before
   PKTopoLoadsSummarize.
*/
typedef struct {
  PetscInt   nlinks;     /* nswitches + nnodes */
  PetscReal *bytes;      /* [2 nlinks]: bytes[2 link + dir] */
  PetscInt  *nmsg;       /* [2 nlinks]: messages crossing the link in that direction */
  PetscInt   n_on;       /* messages between two ranks of one node: no link */
  PetscInt   n_off;      /* messages between nodes, routed */
  PetscInt   n_unknown;  /* messages with a node not in the topology (index < 0) or in another tree: not routed */
  PetscReal  bytes_off;  /* bytes of the routed messages */
  PetscReal  hops_sum;   /* sum of their hops */
  PetscReal  hops_bytes; /* sum of bytes x hops (= sum of bytes over all links) */
  PetscInt   hops_max;
  /* set by PKTopoLoadsSummarize */
  PetscReal  hops_avg;      /* per off-node message (000 5.6's n_hops) */
  PetscReal  hops_byte_avg; /* per byte (004 section 4.2's h) */
  PKTopoLink busiest;       /* the link direction with the most bytes (ties: lowest link, up first); link -1 if none */
  PetscReal  busiest_bytes;
  PetscInt   busiest_nmsg;
  PKTopoLink busiest_net; /* the same among switch-to-switch links only: 004's contention l */
  PetscReal  busiest_net_bytes;
  PetscInt   busiest_net_nmsg;
} PKTopoLoads;

PETSC_INTERN PetscErrorCode PKTopoLoadsCreate(PKTopo, PKTopoLoads *);
PETSC_INTERN PetscErrorCode PKTopoLoadsAdd(PKTopo, PetscInt n, const PetscInt src[], const PetscInt dst[], const PetscReal bytes[], PKTopoLoads *);
PETSC_INTERN PetscErrorCode PKTopoLoadsSummarize(PKTopo, PKTopoLoads *);
PETSC_INTERN PetscErrorCode PKTopoLoadsDestroy(PKTopoLoads *);

/*
   The switch tree from a file (topofile.c, the one function here that touches a file): one process reads a
   regular file of at most PK_TOPO_MAX_TEXT bytes (docs/security.md: a FIFO or a device is refused, never read or
   waited on) and parses it; errors name the file, and the line for a malformed one.
*/
PETSC_INTERN PetscErrorCode PKTopoCreateFromFile(const char path[], PKTopo *);

/*
   The switch tree from Slurm (slurmtopo.c): every task's SLURM_TOPOLOGY_ADDR and SLURM_TOPOLOGY_ADDR_PATTERN (the
   topology/tree plugin sets them under srun), at most PK_SLURM_ADDR_MAX characters each.
*/
#define PK_SLURM_ADDR_MAX 1024
PETSC_INTERN PetscErrorCode PKTopoCreateFromSlurmAddrs(PetscInt n, const char *const addr[], const char *const pattern[], PKTopo *);
PETSC_INTERN PetscErrorCode PKTopoLoadSlurm(MPI_Comm, PKTopo *, char node[], size_t len);
/* ... or from what `scontrol show topology` printed (at most PK_TOPO_MAX_TEXT bytes) */
PETSC_INTERN PetscErrorCode PKTopoCreateFromScontrol(const char text[], size_t len, PKTopo *);

#endif
