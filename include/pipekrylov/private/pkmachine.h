/*
   The machine profile: the parameters the analytic model needs, measured by bin/pipekrylov-calibrate, read from a
   profile file (-ksp_perfmodel_machine), or taken from the embedded default. Every parameter carries where it came
   from, so that the report can say so.

   Units: seconds, bytes, bytes per second. "on" = between two ranks of one node, "off" = between nodes.
*/
#ifndef PKMACHINE_H
#define PKMACHINE_H

#include <petscsys.h>

typedef enum {
  PK_SRC_DEFAULT,  /* the embedded default profile */
  PK_SRC_PROFILE,  /* a profile file */
  PK_SRC_MEASURED, /* measured during this run */
  PK_SRC_NONE      /* not available (e.g. no off-node link was seen at calibration) */
} PKParamSource;

PETSC_INTERN const char *const PKParamSourceNames[];

typedef enum {
  PK_PROTO_SHORT,
  PK_PROTO_EAGER,
  PK_PROTO_RENDEZVOUS,
  PK_NPROTO
} PKProtocol;

typedef enum {
  PK_ON_NODE,
  PK_OFF_NODE,
  PK_NLOC
} PKLocality;

/* The CG types whose vector work pipekrylov-calibrate times (vec_row): pcg, sapcg, nbpcg, pipecg, pipe2cg and PETSc's
   cg, at PK_VEC_NSIZES sizes: 4096, 32768 and 262144 rows per rank (16^3, 32^3, 64^3; the fields' names say them) */
#define PK_VEC_NTYPES 6
#define PK_VEC_NSIZES 3

typedef struct {
  /* postal model T = alpha + beta * bytes, per locality and protocol (docs/bibliography.md [000] 5.2) */
  PetscReal alpha[PK_NLOC][PK_NPROTO]; /* s */
  PetscReal beta[PK_NLOC][PK_NPROTO];  /* s / byte */
  PetscReal eager_limit[PK_NLOC];      /* bytes: messages up to this size use the short protocol */
  PetscReal rendezvous_limit[PK_NLOC]; /* bytes: messages above this size use rendezvous */
  /* between the two sockets of one node (004 section 3: the third level); PKMachineEffective gives the on-node
     values where a profile has none (one socket, or not calibrated) */
  PetscReal alpha_xs[PK_NPROTO]; /* s */
  PetscReal beta_xs[PK_NPROTO];  /* s / byte */
  /* max-rate model (Gropp, Olson, Samfass; 004): node injection bandwidth and per-process bandwidth */
  PetscReal RN;               /* bytes/s, off-node injection of one node */
  PetscReal Rb[PK_NLOC];      /* bytes/s, one process */
  PetscReal gamma;            /* queue search, s per message^2 (004 T_q = gamma n^2) */
  PetscReal delta;            /* contention, s per byte crossing the busiest link (004 T_c = delta l) */
  PetscReal hop_latency;      /* s per extra network hop (0: topology unknown) */
  PetscReal stall_time;       /* s per tick of the network's stall counter (000 5.7's T_stall; InfiniBand's
                               port_xmit_wait) */
  PetscReal msg_gap[PK_NLOC]; /* s that each further short message adds to a burst posted to a rank at once (LogGP's
                                 gap g): a halo exchange's messages overlap their latencies. In the effective
                                 parameters < 0 where not measured: the messages serialize (000's postal sum) */
  /* whether a send waits for a late receiver */
  PetscReal sync_limit[PK_NLOC]; /* bytes: the largest message whose send completes although its receiver is late
                                    (makes no MPI call); a larger one's sender waits for the receiver's next call (a
                                    rendezvous). Effective parameters: < 0 where not measured, the rendezvous limit
                                    stands in (PKModelSyncLimit) */
  /* allreduce of n doubles on P ranks: T = ceil(log2 P) * (allreduce_alpha + 8 n allreduce_beta), per locality */
  PetscReal allreduce_alpha[PK_NLOC]; /* s per recursive-doubling round */
  PetscReal allreduce_beta[PK_NLOC];  /* s per byte per round */
  /* progress: what the MPI_Test calls of the chunked overlapped work cost (docs/models.md §2.4) */
  PetscReal test_time[PK_NLOC]; /* s per MPI_Test call while a request is outstanding (the progress engine's poll) */
  PetscReal post_time[PK_NLOC]; /* s per MPI_Iallreduce call posting a one-value reduction in a solve (mean over ranks) */
  PetscReal test_idle[PK_NLOC]; /* s per MPI_Test call back to back, with nothing arriving (what a call costs beyond
                                   receiving) */
  PetscReal recv_time[PK_NLOC]; /* s to receive one message inside the progress calls of a solve (PKModelRecvFromTests
                                   of the calibration's pipecg solves) */
  PetscReal poll_time[PK_NLOC]; /* s until a one-value non-blocking allreduce round completes when it is polled with
                                   MPI_Test between pieces of work, as the solvers poll it */
  PetscReal nbc_async;          /* the share of one-value MPI_Iallreduces the library completes while the ranks
                                   compute and make no MPI call (1: a progress thread, offload, a simulator; 0: Open
                                   MPI's libNBC without a progress thread, which needs a call for every round) */
  /* node-local compute */
  PetscReal mem_bw;        /* bytes/s, STREAM triad of one rank while all ranks of the node run it */
  PetscReal spmv_per_nnz;  /* s per stored nonzero of an AIJ SpMV */
  PetscReal flop_time;     /* s per flop of a memory-bound sweep (AMG model t_i) */
  PetscReal amg_flop_time; /* s per model flop of a BoomerAMG V-cycle, from a timed hierarchy (the AMG model's t_i
                              when measured; else flop_time) */
  /* the vector work of one iteration of each CG type per row of the rank (s/row), as the type's own kernels ran it
     on this machine at PK_VEC_NSIZES sizes, with a diagonal PC (fused where the type fuses it) and with another PC;
     0 where not measured. A what-if for another type scales the run's measured vector time by the ratio of the two
     types' values (PKModelVecRatio): the types' kernels differ in more than their count of vector streams */
  PetscReal vec_row[PK_VEC_NTYPES][2][PK_VEC_NSIZES];
  /* noise (fixed-work quanta per core): detours per second and their mean and maximum length */
  PetscReal noise_rate; /* 1/s */
  PetscReal noise_mean; /* s */
  PetscReal noise_max;  /* s */
  PetscInt  ppn;        /* ranks per node at calibration */
  PetscInt  nodes;      /* nodes at calibration */
} PKMachineParams;

/* What values a field admits (checked when a profile is read) */
typedef enum {
  PK_FIELD_POSITIVE, /* a PetscReal > 0: latencies, per-byte costs, bandwidths, sizes, times */
  PK_FIELD_NONNEG,   /* a PetscReal >= 0: penalties that may be absent (gamma, delta, hops, noise) */
  PK_FIELD_COUNT     /* a PetscInt >= 1 (ppn, nodes) */
} PKFieldKind;

/* One field of the profile: its key in the file, unit, meaning, and where it sits in PKMachineParams */
typedef struct {
  const char *key;
  const char *unit;
  const char *help;
  size_t      offset; /* offsetof(PKMachineParams, ...) of a PetscReal (of a PetscInt for PK_FIELD_COUNT) */
  PKFieldKind kind;
} PKMachineField;

PETSC_INTERN const PKMachineField PKMachineFields[];
PETSC_INTERN const PetscInt       PKMachineNFields;

typedef struct {
  PKMachineParams p;
  PKParamSource   src[160];                   /* per field of PKMachineFields, in order */
  char            origin[PETSC_MAX_PATH_LEN]; /* the profile file, or "embedded default" */
} PKMachine;

/* What a profile lacks and the model fills in (PKMachineEffective, machine.c): the protocols whose off-node alpha and
   beta it has not (the on-node ones used), the other off-node fields it has not (on-node used; RN: no injection cap),
   the on-node communication fields it has not (a profile calibrated on one rank: the embedded default's used) */
typedef struct {
  PetscBool offnode_substituted;
  char      offnode_missing[256];
  char      offnode_filled[512];
  char      onnode_default[512];
} PKMachineGaps;

PETSC_INTERN PetscErrorCode PKMachineEffective(const PKMachine *, PKMachineParams *eff, PKMachineGaps *);

#endif
