#define _GNU_SOURCE /* sched_setaffinity: the hop latencies pin the ping-pong pair */
static const char help[] = "pipekrylov-calibrate: measure this machine's parameters for pipekrylov's performance model and write a profile.\n\n"
                           "  mpiexec -n N bin/pipekrylov-calibrate [-quick]     writes this host's profile to the user's cache\n"
                           "                                                    ($XDG_CACHE_HOME/pipekrylov/<host>.profile, ~/.cache if\n"
                           "                                                    unset); every report on this host then uses it\n"
                           "  mpiexec -n N bin/pipekrylov-calibrate -o file      then: app -ksp_perfmodel_machine file\n\n"
                           "Options:\n"
                           "  -o <file>          the profile to write (default: this host's profile in the cache; <host> = node name and\n"
                           "                     processor model)\n"
                           "  -cache_path        print this host's profile path in the cache and exit (nothing is measured)\n"
                           "  -quick             a fast, less precise run (fewer sizes and repeats; for tests)\n"
                           "  -node_size <k>     treat every k consecutive ranks as one node (default: MPI_COMM_TYPE_SHARED)\n"
                           "  -repeats <r>       repeats of every measurement, the median is kept (default 20, quick 5)\n"
                           "  -quantile <q>      the quantile of the repeats kept (default 0.5: the median; 0.25 on a shared machine)\n"
                           "  -sweeps <k>        repeat the ping-pong size sweeps k times, fit each size's median over them (default 1)\n"
                           "  -raw               also print every measured point (ping-pong sizes, allreduce sizes)\n"
                           "  -ksp_perfmodel_topology <file>  the switch tree, Slurm's topology.conf (the report's option): one-way\n"
                           "                     latency at each tree distance of the run, interleaved ping-pongs, hop_latency = the slope\n"
                           "                     per hop (000 Table 2); alpha_off and R_N between nodes of one leaf switch, delta across the spine;\n"
                           "                     under srun with Slurm's topology/tree plugin, the tasks' tree (SLURM_TOPOLOGY_ADDR) by default\n"
                           "  -ksp_perfmodel_netcounters <root>  each node's network counters in sysfs's layout, %h = the node's name (the\n"
                           "                     report's option): stall_time from a congesting burst across the spine\n"
                           "  -node_topology <spec>  hwloc topology of a node instead of this machine's (synthetic:<description>,\n"
                           "                     xml:<file>): ranks bound to different packages give alpha_xs, beta_xs\n"
                           "  -help              this text\n\n"
                           "What it measures (with warm-up, a barrier and a short pause before every repeat, medians of the repeats, as in\n"
                           "Eller et al. ICS'19 section 5.2):\n"
                           "  ping-pong alpha and beta for the short, eager and rendezvous ranges, on-node and off-node, with the protocol\n"
                           "  switch points found by a piecewise-linear fit; the max-rate injection bandwidth R_N (1..ppn simultaneous\n"
                           "  off-node pairs); the queue-search cost gamma (HighVolumePingPong with receives posted in reverse order); the\n"
                           "  contention cost delta (all pairs of two nodes at once, beyond the max-rate model); sync_limit, the largest\n"
                           "  message whose send completes while its receiver is late (an exchange with the receiver busy, on and off node);\n"
                           "  allreduce per-round alpha\n"
                           "  and beta on-node and across nodes; STREAM triad bandwidth; AIJ SpMV time per nonzero; flop time; the vector\n"
                           "  work per iteration and row of each CG type's own kernels (pcg, sapcg, nbpcg, pipecg, pipe2cg, PETSc's cg; a\n"
                           "  27-point problem per rank, jacobi and ILU, 16^3 to 64^3 rows), which a report scales another type's by; the time per\n"
                           "  model flop of BoomerAMG V-cycles at two sizes (the AMG model's t_i, from hypre's own hierarchies); and a noise\n"
                           "  profile from fixed-work quanta on every rank at once. Off-node values are 'none' when no two nodes exist.\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkprofile.h>
#include <pipekrylov/private/pkfiles.h>
#include <pipekrylov/private/pkamg.h>
#include <pipekrylov/private/pktopo.h>
#include <pipekrylov/private/pknet.h>
#include <pipekrylov/private/pklocality.h>
#include <pipekrylov/private/pkreport.h>
#include <petscdmda.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  PetscBool   quick, raw;
  PetscInt    node_size; /* 0: MPI_COMM_TYPE_SHARED */
  PetscInt    reps;      /* repeats of each measurement */
  PetscReal   q;         /* the quantile of the repeats that is kept (0.5: median) */
  PetscInt    sweeps;    /* ping-pong size sweeps, the median over them kept per size */
  PetscInt    maxit;     /* iterations inside one repeat (000: 20) */
  double      target;    /* seconds one repeat should last at most */
  double      gap;       /* pause before each repeat, s (000: 1 ms) */
  PetscInt   *node;      /* [size] node of each rank */
  PetscInt   *local;     /* [size] index of each rank within its node */
  PetscInt   *nodesize;  /* [nnodes] ranks per node */
  PetscInt    nnodes, ppn;
  PKMachine   m;
  /* the switch tree (-ksp_perfmodel_topology), the counters (-ksp_perfmodel_netcounters), the sockets (-node_topology) */
  char      topofile[PETSC_MAX_PATH_LEN], netroot[PETSC_MAX_PATH_LEN], nodetopo[PETSC_MAX_PATH_LEN];
  PKTopo    topo;
  PetscInt *tnode;    /* [nnodes] each node's node in the tree, -1 if not listed */
  char    **nodename; /* [nnodes] MPI_Get_processor_name of its first rank */
  char      ctrmissing[PETSC_MAX_PATH_LEN];
  char      notes[4096]; /* what these steps did: the profile's comments */
} Calib;

static double Now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The pause before a repeat lets the network drain what the previous repeat left in flight (000 section 5.2). A
   sleep rather than a busy wait: ranks share cores here. */
static void Pause(double s)
{
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* Idle ranks must not compete for the cores with the ranks being measured (ranks often outnumber cores, and a
   blocking MPI call polls): control collectives are non-blocking ones, tested with short sleeps in between. */
/* the sleep between tests: 20 us, longer where a measurement needs the cores to itself (the hop latencies) */
static double quiet_sleep = 2e-5;

static PetscErrorCode QuietWait(MPI_Request *req)
{
  int done = 0;

  PetscFunctionBegin;
  for (;;) {
    PetscCallMPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
    if (done) break;
    Pause(quiet_sleep);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode QuietBarrier(MPI_Comm comm)
{
  MPI_Request req;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Ibarrier(comm, &req));
  PetscCall(QuietWait(&req));
  PetscFunctionReturn(0);
}

static PetscErrorCode QuietAllreduce(const void *in, void *out, int n, MPI_Op op, MPI_Comm comm)
{
  MPI_Request req;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Iallreduce(in, out, n, MPI_DOUBLE, op, comm, &req));
  PetscCall(QuietWait(&req));
  PetscFunctionReturn(0);
}

static PetscErrorCode QuietBcast(double *v, int n, PetscMPIInt root, MPI_Comm comm)
{
  MPI_Request req;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Ibcast(v, n, MPI_DOUBLE, root, comm, &req));
  PetscCall(QuietWait(&req));
  PetscFunctionReturn(0);
}

/* After a quiet barrier ranks leave it up to a sleep apart: a zero-byte round trip lines a pair up before its clock
   starts, so that the partner's late arrival is not timed as message latency. */
static PetscErrorCode PairSync(Calib *c, PetscMPIInt peer, PetscBool first)
{
  MPI_Status st;

  PetscFunctionBegin;
  if (first) {
    PetscCallMPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 9, c->comm));
    PetscCallMPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 9, c->comm, &st));
  } else {
    PetscCallMPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 9, c->comm, &st));
    PetscCallMPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 9, c->comm));
  }
  PetscFunctionReturn(0);
}

/* The statistic kept of a measurement's repeats: the median (000 section 5.2), or with -quantile q another
   quantile (linear interpolation): on a machine shared with other jobs a lower quantile is closer to what a quiet
   machine would give, since only the disturbed repeats are slow. RepeatsOf: of n repeats (sorts v); Repeats: of
   the -repeats ones. */
static double RepeatsOf(Calib *c, PetscInt n, double *v)
{
  PetscReal med = PKMedian(n, v); /* sorts v */
  return c->q == 0.5 ? med : PKQuantileSorted(n, v, c->q);
}

static double Repeats(Calib *c, double *v)
{
  return RepeatsOf(c, c->reps, v);
}

static PetscErrorCode Set(Calib *c, PetscReal *member, double v)
{
  PetscInt i;
  PetscFunctionBegin;
  PetscCall(PKMachineFieldIndexOf(&c->m, member, &i));
  PetscCall(PKMachineSetField(&c->m, i, v, PK_SRC_MEASURED));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Nodes: from MPI_COMM_TYPE_SHARED (ranks that can share memory), or every -node_size consecutive ranks */

static PetscErrorCode FindNodes(Calib *c)
{
  PetscMPIInt nn, *rank_node;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(c->size, &c->node));
  PetscCall(PetscMalloc1(c->size, &c->local));
  /* the nodes as the library groups ranks (-node_size k: k consecutive ranks; else MPI_COMM_TYPE_SHARED), numbered
     in the order of their lowest ranks */
  PetscCall(PKCommGetNodes(c->comm, c->node_size, &nn, &rank_node));
  for (PetscMPIInt r = 0; r < c->size; r++) c->node[r] = rank_node[r];
  c->nnodes = nn;
  PetscCall(PetscFree(rank_node));
  PetscCall(PetscCalloc1(c->nnodes, &c->nodesize));
  c->ppn = 0;
  for (PetscMPIInt r = 0; r < c->size; r++) {
    c->local[r] = c->nodesize[c->node[r]]++;
    c->ppn      = PetscMax(c->ppn, c->nodesize[c->node[r]]);
  }
  PetscFunctionReturn(0);
}

/* The world rank with index 'local' on node 'node', or -1 */
static PetscMPIInt RankOf(Calib *c, PetscInt node, PetscInt local)
{
  for (PetscMPIInt r = 0; r < c->size; r++)
    if (c->node[r] == node && c->local[r] == local) return r;
  return -1;
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Ping-pong between ranks a and b. Collective over the world (idle ranks only join the barriers), so that nothing
   else runs during a repeat. Returns the median (or -quantile) over repeats of the one-way time (round trip / 2) on
   every rank. */

static PetscErrorCode PingPong(Calib *c, PetscMPIInt a, PetscMPIInt b, size_t bytes, char *buf, double *t)
{
  double     est = 0, *s;
  PetscInt   its;
  MPI_Status st;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(c->reps, &s));
  /* warm-up: two round trips (connections, registration, page faults), the second one timed for the count */
  for (int w = 0; w < 2; w++) {
    double t0 = MPI_Wtime();
    if (c->rank == a) {
      PetscCallMPI(MPI_Send(buf, (int)bytes, MPI_BYTE, b, 1, c->comm));
      PetscCallMPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, b, 1, c->comm, &st));
    } else if (c->rank == b) {
      PetscCallMPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, a, 1, c->comm, &st));
      PetscCallMPI(MPI_Send(buf, (int)bytes, MPI_BYTE, a, 1, c->comm));
    }
    est = MPI_Wtime() - t0;
  }
  PetscCall(QuietBcast(&est, 1, a, c->comm));
  its = (PetscInt)PetscMax(1, PetscMin((double)c->maxit, c->target / PetscMax(est, 1e-9)));
  for (PetscInt r = 0; r < c->reps; r++) {
    PetscCall(QuietBarrier(c->comm));
    Pause(c->gap);
    s[r] = 0;
    if (c->rank == a || c->rank == b) PetscCall(PairSync(c, c->rank == a ? b : a, c->rank == a ? PETSC_TRUE : PETSC_FALSE));
    if (c->rank == a) {
      double t0 = MPI_Wtime();
      for (PetscInt i = 0; i < its; i++) {
        PetscCallMPI(MPI_Send(buf, (int)bytes, MPI_BYTE, b, 2, c->comm));
        PetscCallMPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, b, 2, c->comm, &st));
      }
      s[r] = (MPI_Wtime() - t0) / (2.0 * (double)its);
    } else if (c->rank == b) {
      for (PetscInt i = 0; i < its; i++) {
        PetscCallMPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, a, 2, c->comm, &st));
        PetscCallMPI(MPI_Send(buf, (int)bytes, MPI_BYTE, a, 2, c->comm));
      }
    }
  }
  *t = Repeats(c, s);
  PetscCall(QuietBcast(t, 1, a, c->comm));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/*
   Protocol switch points from the size sweep: a piecewise-linear fit.

   MPI libraries send small messages inline with the envelope (short), mid-size ones into pre-allocated buffers
   (eager) and large ones after a handshake (rendezvous); each protocol has its own latency and per-byte cost, so
   the ping-pong time T(s) is piecewise linear in s with jumps or kinks at the switch points (000 Figure 5). We fit
   T(s) = alpha_k + beta_k s on three consecutive ranges of the sorted sizes and take the two split points that
   minimise the total residual, trying every split (O(n^2) fits, n ~ 45 sizes). Each range is fitted by weighted
   least squares with weights 1/T^2, i.e. the relative error is minimised: otherwise the largest messages, whose
   times are 10^4 times longer, would decide the fit alone and the short-message latency would be lost. A switch
   point is the largest size of the range below it.
   Not every MPI has three protocols on every path, and a third range always lowers the residual a little, if only
   by fitting noise. So the best split in two is computed too, and three ranges are kept only when they explain
   clearly more (an F test: ((R2 - R3) / 3) / (R3 / (n - 6)) > 4, three more parameters for the extra range and
   breakpoint). With two ranges the eager range is empty: eager_limit = rendezvous_limit and the eager parameters
   repeat the short ones.
   On a shared machine a median can still be hit by a time slice (a long message's repeat lasts long enough for
   the scheduler to take the core away in most repeats). So after the first fit, points more than
   max(0.3, 4 x the median) away from it in relative terms are dropped as outliers and the fit is done again on
   the rest; -raw marks them.
*/
typedef struct {
  double alpha, beta, res;
  int    i0, i1; /* first and last point of the range */
} Seg;

static void FitRange(const double *s, const double *t, int i0, int i1, Seg *g)
{
  double sw = 0, sx = 0, sy = 0, mx, my, sxx = 0, sxy = 0;
  for (int i = i0; i <= i1; i++) {
    double w = 1.0 / (t[i] * t[i]);
    sw += w;
    sx += w * s[i];
    sy += w * t[i];
  }
  mx = sx / sw;
  my = sy / sw;
  for (int i = i0; i <= i1; i++) {
    double w = 1.0 / (t[i] * t[i]);
    sxx += w * (s[i] - mx) * (s[i] - mx);
    sxy += w * (s[i] - mx) * (t[i] - my);
  }
  g->beta  = sxx > 0 ? sxy / sxx : 0;
  g->alpha = my - g->beta * mx;
  g->res   = 0;
  for (int i = i0; i <= i1; i++) {
    double r = (t[i] - g->alpha - g->beta * s[i]) / t[i];
    g->res += r * r;
  }
  g->i0 = i0;
  g->i1 = i1;
}

static double FitTwoRanges(const double *s, const double *t, int n, int minpts, Seg g[2])
{
  double best = PETSC_MAX_REAL;
  for (int e1 = minpts - 1; e1 + minpts < n; e1++) {
    Seg a, b;
    FitRange(s, t, 0, e1, &a);
    FitRange(s, t, e1 + 1, n - 1, &b);
    if (a.res + b.res < best) {
      best = a.res + b.res;
      g[0] = a;
      g[1] = b;
    }
  }
  return best;
}

static double FitThreeRanges(const double *s, const double *t, int n, int minpts, Seg g[3])
{
  double best = PETSC_MAX_REAL;
  for (int e1 = minpts - 1; e1 < n; e1++) {
    for (int e2 = e1 + minpts; e2 + minpts < n; e2++) {
      Seg a, b, d;
      FitRange(s, t, 0, e1, &a);
      FitRange(s, t, e1 + 1, e2, &b);
      FitRange(s, t, e2 + 1, n - 1, &d);
      if (a.res + b.res + d.res < best) {
        best = a.res + b.res + d.res;
        g[0] = a;
        g[1] = b;
        g[2] = d;
      }
    }
  }
  return best;
}

/* Returns whether three ranges were kept */
static PetscBool FitProtocols(const double *s, const double *t, int n, int minpts, Seg g[3])
{
  Seg    two[2];
  double r2 = FitTwoRanges(s, t, n, minpts, two), r3 = FitThreeRanges(s, t, n, minpts, g), F;

  F = r3 > 0 ? ((r2 - r3) / 3.0) / (r3 / (double)PetscMax(n - 6, 1)) : PETSC_MAX_REAL;
  if (F > 4.0) return PETSC_TRUE;
  g[0] = two[0];
  g[1] = two[0];
  g[2] = two[1];
  return PETSC_FALSE;
}

/* A per-byte cost must be > 0 and a latency too, and no protocol starts faster than the shortest message: over a
   short range with noisy medians the slope can come out <= 0 (the wire is not slower for 16 bytes than for 8), and
   a long range extrapolated to 0 bytes can give an intercept below the short-message latency (a token-bucket rate
   limit lets its first burst through at memory speed, for instance). So: a slope <= 0 becomes the smallest positive
   slope of the sweep, with the intercept refitted; an eager or rendezvous intercept below the short-range latency
   is pinned to it, with the slope refitted (weighted least squares with the intercept fixed); a short-range
   intercept <= 0 is floored at half the fastest time. Every such correction is reported. */
static void RefitAlpha(const double *s, const double *t, Seg *g)
{
  double sw = 0, sy = 0;
  for (int i = g->i0; i <= g->i1; i++) {
    double w = 1.0 / (t[i] * t[i]);
    sw += w;
    sy += w * (t[i] - g->beta * s[i]);
  }
  g->alpha = sy / sw;
}

static void RefitBeta(const double *s, const double *t, Seg *g)
{
  double num = 0, den = 0;
  for (int i = g->i0; i <= g->i1; i++) {
    double w = 1.0 / (t[i] * t[i]);
    num += w * (t[i] - g->alpha) * s[i];
    den += w * s[i] * s[i];
  }
  if (num > 0 && den > 0) g->beta = num / den;
}

static void MakePhysical(const double *s, const double *t, Seg g[3], char notes[], size_t len)
{
  static const char *const rn[3] = {"short", "eager", "rendezvous"};
  double                   bmin  = PETSC_MAX_REAL;
  char                     note[128];

  for (int k = 0; k < 3; k++)
    if (g[k].beta > 0) bmin = PetscMin(bmin, g[k].beta);
  if (bmin == PETSC_MAX_REAL) bmin = 1e-12;
  for (int k = 0; k < 3; k++) {
    if (!(g[k].beta > 0)) {
      g[k].beta = bmin;
      RefitAlpha(s, t, &g[k]);
      PetscSNPrintf(note, sizeof(note), " %s-range slope <= 0, set to %.3g;", rn[k], bmin);
      PetscStrlcat(notes, note, len);
    }
  }
  if (!(g[0].alpha > 0)) {
    double tmin = PETSC_MAX_REAL;
    for (int i = g[0].i0; i <= g[0].i1; i++) tmin = PetscMin(tmin, t[i]);
    g[0].alpha = 0.5 * tmin;
    PetscStrlcat(notes, " short-range intercept <= 0, floored;", len);
  }
  for (int k = 1; k < 3; k++) {
    if (g[k].alpha < g[0].alpha) {
      PetscSNPrintf(note, sizeof(note), " %s-range intercept %.3g us below the short latency, pinned to it;", rn[k], 1e6 * g[k].alpha);
      PetscStrlcat(notes, note, len);
      g[k].alpha = g[0].alpha;
      RefitBeta(s, t, &g[k]);
    }
  }
}

static double FitAt(const double *s, const Seg g[3], PetscBool three, double x)
{
  int k = x <= s[g[0].i1] ? 0 : (three && x <= s[g[1].i1]) ? 1 : 2;
  return g[k].alpha + g[k].beta * x;
}

/* Fit, drop outliers, fit again. s and t are compacted in place to the points kept; out[] marks the dropped ones
   of the original n points. Returns the number kept. */
static int FitProtocolsTrimmed(double *s, double *t, int n, int minpts, Seg g[3], PetscBool *three, PetscBool out[])
{
  double r[64], ar[64], med, thr;
  int    m = 0;

  *three = FitProtocols(s, t, n, minpts, g);
  for (int i = 0; i < n; i++) {
    double f = FitAt(s, g, *three, s[i]);
    r[i]     = f > 0 ? (t[i] - f) / f : 0;
    ar[i]    = PetscAbsReal(r[i]);
  }
  med = PKMedian(n, ar);
  thr = PetscMax(0.3, 4.0 * med);
  for (int i = 0; i < n; i++) out[i] = PetscAbsReal(r[i]) > thr ? PETSC_TRUE : PETSC_FALSE;
  for (int i = 0; i < n; i++)
    if (!out[i]) {
      s[m] = s[i];
      t[m] = t[i];
      m++;
    }
  if (m < n && m >= 3 * minpts) *three = FitProtocols(s, t, m, minpts, g);
  else if (m < n) { /* too few left: keep everything */
    for (int i = 0; i < n; i++) out[i] = PETSC_FALSE;
    return -1;
  }
  return m;
}

/* loc: on- or off-node; xs: between the sockets of a node instead (004's third level: alpha_xs, beta_xs only) */
static PetscErrorCode PostalSweep(Calib *c, PKLocality loc, PetscBool xs, PetscMPIInt a, PetscMPIInt b)
{
  const char *name = xs ? "cross-socket" : loc == PK_ON_NODE ? "on-node" : "off-node";
  double      s[64], t[64], s0[64], t0[64];
  PetscBool   out[64];
  int         n    = 0, nk;
  size_t      maxb = c->quick ? ((size_t)1 << 20) : ((size_t)1 << 22);
  char       *buf, notes[512] = "";
  Seg         g[3];
  PetscBool   three;

  PetscFunctionBegin;
  /* sizes 1, 2, 3, 4, 6, 8, 12, ... (powers of two and 1.5x between them; quick: powers of two only) */
  for (size_t p = 1; p <= maxb && n < 62; p *= 2) {
    s[n++] = (double)p;
    if (!c->quick && p >= 2 && p * 3 / 2 <= maxb) s[n++] = (double)(p * 3 / 2);
  }
  PetscCall(PetscMalloc1(maxb, &buf));
  PetscCall(PetscMemzero(buf, maxb));
  { /* warm the pair up before the first point (000 section 5.2): connections, buffers, caches, clock speed */
    PetscInt reps = c->reps;
    double   w;
    c->reps = 3;
    PetscCall(PingPong(c, a, b, 1, buf, &w));
    PetscCall(PingPong(c, a, b, maxb, buf, &w));
    PetscCall(PingPong(c, a, b, 1, buf, &w));
    c->reps = reps;
  }
  { /* -sweeps k: the whole sweep k times, each point's median over the sweeps: spreads a point's repeats over a
       longer time, so that one busy spell of the machine cannot spoil a range of sizes */
    double *ts;
    PetscCall(PetscMalloc1((size_t)n * c->sweeps, &ts));
    for (PetscInt w = 0; w < c->sweeps; w++)
      for (int i = 0; i < n; i++) PetscCall(PingPong(c, a, b, (size_t)s[i], buf, &ts[i * c->sweeps + w]));
    for (int i = 0; i < n; i++) t[i] = PKMedian(c->sweeps, &ts[i * c->sweeps]);
    PetscCall(PetscFree(ts));
  }
  PetscCall(PetscFree(buf));
  PetscCall(PetscArraycpy(s0, s, n));
  PetscCall(PetscArraycpy(t0, t, n));
  nk = FitProtocolsTrimmed(s, t, n, c->quick ? 3 : 4, g, &three, out);
  if (nk < 0) { /* the trimmed fit had too few points: the untrimmed one stands */
    PetscCall(PetscArraycpy(s, s0, n));
    PetscCall(PetscArraycpy(t, t0, n));
    three = FitProtocols(s, t, n, c->quick ? 3 : 4, g);
  } else if (nk < n) {
    char note[64];
    PetscCall(PetscSNPrintf(note, sizeof(note), " %d outlier(s) dropped;", n - nk));
    PetscCall(PetscStrlcat(notes, note, sizeof(notes)));
  }
  MakePhysical(s, t, g, notes, sizeof(notes));
  for (int k = 0; k < 3; k++) {
    PetscCall(Set(c, xs ? &c->m.p.alpha_xs[k] : &c->m.p.alpha[loc][k], g[k].alpha));
    PetscCall(Set(c, xs ? &c->m.p.beta_xs[k] : &c->m.p.beta[loc][k], g[k].beta));
  }
  if (!xs) {
    PetscCall(Set(c, &c->m.p.eager_limit[loc], s[g[0].i1]));
    PetscCall(Set(c, &c->m.p.rendezvous_limit[loc], s[g[1].i1]));
    PetscCall(Set(c, &c->m.p.Rb[loc], 1.0 / g[2].beta));
  }
  PetscCall(PetscPrintf(c->comm, "Ping-pong %s (ranks %d and %d), one-way time = alpha + beta * bytes, %s of %" PetscInt_FMT " repeats:\n", name, a, b, c->q == 0.5 ? "median" : "quantile", c->reps));
  for (int k = 0; k < 3; k++) {
    if (k == 1 && !three) {
      PetscCall(PetscPrintf(c->comm, "  %-10s no third range (two explain the sweep): eager = short, eager_limit = rendezvous_limit\n", "eager"));
      continue;
    }
    PetscCall(PetscPrintf(c->comm, "  %-10s %9.0f .. %9.0f bytes: alpha %9.3f us  beta %8.4f ns/byte (%8.1f MB/s)\n", k == 0 ? "short" : k == 1 ? "eager" : "rendezvous", s[g[k].i0], s[g[k].i1], 1e6 * g[k].alpha, 1e9 * g[k].beta, 1e-6 / g[k].beta));
  }
  if (notes[0]) PetscCall(PetscPrintf(c->comm, "  note:%s\n", notes));
  if (c->raw) {
    PetscCall(PetscPrintf(c->comm, "  bytes  one-way-time-us  fit-us\n"));
    for (int i = 0; i < n; i++) PetscCall(PetscPrintf(c->comm, "  %9.0f %12.3f %12.3f%s\n", s0[i], 1e6 * t0[i], 1e6 * FitAt(s, g, three, s0[i]), out[i] ? "  (outlier, not fitted)" : ""));
  }
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Max-rate (Gropp, Olson, Samfass; 000 section 5.5): k = 1..ppn pairs, local rank i of node 0 with local rank i of
   node 1, ping-pong large messages all at once. The one-way time per step T_k = alpha + k s / min(R_N, k R_b), so
   each k gives the rate the node sustained, k s / (T_k - alpha); R_N is the largest (a lower bound of the true
   injection limit when even ppn pairs do not saturate the link, which the summary says). */

static PetscErrorCode MaxRate(Calib *c)
{
  PetscInt kmax  = PetscMin(c->nodesize[0], c->nodesize[1]);
  size_t   bytes = c->quick ? ((size_t)1 << 18) : ((size_t)1 << 20);
  double   alpha = c->m.p.alpha[PK_OFF_NODE][PK_PROTO_RENDEZVOUS], best = 0, prev = 0, last = 0, *e;
  char    *buf;
  PetscInt bestk = 1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(bytes, &buf));
  PetscCall(PetscMemzero(buf, bytes));
  PetscCall(PetscMalloc1(c->reps, &e));
  PetscCall(PetscPrintf(c->comm, "Max-rate: k pairs between node 0 and node 1 ping-pong %zu bytes at once:\n", bytes));
  for (PetscInt k = 1; k <= kmax; k++) {
    PetscMPIInt peer = -1, me = c->rank;
    PetscBool   first = PETSC_FALSE;
    PetscInt    its;
    double      tk, rate, est = 0;
    MPI_Status  st;

    if (c->node[me] <= 1 && c->local[me] < k) {
      peer  = RankOf(c, 1 - c->node[me], c->local[me]);
      first = c->node[me] == 0 ? PETSC_TRUE : PETSC_FALSE;
    }
    for (int w = 0; w < 2; w++) { /* warm-up, second one timed */
      double t0 = MPI_Wtime();
      if (peer >= 0 && first) {
        PetscCallMPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 3, c->comm));
        PetscCallMPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 3, c->comm, &st));
      } else if (peer >= 0) {
        PetscCallMPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 3, c->comm, &st));
        PetscCallMPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 3, c->comm));
      }
      est = MPI_Wtime() - t0;
    }
    PetscCall(QuietAllreduce(MPI_IN_PLACE, &est, 1, MPI_MAX, c->comm));
    its = (PetscInt)PetscMax(1, PetscMin((double)c->maxit, c->target / PetscMax(est, 1e-9)));
    for (PetscInt r = 0; r < c->reps; r++) {
      double t0;
      PetscCall(QuietBarrier(c->comm));
      Pause(c->gap);
      if (peer >= 0) PetscCall(PairSync(c, peer, first));
      t0 = MPI_Wtime();
      for (PetscInt i = 0; i < its && peer >= 0; i++) {
        if (first) {
          PetscCallMPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 4, c->comm));
          PetscCallMPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 4, c->comm, &st));
        } else {
          PetscCallMPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 4, c->comm, &st));
          PetscCallMPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 4, c->comm));
        }
      }
      e[r] = peer >= 0 ? MPI_Wtime() - t0 : 0;
    }
    /* the slowest pair ends the step: local elapsed times after a common barrier, no global clock needed */
    PetscCall(QuietAllreduce(MPI_IN_PLACE, e, (int)c->reps, MPI_MAX, c->comm));
    tk   = Repeats(c, e) / (2.0 * (double)its);
    rate = (double)k * (double)bytes / PetscMax(tk - alpha, 1e-12);
    PetscCall(PetscPrintf(c->comm, "  %3" PetscInt_FMT " pair(s): one-way %10.2f us, node rate %9.1f MB/s\n", k, 1e6 * tk, 1e-6 * rate));
    prev = last;
    last = rate;
    if (rate > best) {
      best  = rate;
      bestk = k;
    }
  }
  PetscCall(Set(c, &c->m.p.RN, best));
  PetscCall(PetscPrintf(c->comm, "  R_N = %.1f MB/s (reached with %" PetscInt_FMT " pair(s)%s)\n", 1e-6 * best, bestk, bestk == kmax && kmax > 1 && last > 1.1 * prev ? "; still rising at ppn: a lower bound" : ""));
  PetscCall(PetscFree(e));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* HighVolumePingPong (004 Algorithm 1) between a and b: n messages of 'bytes' each way. With reverse, receives are
   posted in the opposite order to the sends, so every match walks the whole queue (004 section 4.1). Collective
   over the set of ranks in 'who' (pairs given by peer[]); returns the median over repeats of the max elapsed. */

static PetscErrorCode HVPP(Calib *c, PetscMPIInt peer, PetscBool first, PetscInt n, size_t bytes, PetscBool reverse, char *buf, MPI_Request *req, double *t)
{
  double *e;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(c->reps + 1, &e));
  for (PetscInt r = -1; r < c->reps; r++) { /* r = -1: warm-up */
    double t0, el = 0;
    PetscCall(QuietBarrier(c->comm));
    Pause(c->gap);
    if (peer >= 0) PetscCall(PairSync(c, peer, first));
    t0 = MPI_Wtime();
    if (peer >= 0) {
      for (int phase = 0; phase < 2; phase++) {
        PetscBool send = (phase == 0) == (first == PETSC_TRUE) ? PETSC_TRUE : PETSC_FALSE;
        for (PetscInt i = 0; i < n; i++) {
          PetscInt tag = (!send && reverse) ? n - 1 - i : i;
          if (send) PetscCallMPI(MPI_Isend(buf + (size_t)i * bytes, (int)bytes, MPI_BYTE, peer, (int)(10 + tag), c->comm, &req[i]));
          else PetscCallMPI(MPI_Irecv(buf + (size_t)tag * bytes, (int)bytes, MPI_BYTE, peer, (int)(10 + tag), c->comm, &req[i]));
        }
        PetscCallMPI(MPI_Waitall((int)n, req, MPI_STATUSES_IGNORE));
      }
      el = MPI_Wtime() - t0;
    }
    if (r >= 0) e[r] = el;
  }
  PetscCall(QuietAllreduce(MPI_IN_PLACE, e, (int)c->reps, MPI_MAX, c->comm));
  *t = Repeats(c, e);
  PetscCall(PetscFree(e));
  PetscFunctionReturn(0);
}

/* gamma: the difference between reverse-order and in-order HighVolumePingPong isolates the search, which is
   quadratic in n: dT(n) = gamma n^2. Each n >= 16 gives dT(n) / n^2 and gamma is their median: a least-squares
   fit through 0 would be decided by the largest n alone, where long queues also fall out of cache and the cost
   per step grows, while halo exchanges post tens of receives, not thousands. 004 treats gamma as independent of locality
   and protocol, so one pair (on-node if there is one) and 8-byte messages suffice. */
static PetscErrorCode QueueSearch(Calib *c, PetscMPIInt a, PetscMPIInt b)
{
  const PetscInt  nq_full[] = {1, 16, 64, 128, 256, 512, 1024}, nq_quick[] = {1, 32, 128, 256};
  const PetscInt *nq = c->quick ? nq_quick : nq_full;
  PetscInt        nn = c->quick ? 4 : 7, nmax = nq[nn - 1];
  size_t          bytes = 8;
  double          gn[16], gamma;
  int             ng = 0;
  char           *buf;
  MPI_Request    *req;
  PetscMPIInt     peer = c->rank == a ? b : c->rank == b ? a : -1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2((size_t)nmax * bytes, &buf, nmax, &req));
  PetscCall(PetscMemzero(buf, (size_t)nmax * bytes));
  PetscCall(PetscPrintf(c->comm, "Queue search (HighVolumePingPong, ranks %d and %d, %zu-byte messages):\n", a, b, bytes));
  for (PetscInt k = 0; k < nn; k++) {
    double tin, trev, d;
    PetscCall(HVPP(c, peer, c->rank == a ? PETSC_TRUE : PETSC_FALSE, nq[k], bytes, PETSC_FALSE, buf, req, &tin));
    PetscCall(HVPP(c, peer, c->rank == a ? PETSC_TRUE : PETSC_FALSE, nq[k], bytes, PETSC_TRUE, buf, req, &trev));
    d = trev - tin;
    if (nq[k] >= 16) gn[ng++] = d / ((double)nq[k] * (double)nq[k]);
    PetscCall(PetscPrintf(c->comm, "  n = %5" PetscInt_FMT ": in order %10.2f us, reversed %10.2f us, difference %10.2f us\n", nq[k], 1e6 * tin, 1e6 * trev, 1e6 * d));
  }
  gamma = PKMedian(ng, gn);
  if (gamma < 0) {
    PetscCall(PetscPrintf(c->comm, "  the reversed order was not slower (fit %.3g s): gamma = 0\n", gamma));
    gamma = 0;
  }
  PetscCall(Set(c, &c->m.p.gamma, gamma));
  PetscCall(PetscPrintf(c->comm, "  gamma = %.3g s (T_q = gamma n^2: %.3g us for n = %" PetscInt_FMT ")\n", gamma, 1e6 * gamma * (double)nmax * (double)nmax, nmax));
  PetscCall(PetscFree2(buf, req));
  PetscFunctionReturn(0);
}

/* The burst gap (LogGP's g): a halo exchange posts all its messages at once, and in most MPI libraries (and in a
   simulator) their latencies overlap: each message behind the first adds its software overhead and its bytes, not
   a whole postal cost. In-order HighVolumePingPong of n = 16 and of 1 eight-byte messages between a and b (a burst
   each way): g = (T(16) - T(1)) / (2 * 15), at least 0. The model takes min(g + beta s, alpha + beta s) for every
   short or eager message of an exchange behind its costliest (docs/models.md §1). */
static PetscErrorCode MessageGap(Calib *c, PKLocality loc, PetscMPIInt a, PetscMPIInt b)
{
  const PetscInt n     = 16;
  const size_t   bytes = 8;
  char          *buf;
  MPI_Request   *req;
  double         t1, tn, g;
  PetscMPIInt    peer = c->rank == a ? b : c->rank == b ? a : -1;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1((size_t)n * bytes, &buf));
  PetscCall(PetscMalloc1(n, &req));
  PetscCall(HVPP(c, peer, c->rank == a ? PETSC_TRUE : PETSC_FALSE, 1, bytes, PETSC_FALSE, buf, req, &t1));
  PetscCall(HVPP(c, peer, c->rank == a ? PETSC_TRUE : PETSC_FALSE, n, bytes, PETSC_FALSE, buf, req, &tn));
  g = PetscMax(0.0, (tn - t1) / (2.0 * (double)(n - 1)));
  PetscCall(Set(c, &c->m.p.msg_gap[loc], g));
  PetscCall(PetscPrintf(c->comm, "Burst gap %s (ranks %d and %d, %zu-byte messages): 1 message each way %.2f us, %" PetscInt_FMT " each way %.2f us: g = %.3g us per message\n", loc == PK_ON_NODE ? "on node" : "off node", a, b, bytes, 1e6 * t1, n, 1e6 * tn, 1e6 * g));
  PetscCall(PetscFree(buf));
  PetscCall(PetscFree(req));
  PetscFunctionReturn(0);
}

/* sync_limit: whether a send waits for a late receiver. A halo exchange posts its receives and sends, computes its
   interior rows and waits; where a neighbour is late, a message its sender can complete alone (eager: the library
   buffers it) costs nothing, but a rendezvous send completes only when the receiver's library answers, at its next
   call: the early rank then waits for the late one (docs/models.md §2.2). Which it is depends on the library and
   the transport, not on where the protocol fit puts a change of slope (a simulator, for one, completes sends
   below its detached threshold whatever its timing). Both ranks of the pair post a receive and a send of s bytes,
   b a time D after a, then each computes E = 2 D and waits; a's wait is timed, with b late by D and not late.
   A send that waits for b's next call makes a wait about D longer; one that does not, nothing (b's message arrives
   by D + its transfer < E). D = 50 us + 4 postal(s). The limit is the largest size below the first that waits,
   confirmed by the next size waiting too (a disturbed repeat can make one size look like it waits; larger messages
   wait if smaller ones do): the largest tried where none does, 1 byte where all do. */
static void Busy(double);

static PetscErrorCode SyncLimit(Calib *c, PKLocality loc, PetscMPIInt a, PetscMPIInt b)
{
  const PetscInt nsz = 12, reps = PetscMin(c->reps, c->quick ? 5 : 7);
  const size_t   smin = 512;
  size_t         smax = smin << (nsz - 1), limit = 0;
  char          *sbuf, *rbuf;
  double        *w[2];
  PetscInt       first = -1; /* the first size that waits, not yet confirmed */
  PetscBool      waits = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(smax, &sbuf, smax, &rbuf));
  PetscCall(PetscMalloc2(reps, &w[0], reps, &w[1]));
  for (PetscInt k = 0; k < nsz && !waits; k++) {
    const size_t s = smin << k;
    const double D = 50e-6 + 4 * PKModelPostal(&c->m.p, loc, (PetscReal)s);
    double       wm[2], extra;
    for (int late = 0; late < 2; late++) {
      for (PetscInt r = 0; r < reps; r++) {
        MPI_Request req[2];
        w[late][r] = 0;
        PetscCall(QuietBarrier(c->comm));
        Pause(c->gap);
        if (c->rank != a && c->rank != b) continue;
        PetscCall(PairSync(c, c->rank == a ? b : a, c->rank == a ? PETSC_TRUE : PETSC_FALSE));
        if (c->rank == b && late) Busy(D);
        PetscCallMPI(MPI_Irecv(rbuf, (int)s, MPI_BYTE, c->rank == a ? b : a, 3, c->comm, &req[0]));
        PetscCallMPI(MPI_Isend(sbuf, (int)s, MPI_BYTE, c->rank == a ? b : a, 3, c->comm, &req[1]));
        Busy(2 * D);
        {
          const double t0 = MPI_Wtime();
          PetscCallMPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
          w[late][r] = MPI_Wtime() - t0;
        }
      }
      wm[late] = RepeatsOf(c, reps, w[late]);
    }
    extra = wm[1] - wm[0];
    PetscCall(QuietBcast(&extra, 1, a, c->comm));
    if (extra > 0.5 * D) {
      if (first >= 0) waits = PETSC_TRUE; /* two sizes in a row: the first of them is where sends start to wait */
      else first = k;
    } else {
      first = -1; /* a size that waited alone was a disturbed measurement */
      limit = s;
    }
    if (c->raw) PetscCall(PetscPrintf(c->comm, "  %zu bytes: a late receiver (by %.0f us) adds %.1f us to the sender's wait\n", s, 1e6 * D, 1e6 * extra));
  }
  if (first == nsz - 1) waits = PETSC_TRUE; /* the largest size tried waits: nothing larger to confirm it */
  PetscCall(Set(c, &c->m.p.sync_limit[loc], limit ? (double)limit : 1.0));
  if (waits && limit) PetscCall(PetscPrintf(c->comm, "Late receiver %s (ranks %d and %d): sends up to %zu bytes complete without it; above, the sender waits for it\n", loc == PK_ON_NODE ? "on node" : "off node", a, b, limit));
  else if (waits) PetscCall(PetscPrintf(c->comm, "Late receiver %s (ranks %d and %d): every send tried (%zu bytes and more) waits for it\n", loc == PK_ON_NODE ? "on node" : "off node", a, b, smin));
  else PetscCall(PetscPrintf(c->comm, "Late receiver %s (ranks %d and %d): no send up to %zu bytes waits for it\n", loc == PK_ON_NODE ? "on node" : "off node", a, b, smax));
  PetscCall(PetscFree2(w[0], w[1]));
  PetscCall(PetscFree2(sbuf, rbuf));
  PetscFunctionReturn(0);
}

/* delta (004 section 4.2): every rank of a node exchanges n messages with the same local rank of its partner node,
   all pairs at once (in-order HighVolumePingPong). What the max-rate model does not explain is charged to the bytes l
   that cross the busiest link: delta = max(0, T - T_maxrate) / l. Without a tree the partners are nodes 2j and
   2j+1 and the busiest link is one node's (k n s per direction and phase). With a tree of two leaves or more the
   partners are the i-th nodes of two leaves, so that the bytes cross the spine: the report's l counts
   switch-to-switch links only (docs/models.md 7.4), and delta must be the cost of a byte waiting for one; l is then
   the m pairs' m k n s on the leaf's uplink. */
static PetscInt LeafOf(Calib *, PetscInt);
static void     Note(Calib *, const char *, ...) PETSC_ATTRIBUTE_FORMAT(2, 3);

static PetscInt ContentionPartners(Calib *c, PetscInt partner[], PetscInt *leafa, PetscInt *leafb)
{
  PetscInt m = 0, ia = 0, ib = 0;

  *leafa = c->topo ? LeafOf(c, 0) : -1;
  *leafb = -1;
  for (PetscInt n = 0; n < c->nnodes; n++) partner[n] = -1;
  if (*leafa < 0) return 0;
  for (PetscInt n = 0; n < c->nnodes && *leafb < 0; n++)
    if (LeafOf(c, n) >= 0 && LeafOf(c, n) != *leafa) *leafb = LeafOf(c, n);
  if (*leafb < 0) return 0;
  for (;;) { /* the i-th node of each leaf */
    while (ia < c->nnodes && LeafOf(c, ia) != *leafa) ia++;
    while (ib < c->nnodes && LeafOf(c, ib) != *leafb) ib++;
    if (ia >= c->nnodes || ib >= c->nnodes) break;
    partner[ia] = ib;
    partner[ib] = ia;
    m++;
    ia++;
    ib++;
  }
  return m;
}

static PetscErrorCode Contention(Calib *c)
{
  PetscInt     n = c->quick ? 8 : 16, k = PetscMin(c->nodesize[0], c->nodesize[1]);
  size_t       bytes = c->quick ? ((size_t)1 << 15) : ((size_t)1 << 16);
  PetscMPIInt  peer  = -1;
  PetscBool    first = PETSC_FALSE;
  char        *buf;
  MPI_Request *req;
  double       t, model, l, delta, rate, alpha;
  PKProtocol   proto;
  PetscInt     me = c->node[c->rank], *partner, m, leafa, leafb;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(c->nnodes, &partner));
  m = ContentionPartners(c, partner, &leafa, &leafb);
  if (m) { /* across the spine */
    if (partner[me] >= 0) {
      PetscInt kk = PetscMin(c->nodesize[me], c->nodesize[partner[me]]);
      if (c->local[c->rank] < kk) {
        peer  = RankOf(c, partner[me], c->local[c->rank]);
        first = (PetscBool)(LeafOf(c, me) == leafa);
      }
    }
  } else if (me / 2 * 2 + 1 < c->nnodes) {
    PetscInt other = (me % 2) ? me - 1 : me + 1;
    PetscInt kk    = PetscMin(c->nodesize[me], c->nodesize[other]);
    if (c->local[c->rank] < kk) {
      peer  = RankOf(c, other, c->local[c->rank]);
      first = (me % 2) ? PETSC_FALSE : PETSC_TRUE;
    }
  }
  PetscCall(PetscFree(partner));
  PetscCall(PetscMalloc2((size_t)n * bytes, &buf, n, &req));
  PetscCall(PetscMemzero(buf, (size_t)n * bytes));
  PetscCall(HVPP(c, peer, first, n, bytes, PETSC_FALSE, buf, req, &t));
  proto = bytes <= c->m.p.eager_limit[PK_OFF_NODE] ? PK_PROTO_SHORT : bytes <= c->m.p.rendezvous_limit[PK_OFF_NODE] ? PK_PROTO_EAGER : PK_PROTO_RENDEZVOUS;
  alpha = c->m.p.alpha[PK_OFF_NODE][proto];
  rate  = PetscMin(c->m.p.RN, (double)k / c->m.p.beta[PK_OFF_NODE][proto]);
  l     = (double)k * (double)n * (double)bytes; /* one node's link */
  model = 2.0 * ((double)n * alpha + l / rate);
  if (m) l *= (double)m; /* the leaf's uplink carries the m node pairs' bytes */
  delta = PetscMax(0.0, t - model) / (2.0 * l);
  PetscCall(Set(c, &c->m.p.delta, delta));
  if (m) {
    const char *na = "?", *nb = "?";
    (void)PKTopoGetSwitch(c->topo, leafa, &na, NULL, NULL, NULL);
    (void)PKTopoGetSwitch(c->topo, leafb, &nb, NULL, NULL, NULL);
    PetscCall(PetscPrintf(c->comm, "Contention across the spine: %" PetscInt_FMT " node pair(s) between leaf switches %s and %s\n", m, na, nb));
    Note(c, "delta: %" PetscInt_FMT " node pair(s) exchanging across the spine (leaves %s and %s), l on the leaf's uplink", m, na, nb);
  }
  PetscCall(PetscPrintf(c->comm, "Contention: %" PetscInt_FMT " pair(s) per node pair, %" PetscInt_FMT " x %zu bytes each way: measured %.3f ms, max-rate model %.3f ms\n", k, n, bytes, 1e3 * t, 1e3 * model));
  PetscCall(PetscPrintf(c->comm, "  delta = %.3g s/byte over %.0f bytes per link and direction%s\n", delta, 2 * l, t <= model ? " (nothing beyond the max-rate model)" : ""));
  PetscCall(PetscFree2(buf, req));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Allreduce: T(P, n) = ceil(log2 P) (a + 8 n b) (recursive doubling, 000 section 5.3), on sub-communicators of 2,
   4, ... ranks of one node (on-node) or of one rank per node (across nodes). Fit a, b by weighted least squares of
   T / rounds against bytes. */
static PetscErrorCode AllreduceFit(Calib *c, PKLocality loc)
{
  const PetscInt  cnt_full[] = {1, 8, 64, 512, 4096}, cnt_quick[] = {1, 64, 1024};
  const PetscInt *cnt  = c->quick ? cnt_quick : cnt_full;
  PetscInt        ncnt = c->quick ? 3 : 5, pmax, np = 0;
  double          xs[64], ys[64];
  double         *in, *out, *e;
  Seg             g;

  PetscFunctionBegin;
  pmax = loc == PK_ON_NODE ? c->nodesize[0] : c->nnodes;
  PetscCall(PetscMalloc3(cnt[ncnt - 1], &in, cnt[ncnt - 1], &out, c->reps, &e));
  for (PetscInt i = 0; i < cnt[ncnt - 1]; i++) in[i] = 1.0;
  PetscCall(PetscPrintf(c->comm, "Allreduce %s (one-way time per call):\n", loc == PK_ON_NODE ? "on one node" : "across nodes, one rank per node"));
  for (PetscInt P = 2; P <= pmax; P *= 2) {
    MPI_Comm  sub;
    PetscBool in_sub = loc == PK_ON_NODE ? (c->node[c->rank] == 0 && c->local[c->rank] < P) : (c->local[c->rank] == 0 && c->node[c->rank] < P);
    PetscInt  rounds = 0;
    while ((1 << rounds) < P) rounds++;
    PetscCallMPI(MPI_Comm_split(c->comm, in_sub ? 1 : MPI_UNDEFINED, c->rank, &sub));
    for (PetscInt k = 0; k < ncnt; k++) {
      PetscInt its = c->quick ? 10 : 20;
      for (PetscInt r = -1; r < c->reps; r++) {
        double t0, el = 0;
        PetscCall(QuietBarrier(c->comm));
        Pause(c->gap);
        if (in_sub) {
          PetscCallMPI(MPI_Barrier(sub)); /* line the participants up (see PairSync) */
          t0 = MPI_Wtime();
          for (PetscInt i = 0; i < its; i++) PetscCallMPI(MPI_Allreduce(in, out, (int)cnt[k], MPI_DOUBLE, MPI_SUM, sub));
          el = (MPI_Wtime() - t0) / (double)its;
        }
        if (r >= 0) e[r] = el;
      }
      PetscCall(QuietAllreduce(MPI_IN_PLACE, e, (int)c->reps, MPI_MAX, c->comm));
      xs[np] = 8.0 * (double)cnt[k];
      ys[np] = Repeats(c, e) / (double)rounds;
      if (c->raw) PetscCall(PetscPrintf(c->comm, "  P = %3" PetscInt_FMT ", %6" PetscInt_FMT " doubles: %10.2f us\n", P, cnt[k], 1e6 * ys[np] * (double)rounds));
      np++;
    }
    if (sub != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&sub));
  }
  FitRange(xs, ys, 0, np - 1, &g);
  if (!(g.beta > 0)) g.beta = c->m.p.beta[loc][PK_PROTO_EAGER];
  if (!(g.alpha > 0)) {
    double m = PETSC_MAX_REAL;
    for (int i = 0; i < np; i++) m = PetscMin(m, ys[i]);
    g.alpha = m;
  }
  PetscCall(Set(c, &c->m.p.allreduce_alpha[loc], g.alpha));
  PetscCall(Set(c, &c->m.p.allreduce_beta[loc], g.beta));
  PetscCall(PetscPrintf(c->comm, "  per round: alpha %.3f us, beta %.4f ns/byte (P = 2..%" PetscInt_FMT ", %" PetscInt_FMT "..%" PetscInt_FMT " doubles)\n", 1e6 * g.alpha, 1e9 * g.beta, pmax, cnt[0], cnt[ncnt - 1]));
  PetscCall(PetscFree3(in, out, e));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Progress calls (docs/models.md §2.4): the solvers that overlap a non-blocking reduction call MPI_Test
   between the chunks of the overlapped work, and on a TCP network each call is a system call. Measured on every pair
   of ranks of the locality at once (on one node: local ranks 2k and 2k+1; between nodes: the same local rank of
   nodes 2k and 2k+1), as the solvers run: test_time, one MPI_Test while a receive from the partner is outstanding;
   poll_time, how long a one-value MPI_Iallreduce of the pair takes to complete when it is polled as the solvers
   poll it: an MPI_Test after every piece of work (here a busy loop of PK_POLL_PIECE seconds, a chunk of a small
   SpMV). Back to back, the polls themselves slow the collective down (TCP: twice the time). */
#define PK_POLL_PIECE 5e-6
static void Busy(double s)
{
  const double t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < s) { }
}

static PetscErrorCode Poisson27(MPI_Comm, PetscInt, PetscInt *, DM *, Mat *);

/* A KSP of `type` with the PC `pctype` on A, its iterations fixed (tolerances no solve reaches), the monitor on; its
   options prefix its own, so that the performance options a user has in PETSC_OPTIONS or .petscrc (-ksp_perf_noise,
   -ksp_perfmodel_view, -ksp_perf_trace) are not this measurement's */
static PetscErrorCode MonitoredSolver(MPI_Comm comm, Mat A, const char prefix[], const char type[], PCType pctype, PetscInt its, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(comm, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, type));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(*ksp, 1e-50, 1e-50, PETSC_DEFAULT, its));
  PetscCall(KSPPerfMonitorSet(*ksp, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* What one progress call costs inside a solve (*t, s; *n = 1 where measured, else 0), and posting a reduction (*post,
   s, this rank's mean; < 0 where none was posted): pipecg on the pair's communicator, a 27-point problem of 14^3 rows
   per rank with jacobi, 40 iterations, 11 solves, the monitor on, which times every 7th MPI_Test and every post
   (src/core/reduce.c). Back to back a call costs a few hundredths of a microsecond on one node; in a solve it also
   receives what has arrived (the halo, the reduction's messages): 0.3 us there, 3.5 us between emulated nodes. A
   post that sends pays a TCP send between emulated nodes, 9 us on the rank that sends (Open MPI's two-rank
   reduction: one of the pair). The report of a run that polls uses its own timed calls and posts; these values are
   for the others' what-ifs of the types that poll.
   *poll (s; < 0 where not found, and on the pair's second rank): the time a polled reduction takes to complete in
   these solves, as the model reads it (PKModelPollFromTests, what a pipecg run's report infers from its own calls):
   the calls per reduction and the window's work less its calls and post. A one-value reduction polled after a
   barrier (Progress) takes about twice as long: in a solve the ranks post apart, and the later one often finds
   the other's message arrived; the what-ifs of the types that poll are for solves. */
static PetscErrorCode TestsInSolve(MPI_Comm pair, const PKLayout *lay, double t_idle, double *t, double *n, double *post, double *poll, double *recv)
{
  PetscInt       N;
  DM             da;
  Mat            A;
  Vec            b, x;
  KSP            ksp;
  double         tt = 0, nt = 0, tp = 0, np = 0, win = 0, its = 0, calls = 0, nred = 0;
  const PKStats *st;

  PetscFunctionBegin;
  *t = *n = 0;
  *post   = -1;
  *poll   = -1;
  *recv   = -1;
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(Poisson27(pair, 14, &N, &da, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(MonitoredSolver(pair, A, "pkcalibrate_tests_", "pipecg", PCJACOBI, 40, &ksp));
  for (PetscInt r = 0; r < 12; r++) { /* the first to warm up; 11 x 40 iterations: a call that sends costs 30x one
                                          that does not, so a mean of a few dozen varies by 15% */
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPPerfMonitorGetStats(ksp, &st));
    if (!r || !st) continue;
    tt += st->test_time;
    nt += st->test_timed;
    tp += st->post_time;
    np += st->post_timed;
    if (st->phase_mean) { /* the pair's first rank: the windows (mean over the pair), the calls per reduction */
      for (PetscInt k = 0; k < st->nits; k++) win += st->phase_mean[k * PK_PHASE_N + PK_PHASE_OVERLAP];
      its += st->nits;
      calls += (double)st->ntests / st->nranks;
      nred += st->nreductions;
    }
  }
  { /* the pair's means: one of Open MPI's two ranks sends when it posts (9 us between emulated nodes), the other not */
    double in[4] = {tt, nt, tp, np}, sum[4];
    PetscCall(QuietAllreduce(in, sum, 4, MPI_SUM, pair));
    tt = sum[0];
    nt = sum[1];
    tp = sum[2];
    np = sum[3];
  }
  if (np > 0) *post = tp / np;
  if (its > 0 && nred > 0 && nt > 0 && np > 0) {
    PKSolverConfig cfg;
    PetscReal      tpoll = -1;

    win = (win - calls * tt / nt) / its - tp / np; /* per window (one an iteration), less its calls and post */
    PetscCall(PKReportSolverConfig(ksp, "pipecg", &cfg));
    if (cfg.have_cost && cfg.cost.fused_last) cfg.pc_fused = PETSC_TRUE; /* jacobi, fused as pipecg runs it */
    if (win > 0) PetscCall(PKModelPollFromTests(&cfg, win, 0, tt / nt, calls / nred, &tpoll));
    if (win > 0 && tpoll > 0) *poll = tpoll;
    /* the pair's one halo message per SpMV (the 27-point grid split in two) */
    *recv = PKModelRecvFromTests(&cfg, lay, 1, its, calls, tt / nt, t_idle);
  }
  if (nt >= 32) { /* as many as a report wants before it uses its own, on each of the pair */
    *t = tt / nt;
    *n = 1;
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* A value this rank measured (>= 0) or not (< 0), as a sum and a count for the mean over the ranks that did */
static void MeasuredOrNot(double x, double slot[2])
{
  slot[0] = x >= 0 ? x : 0;
  slot[1] = x >= 0 ? 1 : 0;
}

static PetscErrorCode Progress(Calib *c, PKLocality loc)
{
  const PetscInt ntest   = c->quick ? 100 : 400;
  PetscMPIInt    partner = -1, color;
  MPI_Comm       pair;
  double        *et, *ep, v[11] = {0}, s[11];

  PetscFunctionBegin;
  if (loc == PK_ON_NODE) {
    PetscInt l = c->local[c->rank];
    if ((l ^ 1) < c->nodesize[c->node[c->rank]]) partner = RankOf(c, c->node[c->rank], l ^ 1);
  } else if ((c->node[c->rank] ^ 1) < c->nnodes) partner = RankOf(c, c->node[c->rank] ^ 1, c->local[c->rank]);
  color = partner >= 0 ? PetscMin(c->rank, partner) : MPI_UNDEFINED;
  PetscCallMPI(MPI_Comm_split(c->comm, color, c->rank, &pair));
  PetscCall(PetscMalloc2(c->reps, &et, c->reps, &ep));
  for (PetscInt r = -1; r < c->reps; r++) {
    double t0, tt = 0, tp = 0, one = 1.0, sum;
    PetscCall(QuietBarrier(c->comm));
    Pause(c->gap);
    if (pair != MPI_COMM_NULL) {
      MPI_Request req;
      int         flag = 0;
      double      in   = 0;
      PetscCallMPI(MPI_Irecv(&in, 1, MPI_DOUBLE, partner, 11, c->comm, &req));
      PetscCallMPI(MPI_Barrier(pair));
      t0 = MPI_Wtime();
      for (PetscInt i = 0; i < ntest; i++) PetscCallMPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
      tt = (MPI_Wtime() - t0) / (double)ntest;
      PetscCallMPI(MPI_Send(&one, 1, MPI_DOUBLE, partner, 11, c->comm));
      if (!flag) PetscCallMPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      PetscCallMPI(MPI_Barrier(pair));
      t0 = MPI_Wtime();
      PetscCallMPI(MPI_Iallreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, pair, &req));
      for (flag = 0; !flag;) {
        Busy(PK_POLL_PIECE);
        PetscCallMPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
      }
      tp = MPI_Wtime() - t0;
    }
    if (r >= 0) {
      et[r] = tt;
      ep[r] = tp;
    }
  }
  if (pair != MPI_COMM_NULL) {
    v[0]         = Repeats(c, et);
    v[1]         = Repeats(c, ep);
    v[2]         = 1;
    PKLayout lay = {2, loc == PK_ON_NODE ? 1 : 2, loc == PK_ON_NODE ? 2 : 1};
    double   post, poll, recv;
    PetscCall(TestsInSolve(pair, &lay, v[0], &v[3], &v[4], &post, &poll, &recv));
    MeasuredOrNot(post, &v[5]); /* the pair's mean, on both ranks */
    MeasuredOrNot(poll, &v[7]); /* the pair's first rank's */
    MeasuredOrNot(recv, &v[9]);
    PetscCallMPI(MPI_Comm_free(&pair));
  }
  PetscCall(QuietAllreduce(v, s, 11, MPI_SUM, c->comm));
  if (s[2] > 0) {
    /* a call as a solve pays it, where the solve timed enough of them; else back to back */
    PetscCall(Set(c, &c->m.p.test_time[loc], s[4] > 0 ? s[3] / s[4] : s[0] / s[2]));
    PetscCall(Set(c, &c->m.p.test_idle[loc], s[0] / s[2])); /* back to back, nothing arriving */
    if (s[4] > 0)
      PetscCall(PetscPrintf(c->comm, "Progress %s: MPI_Test %.3f us each in pipecg's solves (every 7th timed), %.3f us back to back: the solves' kept\n", loc == PK_ON_NODE ? "on one node" : "between nodes", 1e6 * s[3] / s[4], 1e6 * s[0] / s[2]));
    if (s[6] > 0) {
      PetscCall(Set(c, &c->m.p.post_time[loc], s[5] / s[6]));
      PetscCall(PetscPrintf(c->comm, "Progress %s: posting a reduction (MPI_Iallreduce) %.3f us in pipecg's solves (mean of %.0f ranks)\n", loc == PK_ON_NODE ? "on one node" : "between nodes", 1e6 * s[5] / s[6], s[6]));
    }
    /* a polled reduction as the solves see it, where they showed it; else as polled after a barrier */
    PetscCall(Set(c, &c->m.p.poll_time[loc], s[8] > 0 ? s[7] / s[8] : s[1] / s[2]));
    PetscCall(
      PetscPrintf(c->comm, "Progress %s: MPI_Test %.3f us kept; a one-value MPI_Iallreduce polled every %.0f us after a barrier completes in %.2f us (mean of %.0f ranks)", loc == PK_ON_NODE ? "on one node" : "between nodes", 1e6 * (double)c->m.p.test_time[loc], 1e6 * PK_POLL_PIECE, 1e6 * s[1] / s[2], s[2]));
    if (s[8] > 0) PetscCall(PetscPrintf(c->comm, ", in pipecg's solves in %.2f us (mean of %.0f pairs): the solves' kept\n", 1e6 * s[7] / s[8], s[8]));
    else PetscCall(PetscPrintf(c->comm, "\n"));
    if (s[10] > 0) {
      PetscCall(Set(c, &c->m.p.recv_time[loc], s[9] / s[10]));
      PetscCall(PetscPrintf(c->comm, "Progress %s: receiving a message inside the calls of pipecg's solves %.3f us (mean of %.0f pairs)\n", loc == PK_ON_NODE ? "on one node" : "between nodes", 1e6 * s[9] / s[10], s[10]));
    }
  }
  PetscCall(PetscFree2(et, ep));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Progress without calls (docs/models.md §2.4): PETSc's split reductions (VecNormBegin/End in KSPPIPECG, KSPGROPPCG,
   KSPPGMRES) make no MPI call between posting an MPI_Iallreduce and waiting for it, so what they overlap is what the
   library completes on its own: all of it with a progress thread, offloading hardware or a simulator; the first round
   only with Open MPI's libNBC and no progress thread (posting starts it; the first call then starts the second
   round, which needs the partner's call too). Measured on every rank at once: T, a one-value MPI_Iallreduce waited
   for at once (mean over the ranks, median of the repeats); then one left alone for 10 T + 50 us of busy work and
   tested once: nbc_async is the share of the ranks and repeats that found it complete. A count, not a time: under
   the simulator a wait's own time varies by about a microsecond from call to call, as much as the whole collective
   on 8 ranks. One round (2 ranks) completes at the first call either way: not measured. The window is bounded
   (0.1 s: ranks oversubscribing their cores make T milliseconds). */
static PetscErrorCode AsyncProgress(Calib *c)
{
  PetscInt rounds = 0;
  double  *e, tn = 0, window, f = 0, one = 1.0, sum;

  PetscFunctionBegin;
  while ((1 << rounds) < c->size) rounds++;
  if (rounds < 2) {
    Note(c, "nbc_async not measured: %d ranks make one round of recursive doubling, which completes at the first call with or without progress in between (calibrate on 4 or more ranks).", c->size);
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1(c->reps, &e));
  for (PetscInt pass = 0; pass < 2; pass++) {
    window = pass ? PetscMin(10 * tn + 50e-6, 0.1) : 0;
    for (PetscInt r = -1; r < c->reps; r++) {
      MPI_Request req;
      double      t0;
      int         flag = 0;
      PetscCall(QuietBarrier(c->comm));
      Pause(c->gap);
      PetscCallMPI(MPI_Barrier(c->comm));
      t0 = MPI_Wtime();
      PetscCallMPI(MPI_Iallreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, c->comm, &req));
      if (pass) {
        Busy(window);
        PetscCallMPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
      }
      if (!flag) PetscCallMPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      if (r >= 0) e[r] = (pass ? (double)flag : MPI_Wtime() - t0) / c->size;
    }
    PetscCall(QuietAllreduce(MPI_IN_PLACE, e, (int)c->reps, MPI_SUM, c->comm));
    if (!pass) tn = Repeats(c, e);
    else
      for (PetscInt r = 0; r < c->reps; r++) f += e[r] / c->reps;
  }
  PetscCall(Set(c, &c->m.p.nbc_async, f));
  PetscCall(PetscPrintf(c->comm, "Progress without calls: a one-value MPI_Iallreduce on %d ranks (%" PetscInt_FMT " rounds) waited for at once takes %.2f us; left alone for %.1f us, %.0f%% found it complete at their first call\n", c->size, rounds, 1e6 * tn, 1e6 * window, 100 * f));
  PetscCall(PetscFree(e));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* STREAM triad a = b + q c on every rank at once; bytes counted as STREAM does (24 per element). The per-rank rate
   is what one process of a full node gets, which is what the model's SpMV and vector terms need. */
static PetscErrorCode Stream(Calib *c)
{
  PetscInt n = c->quick ? 2000000 : 8000000;
  double  *x, *y, *z, *e, mine, sum;

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(n, &x, n, &y, n, &z, c->reps, &e));
  for (PetscInt i = 0; i < n; i++) {
    x[i] = 0;
    y[i] = 1;
    z[i] = 2;
  }
  for (PetscInt r = -1; r < c->reps; r++) {
    double t0;
    PetscCallMPI(MPI_Barrier(c->comm));
    t0 = Now();
    for (PetscInt i = 0; i < n; i++) x[i] = y[i] + 3.0 * z[i];
    if (r >= 0) e[r] = 24.0 * (double)n / (Now() - t0);
    y[r < 0 ? 0 : r % n] += x[n - 1] * 1e-300; /* keep the loop from being optimised away */
  }
  mine = Repeats(c, e);
  PetscCallMPI(MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, c->comm));
  PetscCall(Set(c, &c->m.p.mem_bw, sum / c->size));
  PetscCall(PetscPrintf(c->comm, "STREAM triad, all %d ranks at once, %" PetscInt_FMT " doubles per array: %.1f MB/s per rank (%.1f MB/s summed)\n", c->size, n, 1e-6 * sum / c->size, 1e-6 * sum));
  PetscCall(PetscFree4(x, y, z, e));
  PetscFunctionReturn(0);
}

/* SpMV: a 27-point AIJ matrix (DMDA box stencil, about m^3 rows per rank), PETSc's MatMult on every rank at once */
/* The 27-point Poisson operator on an N^3 DMDA grid over comm, about m^3 rows per rank */
static PetscErrorCode Poisson27(MPI_Comm comm, PetscInt m, PetscInt *Nout, DM *dap, Mat *Ap)
{
  PetscInt    N, xs, ys, zs, xm, ym, zm;
  PetscMPIInt size;
  DM          da;
  Mat         A;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  N = (PetscInt)PetscCeilReal(m * PetscPowReal((PetscReal)size, 1.0 / 3.0));
  PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, N, N, N, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {0}, col[27];
        PetscScalar v[27];
        PetscInt    nc = 0;
        row.i          = i;
        row.j          = j;
        row.k          = k;
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              if (i + di < 0 || i + di >= N || j + dj < 0 || j + dj >= N || k + dk < 0 || k + dk >= N) continue;
              col[nc].i = i + di;
              col[nc].j = j + dj;
              col[nc].k = k + dk;
              col[nc].c = 0;
              v[nc++]   = (di || dj || dk) ? -1.0 : 26.0;
            }
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  *Nout = N;
  *dap  = da;
  *Ap   = A;
  PetscFunctionReturn(0);
}

static PetscErrorCode SpMV(Calib *c)
{
  PetscInt m = c->quick ? 24 : 48, N, its = c->quick ? 5 : 10;
  DM       da;
  Mat      A;
  Vec      x, y;
  MatInfo  info;
  double  *e, mine, sum, nnz;

  PetscFunctionBegin;
  PetscCall(Poisson27(c->comm, m, &N, &da, &A));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  nnz = info.nz_used;
  PetscCall(PetscMalloc1(c->reps, &e));
  for (PetscInt r = -1; r < c->reps; r++) {
    double t0;
    PetscCallMPI(MPI_Barrier(c->comm));
    t0 = MPI_Wtime();
    for (PetscInt i = 0; i < its; i++) PetscCall(MatMult(A, x, y));
    if (r >= 0) e[r] = (MPI_Wtime() - t0) / (double)its / nnz;
  }
  mine = Repeats(c, e);
  PetscCallMPI(MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, c->comm));
  PetscCall(Set(c, &c->m.p.spmv_per_nnz, sum / c->size));
  /* 002 measures its t_i with an SpMV benchmark on all cores at once: 2 flops (multiply, add) per nonzero */
  PetscCall(Set(c, &c->m.p.flop_time, 0.5 * sum / c->size));
  PetscCall(PetscPrintf(c->comm, "SpMV, 27-point AIJ, %" PetscInt_FMT "^3 rows, %.0f nonzeros on rank 0: %.3f ns per nonzero (%.0f Mflop/s per rank); flop time %.3f ns\n", N, nnz, 1e9 * sum / c->size, 2e-6 / (sum / c->size), 0.5e9 * sum / c->size));
  PetscCall(PetscFree(e));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* The vector work of each CG type, as its own kernels do it (vec_<type>_<pc>_<rows>: PKModelVecRatio). A report
   predicts the other types from its own measured vector time; counting vector streams alone misses how differently
   the types' fused passes run (per stream, 0.6x to 1.8x pcg's in the solves of bench/accuracy on an AMD EPYC VM: the
   dots' arithmetic, the number of passes, a diagonal PC inside the pass). So every rank solves a 27-point Poisson
   problem of its own (PETSC_COMM_SELF: no communication in the vector phase), all ranks at once as they share the
   node's memory in a solve, with each type in turn and the monitor on; the vector phase over the iterations, and
   PETSc's cg's reduce phase too (its VecDot and VecNorm are logged with their MPI_Allreduce, so the hooks charge the
   local sums there: on one rank they are all it holds), per row. With jacobi (fused into the pass by pipecg and
   pipe2cg) and with ILU (applied apart, as block Jacobi on one rank is), at 16^3, 32^3 and 64^3 rows (-quick: not
   64^3). */
static PetscErrorCode VecWork(Calib *c)
{
  static const char *const types[PK_VEC_NTYPES] = {"pcg", "sapcg", "nbpcg", "pipecg", "pipe2cg", "cg"};
  const PetscInt           side[PK_VEC_NSIZES] = {16, 32, 64}, its[PK_VEC_NSIZES] = {30, 20, 10};
  const PetscInt           nsz = c->quick ? 2 : PK_VEC_NSIZES, reps = PetscMin(c->reps, 5);
  double                  *e;

  PetscFunctionBegin;
  PetscCall(PipeKrylovInitializePackage()); /* the types, when this tool is not loaded as a plugin's user */
  PetscCall(PetscMalloc1(reps, &e));
  PetscCall(PetscPrintf(c->comm, "Vector work per iteration and row of each CG type, every rank alone at once (ns; jacobi / ILU PC):\n"));
  for (PetscInt z = 0; z < nsz; z++) {
    PetscInt N;
    DM       da;
    Mat      A;
    Vec      b, x;

    PetscCall(Poisson27(PETSC_COMM_SELF, side[z], &N, &da, &A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(PetscPrintf(c->comm, "  %" PetscInt_FMT " rows:", N * N * N));
    for (PetscInt t = 0; t < PK_VEC_NTYPES; t++) {
      double v[2];
      for (PetscInt pc = 0; pc < 2; pc++) {
        KSP ksp;
        PetscCall(MonitoredSolver(PETSC_COMM_SELF, A, "pkcalibrate_vecwork_", types[t], pc ? PCILU : PCJACOBI, its[z], &ksp));
        PetscCall(KSPSetUp(ksp));
        for (PetscInt r = -1; r < reps; r++) { /* one solve to warm up */
          const PKStats *st;
          double         sum = 0;
          PetscCallMPI(MPI_Barrier(c->comm));
          PetscCall(KSPSolve(ksp, b, x));
          PetscCall(KSPPerfMonitorGetStats(ksp, &st));
          /* the iteration rows' vector phase (a report's t_vec is the vector work over the whole solve per iteration,
             set-up included, and inside overlap windows too: the same here within a few per cent, the types' vector
             passes being outside their windows and the set-up short against 10-30 iterations) */
          if (st && st->nits > 0 && st->phase_mean) { /* else e[r] stays 0: not measured (no rank stops alone) */
            for (PetscInt k = 0; k < st->nits; k++) sum += st->phase_mean[k * PK_PHASE_N + PK_PHASE_VEC] + (strcmp(types[t], "cg") ? 0 : st->phase_mean[k * PK_PHASE_N + PK_PHASE_REDUCE]);
            sum /= st->nits * ((double)N * N * N);
          }
          if (r >= 0) e[r] = sum;
        }
        {
          double mine = RepeatsOf(c, reps, e), all, least;
          PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, c->comm));
          PetscCallMPI(MPI_Allreduce(&mine, &least, 1, MPI_DOUBLE, MPI_MIN, c->comm));
          v[pc] = all / c->size;
          if (least > 0) PetscCall(Set(c, &c->m.p.vec_row[t][pc][z], v[pc])); /* else left 'none' */
        }
        PetscCall(KSPDestroy(&ksp));
      }
      PetscCall(PetscPrintf(c->comm, " %s %.2f / %.2f%s", types[t], 1e9 * v[0], 1e9 * v[1], t + 1 < PK_VEC_NTYPES ? "," : "\n"));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&da));
  }
  PetscCall(PetscFree(e));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* AMG: time the V-cycle (one PCApply) of a BoomerAMG hierarchy on every rank at once, read hypre's real hierarchy
   (PKAMGHierarchyFromPC) and evaluate the cycle model of 002 IV (PKModelAMGCycle) on it with this run's
   communication parameters. Its compute is linear in t_i: model = t F + C with F the model flops per rank and C the
   modelled communication. BoomerAMG's kernels cost more per flop as the hierarchy leaves the caches, so one size
   fits only that size (fitted at 24^3 rows per rank, the report was 13-34% low at 32^3 and right at 16^3): the fit
   uses two sizes, m^3 and (2m)^3 rows per rank, and takes the t that minimises the squared relative errors of both,
   t = sum(F_i (M_i - C_i) / M_i^2) / sum(F_i^2 / M_i^2). It is what BoomerAMG's kernels really cost here
   (Gauss-Seidel sweeps and the transfers are slower per flop than an SpMV). */
#if defined(PETSC_HAVE_HYPRE)
static PetscErrorCode AMGCycleAt(Calib *c, PetscInt m, PetscInt *Nout, PetscInt *Lout, double *M, double *F, double *C, PetscBool *found)
{
  PetscInt    N, its = c->quick ? 3 : 5, L = 0;
  DM          da;
  Mat         A;
  Vec         x, y;
  KSP         ksp;
  PC          pc;
  PKAMGLevel *lev;
  PKAMGInput  ai;
  PKAMGResult r1;
  char        why[128];
  double     *e, mine;

  PetscFunctionBegin;
  PetscCall(Poisson27(c->comm, m, &N, &da, &A));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(KSPCreate(c->comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCHYPRE));
  PetscCall(PCHYPRESetType(pc, "boomeramg"));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PCApply(pc, x, y)); /* warm-up */
  PetscCall(PetscMalloc1(PK_AMG_MAXLEVELS, &lev));
  PetscCall(PKAMGHierarchyFromPC(pc, PK_AMG_MAXLEVELS, lev, &L, found, why, sizeof(why)));
  if (!*found) PetscCall(PetscPrintf(c->comm, "AMG: the BoomerAMG hierarchy could not be read (%s): amg_flop_time not available\n", why));
  else {
    PetscCall(PetscMalloc1(c->reps, &e));
    for (PetscInt r = -1; r < c->reps; r++) {
      double t0;
      PetscCallMPI(MPI_Barrier(c->comm));
      t0 = MPI_Wtime();
      for (PetscInt i = 0; i < its; i++) PetscCall(PCApply(pc, x, y));
      if (r >= 0) e[r] = (MPI_Wtime() - t0) / (double)its;
    }
    mine = Repeats(c, e);
    PetscCallMPI(MPI_Allreduce(&mine, M, 1, MPI_DOUBLE, MPI_MAX, c->comm)); /* a V-cycle waits for the slowest */
    PetscCall(PetscFree(e));
    PetscCall(PetscMemzero(&ai, sizeof(ai)));
    ai.L             = L;
    ai.lev           = lev;
    ai.P             = c->size;
    ai.offnode       = (PetscBool)(c->nnodes > 1);
    ai.msgs_per_link = -1;
    {
      PKMachineParams p = c->m.p; /* this run's communication parameters; unmeasured off-node ones: on-node */
      for (int k = 0; k < PK_NPROTO; k++)
        if (!(p.alpha[PK_OFF_NODE][k] > 0) || !(p.beta[PK_OFF_NODE][k] > 0)) {
          p.alpha[PK_OFF_NODE][k] = p.alpha[PK_ON_NODE][k];
          p.beta[PK_OFF_NODE][k]  = p.beta[PK_ON_NODE][k];
        }
      for (PetscInt l = 0; l < L; l++) lev[l].t = 1.0; /* the compute part is then the flop count */
      PetscCall(PKModelAMGCycle(&p, &ai, &r1));
    }
    *F = r1.comp;
    *C = r1.total - r1.comp;
  }
  *Nout = N;
  *Lout = L;
  PetscCall(PetscFree(lev));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode AMG(Calib *c)
{
#if defined(PETSC_HAVE_HYPRE)
  const PetscInt m0 = c->quick ? 12 : 16;
  double         M[2], F[2], C[2], num = 0, den = 0;
  PetscInt       N[2], L[2];
  PetscBool      found = PETSC_TRUE;

  PetscFunctionBegin;
  for (int i = 0; i < 2 && found; i++) PetscCall(AMGCycleAt(c, (i + 1) * m0, &N[i], &L[i], &M[i], &F[i], &C[i], &found));
  if (!found) PetscFunctionReturn(0);
  for (int i = 0; i < 2; i++) {
    if (!(F[i] > 0) || !(M[i] > 0)) {
      PetscCall(PetscPrintf(c->comm, "AMG: on %" PetscInt_FMT "^3 no model flops or no measured V-cycle: amg_flop_time not available\n", N[i]));
      PetscFunctionReturn(0);
    }
    if (!(M[i] > C[i])) {
      /* the latencies measured just before were inflated (a busy machine: a descheduled ping-pong), so that the
         modelled communication exceeds the whole measured cycle: the rate is fitted on the whole cycle instead, an
         upper bound, rather than leaving the parameter out */
      PetscCall(PetscPrintf(c->comm, "AMG: on %" PetscInt_FMT "^3 the modelled communication %.2e s is not below the measured V-cycle %.2e s (latencies measured on a busy machine?): fitted on the whole cycle\n", N[i], C[i], M[i]));
      C[0] = C[1] = 0;
      num = den = 0;
      i         = -1;
      continue;
    }
    num += F[i] * (M[i] - C[i]) / (M[i] * M[i]);
    den += F[i] * F[i] / (M[i] * M[i]);
  }
  PetscCall(Set(c, &c->m.p.amg_flop_time, num / den));
  for (int i = 0; i < 2; i++)
    PetscCall(PetscPrintf(c->comm, "AMG: BoomerAMG on 27-point %" PetscInt_FMT "^3, %" PetscInt_FMT " levels: V-cycle %.3e s (slowest rank), model flops %.3g per rank, communication %.2e s: alone %.3f ns per flop, fitted %+.1f%%\n", N[i], L[i], M[i], F[i], C[i], 1e9 * (M[i] - C[i]) / F[i], 100 * ((num / den) * F[i] + C[i] - M[i]) / M[i]));
  PetscCall(PetscPrintf(c->comm, "AMG: amg_flop_time %.3f ns (flop_time %.3f ns)\n", 1e9 * num / den, 1e9 * (double)c->m.p.flop_time));
  PetscFunctionReturn(0);
#else
  PetscFunctionBegin;
  PetscCall(PetscPrintf(c->comm, "AMG: PETSc without hypre: amg_flop_time not available\n"));
  PetscFunctionReturn(0);
#endif
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Noise (fixed-work quanta): every rank repeats the same ~100 us of arithmetic many times at once and records each
   quantum's duration. The median is the undisturbed duration; a quantum longer than the median by more than 10%
   (and at least 1 us) contains a detour of that excess. noise_rate = detours per second of quanta, noise_mean their
   mean length, noise_max the longest, pooled over ranks (ranks = cores when not oversubscribed). */
static double Work(PetscInt k, double x)
{
  for (PetscInt i = 0; i < k; i++) x = x * 0.999999 + 1e-7;
  return x;
}

static PetscErrorCode Noise(Calib *c)
{
  PetscInt nq = c->quick ? 2000 : 20000, k = 1000, nd = 0;
  double  *q, *tmp, base, thr, total = 0, dsum = 0, dmax = 0, x = 1, t0;
  double   loc[3], glob[3], rmax;

  PetscFunctionBegin;
  /* size the quantum to about 100 us on this rank */
  for (;;) {
    t0 = Now();
    x  = Work(k, x);
    if (Now() - t0 > 2e-5 || k > (1 << 28)) break;
    k *= 2;
  }
  t0 = Now();
  x  = Work(k, x);
  k  = (PetscInt)PetscMax(1.0, (double)k * 1e-4 / PetscMax(Now() - t0, 1e-9));
  PetscCall(PetscMalloc2(nq, &q, nq, &tmp));
  PetscCallMPI(MPI_Barrier(c->comm));
  for (PetscInt i = 0; i < nq; i++) {
    t0   = Now();
    x    = Work(k, x);
    q[i] = Now() - t0;
  }
  PetscCall(PetscArraycpy(tmp, q, nq));
  base = PKMedian(nq, tmp);
  thr  = PetscMax(0.1 * base, 1e-6);
  for (PetscInt i = 0; i < nq; i++) {
    total += q[i];
    if (q[i] - base > thr) {
      nd++;
      dsum += q[i] - base;
      dmax = PetscMax(dmax, q[i] - base);
    }
  }
  loc[0] = (double)nd;
  loc[1] = dsum;
  loc[2] = nd / total + 0 * x; /* x is kept live */
  PetscCallMPI(MPI_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_SUM, c->comm));
  PetscCallMPI(MPI_Allreduce(&dmax, &rmax, 1, MPI_DOUBLE, MPI_MAX, c->comm));
  PetscCall(Set(c, &c->m.p.noise_rate, glob[2] / c->size));
  PetscCall(Set(c, &c->m.p.noise_mean, glob[0] > 0 ? glob[1] / glob[0] : 0));
  PetscCall(Set(c, &c->m.p.noise_max, rmax));
  PetscCall(PetscPrintf(c->comm, "Noise: %" PetscInt_FMT " quanta of %.1f us per rank (rank 0): %.1f detours/s per rank, mean %.1f us, max %.1f us\n", nq, 1e6 * base, glob[2] / c->size, glob[0] > 0 ? 1e6 * glob[1] / glob[0] : 0.0, 1e6 * rmax));
  if (x == 42.0) PetscCall(PetscPrintf(PETSC_COMM_SELF, " "));
  PetscCall(PetscFree2(q, tmp));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* What the topology, counter and socket steps did, for the profile's comments (and the summary) */
static void Note(Calib *c, const char *fmt, ...)
{
  char    line[512];
  va_list ap;

  va_start(ap, fmt);
  (void)vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  (void)PetscStrlcat(c->notes, line, sizeof(c->notes));
  (void)PetscStrlcat(c->notes, "\n", sizeof(c->notes));
}

/*
   The switch tree (-ksp_perfmodel_topology FILE: Slurm's topology.conf, the report's option), read as
   the report reads it (PKTopoLoad: rank 0 reads, every rank parses; a malformed file stops every rank with the same
   message, which names the line). Nothing has been measured yet when it fails.
*/
static PetscErrorCode ReadTopology(Calib *c)
{
  PetscFunctionBegin;
  PetscCall(PKTopoLoad(c->comm, c->topofile, &c->topo));
  PetscFunctionReturn(0);
}

/* Each calibration node's name (MPI_Get_processor_name of its first rank) and its node in the tree (-1: not listed) */
static PetscErrorCode TreeNodes(Calib *c)
{
  char    *all, me[MPI_MAX_PROCESSOR_NAME + 1] = "";
  int      len;
  PetscInt missing = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Get_processor_name(me, &len));
  PetscCall(PetscMalloc1((size_t)c->size * (MPI_MAX_PROCESSOR_NAME + 1), &all));
  PetscCallMPI(MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, c->comm));
  PetscCall(PetscMalloc1(c->nnodes, &c->tnode));
  PetscCall(PetscMalloc1(c->nnodes, &c->nodename));
  for (PetscInt n = 0; n < c->nnodes; n++) {
    const char *name = all + (size_t)RankOf(c, n, 0) * (MPI_MAX_PROCESSOR_NAME + 1);
    PetscCall(PetscStrallocpy(name, &c->nodename[n]));
    PetscCall(PKTopoFindNode(c->topo, name, &c->tnode[n]));
    if (c->tnode[n] < 0) {
      if (!missing++) PetscCall(PetscPrintf(c->comm, "Topology: node '%s' (rank %d) is not in %s: it is left out of the per-hop latency\n", name, RankOf(c, n, 0), c->topofile));
    }
  }
  if (missing > 1) PetscCall(PetscPrintf(c->comm, "Topology: %" PetscInt_FMT " nodes in all are not in %s\n", missing, c->topofile));
  {
    PetscInt nsw, ntn;
    PetscCall(PKTopoGetSizes(c->topo, &nsw, &ntn, NULL, NULL));
    PetscCall(PetscPrintf(c->comm, "Topology: %s: %" PetscInt_FMT " switches, %" PetscInt_FMT " nodes; %" PetscInt_FMT " of this run's %" PetscInt_FMT " nodes found by name:", c->topofile, nsw, ntn, c->nnodes - missing, c->nnodes));
    for (PetscInt n = 0; n < c->nnodes; n++) {
      const char *leaf = "?";
      PetscInt    l    = -1;
      if (c->tnode[n] >= 0) PetscCall(PKTopoGetNode(c->topo, c->tnode[n], NULL, &l));
      if (l >= 0) PetscCall(PKTopoGetSwitch(c->topo, l, &leaf, NULL, NULL, NULL));
      PetscCall(PetscPrintf(c->comm, " %s@%s", c->nodename[n], c->tnode[n] >= 0 ? leaf : "(not listed)"));
    }
    PetscCall(PetscPrintf(c->comm, "\n"));
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/* The leaf switch of calibration node n, -1 if not in the tree */
static PetscInt LeafOf(Calib *c, PetscInt n)
{
  PetscInt leaf = -1;
  if (c->tnode[n] >= 0) (void)PKTopoGetNode(c->topo, c->tnode[n], NULL, &leaf);
  return leaf;
}

/*
   Renumbers the nodes leaf by leaf, a leaf with two nodes or more first (then the tree's order of nodes), so that
   nodes 0 and 1 (the off-node sweep, max-rate) and 2j, 2j+1 (contention) share a leaf switch where they can:
   alpha_off is measured at the nearest off-node distance, 2 hops, beyond which the model prices t_hop (h - 2).
*/
static PetscErrorCode RenumberByLeaf(Calib *c)
{
  PetscInt *key, *perm, *inv, *nleaf, nsw, *oldsize, *tmp;
  char    **names;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(c->topo, &nsw, NULL, NULL, NULL));
  PetscCall(PetscCalloc1(nsw + 1, &nleaf));
  for (PetscInt n = 0; n < c->nnodes; n++) nleaf[LeafOf(c, n) < 0 ? nsw : LeafOf(c, n)]++;
  PetscCall(PetscMalloc5(c->nnodes, &key, c->nnodes, &perm, c->nnodes, &inv, c->nnodes, &oldsize, c->nnodes, &tmp));
  for (PetscInt n = 0; n < c->nnodes; n++) {
    PetscInt leaf = LeafOf(c, n);
    /* leaves with >= 2 nodes, then lone nodes, then nodes outside the tree; within a group by leaf, then tree order */
    PetscInt group = leaf < 0 ? 2 : nleaf[leaf] >= 2 ? 0 : 1;
    key[n]         = (group * (nsw + 1) + (leaf < 0 ? nsw : leaf)) * (c->nnodes + 1) + n;
    perm[n]        = n;
  }
  PetscCall(PetscSortIntWithArray(c->nnodes, key, perm)); /* perm[new] = old */
  for (PetscInt n = 0; n < c->nnodes; n++) inv[perm[n]] = n;
  for (PetscMPIInt r = 0; r < c->size; r++) c->node[r] = inv[c->node[r]];
  PetscCall(PetscArraycpy(oldsize, c->nodesize, c->nnodes));
  PetscCall(PetscArraycpy(tmp, c->tnode, c->nnodes));
  PetscCall(PetscMalloc1(c->nnodes, &names));
  for (PetscInt n = 0; n < c->nnodes; n++) {
    c->nodesize[n] = oldsize[perm[n]];
    c->tnode[n]    = tmp[perm[n]];
    names[n]       = c->nodename[perm[n]];
  }
  PetscCall(PetscArraycpy(c->nodename, names, c->nnodes));
  PetscCall(PetscFree(names));
  PetscCall(PetscFree5(key, perm, inv, oldsize, tmp));
  PetscCall(PetscFree(nleaf));
  PetscFunctionReturn(0);
}

/*
   Pins this process to the first (first true) or the last CPU it may run on, keeping the old mask in *old; returns
   whether it did. Two ranks of a ping-pong that share a core (ranks outnumber cores on the emulated cluster) take
   turns through the scheduler, which costs far more than a switch hop and differs from pair to pair with where the
   scheduler put them: pinned to different cores, every pair measures the path.
*/
static PetscBool PinTo(PetscBool first, cpu_set_t *old)
{
  cpu_set_t one;
  int       cpu = -1;
  if (sched_getaffinity(0, sizeof(*old), old)) return PETSC_FALSE;
  for (int i = 0; i < CPU_SETSIZE; i++)
    if (CPU_ISSET(i, old) && (cpu < 0 || !first)) cpu = i;
  if (cpu < 0) return PETSC_FALSE;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(0, sizeof(one), &one) ? PETSC_FALSE : PETSC_TRUE;
}

/*
   One-way latency at each tree distance present (000 Table 2's method): for every hop count h, the first pair of
   nodes at that distance; short ping-pongs, interleaved (round r: a block of round trips at every distance in turn,
   so that a busy spell of the machine hits all distances alike), every round trip timed on its own and the median
   of all of them kept. A leaf-spine-leaf path of Linux bridges costs 1-2 us more per round trip than one bridge, on
   an 8-10 us round trip: it takes thousands of round trips for the medians to separate. hop_latency is the slope of
   the one-way latency over h (least squares over the distances), the cost of one more link and switch.
*/
static PetscErrorCode HopFit(Calib *, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], const double[], const double[], const double[], PetscInt, PetscInt, const double[]);

static PetscErrorCode HopLatency(Calib *c)
{
  PetscInt   nh     = 0, hops[PK_TOPO_MAX_ROUTE + 1], pa[PK_TOPO_MAX_ROUTE + 1], pb[PK_TOPO_MAX_ROUTE + 1];
  PetscInt   rounds = 50, per = 100;
  double    *rtt, *bv, med[PK_TOPO_MAX_ROUTE + 1], q1[PK_TOPO_MAX_ROUTE + 1], q3[PK_TOPO_MAX_ROUTE + 1];
  char       buf[8] = {0};
  MPI_Status st;
  cpu_set_t  oldmask;
  PetscBool  pinned = PETSC_FALSE;

  PetscFunctionBegin;
  for (PetscInt a = 0; a < c->nnodes; a++)
    for (PetscInt b = a + 1; b < c->nnodes; b++) {
      PetscInt h, k;
      if (c->tnode[a] < 0 || c->tnode[b] < 0) continue;
      PetscCall(PKTopoHops(c->topo, c->tnode[a], c->tnode[b], &h));
      if (h <= 0) continue; /* no route (two roots) or one node listed twice */
      for (k = 0; k < nh && hops[k] != h; k++) { }
      if (k < nh) continue;
      for (k = nh++; k > 0 && hops[k - 1] > h; k--) hops[k] = hops[k - 1], pa[k] = pa[k - 1], pb[k] = pb[k - 1];
      hops[k] = h, pa[k] = a, pb[k] = b;
    }
  if (nh == 0) {
    PetscCall(PetscPrintf(c->comm, "Hops: no two nodes of this run are in %s with a route between them: hop_latency 0\n", c->topofile));
    Note(c, "Topology %s: no two nodes of the run in it: hop_latency 0.", c->topofile);
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1((size_t)nh * rounds * per, &rtt));
  /* the ranks not in the pair sleep 0.5 ms between tests: with more ranks than cores (the emulated cluster), their
     20 us polls would take the cores from the pair and spread the round trips over tens of microseconds */
  quiet_sleep = 5e-4;
  for (PetscInt k = 0; k < nh && !pinned; k++) {
    if (c->rank == RankOf(c, pa[k], 0)) pinned = PinTo(PETSC_TRUE, &oldmask);
    else if (c->rank == RankOf(c, pb[k], 0)) pinned = PinTo(PETSC_FALSE, &oldmask);
  }
  for (PetscInt k = 0; k < nh; k++) { /* warm-up: connections, caches */
    PetscMPIInt a = RankOf(c, pa[k], 0), b = RankOf(c, pb[k], 0);
    PetscCall(QuietBarrier(c->comm));
    for (PetscInt i = 0; i < 50; i++) {
      if (c->rank == a) {
        PetscCallMPI(MPI_Send(buf, 8, MPI_BYTE, b, 5, c->comm));
        PetscCallMPI(MPI_Recv(buf, 8, MPI_BYTE, b, 5, c->comm, &st));
      } else if (c->rank == b) {
        PetscCallMPI(MPI_Recv(buf, 8, MPI_BYTE, a, 5, c->comm, &st));
        PetscCallMPI(MPI_Send(buf, 8, MPI_BYTE, a, 5, c->comm));
      }
    }
  }
  for (PetscInt r = 0; r < rounds; r++)
    for (PetscInt k = 0; k < nh; k++) {
      PetscMPIInt a = RankOf(c, pa[k], 0), b = RankOf(c, pb[k], 0);
      double     *t = rtt + ((size_t)k * rounds + r) * per;
      PetscCall(QuietBarrier(c->comm));
      if (c->rank == a || c->rank == b) PetscCall(PairSync(c, c->rank == a ? b : a, c->rank == a ? PETSC_TRUE : PETSC_FALSE));
      for (PetscInt i = 0; i < per; i++) {
        if (c->rank == a) {
          double t0 = MPI_Wtime();
          PetscCallMPI(MPI_Send(buf, 8, MPI_BYTE, b, 6, c->comm));
          PetscCallMPI(MPI_Recv(buf, 8, MPI_BYTE, b, 6, c->comm, &st));
          t[i] = MPI_Wtime() - t0;
        } else if (c->rank == b) {
          PetscCallMPI(MPI_Recv(buf, 8, MPI_BYTE, a, 6, c->comm, &st));
          PetscCallMPI(MPI_Send(buf, 8, MPI_BYTE, a, 6, c->comm));
        }
      }
    }
  /* per distance: the median and quartiles of all round trips, and each block's fastest tenth (bv[k][r]) */
  PetscCall(PetscMalloc1((size_t)nh * rounds, &bv));
  for (PetscInt k = 0; k < nh; k++) {
    PetscMPIInt a    = RankOf(c, pa[k], 0);
    double      v[3] = {0, 0, 0}, *t = rtt + (size_t)k * rounds * per;
    PetscInt    n = rounds * per;
    if (c->rank == a) {
      for (PetscInt r = 0; r < rounds; r++) {
        PetscCall(PetscSortReal(per, t + r * per));
        bv[k * rounds + r] = 0.5 * PKQuantileSorted(per, t + r * per, 0.1);
      }
      PetscCall(PetscSortReal(n, t));
      v[0] = 0.5 * PKQuantileSorted(n, t, 0.5), v[1] = 0.5 * PKQuantileSorted(n, t, 0.25), v[2] = 0.5 * PKQuantileSorted(n, t, 0.75);
    }
    PetscCall(QuietBcast(v, 3, a, c->comm));
    PetscCall(QuietBcast(bv + k * rounds, (int)rounds, a, c->comm));
    med[k] = v[0], q1[k] = v[1], q3[k] = v[2];
  }
  quiet_sleep = 2e-5;
  if (pinned) (void)sched_setaffinity(0, sizeof(oldmask), &oldmask);
  PetscCall(PetscFree(rtt));
  PetscCall(HopFit(c, nh, hops, pa, pb, med, q1, q3, rounds, per, bv));
  PetscCall(PetscFree(bv));
  PetscFunctionReturn(0);
}

/* The least-squares slope of y over the hop counts */
static double Slope(PetscInt nh, const PetscInt hops[], const double y[], PetscInt stride)
{
  double mx = 0, my = 0, sxx = 0, sxy = 0;
  for (PetscInt k = 0; k < nh; k++) mx += (double)hops[k] / nh, my += y[k * stride] / nh;
  for (PetscInt k = 0; k < nh; k++) {
    sxx += ((double)hops[k] - mx) * ((double)hops[k] - mx);
    sxy += ((double)hops[k] - mx) * (y[k * stride] - my);
  }
  return sxy / sxx;
}

/*
   hop_latency from the blocks: a round trip slowed by the scheduler (ranks outnumber cores on the emulated cluster,
   and other jobs share the machine) says nothing about the path, so each block of round trips is represented by its
   fastest tenth; a round's blocks of all distances ran one after the other, so the slope of one round is a paired
   difference that the machine's slow changes of load do not bias; hop_latency is the median over the rounds of
   these slopes. The medians of all round trips are printed beside it.
*/
static PetscErrorCode HopFit(Calib *c, PetscInt nh, const PetscInt hops[], const PetscInt pa[], const PetscInt pb[], const double med[], const double q1[], const double q3[], PetscInt rounds, PetscInt per, const double bv[])
{
  double fast[PK_TOPO_MAX_ROUTE + 1], *tmp, slope = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(rounds, &tmp));
  for (PetscInt k = 0; k < nh; k++) {
    PetscCall(PetscArraycpy(tmp, bv + k * rounds, rounds));
    fast[k] = PKMedian(rounds, tmp);
  }
  PetscCall(PetscPrintf(c->comm, "Hops (000 Table 2's method): one-way latency of 8-byte ping-pongs at each distance of %s, %" PetscInt_FMT " rounds of %" PetscInt_FMT " round trips per distance, interleaved:\n", c->topofile, rounds, per));
  for (PetscInt k = 0; k < nh; k++)
    PetscCall(PetscPrintf(c->comm, "  %2" PetscInt_FMT " hops  %s - %s (ranks %d, %d): median %8.3f us (quartiles %8.3f %8.3f), fastest tenth of a block %8.3f us (median over blocks)\n", hops[k], c->nodename[pa[k]], c->nodename[pb[k]], RankOf(c, pa[k], 0), RankOf(c, pb[k], 0), 1e6 * med[k], 1e6 * q1[k], 1e6 * q3[k], 1e6 * fast[k]));
  if (nh >= 2) {
    for (PetscInt r = 0; r < rounds; r++) tmp[r] = Slope(nh, hops, bv + r, rounds);
    slope = PKMedian(rounds, tmp);
  }
  PetscCall(PetscFree(tmp));
  if (nh < 2) {
    PetscCall(PetscPrintf(c->comm, "  one distance only (%" PetscInt_FMT " hops): no slope; hop_latency 0\n", hops[0]));
    PetscCall(Set(c, &c->m.p.hop_latency, 0));
    Note(c, "Topology %s: every pair of nodes at %" PetscInt_FMT " hops (one-way median %.3f us): hop_latency 0, no second distance.", c->topofile, hops[0], 1e6 * med[0]);
    PetscFunctionReturn(0);
  }
  if (!(slope > 0)) PetscCall(PetscPrintf(c->comm, "  the latency does not grow with the hops (slope %.3f us per hop: noise, or no cost per hop): hop_latency 0\n", 1e6 * slope));
  else
    PetscCall(PetscPrintf(c->comm, "  hop_latency = %.3f us per hop (median over the rounds of the slope of their blocks' fastest tenths; slope of the medians %.3f us; the model prices it for hops beyond %" PetscInt_FMT ", where alpha_off is measured)\n", 1e6 * slope, 1e6 * Slope(nh, hops, med, 1), hops[0]));
  PetscCall(Set(c, &c->m.p.hop_latency, slope > 0 ? slope : 0));
  {
    char line[512] = "", part[96];
    for (PetscInt k = 0; k < nh; k++) {
      PetscCall(PetscSNPrintf(part, sizeof(part), "%s%" PetscInt_FMT " hops %.3f us (fastest tenth %.3f)", k ? ", " : "", hops[k], 1e6 * med[k], 1e6 * fast[k]));
      PetscCall(PetscStrlcat(line, part, sizeof(line)));
    }
    Note(c, "Topology %s: one-way medians of %" PetscInt_FMT " interleaved 8-byte round trips per distance: %s; hop_latency %.3f us per hop, the median over %" PetscInt_FMT " rounds of the slope of the blocks' fastest tenths%s.", c->topofile, rounds * per, line, 1e6 * slope, rounds, slope > 0 ? "" : " (not positive: set to 0)");
  }
  PetscFunctionReturn(0);
}

/* This node's counter root (-ksp_perfmodel_netcounters with %h = the node's name) and its port, if the reader recognises one */
static PetscErrorCode NodePort(Calib *c, char root[], size_t len, PKNetPort *port, PetscBool *found)
{
  char host[MPI_MAX_PROCESSOR_NAME + 1];
  int  hl;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Get_processor_name(host, &hl));
  host[PetscMax(0, PetscMin(hl, MPI_MAX_PROCESSOR_NAME))] = 0;
  PetscCall(PKNetRootExpand(c->netroot, host, "-ksp_perfmodel_netcounters", root, len));
  PetscCall(PKNetPortFind(root, port, found));
  PetscFunctionReturn(0);
}

/* Sums over the ranks that read (reader true: the first rank of a sender node) their port's stall and sent-byte
   counters: v = {stalls, bytes, ports read}. Waits first, so that the emulated cluster's counters (rewritten every
   20 ms) include what was just sent; a real port's counters are current. */
static PetscErrorCode ReadCounters(Calib *c, PetscBool reader, double v[3])
{
  double loc[3] = {0, 0, 0};

  PetscFunctionBegin;
  PetscCall(QuietBarrier(c->comm));
  Pause(0.1);
  if (reader) {
    char          root[PETSC_MAX_PATH_LEN];
    PKNetPort     port;
    PKNetCounters ctr;
    PetscBool     found;
    PetscCall(NodePort(c, root, sizeof(root), &port, &found));
    if (found) {
      PetscCall(PKNetCountersRead(root, &port, &ctr));
      if (ctr.have[PK_NETCTR_STALLS] && ctr.have[PK_NETCTR_XMIT_BYTES]) {
        loc[0] = ctr.value[PK_NETCTR_STALLS];
        loc[1] = ctr.value[PK_NETCTR_XMIT_BYTES];
        loc[2] = 1;
      } else if (!c->ctrmissing[0]) PetscCall(PetscStrncpy(c->ctrmissing, ctr.missing, sizeof(c->ctrmissing)));
    } else if (!c->ctrmissing[0]) PetscCall(PetscSNPrintf(c->ctrmissing, sizeof(c->ctrmissing), "no active InfiniBand port and no interface under %s/class", root));
  }
  PetscCall(QuietAllreduce(loc, v, 3, MPI_SUM, c->comm));
  PetscFunctionReturn(0);
}

/* Senders send n bytes to their receivers at once and wait for a zero-byte answer; the mean time per message over
   the senders, median over the repeats */
static PetscErrorCode Burst(Calib *c, PetscMPIInt peer, PetscBool sender, size_t n, char *buf, double *t)
{
  double    *e;
  MPI_Status st;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(c->reps, &e));
  for (PetscInt r = 0; r < c->reps; r++) {
    double loc[2] = {0, 0}, sum[2];
    PetscCall(QuietBarrier(c->comm));
    Pause(c->gap);
    if (peer >= 0 && sender) {
      double t0 = MPI_Wtime();
      PetscCallMPI(MPI_Send(buf, (int)n, MPI_BYTE, peer, 7, c->comm));
      PetscCallMPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 8, c->comm, &st));
      loc[0] = MPI_Wtime() - t0;
      loc[1] = 1;
    } else if (peer >= 0) {
      PetscCallMPI(MPI_Recv(buf, (int)n, MPI_BYTE, peer, 7, c->comm, &st));
      PetscCallMPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 8, c->comm));
    }
    PetscCall(QuietAllreduce(loc, sum, 2, MPI_SUM, c->comm));
    e[r] = sum[1] > 0 ? sum[0] / sum[1] : 0;
  }
  *t = PKMedian(c->reps, e);
  PetscCall(PetscFree(e));
  PetscFunctionReturn(0);
}

/* The nominal tick of the first reader's port, where it publishes one (the emulated cluster does); 0 if none */
static PetscErrorCode NominalTick(Calib *c, PetscMPIInt reader, double *tick)
{
  PetscFunctionBegin;
  *tick = 0;
  if (c->rank == reader) {
    char      root[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN + 128], *text = NULL, why[256];
    size_t    tl;
    PKNetPort port;
    PetscBool found;
    PetscCall(NodePort(c, root, sizeof(root), &port, &found));
    if (found && port.infiniband) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/class/infiniband/%s/pkemu_xmit_wait_tick_ns", root, port.name));
      if (!PKFileReadRegular(path, 0, 64, &text, &tl, why, sizeof(why))) {
        double ns = atof(text);
        if (ns > 0 && ns < 1e9) *tick = 1e-9 * ns;
      }
      free(text);
    }
  }
  PetscCall(QuietBcast(tick, 1, reader, c->comm));
  PetscFunctionReturn(0);
}

/*
   stall_time (000 section 5.7's T_stall) where the nodes have network counters (-ksp_perfmodel_netcounters ROOT, '%h' the node's
   name, as the report's -ksp_perfmodel_netcounters) and the run spans two leaf switches: the extra time of a
   congesting burst across the spine over the same message sent alone, divided by the extra stalls per byte it
   produced, in the congestion penalty's own form T = (stalls / bytes) n T_stall:
     T_stall = (T_burst - T_alone) / (((s/b)_burst - (s/b)_alone) n)
   so that the model explains the burst's extra time with the counters it reads. Senders: every node of the leaf
   with the most nodes (its first rank), each to a node of another leaf in turn; alone: the first sender only. Each
   case is its own counter window. Without extra stalls (a spine too wide to congest) the port's nominal tick is
   used where it publishes one (the emulated cluster's pkemu_xmit_wait_tick_ns), else stall_time stays not
   available; the profile's comments say which.
*/
static PetscErrorCode StallTime(Calib *c)
{
  PetscInt    nsw, best = -1, nbest = 0, *cnt, nsend = 0, nrecv = 0, *recv;
  PetscMPIInt me = c->rank, peer = -1, first = -1;
  PetscBool   sender = PETSC_FALSE, reader;
  size_t      n      = c->quick ? ((size_t)1 << 18) : ((size_t)1 << 20);
  double      c0[3], c1[3], c2[3], ta, tb, sa, sb, tick;
  char       *buf;

  PetscFunctionBegin;
  PetscCall(PKTopoGetSizes(c->topo, &nsw, NULL, NULL, NULL));
  PetscCall(PetscCalloc1(nsw, &cnt));
  for (PetscInt k = 0; k < c->nnodes; k++)
    if (LeafOf(c, k) >= 0) cnt[LeafOf(c, k)]++;
  for (PetscInt s = 0; s < nsw; s++)
    if (cnt[s] > nbest) nbest = cnt[s], best = s;
  PetscCall(PetscMalloc1(c->nnodes, &recv));
  for (PetscInt k = 0; k < c->nnodes; k++)
    if (LeafOf(c, k) >= 0 && LeafOf(c, k) != best) recv[nrecv++] = k;
  PetscCall(PetscFree(cnt));
  if (!nrecv) {
    PetscCall(PetscPrintf(c->comm, "Stall time: the run's nodes are under one leaf switch: no burst across a spine; stall_time not available\n"));
    Note(c, "Counters %s: the run's nodes under one leaf switch: stall_time not measured.", c->netroot);
    PetscCall(PetscFree(recv));
    PetscFunctionReturn(0);
  }
  /* pair the senders (the first rank of each node of leaf 'best') with receivers of other leaves, in turn */
  for (PetscInt k = 0; k < c->nnodes; k++) {
    if (LeafOf(c, k) != best) continue;
    PetscMPIInt s = RankOf(c, k, 0), d = RankOf(c, recv[nsend % nrecv], 0);
    if (first < 0) first = s;
    if (me == s) peer = d, sender = PETSC_TRUE;
    else if (me == d && peer < 0) peer = s;
    nsend++;
  }
  PetscCall(PetscFree(recv));
  reader = sender;
  PetscCall(PetscMalloc1(n, &buf));
  PetscCall(PetscMemzero(buf, n));
  PetscCall(ReadCounters(c, reader, c0));
  PetscCall(Burst(c, me == first || (peer == first && !sender) ? peer : -1, sender, n, buf, &ta));
  PetscCall(ReadCounters(c, reader, c1));
  PetscCall(Burst(c, nsend > nrecv && !sender ? -1 : peer, sender, n, buf, &tb));
  PetscCall(ReadCounters(c, reader, c2));
  PetscCall(PetscFree(buf));
  sa = c1[1] > c0[1] ? (c1[0] - c0[0]) / (c1[1] - c0[1]) : 0;
  sb = c2[1] > c1[1] ? (c2[0] - c1[0]) / (c2[1] - c1[1]) : 0;
  PetscCall(PetscPrintf(c->comm, "Stall time: %" PetscInt_FMT " sender node(s) under one leaf, %zu bytes each across the spine: alone %.3f ms, all at once %.3f ms per message; stalls per byte %.4g alone, %.4g at once (counters of %g port(s))\n", nsend, n, 1e3 * ta, 1e3 * tb, sa, sb, c2[2]));
  if (c2[2] < 1 || c1[2] < 1) {
    PetscCall(PetscPrintf(c->comm, "  no counters read (%s): stall_time not available\n", c->ctrmissing[0] ? c->ctrmissing : "?"));
    Note(c, "Counters %s: not read (%s): stall_time not measured.", c->netroot, c->ctrmissing);
    PetscFunctionReturn(0);
  }
  if (sb > sa && tb > ta && nsend > 1) {
    double ts = (tb - ta) / ((sb - sa) * (double)n);
    PetscCall(Set(c, &c->m.p.stall_time, ts));
    PetscCall(PetscPrintf(c->comm, "  stall_time = %.4g s per tick (extra time %.3f ms / extra stalls %.4g per message)\n", ts, 1e3 * (tb - ta), (sb - sa) * (double)n));
    Note(c, "Counters %s: stall_time %.4g s per tick, measured: %" PetscInt_FMT " nodes of one leaf sending %zu bytes each across the spine at once took %.3f ms per message against %.3f ms alone, with %.4g and %.4g stalls per byte.", c->netroot, ts, nsend, n, 1e3 * tb, 1e3 * ta, sb, sa);
    PetscFunctionReturn(0);
  }
  PetscCall(NominalTick(c, first, &tick));
  if (tick > 0) {
    PetscCall(Set(c, &c->m.p.stall_time, tick));
    PetscCall(PetscPrintf(c->comm, "  the burst did not congest measurably (%s): stall_time = the port's nominal tick, %.4g s\n", nsend > 1 ? "no extra stalls or time" : "one sender node", tick));
    Note(c, "Counters %s: the burst across the spine did not congest measurably; stall_time = the port's published tick (pkemu_xmit_wait_tick_ns), %.4g s.", c->netroot, tick);
  } else {
    PetscCall(PetscPrintf(c->comm, "  the burst did not congest measurably and the port publishes no tick: stall_time not available\n"));
    Note(c, "Counters %s: the burst across the spine did not congest measurably: stall_time not measured.", c->netroot);
  }
  PetscFunctionReturn(0);
}

/*
   Sockets (004 section 3's third level). The package (socket) of every rank's CPU binding, in this machine's hwloc
   topology or in -node_topology's (hwloc's synthetic or XML description, so that the two-socket path runs on a
   one-socket machine; the values measured are then this machine's). Where a node has two ranks bound to different
   packages, they give the cross-socket sweep (alpha_xs, beta_xs), and the on-node sweep moves to two ranks of one
   package; ranks not bound to one package (--bind-to none) cannot be placed, which is said.
*/
static PetscErrorCode Sockets(Calib *c, PetscMPIInt *on_a, PetscMPIInt *on_b, PetscMPIInt *xs_a, PetscMPIInt *xs_b)
{
  PKNodeTopo  here, nt;
  PetscInt    npk, pk = -1, *all;
  PetscMPIInt same_a = -1, same_b = -1;
  char        list[256];
  const char *lp = list;

  PetscFunctionBegin;
  *xs_a = *xs_b = -1;
  PetscCall(PKNodeTopoCreate("", &here)); /* "", not NULL: PKNodeTopoCreate(NULL) reads NULL on PETSc 3.22 */
  PetscCall(PKNodeTopoGetBinding(here, list, sizeof(list)));
  PetscCall(PKNodeTopoDestroy(&here));
  PetscCall(PKNodeTopoCreate(c->nodetopo, &nt));
  PetscCall(PKNodeTopoGetSizes(nt, &npk, NULL, NULL));
  if (npk > 1) PetscCall(PKNodeTopoPlace(nt, 1, &lp, &pk, NULL));
  PetscCall(PKNodeTopoDestroy(&nt));
  if (npk <= 1) {
    PetscCall(PetscPrintf(c->comm, "Sockets: hwloc sees %" PetscInt_FMT " package on %s: cross-socket parameters not available (the model uses the on-node ones)\n", PetscMax(npk, 1), c->nodetopo[0] ? c->nodetopo : "this machine"));
    Note(c, "Sockets: hwloc sees one package (%s): alpha_xs, beta_xs not measured; the model uses the on-node values.", c->nodetopo[0] ? c->nodetopo : "this machine");
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1(c->size, &all));
  PetscCallMPI(MPI_Allgather(&pk, 1, MPIU_INT, all, 1, MPIU_INT, c->comm));
  for (PetscMPIInt a = 0; a < c->size; a++)
    for (PetscMPIInt b = a + 1; b < c->size; b++) {
      if (c->node[a] != c->node[b] || all[a] < 0 || all[b] < 0) continue;
      if (all[a] != all[b] && *xs_a < 0) *xs_a = a, *xs_b = b;
      if (all[a] == all[b] && same_a < 0) same_a = a, same_b = b;
    }
  /* the on-node parameters are the same-socket ones where sockets are known */
  if (*on_a >= 0 && all[*on_a] != all[*on_b] && same_a >= 0) *on_a = same_a, *on_b = same_b;
  if (*on_a >= 0 && all[*on_a] >= 0 && all[*on_b] >= 0 && all[*on_a] != all[*on_b]) Note(c, "Sockets: no two ranks of a node share a package: the on-node values are measured across packages too.");
  if (*xs_a >= 0) {
    PetscCall(PetscPrintf(c->comm, "Sockets: %" PetscInt_FMT " packages on %s; ranks %d and %d are bound to packages %" PetscInt_FMT " and %" PetscInt_FMT ": the cross-socket sweep\n", npk, c->nodetopo[0] ? c->nodetopo : "this machine", *xs_a, *xs_b, all[*xs_a], all[*xs_b]));
    Note(c, "Sockets: %" PetscInt_FMT " packages (%s); alpha_xs, beta_xs from ranks %d and %d bound to packages %" PetscInt_FMT " and %" PetscInt_FMT "%s.", npk, c->nodetopo[0] ? c->nodetopo : "this machine", *xs_a, *xs_b, all[*xs_a], all[*xs_b], c->nodetopo[0] ? " (a given topology: the values are this machine's)" : "");
  } else {
    PetscCall(PetscPrintf(c->comm, "Sockets: %" PetscInt_FMT " packages, but no node has two ranks bound to different packages (bind them: mpiexec --bind-to core --map-by socket): cross-socket parameters not available\n", npk));
    Note(c, "Sockets: %" PetscInt_FMT " packages, no two ranks of a node bound to different ones: alpha_xs, beta_xs not measured.", npk);
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/*
   CheckOutput - before measuring: rank 0 (which writes the profile) checks that it can: the profile is written to a
   temporary file in its directory and renamed over it (profile_io.c), so the directory must take a new file, and an
   existing path must be a regular file (never a device such as /dev/full, a FIFO or a symbolic link, which the
   rename would not write through). A wrong -o fails at once, not after minutes, and nothing is left behind.
*/
static PetscErrorCode CheckOutput(MPI_Comm comm, const char out[])
{
  PetscMPIInt rank;
  struct {
    int  err;
    char why[512];
  } st = {0, ""};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    struct stat sb;
    const char *slash = strrchr(out, '/');
    char        tmp[PETSC_MAX_PATH_LEN + 32];
    int         fd;

    if (!out[0]) st.err = ENOENT;
    else if (!lstat(out, &sb) && S_ISLNK(sb.st_mode)) {
      st.err = ELOOP;
      snprintf(st.why, sizeof(st.why), "it is a symbolic link: name the file itself");
    } else if (!lstat(out, &sb) && !S_ISREG(sb.st_mode)) {
      st.err = EINVAL;
      snprintf(st.why, sizeof(st.why), "it is not a regular file (%s)", S_ISDIR(sb.st_mode) ? "a directory" : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" : "a FIFO or a socket");
    } else {
      if (!slash) snprintf(tmp, sizeof(tmp), ".pipekrylov-calibrate.XXXXXX");
      else snprintf(tmp, sizeof(tmp), "%.*s/.pipekrylov-calibrate.XXXXXX", (int)(slash == out ? 0 : slash - out), out);
      if ((fd = mkstemp(tmp)) < 0) st.err = errno;
      else {
        close(fd);
        unlink(tmp);
      }
    }
    if (st.err && !st.why[0]) snprintf(st.why, sizeof(st.why), "%s", strerror(st.err));
  }
  PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, comm));
  PetscCheck(!st.err, comm, PETSC_ERR_FILE_OPEN, "pipekrylov-calibrate: cannot write the profile '%s' (-o): %s. Nothing was measured; choose a writable -o", out[0] ? out : "(none)", st.why);
  PetscFunctionReturn(0);
}

/* Communication needs two ranks: a profile from one rank would have no on-node nor off-node parameters, and a
   report on several ranks would then model communication as free */
static PetscErrorCode CheckRanks(Calib *c, const char prog[])
{
  PetscFunctionBegin;
  PetscCheck(c->size >= 2, c->comm, PETSC_ERR_ARG_SIZ, "pipekrylov-calibrate: one rank cannot measure communication (latencies, bandwidths, allreduce): run it on at least 2 ranks of one node (mpiexec -n 2 %s ...), and across nodes for the off-node parameters. Nothing was measured", prog);
  PetscFunctionReturn(0);
}

/* PETSc's own options that it reads only in PetscFinalize(): known, though nobody has read them yet */
static const char *const finalize_options[] = {"-options_left", "-options_view", "-citations", "-get_total_flops", "-log", "-log_all", "-log_mpe", "-objects_dump", "-mpidump", "-x_virtual", "-saw_options"};

/* The command line must say only what this tool or PETSc's start-up understands: an option nobody read (a typo, a
   GNU-style --quick) or a word that is no option's value (a profile named without -o) would otherwise let the run go
   on and replace this host's cached profile, which every later report uses. Checked on every rank alike (each has
   the same command line), before anything is measured or written. */
static PetscErrorCode CheckCommandLine(MPI_Comm comm, int argc, char **argv)
{
  PetscInt N;
  char   **names, **values;

  PetscFunctionBegin;
  /* PETSc reads these only in PetscFinalize(): read here, so that they are not taken for unknown ones */
  for (size_t k = 0; k < sizeof(finalize_options) / sizeof(finalize_options[0]); k++) {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, finalize_options[k], &set));
  }
  /* the names before the report's were adopted: refused with the new one, never measured without the tree */
  for (int i = 1; i < argc; i++) {
    static const char *const renamed[][2] = {
      {"-topology",    "-ksp_perfmodel_topology"   },
      {"-netcounters", "-ksp_perfmodel_netcounters"}
    };
    for (size_t k = 0; k < sizeof(renamed) / sizeof(renamed[0]); k++)
      PetscCheck(strcmp(argv[i], renamed[k][0]), comm, PETSC_ERR_ARG_WRONG, "pipekrylov-calibrate: %s is now %s, the name the report takes too. Nothing was measured", renamed[k][0], renamed[k][1]);
  }
  for (int i = 1; i < argc; i++)
    PetscCheck(argv[i][0] == '-' || (i > 1 && argv[i - 1][0] == '-'), comm, PETSC_ERR_ARG_WRONG, "pipekrylov-calibrate: unexpected argument '%s': options start with '-' (the profile's file is -o <file>); -help lists them. Nothing was measured", argv[i]);
  /* the options the database holds and nobody has read so far: only those typed on this command line are refused,
     not the ones of PETSC_OPTIONS or a .petscrc, which serve every PETSc program */
  PetscCall(PetscOptionsLeftGet(NULL, &N, &names, &values));
  for (PetscInt k = 0; k < N; k++) {
    PetscBool typed = PETSC_FALSE;
    for (int i = 1; i < argc && !typed; i++)
      if (argv[i][0] == '-') PetscCall(PetscStrcasecmp(argv[i] + 1, names[k], &typed));
    if (typed) {
      char name[256];
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", names[k]));
      PetscCall(PetscOptionsLeftRestore(NULL, &N, &names, &values));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "pipekrylov-calibrate: unknown option %s: -help lists the options. Nothing was measured", name);
    }
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &N, &names, &values));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
  Calib       c;
  char        out[PETSC_MAX_PATH_LEN] = "", comment[8192], host[256] = "", date[64] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  PetscBool   hashelp = PETSC_FALSE, tocache, cachepath = PETSC_FALSE;
  int         liblen;
  double      t0;
  time_t      now;
  PetscMPIInt on_a = -1, on_b = -1, off_a = -1, off_b = -1, xs_a = -1, xs_b = -1;
  char        qname[32];

  PetscFunctionBeginUser;
  /* --help and -h, which users try first, are not PETSc's: unread, they would run a whole calibration and replace
     this host's cached profile. They become -help, which prints the usage on rank 0 and measures nothing. */
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) argv[i] = (char *)"-help";
  /* Without XDG_CACHE_HOME and HOME there is no cache: said before MPI starts, since Open MPI 5 does not start at all
     without HOME (and says only "Unable to get the user home directory") */
  if (!getenv("XDG_CACHE_HOME") && !getenv("HOME")) {
    PetscBool to_file = PETSC_FALSE, ask_path = PETSC_FALSE, ask_help = PETSC_FALSE;
    for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "-o")) to_file = PETSC_TRUE;
      if (!strcmp(argv[i], "-cache_path")) ask_path = PETSC_TRUE;
      if (!strcmp(argv[i], "-help")) ask_help = PETSC_TRUE;
    }
    if (!ask_help && (ask_path || !to_file)) {
      fprintf(stderr, "pipekrylov-calibrate: Neither XDG_CACHE_HOME nor HOME is set: there is no cache directory%s\n", ask_path ? " (-cache_path)" : "; give the profile's file with -o");
      return 1;
    }
  }
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(c.comm, &c.rank));
  PetscCallMPI(MPI_Comm_size(c.comm, &c.size));
  PetscOptionsBegin(c.comm, NULL, "pipekrylov-calibrate: machine profile for the performance model", NULL);
  PetscCall(PetscOptionsString("-o", "Profile file to write (default: this host's profile in $XDG_CACHE_HOME/pipekrylov)", NULL, out, out, sizeof(out), &tocache));
  tocache = (PetscBool)!tocache;
  PetscCall(PetscOptionsBool("-quick", "Fast, less precise run (tests)", NULL, c.quick, &c.quick, NULL));
  PetscCall(PetscOptionsInt("-node_size", "Treat every k consecutive ranks as one node (0: MPI_COMM_TYPE_SHARED)", NULL, c.node_size, &c.node_size, NULL));
  c.reps = c.quick ? 5 : 20;
  PetscCall(PetscOptionsInt("-repeats", "Repeats of each measurement (the median is kept)", NULL, c.reps, &c.reps, NULL));
  c.sweeps = 1;
  PetscCall(PetscOptionsInt("-sweeps", "Ping-pong size sweeps (each size's median over them is fitted)", NULL, c.sweeps, &c.sweeps, NULL));
  c.q = 0.5;
  PetscCall(PetscOptionsReal("-quantile", "Quantile of the repeats kept (0.5: the median)", NULL, c.q, &c.q, NULL));
  PetscCall(PetscOptionsBool("-raw", "Print every measured point", NULL, c.raw, &c.raw, NULL));
  PetscCall(PetscOptionsBool("-cache_path", "Print this host's profile path in the cache and exit", NULL, cachepath, &cachepath, NULL));
  PetscCall(PetscOptionsString("-ksp_perfmodel_topology", "Slurm topology.conf of the switch tree: latency at each tree distance, hop_latency (the report's option; under srun with Slurm's topology/tree, its tree by default)", NULL, c.topofile, c.topofile, sizeof(c.topofile), NULL));
  PetscCall(PetscOptionsString("-ksp_perfmodel_netcounters", "Root of each node's network counters, %h = its name (the report's option): stall_time", NULL, c.netroot, c.netroot, sizeof(c.netroot), NULL));
  PetscCall(PetscOptionsString("-node_topology", "hwloc topology of a node instead of this machine's (synthetic:<description> or xml:<file>)", NULL, c.nodetopo, c.nodetopo, sizeof(c.nodetopo), NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &hashelp));
  if (hashelp) { /* the usage and the options are printed: nothing else is done */
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(CheckCommandLine(c.comm, argc, argv));
  /* a bare -o (PETSc reads it as an empty value, also when another option follows) names no file; a value that
     starts with '-' is a negative number PETSc took for the value, not a file name meant */
  PetscCheck(tocache || (out[0] && out[0] != '-'), c.comm, PETSC_ERR_ARG_WRONG, "pipekrylov-calibrate: -o needs the name of the profile file to write (-o <file>)%s%s. Nothing was measured", out[0] ? ", not " : "", out);
  if (cachepath) {
    PetscCall(PKMachineCachePath(out, sizeof(out), NULL, 0));
    PetscCheck(out[0], c.comm, PETSC_ERR_USER_INPUT, "Neither XDG_CACHE_HOME nor HOME is set: there is no cache directory (-cache_path)");
    PetscCall(PetscPrintf(c.comm, "%s\n", out));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCheck(c.node_size >= 0, c.comm, PETSC_ERR_ARG_OUTOFRANGE, "-node_size %" PetscInt_FMT " must be >= 1 (or 0 for MPI_COMM_TYPE_SHARED)", c.node_size);
  PetscCheck(c.q >= 0 && c.q <= 1, c.comm, PETSC_ERR_ARG_OUTOFRANGE, "-quantile %g must be in [0, 1]", (double)c.q);
  PetscCheck(c.sweeps >= 1, c.comm, PETSC_ERR_ARG_OUTOFRANGE, "-sweeps %" PetscInt_FMT " must be >= 1", c.sweeps);
  PetscCheck(c.reps >= 1, c.comm, PETSC_ERR_ARG_OUTOFRANGE, "-repeats %" PetscInt_FMT " must be >= 1", c.reps);
  if (c.q == 0.5) PetscCall(PetscStrncpy(qname, "median", sizeof(qname)));
  else PetscCall(PetscSNPrintf(qname, sizeof(qname), "%g-quantile", (double)c.q));
  if (tocache) {
    char dir[PETSC_MAX_PATH_LEN];
    struct {
      int  err;
      char why[512];
    } st = {0, ""};

    PetscCall(PKMachineCachePath(out, sizeof(out), dir, sizeof(dir)));
    PetscCheck(out[0], c.comm, PETSC_ERR_USER_INPUT, "Neither XDG_CACHE_HOME nor HOME is set: there is no cache directory; give the profile's file with -o");
    PetscCall(CheckRanks(&c, argv[0])); /* before the cache directory is made */
    /* the cache is private: made 0700 here, or refused when it exists and is not the caller's alone (docs/security.md) */
    if (!c.rank) st.err = PKDirMakePrivate(dir, st.why, sizeof(st.why));
    PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, c.comm));
    PetscCheck(!st.err, c.comm, PETSC_ERR_FILE_OPEN, "pipekrylov-calibrate: cannot use the profile cache: %s. Nothing was measured; make it your own directory (mode 0700) or give the profile's file with -o", st.why);
  }
  PetscCall(CheckOutput(c.comm, out)); /* -o or this host's cache file: writable, before anything is measured */
  PetscCall(CheckRanks(&c, argv[0]));
  c.maxit  = c.quick ? 10 : 20;
  c.target = c.quick ? 2e-3 : 2e-2;
  c.gap    = c.quick ? 1e-4 : 1e-3;
  t0       = MPI_Wtime();

  PetscCall(PKMachineDefault(&c.m));
  PetscCall(PKMachineSetAllSources(&c.m, PK_SRC_NONE));
  PetscCall(FindNodes(&c));
  if (!c.topofile[0]) { /* under srun with Slurm's topology/tree plugin: the tree of the tasks' addresses */
    char node[PK_TOPO_MAX_NAME + 1];
    PetscCall(PKTopoLoadSlurm(c.comm, &c.topo, node, sizeof(node)));
    if (c.topo) PetscCall(PetscStrncpy(c.topofile, "the switch tree from Slurm (the tasks' SLURM_TOPOLOGY_ADDR)", sizeof(c.topofile)));
  }
  if (c.topofile[0]) {
    if (!c.topo) PetscCall(ReadTopology(&c));
    PetscCall(TreeNodes(&c));
    PetscCall(RenumberByLeaf(&c));
  }
  {
    PetscInt i;
    PetscCall(PKMachineFieldIndex("ppn", &i));
    PetscCall(PKMachineSetField(&c.m, i, (PetscReal)c.ppn, PK_SRC_MEASURED));
    PetscCall(PKMachineFieldIndex("nodes", &i));
    PetscCall(PKMachineSetField(&c.m, i, (PetscReal)c.nnodes, PK_SRC_MEASURED));
    PetscCall(PKMachineFieldIndex("hop_latency", &i));
    PetscCall(PKMachineSetField(&c.m, i, 0.0, PK_SRC_MEASURED)); /* no topology is known: 0 by definition */
  }
  if (!c.topofile[0]) Note(&c, "No switch tree (-ksp_perfmodel_topology): hop_latency 0 by definition.");
  for (PetscInt n = 0; n < c.nnodes && on_a < 0; n++)
    if (c.nodesize[n] >= 2) {
      on_a = RankOf(&c, n, 0);
      on_b = RankOf(&c, n, 1);
    }
  PetscCall(Sockets(&c, &on_a, &on_b, &xs_a, &xs_b));
  if (c.nnodes >= 2) {
    off_a = RankOf(&c, 0, 0);
    off_b = RankOf(&c, 1, 0);
  }
  PetscCall(PetscPrintf(c.comm, "pipekrylov-calibrate%s: %d ranks on %" PetscInt_FMT " node(s) (%s), up to %" PetscInt_FMT " per node; %" PetscInt_FMT " repeats per point, %s kept\n", c.quick ? " -quick" : "", c.size, c.nnodes, c.node_size ? "-node_size" : "MPI_COMM_TYPE_SHARED", c.ppn, c.reps, qname));

  if (on_a >= 0) PetscCall(PostalSweep(&c, PK_ON_NODE, PETSC_FALSE, on_a, on_b));
  else PetscCall(PetscPrintf(c.comm, "On-node: no node has two ranks: on-node parameters not available\n"));
  if (xs_a >= 0) PetscCall(PostalSweep(&c, PK_ON_NODE, PETSC_TRUE, xs_a, xs_b));
  if (off_a >= 0) PetscCall(PostalSweep(&c, PK_OFF_NODE, PETSC_FALSE, off_a, off_b));
  if (off_a >= 0 && c.topo) PetscCall(HopLatency(&c));
  else PetscCall(PetscPrintf(c.comm, "Off-node: one node only: off-node parameters, R_N and delta not available\n"));
  if (off_a >= 0) PetscCall(MaxRate(&c));
  if (on_a >= 0 || off_a >= 0) PetscCall(QueueSearch(&c, on_a >= 0 ? on_a : off_a, on_a >= 0 ? on_b : off_b));
  if (on_a >= 0) PetscCall(MessageGap(&c, PK_ON_NODE, on_a, on_b));
  if (off_a >= 0) PetscCall(MessageGap(&c, PK_OFF_NODE, off_a, off_b));
  if (on_a >= 0) PetscCall(SyncLimit(&c, PK_ON_NODE, on_a, on_b));
  if (off_a >= 0) PetscCall(SyncLimit(&c, PK_OFF_NODE, off_a, off_b));
  if (off_a >= 0) PetscCall(Contention(&c));
  if (off_a >= 0 && c.topo && c.netroot[0]) PetscCall(StallTime(&c));
  else if (c.netroot[0]) Note(&c, "Counters %s: no switch tree (-ksp_perfmodel_topology) or one node: stall_time not measured.", c.netroot);
  if (on_a >= 0) PetscCall(AllreduceFit(&c, PK_ON_NODE));
  if (off_a >= 0) PetscCall(AllreduceFit(&c, PK_OFF_NODE));
  /* before Progress: its solves run on pairs of ranks, and the monitor sets PAPI up once per process, collectively
     over the first monitored KSP's communicator; VecWork's solves are every rank's own (PETSC_COMM_SELF) */
  PetscCall(VecWork(&c));
  if (on_a >= 0) PetscCall(Progress(&c, PK_ON_NODE));
  if (off_a >= 0) PetscCall(Progress(&c, PK_OFF_NODE));
  PetscCall(AsyncProgress(&c));
  PetscCall(Stream(&c));
  PetscCall(SpMV(&c));
  PetscCall(AMG(&c));
  PetscCall(Noise(&c));

  gethostname(host, sizeof(host) - 1);
  now = time(NULL);
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
  MPI_Get_library_version(lib, &liblen);
  lib[strcspn(lib, "\n,")] = 0;
  PetscCall(PetscSNPrintf(comment, sizeof(comment), "Measured on %s at %s: %d ranks, %" PetscInt_FMT " node(s) (%s), %" PetscInt_FMT " per node, %s%s of the repeats.\n%s", host, date, c.size, c.nnodes, c.node_size ? "-node_size" : "MPI_COMM_TYPE_SHARED", c.ppn, c.quick ? "-quick, " : "", qname, lib));
  if (c.notes[0]) {
    PetscCall(PetscStrlcat(comment, "\n", sizeof(comment)));
    PetscCall(PetscStrlcat(comment, c.notes, sizeof(comment)));
    if (comment[strlen(comment) - 1] == '\n') comment[strlen(comment) - 1] = 0; /* the notes end every line */
  }
  PetscCall(PetscSNPrintf(c.m.origin, sizeof(c.m.origin), "measured in this run (%s)", out));
  PetscCall(PetscPrintf(c.comm, "\n"));
  PetscCall(PKMachineView(&c.m, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PKMachineWrite(c.comm, &c.m, out, comment));
  if (tocache) PetscCall(PetscPrintf(c.comm, "Wrote %s (%.1f s): this host's profile; every report on this host uses it (-ksp_perfmodel_machine overrides)\n", out, MPI_Wtime() - t0));
  else PetscCall(PetscPrintf(c.comm, "Wrote %s (%.1f s). Use it with -ksp_perfmodel_machine %s\n", out, MPI_Wtime() - t0, out));
  PetscCall(PetscFree(c.node));
  PetscCall(PetscFree(c.local));
  PetscCall(PetscFree(c.nodesize));
  if (c.topo) {
    for (PetscInt n = 0; n < c.nnodes; n++) PetscCall(PetscFree(c.nodename[n]));
    PetscCall(PetscFree(c.nodename));
    PetscCall(PetscFree(c.tnode));
    PetscCall(PKTopoDestroy(&c.topo));
  }
  PetscCall(PetscFinalize());
  return 0;
}
