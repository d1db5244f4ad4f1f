/*
   Machine profiles: the field table, the text format (see pkprofile.h) parsed from and written to memory, the
   embedded default, view. Plain functions: no MPI, no files (the report's profile_io.c reads and writes the files
   and broadcasts them).
*/
#include <pipekrylov/private/pkprofile.h>
#include <pipekrylov/private/pkfiles.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <math.h>

const char *const PKParamSourceNames[] = {"embedded default", "profile", "measured in this run", "not available", "PKParamSource", "PK_SRC_", NULL};

#define PO(m) offsetof(PKMachineParams, m)
#define PKF(k, u, h, m, kind) \
  { \
    k, u, h, PO(m), kind \
  }
#define POS  PK_FIELD_POSITIVE
#define NNEG PK_FIELD_NONNEG

/* The order is the order of the file; a new field goes at the end of its group (src[] is indexed by position) */
const PKMachineField PKMachineFields[] = {
  PKF("alpha_on_short", "s", "on-node latency, short protocol", alpha[PK_ON_NODE][PK_PROTO_SHORT], POS),
  PKF("beta_on_short", "s/byte", "on-node time per byte, short protocol", beta[PK_ON_NODE][PK_PROTO_SHORT], POS),
  PKF("alpha_on_eager", "s", "on-node latency, eager protocol", alpha[PK_ON_NODE][PK_PROTO_EAGER], POS),
  PKF("beta_on_eager", "s/byte", "on-node time per byte, eager protocol", beta[PK_ON_NODE][PK_PROTO_EAGER], POS),
  PKF("alpha_on_rendezvous", "s", "on-node latency, rendezvous protocol", alpha[PK_ON_NODE][PK_PROTO_RENDEZVOUS], POS),
  PKF("beta_on_rendezvous", "s/byte", "on-node time per byte, rendezvous protocol", beta[PK_ON_NODE][PK_PROTO_RENDEZVOUS], POS),
  PKF("eager_limit_on", "bytes", "on-node: largest message of the short protocol", eager_limit[PK_ON_NODE], POS),
  PKF("rendezvous_limit_on", "bytes", "on-node: largest message of the eager protocol (larger: rendezvous)", rendezvous_limit[PK_ON_NODE], POS),
  PKF("Rb_on", "bytes/s", "on-node rate of one process pair (1/beta_on_rendezvous)", Rb[PK_ON_NODE], POS),
  PKF("allreduce_alpha_on", "s", "on-node allreduce: latency per recursive-doubling round", allreduce_alpha[PK_ON_NODE], POS),
  PKF("allreduce_beta_on", "s/byte", "on-node allreduce: time per byte per round", allreduce_beta[PK_ON_NODE], POS),
  PKF("alpha_xs_short", "s", "latency between the sockets of a node, short protocol", alpha_xs[PK_PROTO_SHORT], POS),
  PKF("beta_xs_short", "s/byte", "time per byte between the sockets of a node, short protocol", beta_xs[PK_PROTO_SHORT], POS),
  PKF("alpha_xs_eager", "s", "latency between the sockets of a node, eager protocol", alpha_xs[PK_PROTO_EAGER], POS),
  PKF("beta_xs_eager", "s/byte", "time per byte between the sockets of a node, eager protocol", beta_xs[PK_PROTO_EAGER], POS),
  PKF("alpha_xs_rendezvous", "s", "latency between the sockets of a node, rendezvous protocol", alpha_xs[PK_PROTO_RENDEZVOUS], POS),
  PKF("beta_xs_rendezvous", "s/byte", "time per byte between the sockets of a node, rendezvous protocol", beta_xs[PK_PROTO_RENDEZVOUS], POS),
  PKF("alpha_off_short", "s", "off-node latency, short protocol", alpha[PK_OFF_NODE][PK_PROTO_SHORT], POS),
  PKF("beta_off_short", "s/byte", "off-node time per byte, short protocol", beta[PK_OFF_NODE][PK_PROTO_SHORT], POS),
  PKF("alpha_off_eager", "s", "off-node latency, eager protocol", alpha[PK_OFF_NODE][PK_PROTO_EAGER], POS),
  PKF("beta_off_eager", "s/byte", "off-node time per byte, eager protocol", beta[PK_OFF_NODE][PK_PROTO_EAGER], POS),
  PKF("alpha_off_rendezvous", "s", "off-node latency, rendezvous protocol", alpha[PK_OFF_NODE][PK_PROTO_RENDEZVOUS], POS),
  PKF("beta_off_rendezvous", "s/byte", "off-node time per byte, rendezvous protocol", beta[PK_OFF_NODE][PK_PROTO_RENDEZVOUS], POS),
  PKF("eager_limit_off", "bytes", "off-node: largest message of the short protocol", eager_limit[PK_OFF_NODE], POS),
  PKF("rendezvous_limit_off", "bytes", "off-node: largest message of the eager protocol (larger: rendezvous)", rendezvous_limit[PK_OFF_NODE], POS),
  PKF("Rb_off", "bytes/s", "off-node rate of one process pair (1/beta_off_rendezvous)", Rb[PK_OFF_NODE], POS),
  PKF("allreduce_alpha_off", "s", "allreduce between nodes: latency per recursive-doubling round", allreduce_alpha[PK_OFF_NODE], POS),
  PKF("allreduce_beta_off", "s/byte", "allreduce between nodes: time per byte per round", allreduce_beta[PK_OFF_NODE], POS),
  PKF("test_on", "s", "one MPI_Test call in a solve between two ranks of one node (pipecg, every 7th timed; else back to back)", test_time[PK_ON_NODE], POS),
  PKF("test_off", "s", "one MPI_Test call in a solve between two nodes (pipecg, every 7th timed; else back to back)", test_time[PK_OFF_NODE], POS),
  PKF("test_idle_on", "s", "one MPI_Test call back to back with nothing arriving, between two ranks of one node", test_idle[PK_ON_NODE], POS),
  PKF("test_idle_off", "s", "one MPI_Test call back to back with nothing arriving, between two nodes", test_idle[PK_OFF_NODE], POS),
  PKF("recv_on", "s", "receiving one message inside the MPI_Test calls of a solve, between two ranks of one node (pipecg: the calls beyond idle ones over the messages)", recv_time[PK_ON_NODE], POS),
  PKF("recv_off", "s", "receiving one message inside the MPI_Test calls of a solve, between two nodes (pipecg: the calls beyond idle ones over the messages)", recv_time[PK_OFF_NODE], POS),
  PKF("post_on", "s", "posting one non-blocking reduction (MPI_Iallreduce) in a solve between two ranks of one node (pipecg, mean of the pair)", post_time[PK_ON_NODE], POS),
  PKF("post_off", "s", "posting one non-blocking reduction (MPI_Iallreduce) in a solve between two nodes (pipecg, mean of the pair)", post_time[PK_OFF_NODE], POS),
  PKF("poll_on", "s", "a one-value non-blocking reduction on one node, polled with MPI_Test between pieces of work: time per round to complete (as pipecg's solves show it, else polled every 5 us after a barrier)", poll_time[PK_ON_NODE], POS),
  PKF("poll_off", "s", "a one-value non-blocking reduction between nodes, polled with MPI_Test between pieces of work: time per round to complete (as pipecg's solves show it, else polled every 5 us after a barrier)", poll_time[PK_OFF_NODE], POS),
  PKF("nbc_async", "fraction", "a one-value MPI_Iallreduce on all calibration ranks, left alone (no MPI call) while they compute: the share found complete at the first call", nbc_async, NNEG),
  PKF("RN", "bytes/s", "max-rate: off-node injection bandwidth of one node (all pairs at once)", RN, POS),
  PKF("gamma", "s", "queue search: T_q = gamma n^2 for n messages posted out of order (004)", gamma, NNEG),
  PKF("delta", "s/byte", "contention: T_c = delta l, l = bytes crossing the busiest link (004)", delta, NNEG),
  PKF("hop_latency", "s", "per extra network hop (0: topology unknown)", hop_latency, NNEG),
  PKF("stall_time", "s", "congestion: time per tick of the network port's stall counter (000 5.7's T_stall)", stall_time, POS),
  PKF("msg_gap_on", "s", "one more 8-byte message in a burst posted at once to a rank of the same node (LogGP's gap): what overlapping latencies leave", msg_gap[PK_ON_NODE], NNEG),
  PKF("msg_gap_off", "s", "one more 8-byte message in a burst posted at once to a rank of another node (LogGP's gap)", msg_gap[PK_OFF_NODE], NNEG),
  PKF("sync_limit_on", "bytes", "on-node: largest message whose sender does not wait for a late receiver (larger: it waits for the receiver's next MPI call)", sync_limit[PK_ON_NODE], POS),
  PKF("sync_limit_off", "bytes", "off-node: largest message whose sender does not wait for a late receiver (larger: it waits for the receiver's next MPI call)", sync_limit[PK_OFF_NODE], POS),
  PKF("mem_bw", "bytes/s", "STREAM triad bandwidth of one rank while every rank runs it", mem_bw, POS),
  PKF("spmv_per_nnz", "s", "AIJ MatMult time per stored nonzero (27-point stencil, all ranks at once)", spmv_per_nnz, POS),
  PKF("flop_time", "s", "time per flop of a memory-bound sweep (SpMV: 2 flops per nonzero; AMG t_i)", flop_time, POS),
  PKF("amg_flop_time", "s", "time per model flop of a BoomerAMG V-cycle (smoothing, restriction, interpolation; a timed hierarchy)", amg_flop_time, POS),
  PKF("vec_pcg_diag_4096", "s/row", "pcg: vector work per iteration and row at 4096 rows per rank, jacobi PC", vec_row[0][0][0], POS),
  PKF("vec_pcg_diag_32768", "s/row", "pcg: vector work per iteration and row at 32768 rows per rank, jacobi PC", vec_row[0][0][1], POS),
  PKF("vec_pcg_diag_262144", "s/row", "pcg: vector work per iteration and row at 262144 rows per rank, jacobi PC", vec_row[0][0][2], POS),
  PKF("vec_pcg_nondiag_4096", "s/row", "pcg: vector work per iteration and row at 4096 rows per rank, ILU PC", vec_row[0][1][0], POS),
  PKF("vec_pcg_nondiag_32768", "s/row", "pcg: vector work per iteration and row at 32768 rows per rank, ILU PC", vec_row[0][1][1], POS),
  PKF("vec_pcg_nondiag_262144", "s/row", "pcg: vector work per iteration and row at 262144 rows per rank, ILU PC", vec_row[0][1][2], POS),
  PKF("vec_sapcg_diag_4096", "s/row", "sapcg: vector work per iteration and row at 4096 rows per rank, jacobi PC", vec_row[1][0][0], POS),
  PKF("vec_sapcg_diag_32768", "s/row", "sapcg: vector work per iteration and row at 32768 rows per rank, jacobi PC", vec_row[1][0][1], POS),
  PKF("vec_sapcg_diag_262144", "s/row", "sapcg: vector work per iteration and row at 262144 rows per rank, jacobi PC", vec_row[1][0][2], POS),
  PKF("vec_sapcg_nondiag_4096", "s/row", "sapcg: vector work per iteration and row at 4096 rows per rank, ILU PC", vec_row[1][1][0], POS),
  PKF("vec_sapcg_nondiag_32768", "s/row", "sapcg: vector work per iteration and row at 32768 rows per rank, ILU PC", vec_row[1][1][1], POS),
  PKF("vec_sapcg_nondiag_262144", "s/row", "sapcg: vector work per iteration and row at 262144 rows per rank, ILU PC", vec_row[1][1][2], POS),
  PKF("vec_nbpcg_diag_4096", "s/row", "nbpcg: vector work per iteration and row at 4096 rows per rank, jacobi PC", vec_row[2][0][0], POS),
  PKF("vec_nbpcg_diag_32768", "s/row", "nbpcg: vector work per iteration and row at 32768 rows per rank, jacobi PC", vec_row[2][0][1], POS),
  PKF("vec_nbpcg_diag_262144", "s/row", "nbpcg: vector work per iteration and row at 262144 rows per rank, jacobi PC", vec_row[2][0][2], POS),
  PKF("vec_nbpcg_nondiag_4096", "s/row", "nbpcg: vector work per iteration and row at 4096 rows per rank, ILU PC", vec_row[2][1][0], POS),
  PKF("vec_nbpcg_nondiag_32768", "s/row", "nbpcg: vector work per iteration and row at 32768 rows per rank, ILU PC", vec_row[2][1][1], POS),
  PKF("vec_nbpcg_nondiag_262144", "s/row", "nbpcg: vector work per iteration and row at 262144 rows per rank, ILU PC", vec_row[2][1][2], POS),
  PKF("vec_pipecg_diag_4096", "s/row", "pipecg: vector work per iteration and row at 4096 rows per rank, jacobi PC", vec_row[3][0][0], POS),
  PKF("vec_pipecg_diag_32768", "s/row", "pipecg: vector work per iteration and row at 32768 rows per rank, jacobi PC", vec_row[3][0][1], POS),
  PKF("vec_pipecg_diag_262144", "s/row", "pipecg: vector work per iteration and row at 262144 rows per rank, jacobi PC", vec_row[3][0][2], POS),
  PKF("vec_pipecg_nondiag_4096", "s/row", "pipecg: vector work per iteration and row at 4096 rows per rank, ILU PC", vec_row[3][1][0], POS),
  PKF("vec_pipecg_nondiag_32768", "s/row", "pipecg: vector work per iteration and row at 32768 rows per rank, ILU PC", vec_row[3][1][1], POS),
  PKF("vec_pipecg_nondiag_262144", "s/row", "pipecg: vector work per iteration and row at 262144 rows per rank, ILU PC", vec_row[3][1][2], POS),
  PKF("vec_pipe2cg_diag_4096", "s/row", "pipe2cg: vector work per iteration and row at 4096 rows per rank, jacobi PC", vec_row[4][0][0], POS),
  PKF("vec_pipe2cg_diag_32768", "s/row", "pipe2cg: vector work per iteration and row at 32768 rows per rank, jacobi PC", vec_row[4][0][1], POS),
  PKF("vec_pipe2cg_diag_262144", "s/row", "pipe2cg: vector work per iteration and row at 262144 rows per rank, jacobi PC", vec_row[4][0][2], POS),
  PKF("vec_pipe2cg_nondiag_4096", "s/row", "pipe2cg: vector work per iteration and row at 4096 rows per rank, ILU PC", vec_row[4][1][0], POS),
  PKF("vec_pipe2cg_nondiag_32768", "s/row", "pipe2cg: vector work per iteration and row at 32768 rows per rank, ILU PC", vec_row[4][1][1], POS),
  PKF("vec_pipe2cg_nondiag_262144", "s/row", "pipe2cg: vector work per iteration and row at 262144 rows per rank, ILU PC", vec_row[4][1][2], POS),
  PKF("vec_cg_diag_4096", "s/row", "PETSc\'s cg: vector work per iteration and row at 4096 rows per rank, jacobi PC", vec_row[5][0][0], POS),
  PKF("vec_cg_diag_32768", "s/row", "PETSc\'s cg: vector work per iteration and row at 32768 rows per rank, jacobi PC", vec_row[5][0][1], POS),
  PKF("vec_cg_diag_262144", "s/row", "PETSc\'s cg: vector work per iteration and row at 262144 rows per rank, jacobi PC", vec_row[5][0][2], POS),
  PKF("vec_cg_nondiag_4096", "s/row", "PETSc\'s cg: vector work per iteration and row at 4096 rows per rank, ILU PC", vec_row[5][1][0], POS),
  PKF("vec_cg_nondiag_32768", "s/row", "PETSc\'s cg: vector work per iteration and row at 32768 rows per rank, ILU PC", vec_row[5][1][1], POS),
  PKF("vec_cg_nondiag_262144", "s/row", "PETSc\'s cg: vector work per iteration and row at 262144 rows per rank, ILU PC", vec_row[5][1][2], POS),
  PKF("noise_rate", "1/s", "detours per second of one core (fixed-work quanta)", noise_rate, NNEG),
  PKF("noise_mean", "s", "mean length of a detour", noise_mean, NNEG),
  PKF("noise_max", "s", "longest detour seen", noise_max, NNEG),
  PKF("ppn", "ranks", "ranks per node at calibration", ppn, PK_FIELD_COUNT),
  PKF("nodes", "nodes", "nodes at calibration", nodes, PK_FIELD_COUNT),
};
const PetscInt PKMachineNFields = (PetscInt)(sizeof(PKMachineFields) / sizeof(PKMachineFields[0]));

/* A comment line written before the first field of each group */
static const struct {
  const char *key, *title;
} PKSections[] = {
  {"alpha_on_short",    "Point-to-point between two ranks of one node: postal model T = alpha + beta * bytes per MPI protocol (000 section 5.1-5.2)"   },
  {"alpha_xs_short",    "Point-to-point between the two sockets of one node (004 section 3; none: one socket, the on-node values are used)"            },
  {"alpha_off_short",   "Point-to-point between nodes (none: no off-node pair at calibration)"                                                         },
  {"test_on",           "Progress: the MPI_Test calls between the chunks of the overlapped work, and progress without calls (docs/models.md §2.4)"    },
  {"RN",                "Network penalties: max-rate (Gropp, Olson, Samfass), queue search and contention (004), hops and congestion (000 5.6-5.7)"    },
  {"mem_bw",            "Node-local compute"                                                                                                           },
  {"vec_pcg_diag_4096", "Vector work of each CG type's own kernels per iteration and row (PKModelVecRatio; none: not measured, vector streams counted)"},
  {"noise_rate",        "Noise: detours seen by fixed-work quanta on every core at once"                                                               },
  {"ppn",               "The run that measured this profile"                                                                                           },
};

/*
   The embedded default profile, used when no -ksp_perfmodel_machine is given.

   Measured with bin/pipekrylov-calibrate on the project's development machine on 2026-11-21 (UTC), with the
   machine otherwise idle: 2 cores AMD EPYC (32 MiB L3), 24 GiB, Linux 6.18, Open MPI 4.1.4 (vader shared memory,
   mpi_yield_when_idle = 1 as tests/mpirun.sh runs it), PETSc 3.18.5; 2 ranks on one node, one per core.
     - postal and allreduce parameters, gamma: one full run (medians of 20 repeats per point; the short -> eager
       switch after 3072 bytes is vader's 4 KiB eager limit). The protocol fit of this virtual machine varies from
       run to run (rendezvous switch 3 to 48 KiB, on-node short latency 0.5 to 0.9 us, allreduce round 1.0 to
       1.9 us over 5 runs);
     - mem_bw, spmv_per_nnz, flop_time and the noise: medians over 4 runs (mem_bw 11.5 to 19.6 GB/s, spmv_per_nnz
       0.74 to 1.02 ns, noise 390 to 550 detours/s).
   An earlier calibration of the same machine under load (load average 6 to 9) gave 3 to 4 times slower memory and
   latencies: a profile describes a machine in a state. This machine is one node, so the off-node parameters, R_N
   and delta are "not available" here; config/profiles/ has a profile measured across emulated nodes
   (bin/pipekrylov-cluster). Recalibrate on the target machine.
*/
#define DEFAULT_PROFILE_NOTE "idle 2-core development machine, 2026-11-21, 2 ranks, one node"
static const PKMachineParams PKDefaultParams = {
  .alpha            = {{6.811e-7, 3.705e-6, 3.484e-6},    {0, 0, 0}},
  .beta             = {{7.822e-10, 2.433e-10, 7.453e-11}, {0, 0, 0}},
  .eager_limit      = {3072,                              0        },
  .rendezvous_limit = {49152,                             0        },
  .RN               = 0,
  .Rb               = {1.3418e10,                         0        },
  .gamma            = 2.761e-9,
  .delta            = 0,
  .hop_latency      = 0,
  .allreduce_alpha  = {1.669e-6,                          0        },
  .allreduce_beta   = {4.193e-10,                         0        },
  .test_time        = {1.4e-6,                            0        },
  .poll_time        = {5.0e-6,                            0        },
  .mem_bw           = 1.72e10,
  .spmv_per_nnz     = 8.2e-10,
  .flop_time        = 4.1e-10,
  .noise_rate       = 420.0,
  .noise_mean       = 4.7e-5,
  .noise_max        = 3.5e-3,
  .ppn              = 2,
  .nodes            = 1,
};
/* Fields the default could not measure: nothing off-node exists on one machine */
static const char *const PKDefaultUnavailable[] = {"amg_flop_time", "alpha_off_short", "beta_off_short", "alpha_off_eager", "beta_off_eager", "alpha_off_rendezvous", "beta_off_rendezvous", "eager_limit_off", "rendezvous_limit_off", "Rb_off", "allreduce_alpha_off", "allreduce_beta_off", "test_off", "test_idle_on", "test_idle_off", "recv_on", "recv_off", "post_on", "post_off", "poll_off", "nbc_async", "RN", "delta", "alpha_xs_short", "beta_xs_short", "alpha_xs_eager", "beta_xs_eager", "alpha_xs_rendezvous", "beta_xs_rendezvous", "stall_time", "msg_gap_on", "msg_gap_off", "sync_limit_on", "sync_limit_off", NULL};
/* ... and no vector work of any CG type (the vec_* fields: PKMachineDefault marks them all) */
#define PK_VEC_PREFIX "vec_"

static PetscReal *FieldReal(PKMachineParams *p, PetscInt i)
{
  return (PetscReal *)((char *)p + PKMachineFields[i].offset);
}

static PetscInt *FieldInt(PKMachineParams *p, PetscInt i)
{
  return (PetscInt *)((char *)p + PKMachineFields[i].offset);
}

static PetscReal FieldGet(const PKMachineParams *p, PetscInt i)
{
  if (PKMachineFields[i].kind == PK_FIELD_COUNT) return (PetscReal)*FieldInt((PKMachineParams *)p, i);
  return *FieldReal((PKMachineParams *)p, i);
}

static void FieldSet(PKMachineParams *p, PetscInt i, PetscReal v)
{
  if (PKMachineFields[i].kind == PK_FIELD_COUNT) *FieldInt(p, i) = (PetscInt)v;
  else *FieldReal(p, i) = v;
}

/* Sane ranges, by what a field measures: wide enough for any machine from a laptop to a supercomputer (and a
   loaded VM), narrow enough that the models stay finite and meaningful */
void PKMachineFieldRange(PetscInt i, PetscReal *lo, PetscReal *hi)
{
  const char *u = PKMachineFields[i].unit, *k = PKMachineFields[i].key;

  *lo = 0;
  *hi = PETSC_MAX_REAL;
  if (!strcmp(u, "s/byte")) *hi = 1e-3; /* 1 KB/s */
  else if (!strcmp(u, "bytes/s")) {
    *lo = 1e3;
    *hi = 1e15;
  } else if (!strcmp(u, "bytes")) {
    *lo = 1;
    *hi = 1e10;
  } else if (!strcmp(u, "1/s")) *hi = 1e9;
  else if (!strcmp(u, "ranks") || !strcmp(u, "nodes")) {
    *lo = 1;
    *hi = 1e8;
  } else if (!strcmp(k, "spmv_per_nnz") || !strcmp(k, "flop_time") || !strcmp(k, "amg_flop_time")) {
    *lo = 1e-14;
    *hi = 1e-4;
  } else if (!strcmp(k, "gamma")) *hi = 1e-2;
  else if (!strcmp(u, "s/row")) { /* a vector pass: 1e-14 s (a fast core, in cache) to 1 ms per row */ *lo = 1e-14;
    *hi                                                                                                    = 1e-3;
  } else if (!strcmp(u, "s")) { /* latencies, hop latency, noise lengths */
    *lo = PKMachineFields[i].kind == PK_FIELD_POSITIVE ? 1e-10 : 0;
    *hi = 1.0;
  }
}

static PetscInt KeyIndex(const char *key)
{
  for (PetscInt i = 0; i < PKMachineNFields; i++)
    if (!strcmp(key, PKMachineFields[i].key)) return i;
  return -1;
}

PetscErrorCode PKMachineGetNFields(PetscInt *n)
{
  PetscFunctionBegin;
  *n = PKMachineNFields;
  PetscFunctionReturn(0);
}

PetscErrorCode PKMachineFieldIndex(const char key[], PetscInt *idx)
{
  PetscFunctionBegin;
  *idx = KeyIndex(key);
  PetscCheck(*idx >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown machine profile key '%s'", key);
  PetscFunctionReturn(0);
}

PetscErrorCode PKMachineFieldIndexOf(const PKMachine *m, const void *member, PetscInt *idx)
{
  size_t off = (size_t)((const char *)member - (const char *)&m->p);

  PetscFunctionBegin;
  *idx = -1;
  for (PetscInt i = 0; i < PKMachineNFields; i++)
    if (PKMachineFields[i].offset == off) *idx = i;
  PetscCheck(*idx >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Address is not a field of the machine profile");
  PetscFunctionReturn(0);
}

PetscErrorCode PKMachineGetField(const PKMachine *m, PetscInt i, const char **key, PetscReal *value, PKParamSource *src)
{
  PetscFunctionBegin;
  PetscCheck(i >= 0 && i < PKMachineNFields, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Field %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", i, PKMachineNFields);
  if (key) *key = PKMachineFields[i].key;
  if (value) *value = FieldGet(&m->p, i);
  if (src) *src = m->src[i];
  PetscFunctionReturn(0);
}

PetscErrorCode PKMachineSetField(PKMachine *m, PetscInt i, PetscReal value, PKParamSource src)
{
  PetscFunctionBegin;
  PetscCheck(i >= 0 && i < PKMachineNFields, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Field %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", i, PKMachineNFields);
  FieldSet(&m->p, i, value);
  m->src[i] = src;
  PetscFunctionReturn(0);
}

const char *PKMachineSourceName(PKParamSource s)
{
  return (s >= PK_SRC_DEFAULT && s <= PK_SRC_NONE) ? PKParamSourceNames[s] : "unknown";
}

PetscErrorCode PKMachineSetAllSources(PKMachine *m, PKParamSource src)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < PKMachineNFields; i++) m->src[i] = src;
  PetscFunctionReturn(0);
}

PetscErrorCode PKMachineDefault(PKMachine *m)
{
  PetscFunctionBegin;
  PetscCheck(PKMachineNFields <= (PetscInt)(sizeof(m->src) / sizeof(m->src[0])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PKMachine.src[] is too small for %" PetscInt_FMT " fields", PKMachineNFields);
  PetscCall(PetscMemzero(m, sizeof(*m)));
  m->p = PKDefaultParams;
  PetscCall(PKMachineSetAllSources(m, PK_SRC_DEFAULT));
  for (PetscInt k = 0; PKDefaultUnavailable[k]; k++) {
    PetscInt i = KeyIndex(PKDefaultUnavailable[k]);
    if (i >= 0) m->src[i] = PK_SRC_NONE;
  }
  for (PetscInt i = 0; i < PKMachineNFields; i++)
    if (!strncmp(PKMachineFields[i].key, PK_VEC_PREFIX, strlen(PK_VEC_PREFIX))) m->src[i] = PK_SRC_NONE;
  PetscCall(PetscSNPrintf(m->origin, sizeof(m->origin), "embedded default (%s)", DEFAULT_PROFILE_NOTE));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Parsing. Everything is checked here so that a bad profile can never reach the model. */

static char *Trim(char *s)
{
  char *e;
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' || *s == '\v') s++;
  e = s + strlen(s);
  while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\f' || e[-1] == '\v')) *--e = 0;
  return s;
}

static PetscBool ValidKeyChars(const char *k)
{
  if (!*k) return PETSC_FALSE;
  for (; *k; k++)
    if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_')) return PETSC_FALSE;
  return PETSC_TRUE;
}

#define PARSE_FAIL(...) \
  do { \
    if (err) { \
      size_t l_ = 0; \
      snprintf(err, errlen, "machine profile '%s', line %d: ", name, lineno); \
      l_ = strlen(err); \
      if (l_ < errlen) snprintf(err + l_, errlen - l_, __VA_ARGS__); \
    } \
    rc = PETSC_ERR_FILE_UNEXPECTED; \
    goto done; \
  } while (0)

PetscErrorCode PKMachineParseString(const char text[], const char name[], PKMachine *m, char err[], size_t errlen)
{
  PetscErrorCode rc = 0;
  char          *buf, *line, *next;
  int            lineno = 0, version_line = 0, seen_line[sizeof(((PKMachine *)0)->src) / sizeof(PKParamSource)] = {0}; /* per field (PKMachineDefault checks the count fits) */
  PetscBool      have_version = PETSC_FALSE;

  if (err && errlen) err[0] = 0;
  if (!name) name = "(string)";
  buf = strdup(text ? text : "");
  if (!buf) {
    if (err) snprintf(err, errlen, "machine profile '%s': out of memory", name);
    return PETSC_ERR_MEM;
  }
  for (line = buf; line; line = next) {
    char    *hash, *eq, *key, *val, *end;
    double   v;
    PetscInt i;

    lineno++;
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    hash = strchr(line, '#');
    if (hash) *hash = 0;
    line = Trim(line);
    if (!*line) continue;
    eq = strchr(line, '=');
    if (!eq) PARSE_FAIL("missing '=' in '%s' (expected 'key = value')", line);
    *eq = 0;
    key = Trim(line);
    val = Trim(eq + 1);
    if (!*key) PARSE_FAIL("missing key before '='");
    if (!ValidKeyChars(key)) PARSE_FAIL("'%s' is not a key (letters, digits and '_' only)", key);
    if (!have_version) {
      if (strcmp(key, PK_PROFILE_VERSION_KEY)) PARSE_FAIL("not a pipekrylov machine profile: the first setting must be '%s = %d', found key '%s'", PK_PROFILE_VERSION_KEY, PK_PROFILE_VERSION, key);
      errno = 0;
      v     = strtod(val, &end);
      if (!*val || *Trim(end) || errno) PARSE_FAIL("version '%s' is not a number", val);
      if (v != PK_PROFILE_VERSION) PARSE_FAIL("unsupported profile version %s (this pipekrylov reads version %d)", val, PK_PROFILE_VERSION);
      have_version = PETSC_TRUE;
      version_line = lineno;
      continue;
    }
    if (!strcmp(key, PK_PROFILE_VERSION_KEY)) PARSE_FAIL("duplicate key '%s' (first set on line %d)", key, version_line);
    i = KeyIndex(key);
    if (i < 0) PARSE_FAIL("unknown key '%s'", key);
    if (seen_line[i]) PARSE_FAIL("duplicate key '%s' (first set on line %d)", key, seen_line[i]);
    seen_line[i] = lineno;
    if (!*val) PARSE_FAIL("missing value for '%s'", key);
    if (!strcmp(val, "none")) {
      if (PKMachineFields[i].kind == PK_FIELD_COUNT) PARSE_FAIL("'%s' cannot be 'none': it must be an integer >= 1", key);
      FieldSet(&m->p, i, 0.0);
      m->src[i] = PK_SRC_NONE;
      continue;
    }
    errno = 0;
    v     = strtod(val, &end);
    if (end == val || *Trim(end)) PARSE_FAIL("value '%s' of '%s' is not a number", val, key);
    if (!isfinite(v) || errno == ERANGE) PARSE_FAIL("value '%s' of '%s' is not a finite number", val, key);
    switch (PKMachineFields[i].kind) {
    case PK_FIELD_POSITIVE:
      if (!(v > 0)) PARSE_FAIL("impossible value %s for '%s': it must be > 0 (%s, %s)", val, key, PKMachineFields[i].unit, PKMachineFields[i].help);
      break;
    case PK_FIELD_NONNEG:
      if (!(v >= 0)) PARSE_FAIL("impossible value %s for '%s': it must be >= 0 (%s, %s)", val, key, PKMachineFields[i].unit, PKMachineFields[i].help);
      break;
    case PK_FIELD_COUNT:
      if (!(v >= 1) || v != floor(v) || v > 1e9) PARSE_FAIL("impossible value %s for '%s': it must be an integer >= 1", val, key);
      break;
    }
    {
      PetscReal lo, hi;
      PKMachineFieldRange(i, &lo, &hi);
      if (v < lo || v > hi) PARSE_FAIL("value %s of '%s' is outside the sane range [%g, %g] %s (%s)", val, key, (double)lo, (double)hi, PKMachineFields[i].unit, PKMachineFields[i].help);
    }
    FieldSet(&m->p, i, v);
    m->src[i] = PK_SRC_PROFILE;
  }
  if (!have_version) { PARSE_FAIL("end of file without the version line '%s = %d' (empty profile)", PK_PROFILE_VERSION_KEY, PK_PROFILE_VERSION); }
  /* Protocol limits must be ordered: the short range cannot extend past the eager range */
  for (int loc = 0; loc < PK_NLOC; loc++) {
    PetscInt ie = KeyIndex(loc == PK_ON_NODE ? "eager_limit_on" : "eager_limit_off");
    PetscInt ir = KeyIndex(loc == PK_ON_NODE ? "rendezvous_limit_on" : "rendezvous_limit_off");
    if (m->src[ie] == PK_SRC_NONE || m->src[ir] == PK_SRC_NONE) continue;
    if (m->p.eager_limit[loc] > m->p.rendezvous_limit[loc]) {
      lineno = seen_line[ir] ? seen_line[ir] : seen_line[ie];
      PARSE_FAIL("impossible value: %s = %g is below %s = %g (the eager range must follow the short range)", PKMachineFields[ir].key, (double)m->p.rendezvous_limit[loc], PKMachineFields[ie].key, (double)m->p.eager_limit[loc]);
    }
  }
done:
  free(buf);
  if (rc && err && errlen) { /* the message quotes the file: its control characters are shown, not sent */
    char *raw = strdup(err);
    if (raw) PKTextEscape(raw, err, errlen);
    free(raw);
  }
  return rc;
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Writing and viewing */

/* The shortest %g form that reads back to the same double: readable, and a written profile reads back exactly */
static void FormatExact(char *buf, size_t len, double v)
{
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, len, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

static void FormatValue(char *buf, size_t len, const PKMachine *m, PetscInt i)
{
  if (m->src[i] == PK_SRC_NONE) snprintf(buf, len, "none");
  else if (PKMachineFields[i].kind == PK_FIELD_COUNT) snprintf(buf, len, "%" PetscInt_FMT, *FieldInt((PKMachineParams *)&m->p, i));
  else FormatExact(buf, len, (double)FieldGet(&m->p, i));
}

/* A growing text buffer for PKMachineToString */
typedef struct {
  char  *t;
  size_t len, cap;
  int    oom;
} PKText;

static void PKTextAppend(PKText *b, const char *fmt, ...)
{
  va_list ap;
  int     n;

  if (b->oom) return;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = 2 * (b->len + (size_t)n + 1) + 256;
    char  *t   = (char *)realloc(b->t, cap);
    if (!t) {
      b->oom = 1;
      return;
    }
    b->t   = t;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->t + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

PetscErrorCode PKMachineToString(const PKMachine *m, const char comment[], char **text)
{
  PKText b = {NULL, 0, 0, 0};

  PetscFunctionBegin;
  PKTextAppend(&b, "# pipekrylov machine profile: the parameters of the analytic performance model.\n");
  PKTextAppend(&b, "# Use: -ksp_perfmodel_machine <this file>. Made by bin/pipekrylov-calibrate (mpiexec -n N bin/pipekrylov-calibrate -o file).\n");
  PKTextAppend(&b, "# Format: one 'key = value' per line, '#' starts a comment, SI units (s, bytes, bytes/s, 1/s);\n");
  PKTextAppend(&b, "# 'none' = not available (not measurable at calibration). A key left out keeps the embedded default.\n");
  if (comment && comment[0]) {
    const char *c = comment;
    while (*c) {
      size_t n = strcspn(c, "\n");
      PKTextAppend(&b, "# %.*s\n", (int)n, c);
      c += n;
      if (*c) c++;
    }
  }
  PKTextAppend(&b, "%s = %d\n", PK_PROFILE_VERSION_KEY, PK_PROFILE_VERSION);
  for (PetscInt i = 0; i < PKMachineNFields; i++) {
    char val[64], lhs[96];
    for (size_t s = 0; s < sizeof(PKSections) / sizeof(PKSections[0]); s++)
      if (!strcmp(PKSections[s].key, PKMachineFields[i].key)) PKTextAppend(&b, "\n# %s\n", PKSections[s].title);
    FormatValue(val, sizeof(val), m, i);
    snprintf(lhs, sizeof(lhs), "%s = %s", PKMachineFields[i].key, val);
    PKTextAppend(&b, "%-44s # %s, %s%s\n", lhs, PKMachineFields[i].unit, PKMachineFields[i].help, m->src[i] == PK_SRC_DEFAULT ? " (embedded default, not measured)" : "");
  }
  if (b.oom) free(b.t);
  PetscCheck(!b.oom, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory formatting a machine profile");
  *text = b.t;
  PetscFunctionReturn(0);
}

static PetscBool PKIsVecField(PetscInt i)
{
  return strncmp(PKMachineFields[i].key, PK_VEC_PREFIX, strlen(PK_VEC_PREFIX)) ? PETSC_FALSE : PETSC_TRUE;
}

/* The vec_<type>_<pc>_<rows> fields as a table, a type per line (one line when none was measured) */
static PetscErrorCode PKMachineViewVecWork(const PKMachine *m, PetscViewer viewer)
{
  PetscInt first = -1, nmeasured = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < PKMachineNFields; i++)
    if (PKIsVecField(i)) {
      if (first < 0) first = i;
      if (m->src[i] != PK_SRC_NONE) nmeasured++;
    }
  if (first < 0) PetscFunctionReturn(0);
  if (!nmeasured) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "%-22s %-13s %-8s %s (the types' vector streams counted)\n", "vec_<type>_<pc>_<rows>", "n/a", "s/row", PKParamSourceNames[PK_SRC_NONE]));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "vector work per iteration and row of each CG type, ns (vec_<type>_<diag|nondiag>_<rows>; -: n/a):\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %-8s %6s %6s %6s | %6s %6s %6s  source\n", "rows:", "4096", "32768", "262144", "4096", "32768", "262144"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %-8s %-20s | %s\n", "", "jacobi PC", "ILU PC"));
  /* the fields come type by type, jacobi's sizes then ILU's (PKMachineFields) */
  for (PetscInt t = 0; t < PK_VEC_NTYPES; t++) {
    char        line[256], name[32];
    size_t      len = 0;
    PetscInt    i0  = first + t * 2 * PK_VEC_NSIZES;
    const char *key = PKMachineFields[i0].key + strlen(PK_VEC_PREFIX);

    snprintf(name, sizeof(name), "%.*s", (int)(strchr(key, '_') ? strchr(key, '_') - key : (ptrdiff_t)strlen(key)), key);
    line[0] = 0;
    for (PetscInt j = 0; j < 2 * PK_VEC_NSIZES && len < sizeof(line); j++) {
      PetscInt i = i0 + j;
      if (m->src[i] == PK_SRC_NONE) len += (size_t)snprintf(line + len, sizeof(line) - len, " %6s%s", "-", j == PK_VEC_NSIZES - 1 ? " |" : "");
      else len += (size_t)snprintf(line + len, sizeof(line) - len, " %6.3f%s", 1e9 * (double)FieldGet(&m->p, i), j == PK_VEC_NSIZES - 1 ? " |" : "");
    }
    {
      PKParamSource src = m->src[i0]; /* the row's source: of its first measured value */
      for (PetscInt j = 0; j < 2 * PK_VEC_NSIZES && src == PK_SRC_NONE; j++) src = m->src[i0 + j];
      PetscCall(PetscViewerASCIIPrintf(viewer, "  %-8s%s  %s\n", name, line, PKParamSourceNames[src]));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PKMachineView(const PKMachine *m, PetscViewer viewer)
{
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "Machine profile:\n  %s\n", m->origin));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%-22s %-13s %-8s %s\n", "parameter", "value", "unit", "source"));
  for (PetscInt i = 0; i < PKMachineNFields; i++) {
    char val[64];
    if (PKIsVecField(i)) continue; /* a table of their own below */
    if (m->src[i] == PK_SRC_NONE) snprintf(val, sizeof(val), "n/a");
    else if (PKMachineFields[i].kind == PK_FIELD_COUNT) snprintf(val, sizeof(val), "%" PetscInt_FMT, *FieldInt((PKMachineParams *)&m->p, i));
    else snprintf(val, sizeof(val), "%.5g", (double)FieldGet(&m->p, i));
    PetscCall(PetscViewerASCIIPrintf(viewer, "%-22s %-13s %-8s %s\n", PKMachineFields[i].key, val, PKMachineFields[i].unit, PKParamSourceNames[m->src[i]]));
  }
  PetscCall(PKMachineViewVecWork(m, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

/*@C
   PKMachineEffective - the parameters the models use: the profile with what it lacks filled in, and what was filled

   Not Collective

   Input Parameter:
.  m - the profile

   Output Parameters:
+  eff  - its parameters, completed
-  gaps - what was filled in, for the report to say (may be NULL)

   Notes:
   A profile measured on one node has no off-node parameters: a run with off-node messages then uses the on-node
   ones, protocol by protocol (alpha and beta), and so for the eager and rendezvous limits, R_b and the allreduce's
   alpha and beta; without R_N there is no injection cap. A profile calibrated on one rank has no on-node
   communication either: the embedded default's values, never a free communication.

   Level: developer

.seealso: PKMachineDefault()
@*/
PetscErrorCode PKMachineEffective(const PKMachine *m, PKMachineParams *eff, PKMachineGaps *gaps)
{
  PKMachineGaps g;
  PKMachine     def;
  PetscInt      i, j;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&g, sizeof(g)));
  *eff = m->p;
  PetscCall(PKMachineDefault(&def));
  for (i = 0; i < PKMachineNFields; i++) {
    const char *key = PKMachineFields[i].key;
    size_t      off = PKMachineFields[i].offset, l;
    if (m->src[i] != PK_SRC_NONE || def.src[i] == PK_SRC_NONE || PKMachineFields[i].kind == PK_FIELD_COUNT) continue;
    if (!strstr(key, "_on") || strstr(key, "_off")) continue; /* on-node fields: alpha_on_*, beta_on_*, *_limit_on, Rb_on, allreduce_*_on */
    *(PetscReal *)((char *)eff + off) = *(const PetscReal *)((const char *)&def.p + off);
    l                                 = strlen(g.onnode_default);
    PetscCall(PetscSNPrintf(g.onnode_default + l, sizeof(g.onnode_default) - l, "%s%s", l ? ", " : "", key));
  }
  for (int k = 0; k < PK_NPROTO; k++) {
    PetscCall(PKMachineFieldIndexOf(m, &m->p.alpha[PK_OFF_NODE][k], &i));
    PetscCall(PKMachineFieldIndexOf(m, &m->p.beta[PK_OFF_NODE][k], &j));
    if (m->src[i] == PK_SRC_NONE || m->src[j] == PK_SRC_NONE) {
      size_t l = strlen(g.offnode_missing);
      PetscCall(PetscSNPrintf(g.offnode_missing + l, sizeof(g.offnode_missing) - l, "%s%s", l ? ", " : "", k == PK_PROTO_SHORT ? "short" : k == PK_PROTO_EAGER ? "eager" : "rendezvous"));
      eff->alpha[PK_OFF_NODE][k] = eff->alpha[PK_ON_NODE][k];
      eff->beta[PK_OFF_NODE][k]  = eff->beta[PK_ON_NODE][k];
      g.offnode_substituted      = PETSC_TRUE;
    }
  }
  /* between sockets: the on-node values where the profile has none (a one-socket machine has no such pair) */
  for (int k = 0; k < PK_NPROTO; k++) {
    PetscCall(PKMachineFieldIndexOf(m, &m->p.alpha_xs[k], &i));
    PetscCall(PKMachineFieldIndexOf(m, &m->p.beta_xs[k], &j));
    if (m->src[i] == PK_SRC_NONE || m->src[j] == PK_SRC_NONE) {
      eff->alpha_xs[k] = eff->alpha[PK_ON_NODE][k];
      eff->beta_xs[k]  = eff->beta[PK_ON_NODE][k];
    }
  }
  /* the rest of what off-node messages need; each one filled in from its on-node value is named */
#define PK_FILL_OFF(field) \
  do { \
    PetscCall(PKMachineFieldIndexOf(m, &m->p.field[PK_OFF_NODE], &i)); \
    if (m->src[i] == PK_SRC_NONE) { \
      size_t l                = strlen(g.offnode_filled); \
      eff->field[PK_OFF_NODE] = eff->field[PK_ON_NODE]; \
      PetscCall(PetscSNPrintf(g.offnode_filled + l, sizeof(g.offnode_filled) - l, "%s%s", l ? ", " : "", PKMachineFields[i].key)); \
    } \
  } while (0)
  PK_FILL_OFF(eager_limit);
  PK_FILL_OFF(rendezvous_limit);
  PK_FILL_OFF(Rb);
  PK_FILL_OFF(allreduce_alpha);
  PK_FILL_OFF(allreduce_beta);
  PK_FILL_OFF(test_time);
  PK_FILL_OFF(post_time);
  PK_FILL_OFF(test_idle);
  PK_FILL_OFF(recv_time);
  PK_FILL_OFF(poll_time);
#undef PK_FILL_OFF
  /* the burst gap: where not measured, a burst serializes (each message its whole postal cost, 000's sum) */
  for (int k = 0; k < PK_NLOC; k++) {
    PetscCall(PKMachineFieldIndexOf(m, &m->p.msg_gap[k], &i));
    if (m->src[i] == PK_SRC_NONE) eff->msg_gap[k] = -1;
  }
  /* whether a send waits for a late receiver: where not measured, the protocol fit's rendezvous limit stands in */
  for (int k = 0; k < PK_NLOC; k++) {
    PetscCall(PKMachineFieldIndexOf(m, &m->p.sync_limit[k], &i));
    if (m->src[i] == PK_SRC_NONE) eff->sync_limit[k] = -1;
  }
  PetscCall(PKMachineFieldIndexOf(m, &m->p.RN, &i));
  if (m->src[i] == PK_SRC_NONE || eff->RN <= 0) { /* no node injection cap known */
    size_t l = strlen(g.offnode_filled);
    eff->RN  = PETSC_MAX_REAL;
    PetscCall(PetscSNPrintf(g.offnode_filled + l, sizeof(g.offnode_filled) - l, "%sRN (no injection cap)", l ? ", " : ""));
  }
  if (gaps) *gaps = g;
  PetscFunctionReturn(0);
}
