static const char help[] = "Paper 000 section 3.1: allreduce and halo-exchange kernels, blocking and non-blocking, with busy waits\n"
                           "standing for the overlapped and the following computation. Prints the time per iteration and the\n"
                           "overlap achieved beside the postal / max-rate model's prediction from a machine profile.\n"
                           "  -kernel <allreduce,halo2d,halo3d>  kernels to run (comma list; default all three)\n"
                           "  -mode <blocking,nonblocking>       modes (default both)\n"
                           "  -sizes <b1,b2,...>                 message sizes in bytes (allreduce: the reduced vector; halo: each\n"
                           "                                     message) (default 8,64,512,4096,32768,262144)\n"
                           "  -wait_us <us>                      busy wait that the non-blocking kernel overlaps (default 100)\n"
                           "  -post_us <us>                      busy wait of the work that follows the communication (default -wait_us)\n"
                           "  -its <n>                           timed iterations per test (default 20)\n"
                           "  -tests <n>                         tests per case; each starts with a barrier and a -wait_us busy wait\n"
                           "                                     (default 5); the figure is the median over tests and iterations of\n"
                           "                                     the slowest rank's iteration time\n"
                           "  -test_chunks <n>                   the overlapped busy wait is split into n chunks with an MPI_Test after\n"
                           "                                     each (Open MPI has no progress thread; default 8; 0: no MPI_Test)\n"
                           "  -machine <file>                    machine profile (bin/pipekrylov-calibrate; also -ksp_perfmodel_machine);\n"
                           "                                     default: this host's cached profile, else the embedded default\n"
                           "  -node_size <k>                     every k consecutive ranks form a node (default: MPI_COMM_TYPE_SHARED)\n"
                           "  -csv <file>                        also write the table as CSV (bin/pipekrylov-plot --kernels draws it)\n\n";

/*
   The model is 000's postal model per MPI protocol and locality with the max-rate penalty for off-node messages
   (004 eq. 2) and the queue search gamma n^2 (004), evaluated here from the machine profile the report would use
   (-machine or -ksp_perfmodel_machine, else this host's cached profile, else the embedded default: the library's
   reader, examples/common/machine_choice.h; this example links the static archive). The formulas are written out
   here, as 000 section 3.1's kernels need them; they are those of src/perf/models/model_comm.c:
     postal(l, s)     = alpha[l][proto(s)] + beta[l][proto(s)] s          (proto: short <= eager_limit < eager <= rendezvous_limit < rendezvous)
     maxrate(off, s)  = alpha + ppn_off s / min(RN, ppn_off / beta)         (off-node only; ppn_off = ranks of the node sending off node)
     allreduce(s)     = sum_l rounds_l (allreduce_alpha[l] + s allreduce_beta[l]) + (s/8) flop_time (rounds_on + rounds_off)
                        rounds_on = ceil(log2 ppn), rounds_off = ceil(log2 nodes)  (recursive doubling, node-aware)
     halo             = sum over this rank's messages of maxrate/postal + gamma n^2, slowest rank
   Per iteration (000 section 3.1): blocking = comm + wait + post; non-blocking = wait + max(0, comm - wait) + post
   (the overlapped busy wait hides the communication up to its own length: full overlap, the model's ideal).
   Missing off-node parameters ('none', or a one-node profile) are replaced by the on-node ones, and it says so.
*/
#include <petscsys.h>
#include <pipekrylov/private/pkmodel.h>
#include "machine_choice.h"

typedef enum {
  ON,
  OFF
} Loc;

typedef struct {
  double alpha[2][3], beta[2][3], eager[2], rdv[2], RN, gamma, ar_alpha[2], ar_beta[2], flop_time;
  int    have_off; /* the profile has off-node parameters */
  char   origin[2 * PETSC_MAX_PATH_LEN + 64];
} Machine;

/* The few parameters of the model, from the library's profile ('none' fields have source PK_SRC_NONE: an off-node
   latency or per-byte cost of any protocol measured means the profile has off-node parameters) */
static PetscErrorCode MachineFrom(const PKMachine *pm, Machine *m)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  for (int l = 0; l < 2; l++) {
    for (int p = 0; p < 3; p++) {
      PetscInt i;
      m->alpha[l][p] = pm->p.alpha[l][p];
      m->beta[l][p]  = pm->p.beta[l][p];
      PetscCall(PKMachineFieldIndexOf(pm, &pm->p.alpha[l][p], &i));
      if (l == OFF && pm->src[i] != PK_SRC_NONE) m->have_off = 1;
    }
    m->eager[l]    = pm->p.eager_limit[l];
    m->rdv[l]      = pm->p.rendezvous_limit[l];
    m->ar_alpha[l] = pm->p.allreduce_alpha[l];
    m->ar_beta[l]  = pm->p.allreduce_beta[l];
  }
  {
    PetscInt i;
    PetscCall(PKMachineFieldIndexOf(pm, &pm->p.RN, &i));
    m->RN = pm->src[i] == PK_SRC_NONE ? 0 : pm->p.RN;
  }
  m->gamma     = pm->p.gamma;
  m->flop_time = pm->p.flop_time;
  PetscFunctionReturn(0);
}

static void MachineFillOff(Machine *m)
{
  if (m->have_off) return;
  for (int p = 0; p < 3; p++) m->alpha[OFF][p] = m->alpha[ON][p], m->beta[OFF][p] = m->beta[ON][p];
  m->eager[OFF] = m->eager[ON], m->rdv[OFF] = m->rdv[ON];
  m->ar_alpha[OFF] = m->ar_alpha[ON], m->ar_beta[OFF] = m->ar_beta[ON];
}

static int Proto(const Machine *m, Loc l, double s)
{
  return s <= m->eager[l] ? 0 : (s > m->rdv[l] ? 2 : 1);
}

static double Postal(const Machine *m, Loc l, double s)
{
  int p = Proto(m, l, s);
  return m->alpha[l][p] + m->beta[l][p] * s;
}

static double MaxRate(const Machine *m, double s, double ppn)
{
  int    p = Proto(m, OFF, s);
  double rate;
  if (m->beta[OFF][p] <= 0) return m->alpha[OFF][p];
  rate = ppn / m->beta[OFF][p];
  if (m->RN > 0 && m->RN < rate) rate = m->RN;
  return m->alpha[OFF][p] + ppn * s / rate;
}

static double CeilLog2(int n)
{
  int r = 0;
  while ((1 << r) < n) r++;
  return r;
}

static double ModelAllreduce(const Machine *m, double bytes, int ppn, int nodes)
{
  double r[2] = {CeilLog2(ppn), CeilLog2(nodes)}, t = 0;
  for (int l = 0; l < 2; l++) t += r[l] * (m->ar_alpha[l] > 0 ? m->ar_alpha[l] + bytes * m->ar_beta[l] : 2 * Postal(m, (Loc)l, bytes));
  return t + (bytes / 8) * m->flop_time * (r[0] + r[1]);
}

static void BusyWait(double us, MPI_Request *req, int nreq, int chunks, int *done)
{
  double t0 = MPI_Wtime(), len = us * 1e-6;
  int    k = 1;
  if (!req || chunks <= 0) {
    while (MPI_Wtime() - t0 < len) { }
    return;
  }
  for (;;) {
    double now = MPI_Wtime();
    if (now - t0 >= len) break;
    if (now - t0 >= len * k / chunks) { /* the end of a chunk: let MPI progress */
      if (!*done) MPI_Testall(nreq, req, done, MPI_STATUSES_IGNORE);
      k++;
    }
  }
  if (!*done) MPI_Testall(nreq, req, done, MPI_STATUSES_IGNORE);
}

typedef struct {
  MPI_Comm comm, cart;
  int      P, rank, kind;    /* 0 allreduce, 2 halo2d, 3 halo3d */
  int      nnb, nb[6];       /* halo neighbours, in send order */
  int      stag[6], rtag[6]; /* 2d: a message moving down dimension d, 2d+1: moving up */
  int      nb_off[6];        /* off node */
  double  *sbuf, *rbuf;
} Kernel;

/* one iteration; returns its time on this rank and whether the communication had completed before the wait */
static double Iterate(Kernel *k, int bytes, int nonblocking, double wait, double post, int chunks, int *early)
{
  MPI_Request req[12];
  int         nreq = 0, done = 0, count = bytes / 8 > 0 ? bytes / 8 : 1;
  double      t0 = MPI_Wtime();

  if (k->kind == 0) {
    if (!nonblocking) {
      MPI_Allreduce(k->sbuf, k->rbuf, count, MPI_DOUBLE, MPI_SUM, k->comm);
    } else {
      MPI_Iallreduce(k->sbuf, k->rbuf, count, MPI_DOUBLE, MPI_SUM, k->comm, &req[0]);
      nreq = 1;
    }
  } else {
    int n = bytes; /* halo messages in bytes */
    for (int i = 0; i < k->nnb; i++) MPI_Irecv((char *)k->rbuf + (size_t)i * n, n, MPI_BYTE, k->nb[i], k->rtag[i], k->cart, &req[nreq++]);
    for (int i = 0; i < k->nnb; i++) MPI_Isend((char *)k->sbuf + (size_t)i * n, n, MPI_BYTE, k->nb[i], k->stag[i], k->cart, &req[nreq++]);
    if (!nonblocking) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE), nreq = 0;
  }
  if (nonblocking) {
    BusyWait(wait, req, nreq, chunks, &done);
    *early = done;
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  } else BusyWait(wait, NULL, 0, 0, NULL);
  BusyWait(post, NULL, 0, 0, NULL);
  return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
  MPI_Comm    comm, node;
  PetscMPIInt rank, size, *rank_node;
  PetscInt    sizes[64], nsizes = 64, its = 20, tests = 5, chunks = 8, node_size = 0, ppn, nodes, nkind = 3, nmode = 2;
  PetscReal   wait_us = 100, post_us = -1;
  char        machine[PETSC_MAX_PATH_LEN] = "", csv[PETSC_MAX_PATH_LEN] = "", *kinds[3], *modes[2];
  PetscBool   flg, csv_set, want[4] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, want_mode[2] = {PETSC_FALSE, PETSC_FALSE};
  Machine     m;
  PKMachine   pm;
  FILE       *fcsv = NULL;
  double      tb_saved[64][4];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  sizes[0] = 8, sizes[1] = 64, sizes[2] = 512, sizes[3] = 4096, sizes[4] = 32768, sizes[5] = 262144;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-sizes", sizes, &nsizes, &flg));
  if (!flg) nsizes = 6;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-kernel", kinds, &nkind, &flg));
  if (!flg) {
    want[0] = want[2] = want[3] = PETSC_TRUE;
    nkind                       = 0;
  }
  for (PetscInt i = 0; i < nkind; i++) {
    PetscBool a, h2, h3;
    PetscCall(PetscStrcmp(kinds[i], "allreduce", &a));
    PetscCall(PetscStrcmp(kinds[i], "halo2d", &h2));
    PetscCall(PetscStrcmp(kinds[i], "halo3d", &h3));
    PetscCheck(a || h2 || h3, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-kernel %s: allreduce, halo2d or halo3d", kinds[i]);
    want[a ? 0 : (h2 ? 2 : 3)] = PETSC_TRUE;
    PetscCall(PetscFree(kinds[i]));
  }
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-mode", modes, &nmode, &flg));
  if (!flg) want_mode[0] = want_mode[1] = PETSC_TRUE, nmode = 0;
  for (PetscInt i = 0; i < nmode; i++) {
    PetscBool b, nb;
    PetscCall(PetscStrcmp(modes[i], "blocking", &b));
    PetscCall(PetscStrcmp(modes[i], "nonblocking", &nb));
    PetscCheck(b || nb, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-mode %s: blocking or nonblocking", modes[i]);
    want_mode[b ? 0 : 1] = PETSC_TRUE;
    PetscCall(PetscFree(modes[i]));
  }
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-wait_us", &wait_us, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-post_us", &post_us, NULL));
  if (post_us < 0) post_us = wait_us;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &its, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-tests", &tests, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-test_chunks", &chunks, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-node_size", &node_size, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ksp_perfmodel_machine", machine, sizeof(machine), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-machine", machine, sizeof(machine), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv, sizeof(csv), &csv_set));
  PetscCheck(its >= 1 && tests >= 1 && chunks >= 0 && node_size >= 0 && wait_us >= 0 && nsizes >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-its and -tests must be >= 1, -test_chunks, -node_size, -wait_us >= 0");
  for (PetscInt i = 0; i < nsizes; i++) PetscCheck(sizes[i] >= 1 && sizes[i] <= (1 << 26), comm, PETSC_ERR_ARG_OUTOFRANGE, "-sizes: %" PetscInt_FMT " bytes is out of [1, 64 MiB]", sizes[i]);

  {
    char shortname[PETSC_MAX_PATH_LEN], what[sizeof(m.origin)];
    PetscCall(PKExampleMachine(comm, machine, &pm, what, sizeof(what), shortname, sizeof(shortname)));
    PetscCall(MachineFrom(&pm, &m));
    PetscCall(PetscStrncpy(m.origin, what, sizeof(m.origin)));
  }
  MachineFillOff(&m);

  /* nodes, as the library groups ranks (PKCommGetNodes), and the ranks of the fullest one */
  {
    PetscMPIInt nn, most; /* PetscMPIInt: PKNodesGetSizes' type */
    PetscCall(PKCommGetNodes(comm, node_size, &nn, &rank_node));
    PetscCall(PKNodesGetSizes(size, nn, rank_node, NULL, &most));
    nodes = nn;
    ppn   = most;
    PetscCallMPI(MPI_Comm_split(comm, rank_node[rank], rank, &node)); /* this rank's node */
  }
  PetscCall(PetscPrintf(comm, "kernels (000 section 3.1): %d ranks on %" PetscInt_FMT " node(s), up to %" PetscInt_FMT " per node; busy waits %.0f us overlapped + %.0f us following; %" PetscInt_FMT " tests x %" PetscInt_FMT " iterations; MPI_Test every 1/%" PetscInt_FMT " of the overlapped wait\n", size, nodes, ppn, (double)wait_us, (double)post_us, tests, its, chunks));
  PetscCall(PetscPrintf(comm, "  model: postal per protocol, max-rate off node, queue search (000 5.1-5.3, 004), from %s\n", m.origin));
  if (!m.have_off) PetscCall(PetscPrintf(comm, "  (no off-node parameters: on-node values used off node)\n"));
  PetscCall(PetscPrintf(comm, "  time per iteration = median over tests and iterations of the slowest rank; comm = blocking minus the busy waits; overlap = hidden / min(comm, wait)\n"));
  PetscCall(PetscPrintf(comm, "  %-9s %-11s %8s %4s %11s %11s %7s %10s %10s %8s %6s\n", "kernel", "mode", "bytes", "msgs", "iter_us", "model_us", "gap", "comm_us", "model_c_us", "overlap", "early"));
  if (csv_set && !rank) {
    fcsv = fopen(csv, "w");
    PetscCheck(fcsv, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", csv);
    fprintf(fcsv, "kernel,mode,bytes,msgs,ranks,nodes,wait_s,post_s,t_iter_s,t_model_s,t_comm_s,t_comm_model_s,overlap,early\n");
  }

  for (int kind = 0; kind < 4; kind++) {
    Kernel      k;
    const char *kname = kind == 0 ? "allreduce" : (kind == 2 ? "halo2d" : "halo3d");
    int         maxb  = 0;
    double      comm_model[64];

    if (!want[kind]) continue;
    memset(&k, 0, sizeof(k));
    k.comm = comm, k.P = size, k.rank = rank, k.kind = kind;
    for (PetscInt i = 0; i < nsizes; i++) maxb = PetscMax(maxb, (int)sizes[i]);
    if (kind) {
      int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, nd = kind;
      PetscCallMPI(MPI_Dims_create(size, nd, dims));
      PetscCallMPI(MPI_Cart_create(comm, nd, dims, periods, 0, &k.cart));
      for (int d = 0; d < nd; d++) {
        int lo, hi;
        PetscCallMPI(MPI_Cart_shift(k.cart, d, 1, &lo, &hi));
        if (lo != MPI_PROC_NULL) k.stag[k.nnb] = 2 * d, k.rtag[k.nnb] = 2 * d + 1, k.nb[k.nnb++] = lo;
        if (hi != MPI_PROC_NULL) k.stag[k.nnb] = 2 * d + 1, k.rtag[k.nnb] = 2 * d, k.nb[k.nnb++] = hi;
      }
      PetscCall(PetscMalloc2((size_t)6 * maxb / 8 + 1, &k.sbuf, (size_t)6 * maxb / 8 + 1, &k.rbuf));
      PetscCall(PetscArrayzero(k.sbuf, (size_t)6 * maxb / 8 + 1));
      {
        /* which neighbours are off node (every rank's node: rank_node), and how many ranks of this node send off it */
        int ppn_off, any = 0;
        for (int i = 0; i < k.nnb; i++) k.nb_off[i] = rank_node[k.nb[i]] != rank_node[rank], any |= k.nb_off[i];
        PetscCallMPI(MPI_Allreduce(&any, &ppn_off, 1, MPI_INT, MPI_SUM, node));
        /* the halo model of this rank, then the slowest rank's */
        for (PetscInt i = 0; i < nsizes; i++) {
          double s = (double)sizes[i], t = m.gamma * k.nnb * k.nnb;
          for (int j = 0; j < k.nnb; j++) t += k.nb_off[j] ? MaxRate(&m, s, ppn_off > 0 ? ppn_off : 1) : Postal(&m, ON, s);
          comm_model[i] = t;
        }
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, comm_model, (int)nsizes, MPI_DOUBLE, MPI_MAX, comm));
      }
    } else {
      PetscCall(PetscMalloc2((size_t)maxb / 8 + 1, &k.sbuf, (size_t)maxb / 8 + 1, &k.rbuf));
      PetscCall(PetscArrayzero(k.sbuf, (size_t)maxb / 8 + 1));
      for (PetscInt i = 0; i < nsizes; i++) comm_model[i] = size > 1 ? ModelAllreduce(&m, 8.0 * PetscMax(sizes[i] / 8, 1), (int)PetscMin(ppn, size), (int)nodes) : 0;
    }
    for (PetscInt i = 0; i < nsizes; i++) {
      int msgs = kind ? k.nnb : 1;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &msgs, 1, MPI_INT, MPI_MAX, comm));
      for (int nb = 0; nb < 2; nb++) {
        double *t, med, model, tc, tcm = comm_model[i], ov = -1;
        int     early = 0, e, nearly = 0;
        if (!want_mode[nb]) continue;
        PetscCall(PetscMalloc1(tests * its, &t));
        (void)Iterate(&k, (int)sizes[i], nb, wait_us, post_us, (int)chunks, &e); /* warm-up */
        for (PetscInt r = 0; r < tests; r++) {
          PetscCallMPI(MPI_Barrier(comm));
          BusyWait(wait_us, NULL, 0, 0, NULL); /* let the network clear (000: 1 ms before each test) */
          for (PetscInt it = 0; it < its; it++) {
            e               = 0;
            t[r * its + it] = Iterate(&k, (int)sizes[i], nb, wait_us, post_us, (int)chunks, &e);
            early += e;
          }
        }
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, t, (int)(tests * its), MPI_DOUBLE, MPI_MAX, comm));
        PetscCallMPI(MPI_Allreduce(&early, &nearly, 1, MPI_INT, MPI_SUM, comm));
        med = PKMedian(tests * its, t);
        PetscCall(PetscFree(t));
        if (!nb) {
          model             = tcm + (wait_us + post_us) * 1e-6;
          tc                = med - (wait_us + post_us) * 1e-6;
          tb_saved[i][kind] = med;
        } else {
          model = wait_us * 1e-6 + PetscMax(0.0, tcm - wait_us * 1e-6) + post_us * 1e-6;
          tc    = want_mode[0] ? tb_saved[i][kind] - (wait_us + post_us) * 1e-6 : -1;
          if (want_mode[0]) {
            double hideable = PetscMin(PetscMax(tc, 0.0), wait_us * 1e-6);
            ov              = hideable > 0 ? (tb_saved[i][kind] - med) / hideable : -1;
          }
        }
        {
          char ovs[16] = "-", es[16] = "-", tcs[16] = "-";
          if (ov > -1) snprintf(ovs, sizeof(ovs), "%.2f", ov);
          if (nb) snprintf(es, sizeof(es), "%.2f", (double)nearly / (double)(size * tests * its));
          if (tc > -1) snprintf(tcs, sizeof(tcs), "%.2f", tc * 1e6);
          PetscCall(PetscPrintf(comm, "  %-9s %-11s %8" PetscInt_FMT " %4d %11.2f %11.2f %+6.1f%% %10s %10.2f %8s %6s\n", kname, nb ? "nonblocking" : "blocking", sizes[i], msgs, med * 1e6, model * 1e6, 100.0 * (model - med) / med, tcs, tcm * 1e6, ovs, es));
        }
        if (fcsv)
          fprintf(fcsv, "%s,%s,%d,%d,%d,%d,%.9e,%.9e,%.9e,%.9e,%.9e,%.9e,%.4f,%.4f\n", kname, nb ? "nonblocking" : "blocking", (int)sizes[i], msgs, size, (int)nodes, wait_us * 1e-6, post_us * 1e-6, med, model, tc, tcm, ov, nb ? (double)nearly / (double)(size * tests * its) : -1.0);
      }
    }
    PetscCall(PetscFree2(k.sbuf, k.rbuf));
    if (kind) PetscCallMPI(MPI_Comm_free(&k.cart));
  }
  if (fcsv) {
    fclose(fcsv);
    PetscCall(PetscPrintf(comm, "  wrote %s\n", csv));
  }
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCall(PetscFree(rank_node));
  PetscCall(PetscPrintf(comm, "  gap = (model - measured) / measured; early = share of non-blocking operations complete before their wait (a rank's MPI_Test saw it)\n"));
  PetscCall(PetscFinalize());
  return 0;
}
