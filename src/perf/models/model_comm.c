/*
   Communication models: postal per protocol and locality, max-rate, queue search, contention, hops and congestion
   penalties (000 5.1-5.7, 004 3-4), the halo exchange of a rank's actual message list, the same for a 3-D block
   decomposition (000 5.3: 6 face, 12 edge, 8 corner messages), and the node-aware allreduce. See pkmodel.h for the
   choices made where the papers leave a gap.
*/
#include <pipekrylov/private/pkmodel.h>

const char *const PKCommTermNames[] = {"postal", "maxrate", "queue", "contention", "hops", "congestion", "pipeline"};

void PKNetStateUnknown(PKNetState *net)
{
  net->hops            = 0;
  net->stalls_per_byte = -1;
  net->t_stall         = 0;
}

PKProtocol PKModelProtocol(const PKMachineParams *m, PKLocality loc, PetscReal bytes)
{
  if (bytes <= m->eager_limit[loc]) return PK_PROTO_SHORT;
  if (bytes > m->rendezvous_limit[loc]) return PK_PROTO_RENDEZVOUS;
  return PK_PROTO_EAGER;
}

/* The largest message whose sender does not wait for a late receiver: measured (pipekrylov-calibrate), else the
   protocol fit's rendezvous limit (a rendezvous send waits for the receiver to match it) */
PetscReal PKModelSyncLimit(const PKMachineParams *m, PKLocality loc)
{
  return m->sync_limit[loc] > 0 ? m->sync_limit[loc] : m->rendezvous_limit[loc];
}

PetscReal PKModelPostal(const PKMachineParams *m, PKLocality loc, PetscReal bytes)
{
  PKProtocol pr = PKModelProtocol(m, loc, bytes);
  return m->alpha[loc][pr] + m->beta[loc][pr] * bytes;
}

/* 004 eq (2): T = alpha + ppn s / min(R_N, ppn R_b). R_b is the protocol's 1/beta so that the model reduces to the
   postal one when the node's injection limit is not reached; the profile's Rb[] is the fallback when beta is 0. */
PetscReal PKModelMaxRate(const PKMachineParams *m, PKLocality loc, PetscReal bytes, PetscReal ppn)
{
  PKProtocol pr = PKModelProtocol(m, loc, bytes);
  PetscReal  Rb, rate;

  if (loc == PK_ON_NODE) return PKModelPostal(m, loc, bytes); /* not injected into the network (004 section 3) */
  if (ppn < 1) ppn = 1;
  Rb = m->beta[loc][pr] > 0 ? 1.0 / m->beta[loc][pr] : m->Rb[loc];
  if (Rb <= 0) return m->alpha[loc][pr];
  rate = ppn * Rb;
  if (m->RN > 0 && m->RN < rate) rate = m->RN;
  return m->alpha[loc][pr] + ppn * bytes / rate;
}

/* 004 eq (3): a linear queue search for each of n messages */
PetscReal PKModelQueueSearch(const PKMachineParams *m, PetscReal nmsgs)
{
  return m->gamma * nmsgs * nmsgs;
}

/* 004 eqs (5), (7): T_c = delta l, l = 2 h^3 b ppn bytes on the busiest link; needs the hop distance h */
PetscReal PKModelContention(const PKMachineParams *m, PetscReal hops, PetscReal bytes_per_proc, PetscReal ppn)
{
  if (hops <= 0) return 0;
  return m->delta * 2.0 * hops * hops * hops * bytes_per_proc * ppn;
}

/* 000 5.6 / 002: the latency of h hops beyond the first; h = 0 means unknown */
PetscReal PKModelHops(const PKMachineParams *m, PetscReal hops)
{
  if (hops <= 1) return 0;
  return (hops - 1) * m->hop_latency;
}

/* 000 5.7: T = (stalls/bytes) n n_cores T_stall, times the hops when known ("congestion on each network tile") */
PetscReal PKModelCongestion(const PKNetState *net, PetscReal bytes, PetscReal ppn)
{
  return PKModelCongestionHops(net, bytes, ppn, net ? net->hops : 0);
}

/* The same for a message whose own hop count is known (0: unknown, as one) */
PetscReal PKModelCongestionHops(const PKNetState *net, PetscReal bytes, PetscReal ppn, PetscReal hops)
{
  if (!net || net->stalls_per_byte < 0) return 0;
  return net->stalls_per_byte * bytes * ppn * net->t_stall * (hops > 0 ? hops : 1);
}

/*@C
   PKModelContentionLoad - 004's contention term T_c = delta l (eq 5) with l counted on the tree: the bytes on the
   busiest switch-to-switch link direction (PKTopoLoads busiest_net_bytes), in place of eq 7's estimate
   2 h^3 b ppn for a torus whose partition is unknown.

   Not Collective

   Input Parameters:
+  m          - the machine profile (delta: s per byte waiting for a link)
-  link_bytes - l

   Level: developer

.seealso: `PKTopoLoadsSummarize()`, `PKModelContention()`
@*/
PetscReal PKModelContentionLoad(const PKMachineParams *m, PetscReal link_bytes)
{
  return m->delta * PetscMax(link_bytes, 0);
}

static void PKCommCostFinish(PKCommCost *c)
{
  c->total = 0;
  for (PetscInt k = 0; k < PK_CT_N; k++) c->total += c->t[k];
}

PetscErrorCode PKModelHalo(const PKMachineParams *m, const PKHaloPattern *h, const PKNetState *net, PKCommCost *c)
{
  PKNetState unknown;
  PetscReal  ppn_off, pen_se = 0, postal_se = 0, postal_se_max = 0, serial_se = 0, serial_se_max = 0, bytes_off_se = 0, nmsg = 0;
  PetscBool  anyoff = PETSC_FALSE;

  PetscFunctionBegin;
  if (!net) {
    PKNetStateUnknown(&unknown);
    net = &unknown;
  }
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->hops_known          = (h->hops || net->hops > 0) ? PETSC_TRUE : PETSC_FALSE;
  c->congestion_measured = net->stalls_per_byte >= 0 ? PETSC_TRUE : PETSC_FALSE;
  ppn_off                = h->ppn_off > 0 ? h->ppn_off : (PetscReal)PetscMax(h->ppn, 1);
  for (PetscInt i = 0; i < h->n; i++) {
    PetscReal  s    = h->bytes[i];
    PKLocality lc   = h->loc[i];
    PKProtocol pr   = PKModelProtocol(m, lc, s);
    PetscReal  post = PKModelPostal(m, lc, s), mr = 0, cg = 0, hops = h->hops ? h->hops[i] : net->hops;

    PetscCheck(lc == PK_ON_NODE || lc == PK_OFF_NODE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Message %" PetscInt_FMT ": invalid locality %d", i, (int)lc);
    PetscCheck(s >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Message %" PetscInt_FMT ": negative size %g", i, (double)s);
    if (lc == PK_ON_NODE && h->xsocket && h->xsocket[i]) post = m->alpha_xs[pr] + m->beta_xs[pr] * s; /* 004 section 3 */
    nmsg += 1;
    c->nmsg[lc][pr] += 1;
    if (s > PKModelSyncLimit(m, lc)) c->nsync[lc] += 1;
    c->bytes[lc] += s;
    c->t[PK_CT_POSTAL] += post;
    if (lc == PK_OFF_NODE) {
      anyoff      = PETSC_TRUE;
      mr          = PetscMax(0, PKModelMaxRate(m, lc, s, ppn_off) - post);
      cg          = PKModelCongestionHops(net, s, ppn_off, hops);
      c->hops_max = PetscMax(c->hops_max, hops);
      c->t[PK_CT_MAXRATE] += mr;
      c->t[PK_CT_CONGESTION] += cg;
    }
    if (pr != PK_PROTO_RENDEZVOUS) {
      /* in a burst, a message behind the first costs the gap and its bytes (LogGP), at most its postal cost */
      PetscReal per_byte = (lc == PK_ON_NODE && h->xsocket && h->xsocket[i]) ? m->beta_xs[pr] : m->beta[lc][pr];
      PetscReal serial   = m->msg_gap[lc] >= 0 ? PetscMin(post, m->msg_gap[lc] + per_byte * s) : post;
      pen_se += mr + cg;
      postal_se += post;
      if (post > postal_se_max) {
        postal_se_max = post;
        serial_se_max = serial;
      }
      serial_se += serial;
      if (lc == PK_OFF_NODE) bytes_off_se += s;
    }
  }
  c->t[PK_CT_QUEUE] = PKModelQueueSearch(m, nmsg);
  if (anyoff && c->hops_known) {
    /* once per exchange (000 5.6: added to the first message of the series): the messages are in flight together,
       so the exchange waits for its farthest one */
    c->t[PK_CT_HOPS] = PKModelHops(m, c->hops_max);
    if (!h->have_l) c->t[PK_CT_CONTENTION] = PKModelContention(m, net->hops > 0 ? net->hops : c->hops_max, c->bytes[PK_OFF_NODE], ppn_off);
  }
  if (anyoff && h->have_l) { /* 004 eq 5 with l counted on the tree (docs/models.md §7.4) */
    c->t[PK_CT_CONTENTION] = PKModelContentionLoad(m, h->l);
    c->contention_counted  = PETSC_TRUE;
  }
  if (h->pipelined && postal_se > 0) {
    /* 000 5.9: penalties of the short/eager messages run behind the postal cost of all of them but the first
       (we take the most expensive one as "the first": the smallest window). Queue search is CPU work: not hidden.
       With the burst gap measured (msg_gap), the messages behind the first overlap their latencies too: each costs
       the gap and its bytes, and the penalties hide behind what is left of them */
    PetscReal behind = postal_se - postal_se_max, left = serial_se - serial_se_max;
    if (c->bytes[PK_OFF_NODE] > 0) {
      PetscReal share = bytes_off_se / c->bytes[PK_OFF_NODE];
      pen_se += share * (c->t[PK_CT_CONTENTION] + c->t[PK_CT_HOPS]);
    }
    c->t[PK_CT_PIPELINE] = -((behind - left) + PetscMin(pen_se, left));
  }
  PKCommCostFinish(c);
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* 3-D block decomposition. Along one direction, a rank's lower and upper neighbour is absent (global boundary),
   on node or off node; coordinates fall into at most 9 such classes, and the 3-D classes are their products, so
   the average and the slowest rank come out of at most 729 classes whatever the rank count. */

typedef enum {
  PK_NB_NONE,
  PK_NB_ON,
  PK_NB_OFF
} PKNbStatus;

static void PKDimClasses(PetscInt P, PetscInt q, PetscReal count[3][3])
{
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt b = 0; b < 3; b++) count[a][b] = 0;
  for (PetscInt c = 0; c < P; c++) {
    PKNbStatus lo = c == 0 ? PK_NB_NONE : (c % q == 0 ? PK_NB_OFF : PK_NB_ON);
    PKNbStatus hi = c == P - 1 ? PK_NB_NONE : ((c + 1) % q == 0 ? PK_NB_OFF : PK_NB_ON);
    count[lo][hi] += 1;
  }
}

PetscErrorCode PKModelHaloGrid3d(const PKMachineParams *m, const PKGrid3d *g, const PKNetState *net, PKCommCost *avg, PKCommCost *slowest)
{
  PetscReal     cnt[3][3][3], ntotal = 0, sbytes = g->scalar_bytes > 0 ? g->scalar_bytes : 8, ppn_off;
  PetscInt      inner = 1, qprod = 1, dof = PetscMax(g->dof, 1);
  PetscReal     bytes[26];
  PKLocality    loc[26];
  PKHaloPattern hp;
  PKCommCost    c, acc, worst;
  PetscBool     have = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(g->stencil == 7 || g->stencil == 27, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Stencil %" PetscInt_FMT " not supported: 7 or 27", g->stencil);
  for (PetscInt d = 0; d < 3; d++) {
    PetscCheck(g->pgrid[d] >= 1 && g->qnode[d] >= 1 && g->m[d] >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Direction %" PetscInt_FMT ": need ranks, ranks per node and points >= 1", d);
    PetscCheck(g->pgrid[d] % g->qnode[d] == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Direction %" PetscInt_FMT ": %" PetscInt_FMT " ranks per node do not divide %" PetscInt_FMT " ranks", d, g->qnode[d], g->pgrid[d]);
    PKDimClasses(g->pgrid[d], g->qnode[d], cnt[d]);
    /* ranks of an interior node with no off-node neighbour along d */
    inner *= (g->pgrid[d] == g->qnode[d]) ? g->qnode[d] : PetscMax(g->qnode[d] - 2, 0);
    qprod *= g->qnode[d];
  }
  ppn_off = (PetscReal)PetscMax(qprod - inner, 1); /* the max-rate ppn: ranks of a node sending off node at once */
  PetscCall(PetscMemzero(&acc, sizeof(acc)));
  PetscCall(PetscMemzero(&worst, sizeof(worst)));
  PetscCall(PetscMemzero(&hp, sizeof(hp)));
  hp.bytes     = bytes;
  hp.loc       = loc;
  hp.ppn_off   = ppn_off;
  hp.ppn       = qprod;
  hp.pipelined = g->pipelined;
  for (PetscInt x = 0; x < 9; x++)
    for (PetscInt y = 0; y < 9; y++)
      for (PetscInt z = 0; z < 9; z++) {
        PetscInt cls[3][2] = {
          {x / 3, x % 3},
          {y / 3, y % 3},
          {z / 3, z % 3}
        };
        PetscReal w = cnt[0][x / 3][x % 3] * cnt[1][y / 3][y % 3] * cnt[2][z / 3][z % 3];
        PetscInt  n = 0;

        if (w == 0) continue;
        for (PetscInt o = 0; o < 27; o++) {
          PetscInt  off[3] = {o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1}, nz = 0;
          PetscBool exists = PETSC_TRUE, isoff = PETSC_FALSE;
          PetscReal pts = 1;

          for (PetscInt d = 0; d < 3; d++) {
            if (off[d] == 0) {
              pts *= g->m[d];
              continue;
            }
            nz++;
            {
              PKNbStatus st = (PKNbStatus)cls[d][off[d] < 0 ? 0 : 1];
              if (st == PK_NB_NONE) exists = PETSC_FALSE;
              if (st == PK_NB_OFF) isoff = PETSC_TRUE;
            }
          }
          if (!nz || !exists || (g->stencil == 7 && nz > 1)) continue;
          bytes[n] = pts * dof * sbytes;
          loc[n]   = isoff ? PK_OFF_NODE : PK_ON_NODE;
          n++;
        }
        hp.n = n;
        PetscCall(PKModelHalo(m, &hp, net, &c));
        ntotal += w;
        for (PetscInt k = 0; k < PK_CT_N; k++) acc.t[k] += w * c.t[k];
        for (PetscInt l = 0; l < PK_NLOC; l++) {
          acc.bytes[l] += w * c.bytes[l];
          for (PetscInt p = 0; p < PK_NPROTO; p++) acc.nmsg[l][p] += w * c.nmsg[l][p];
          acc.nsync[l] += w * c.nsync[l];
        }
        acc.hops_known          = c.hops_known;
        acc.congestion_measured = c.congestion_measured;
        if (!have || c.total > worst.total) worst = c;
        have = PETSC_TRUE;
      }
  for (PetscInt k = 0; k < PK_CT_N; k++) acc.t[k] /= ntotal;
  for (PetscInt l = 0; l < PK_NLOC; l++) {
    acc.bytes[l] /= ntotal;
    for (PetscInt p = 0; p < PK_NPROTO; p++) acc.nmsg[l][p] /= ntotal;
    acc.nsync[l] /= ntotal;
  }
  PKCommCostFinish(&acc);
  if (avg) *avg = acc;
  if (slowest) *slowest = worst;
  PetscFunctionReturn(0);
}

/* Balanced factorisation of n into nd factors, largest first (what MPI_Dims_create returns) */
PetscErrorCode PKModelDimsCreate(PetscInt n, PetscInt nd, PetscInt dims[])
{
  PetscInt f[64], nf = 0, r = n;

  PetscFunctionBegin;
  PetscCheck(n >= 1 && nd >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need n >= 1 and nd >= 1, got %" PetscInt_FMT " and %" PetscInt_FMT, n, nd);
  for (PetscInt p = 2; p * p <= r; p++)
    while (r % p == 0) {
      f[nf++] = p;
      r /= p;
    }
  if (r > 1) f[nf++] = r;
  for (PetscInt d = 0; d < nd; d++) dims[d] = 1;
  for (PetscInt i = nf - 1; i >= 0; i--) { /* largest prime first, onto the smallest dimension */
    PetscInt k = 0;
    for (PetscInt d = 1; d < nd; d++)
      if (dims[d] < dims[k]) k = d;
    dims[k] *= f[i];
  }
  for (PetscInt i = 1; i < nd; i++) /* sort descending */
    for (PetscInt j = i; j > 0 && dims[j] > dims[j - 1]; j--) {
      PetscInt t  = dims[j];
      dims[j]     = dims[j - 1];
      dims[j - 1] = t;
    }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */

static PetscReal PKCeilLog2(PetscInt n)
{
  PetscInt r = 0;
  while (((PetscInt)1 << r) < n) r++;
  return (PetscReal)r;
}

/* The time a one-value non-blocking reduction takes to complete when polled back to back on this layout: the
   profile's per-round times (poll_on, poll_off) over the rounds of recursive doubling on and off node, as the
   blocking allreduce counts them; 0 where the profile has no polled times */
PetscReal PKModelPollTime(const PKMachineParams *m, const PKLayout *lay)
{
  return PKCeilLog2(PetscMin(lay->ppn, lay->P)) * PetscMax(0, m->poll_time[PK_ON_NODE]) + PKCeilLog2(lay->nodes) * PetscMax(0, m->poll_time[PK_OFF_NODE]);
}

PetscErrorCode PKModelAllreduce(const PKMachineParams *m, const PKLayout *lay, PetscInt nvals, const PKNetState *net, PKAllreduceCost *c)
{
  PetscReal bytes = 8.0 * nvals, round[PK_NLOC];

  PetscFunctionBegin;
  PetscCheck(lay->P >= 1 && lay->nodes >= 1 && lay->ppn >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Layout needs P, nodes, ppn >= 1 (got %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")", lay->P, lay->nodes, lay->ppn);
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->rounds[PK_ON_NODE]  = PKCeilLog2(PetscMin(lay->ppn, lay->P));
  c->rounds[PK_OFF_NODE] = PKCeilLog2(lay->nodes);
  for (PetscInt l = 0; l < PK_NLOC; l++) {
    /* a calibrated per-round cost when the profile has one, else 000's two postal messages per round */
    if (m->allreduce_alpha[l] > 0) round[l] = m->allreduce_alpha[l] + bytes * m->allreduce_beta[l];
    else round[l] = 2.0 * PKModelPostal(m, (PKLocality)l, bytes);
    c->comm += c->rounds[l] * round[l];
  }
  c->local = nvals * m->flop_time * (c->rounds[PK_ON_NODE] + c->rounds[PK_OFF_NODE]);
  if (net) {
    /* one leader per node talks off node: congestion with n_cores = 1 */
    c->hops       = c->rounds[PK_OFF_NODE] * PKModelHops(m, net->hops);
    c->congestion = c->rounds[PK_OFF_NODE] * PKModelCongestion(net, bytes, 1);
  }
  c->total = c->comm + c->local + c->hops + c->congestion;
  PetscFunctionReturn(0);
}
