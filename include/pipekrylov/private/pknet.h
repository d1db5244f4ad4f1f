/*
   The network counters of a node's port (read by src/perf/monitor/netcounters.c) and 000 section 5.7's congestion
   penalty from their deltas (src/perf/models/netload.c; docs/models.md §7). The contention term from a
   link's load is model_comm.c's (PKModelContentionLoad, pkmodel.h).
*/
#ifndef PKNET_H
#define PKNET_H

#include <pipekrylov/private/pkmodel.h>

/*
   Network counters of one port (InfiniBand: port_xmit_wait, port_xmit_data and port_rcv_data in 4-byte units,
   port_xmit_discards; a Linux interface: statistics/tx_bytes, rx_bytes, tx_dropped). Read by the monitor around
   each solve (src/perf/monitor/netcounters.c); differenced and turned into the congestion penalty by the models
   (src/perf/models/netload.c).
*/
typedef enum {
  PK_NETCTR_STALLS,     /* ticks with data queued and no credit (port_xmit_wait); Linux interfaces have none */
  PK_NETCTR_XMIT_BYTES, /* bytes sent (4 x port_xmit_data; tx_bytes) */
  PK_NETCTR_RCV_BYTES,  /* bytes received (4 x port_rcv_data; rx_bytes) */
  PK_NETCTR_DROPS,      /* packets discarded on send (port_xmit_discards; tx_dropped) */
  PK_NETCTR_N
} PKNetCounterId;

PETSC_INTERN const char *const PKNetCounterNames[];

typedef struct {
  PetscBool have[PK_NETCTR_N];
  PetscReal value[PK_NETCTR_N];
  char      missing[PETSC_MAX_PATH_LEN]; /* the counter looked for and not read, and why ("" if none) */
} PKNetCounters;

/* A network port: an InfiniBand/RoCE device's port, or a Linux interface */
typedef struct {
  PetscBool infiniband;
  char      name[64]; /* device (mlx5_0) or interface (eth0) */
  PetscInt  port;     /* InfiniBand port number, from 1 */
} PKNetPort;

/* Reading them is the monitor's (src/perf/monitor/netcounters.c); root NULL or "" is /sys */
PETSC_INTERN PetscErrorCode PKNetRootExpand(const char spec[], const char name[], const char option[], char out[], size_t len);
PETSC_INTERN PetscErrorCode PKNetPortFind(const char root[], PKNetPort *, PetscBool *found);
PETSC_INTERN PetscErrorCode PKNetCountersRead(const char root[], const PKNetPort *, PKNetCounters *);

/* Differencing them and the congestion penalty are plain functions (src/perf/models/netload.c) */
PETSC_INTERN PetscErrorCode PKNetCountersDelta(const PKNetCounters *before, const PKNetCounters *after, PKNetCounters *delta);
PETSC_INTERN PetscErrorCode PKNetStateFromCounters(const PKNetCounters *delta, PetscReal t_stall, PetscReal hops, PKNetState *);
PETSC_INTERN PetscErrorCode PKModelCongestionCounters(const PKNetCounters *delta, PetscReal n, PetscReal ncores, PetscReal t_stall, PetscReal hops, PetscReal *t, PetscBool *measured);

#endif
