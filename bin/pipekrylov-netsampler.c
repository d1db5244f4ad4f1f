/*
   pipekrylov-netsampler: the network counters of bin/pipekrylov-cluster's emulated nodes, in InfiniBand's sysfs
   layout, so that the monitor's counter reader (src/perf/monitor/netcounters.c, -ksp_perfmodel_netcounters) and
   bin/pipekrylov-calibrate read an emulated cluster exactly as they read a real fabric.

   Started and stopped by bin/pipekrylov-cluster (up / down); not meant to be run by hand. For every node NAME it
   keeps, under DIR (the cluster's $PK_CLUSTER_DIR/counters):

     DIR/NAME/class/infiniband/pkemu0/ports/1/state                        "4: ACTIVE"
     DIR/NAME/class/infiniband/pkemu0/ports/1/counters/port_xmit_data      bytes the node sent / 4
                                                       port_rcv_data       bytes the node received / 4
                                                       port_xmit_wait      stall ticks (below)
                                                       port_xmit_discards  the node's packets dropped
     DIR/NAME/class/infiniband/pkemu0/pkemu_xmit_wait_tick_ns              the tick of port_xmit_wait, in ns
                                                                           (not InfiniBand's: the emulation's)

   What is counted. Bytes are the switch side of the node's host link (the leaf bridge's port n<k>, or the root
   bridge's port in the one-bridge layout): received there = sent by the node (after its injection limit), sent
   there = received by the node. They are the link's own byte counts (Ethernet frames without the FCS; a TCP
   segment-offload packet counts its headers once), divided by 4 and rounded down as InfiniBand's data counters.

   port_xmit_wait. InfiniBand counts a tick when the port had data to send and sent nothing during the whole tick
   (no credit: a queue further on is full). The emulated network has no credits; the queue a node's traffic really
   waits in, behind other nodes' traffic, is the shared uplink of its leaf switch (an HTB qdisc with one class per
   node of the leaf, so that the bytes queued are known per node). So, sampled every period dt (with jitter, so
   that the samples do not lock onto a periodic traffic pattern): when node k's class on its leaf's uplink holds
   data at the sample, the node was held back for dt minus the time its own host link was busy in that period
   (bytes it sent x 8 / host rate; 0 with an unlimited host link), and that time in ticks is added. The node's own
   injection queue is not counted: a host link busy sending is bandwidth, not a stall (the model prices it by R_N);
   the spine's downlinks and the leaves' ejection queues are not counted either (what waits there is another
   node's traffic towards this one; on a two-leaf tree a downlink carries one uplink's traffic, already shaped to
   the same rate). Sampling makes it an estimate: unbiased over many periods, not exact for one short burst.

   Files are written through a temporary file in the same directory and renamed over the counter (a reader never
   sees half a number), only when the value changed. It costs a few netlink requests per switch per period: no
   process is started, no file read.

   Why plain C without PETSc: it is a small daemon that runs for the cluster's lifetime beside the MPI jobs it
   measures; it needs no MPI and no PETSc, and it must cost next to nothing.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_SWITCHES 256
#define MAX_NODES    1024
#define MAX_NAME     64
#define NL_BUF       65536

typedef struct {
  char     ns[MAX_NAME]; /* network namespace ("" : this process's own) */
  int      fd;           /* NETLINK_ROUTE socket inside it */
  char     uplink[16];   /* the uplink device with one HTB class per node ("" : none) */
  int      uplink_ifindex;
  uint32_t seq;
} Switch;

typedef struct {
  char     name[MAX_NAME]; /* the node's host name (MPI_Get_processor_name) */
  int      sw;             /* index of its switch */
  char     port[16];       /* the switch side of its host link */
  int      ifindex;
  uint32_t classid; /* its HTB class on the switch's uplink (0: none) */
  /* the last reading */
  uint64_t rx, tx, rxdrop; /* the switch port's counters: rx = sent by the node */
  uint64_t backlog, cdrops;
  int      seen_port, seen_class;
  double   rx_t;    /* when rx was read */
  uint64_t prev_rx; /* the reading before, at prev_t: the load between them is how busy the link was */
  double   prev_t;
  /* the counters as exposed */
  uint64_t base_rx, base_tx, base_drop;
  double   wait_ticks;
  uint64_t shown[4]; /* the values in the files: xmit_data, rcv_data, xmit_wait, xmit_discards */
  int      written;
} Node;

static Switch                sw[MAX_SWITCHES];
static Node                  node[MAX_NODES];
static int                   nsw, nnode;
static char                  dir[PATH_MAX];
static double                period  = 4e-3;  /* s between samples of the uplinks' queues */
static double                wperiod = 20e-3; /* s between rewrites of the counter files */
static double                tick    = 1e-6;  /* s per port_xmit_wait tick */
static double                hostrate;        /* bytes/s of a host link, 0: unlimited */
static char                  pidfile[PATH_MAX];
static volatile sig_atomic_t stop;

static void Die(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "pipekrylov-netsampler: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static double Now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Names that become path components and namespace paths: letters, digits, '-', '_', '.', not "." or ".." */
static void CheckName(const char *what, const char *s, size_t max)
{
  size_t n = strlen(s);
  if (n == 0 || n >= max) Die("%s '%.80s': 1 to %zu characters", what, s, max - 1);
  if (!strcmp(s, ".") || !strcmp(s, "..")) Die("%s '%s'", what, s);
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || strchr("-_.", s[i]))) Die("%s '%.80s': only letters, digits, '-', '_' and '.'", what, s);
}

static long ParseLong(const char *what, const char *s, long lo, long hi)
{
  char *end;
  long  v;
  errno = 0;
  v     = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) Die("%s '%.40s': an integer from %ld to %ld", what, s, lo, hi);
  return v;
}

/* ------------------------------------------------------------------------------------------------------------- */
/* Netlink */

/* A NETLINK_ROUTE socket inside the namespace /run/netns/NS (ip netns's bind mounts), made by entering it and
   coming back: a socket stays in the namespace it was made in. */
static int OpenIn(const char *ns)
{
  int self = -1, fd;
  if (ns[0]) {
    char path[PATH_MAX];
    int  nsfd;
    snprintf(path, sizeof(path), "/run/netns/%.*s", MAX_NAME, ns);
    if ((self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) Die("cannot open /proc/self/ns/net: %s", strerror(errno));
    if ((nsfd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) Die("cannot open the namespace %s: %s", path, strerror(errno));
    if (setns(nsfd, CLONE_NEWNET)) Die("cannot enter the namespace %s: %s", path, strerror(errno));
    close(nsfd);
  }
  fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) Die("netlink socket: %s", strerror(errno));
  if (self >= 0) {
    if (setns(self, CLONE_NEWNET)) Die("cannot return to the first namespace: %s", strerror(errno));
    close(self);
  }
  return fd;
}

typedef void (*Handler)(Switch *, struct nlmsghdr *);

/* One dump request; calls h on every answer. Returns 0, or -1 on an error (logged once by the caller) */
static int Dump(Switch *s, uint16_t type, const void *payload, size_t plen, Handler h)
{
  static char buf[NL_BUF];
  struct {
    struct nlmsghdr n;
    char            p[64];
  } req;
  struct sockaddr_nl sa = {.nl_family = AF_NETLINK};

  memset(&req, 0, sizeof(req));
  req.n.nlmsg_len   = NLMSG_LENGTH(plen);
  req.n.nlmsg_type  = type;
  req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.n.nlmsg_seq   = ++s->seq;
  memcpy(req.p, payload, plen);
  if (sendto(s->fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) return -1;
  for (;;) {
    ssize_t n = recv(s->fd, buf, sizeof(buf), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    for (struct nlmsghdr *m = (struct nlmsghdr *)buf; NLMSG_OK(m, (unsigned)n); m = NLMSG_NEXT(m, n)) {
      if (m->nlmsg_seq != s->seq) continue;
      if (m->nlmsg_type == NLMSG_DONE) return 0;
      if (m->nlmsg_type == NLMSG_ERROR) return -1;
      h(s, m);
    }
  }
}

static struct rtattr *Attr(struct rtattr *a, int len, int type)
{
  for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
    if (a->rta_type == type) return a;
  return NULL;
}

/* RTM_NEWLINK: names to interface indices (once, at start) */
static void OnLink(Switch *s, struct nlmsghdr *m)
{
  struct ifinfomsg *ifi = NLMSG_DATA(m);
  struct rtattr    *a   = Attr(IFLA_RTA(ifi), (int)IFLA_PAYLOAD(m), IFLA_IFNAME);
  int               j   = (int)(s - sw);
  if (m->nlmsg_type != RTM_NEWLINK || !a) return;
  if (s->uplink[0] && !strcmp(RTA_DATA(a), s->uplink)) s->uplink_ifindex = ifi->ifi_index;
  for (int k = 0; k < nnode; k++)
    if (node[k].sw == j && !strcmp(RTA_DATA(a), node[k].port)) node[k].ifindex = ifi->ifi_index;
}

/* RTM_NEWSTATS: the 64-bit counters of every interface of the switch */
static void OnStats(Switch *s, struct nlmsghdr *m)
{
  struct if_stats_msg *ism = NLMSG_DATA(m);
  struct rtattr       *a;
  int                  j = (int)(s - sw);
  if (m->nlmsg_type != RTM_NEWSTATS) return;
  a = Attr((struct rtattr *)((char *)ism + NLMSG_ALIGN(sizeof(*ism))), (int)(m->nlmsg_len - NLMSG_LENGTH(sizeof(*ism))), IFLA_STATS_LINK_64);
  if (!a || RTA_PAYLOAD(a) < sizeof(struct rtnl_link_stats64)) return;
  for (int k = 0; k < nnode; k++)
    if (node[k].sw == j && node[k].ifindex == (int)ism->ifindex) {
      struct rtnl_link_stats64 st;
      memcpy(&st, RTA_DATA(a), sizeof(st));
      node[k].prev_rx   = node[k].rx;
      node[k].prev_t    = node[k].rx_t;
      node[k].rx_t      = Now();
      node[k].rx        = st.rx_bytes;
      node[k].tx        = st.tx_bytes;
      node[k].rxdrop    = st.rx_dropped;
      node[k].seen_port = 1;
    }
}

/* RTM_NEWTCLASS: the backlog and drops of each node's class on the uplink */
static void OnClass(Switch *s, struct nlmsghdr *m)
{
  struct tcmsg  *t = NLMSG_DATA(m);
  struct rtattr *st, *q;
  int            j = (int)(s - sw);
  if (m->nlmsg_type != RTM_NEWTCLASS || (int)t->tcm_ifindex != s->uplink_ifindex) return;
  st = Attr(TCA_RTA(t), (int)TCA_PAYLOAD(m), TCA_STATS2);
  if (!st) return;
  q = Attr(RTA_DATA(st), (int)RTA_PAYLOAD(st), TCA_STATS_QUEUE);
  if (!q || RTA_PAYLOAD(q) < sizeof(struct gnet_stats_queue)) return;
  for (int k = 0; k < nnode; k++)
    if (node[k].sw == j && node[k].classid && TC_H_MIN(t->tcm_handle) == node[k].classid) {
      struct gnet_stats_queue gq;
      memcpy(&gq, RTA_DATA(q), sizeof(gq));
      node[k].backlog    = gq.backlog + gq.qlen; /* either says data is waiting */
      node[k].cdrops     = gq.drops;
      node[k].seen_class = 1;
    }
}

/* The switch's port counters (every host link's bytes both ways) */
static int ReadPorts(Switch *s)
{
  struct if_stats_msg ism = {.family = AF_UNSPEC, .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64)};
  return Dump(s, RTM_GETSTATS, &ism, sizeof(ism), OnStats);
}

/* The queues of the switch's uplink, one class per node; sets *queued if any holds data */
static int ReadUplink(Switch *s, int *queued)
{
  struct tcmsg t = {.tcm_family = AF_UNSPEC, .tcm_ifindex = s->uplink_ifindex};
  int          j = (int)(s - sw);
  *queued        = 0;
  if (s->uplink_ifindex <= 0) return 0;
  for (int k = 0; k < nnode; k++)
    if (node[k].sw == j) node[k].seen_class = 0, node[k].backlog = 0;
  if (Dump(s, RTM_GETTCLASS, &t, sizeof(t), OnClass)) return -1;
  for (int k = 0; k < nnode; k++)
    if (node[k].sw == j && node[k].seen_class && node[k].backlog) *queued = 1;
  return 0;
}

static int ReadSwitch(Switch *s)
{
  int queued;
  return ReadPorts(s) || ReadUplink(s, &queued) ? -1 : 0;
}

/* Node k's data waits in its leaf's uplink: it was held back for the period dt, less the part of it its own host
   link was busy sending (its load since the last such reading, at the host rate; 0 with an unlimited link) */
static void AddWait(Node *n, double dt)
{
  double busy = 0;
  if (hostrate > 0 && n->rx_t > n->prev_t) busy = (double)(n->rx - n->prev_rx) / hostrate / (n->rx_t - n->prev_t);
  if (busy < 1) n->wait_ticks += dt * (1 - busy) / tick;
}

/* ------------------------------------------------------------------------------------------------------------- */
/* Files */

static void MakeDir(const char *path)
{
  struct stat st;
  if (mkdir(path, 0755) && errno != EEXIST) Die("cannot create %s: %s", path, strerror(errno));
  if (lstat(path, &st) || !S_ISDIR(st.st_mode)) Die("%s is not a directory (a link?): refused", path);
}

/* path = DIR/NAME/class/infiniband/pkemu0[/rest] */
static void NodePath(char *path, size_t len, const Node *n, const char *rest)
{
  if ((size_t)snprintf(path, len, "%s/%s/class/infiniband/pkemu0%s%s", dir, n->name, rest[0] ? "/" : "", rest) >= len) Die("path too long under %s", dir);
}

/* Writes text to path through a temporary file in its directory, then renames it over path: atomic for readers,
   and a link planted at path is replaced, never written through */
static int WriteAtomic(const char *path, const char *text)
{
  char    tmp[PATH_MAX];
  int     fd;
  size_t  len = strlen(text);
  ssize_t w;
  if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp)) return -1;
  if ((fd = mkstemp(tmp)) < 0) return -1;
  (void)fchmod(fd, 0644);
  w = write(fd, text, len);
  if (close(fd) || w != (ssize_t)len || rename(tmp, path)) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

static void SetupNode(Node *n)
{
  char path[PATH_MAX], text[64];
  if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, n->name) >= sizeof(path)) Die("path too long under %s", dir);
  MakeDir(path);
  const char *sub[] = {"class", "class/infiniband", "class/infiniband/pkemu0", "class/infiniband/pkemu0/ports", "class/infiniband/pkemu0/ports/1", "class/infiniband/pkemu0/ports/1/counters"};
  for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
    if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, n->name, sub[i]) >= sizeof(path)) Die("path too long under %s", dir);
    MakeDir(path);
  }
  NodePath(path, sizeof(path), n, "ports/1/state");
  if (WriteAtomic(path, "4: ACTIVE\n")) Die("cannot write %s: %s", path, strerror(errno));
  NodePath(path, sizeof(path), n, "pkemu_xmit_wait_tick_ns");
  snprintf(text, sizeof(text), "%.0f\n", tick * 1e9);
  if (WriteAtomic(path, text)) Die("cannot write %s: %s", path, strerror(errno));
}

static void WriteCounters(Node *n)
{
  static const char *const file[4] = {"port_xmit_data", "port_rcv_data", "port_xmit_wait", "port_xmit_discards"};
  uint64_t                 v[4];
  v[0] = (n->rx - n->base_rx) / 4;
  v[1] = (n->tx - n->base_tx) / 4;
  v[2] = (uint64_t)n->wait_ticks;
  v[3] = n->rxdrop + n->cdrops - n->base_drop;
  for (int i = 0; i < 4; i++) {
    char path[PATH_MAX], rest[64], text[32];
    if (n->written && v[i] == n->shown[i]) continue;
    snprintf(rest, sizeof(rest), "ports/1/counters/%s", file[i]);
    NodePath(path, sizeof(path), n, rest);
    snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v[i]);
    if (WriteAtomic(path, text)) {
      if (!n->written) Die("cannot write %s: %s", path, strerror(errno));
      continue; /* a full disk: the old value stays, tried again next period */
    }
    n->shown[i] = v[i];
  }
  n->written = 1;
}

/* ------------------------------------------------------------------------------------------------------------- */

static void OnSignal(int sig)
{
  (void)sig;
  stop = 1;
}

static void Usage(void)
{
  fprintf(stderr, "usage: pipekrylov-netsampler -dir DIR -pidfile FILE [-period-us P] [-write-us W] [-tick-ns T] [-hostrate BYTES_PER_S]\n"
                  "         -switch NS UPLINK ... -node NAME SWITCH PORT CLASSID ...\n"
                  "  -switch NS UPLINK         a switch: its network namespace ('-': this one) and its uplink device with one\n"
                  "                            HTB class per node ('-': none); switches are numbered from 0 in order\n"
                  "  -node NAME SW PORT CLASS  a node: its host name, its switch's number, the switch side of its host link,\n"
                  "                            its HTB class minor on the uplink (0: none)\n"
                  "Started by bin/pipekrylov-cluster up; see the top of bin/pipekrylov-netsampler.c.\n");
  exit(2);
}

static void ParseArgs(int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEED(k) \
  if (i + (k) >= argc) Usage()
    if (!strcmp(a, "-dir")) {
      NEED(1);
      if (strlen(argv[++i]) >= sizeof(dir) - 256 || argv[i][0] != '/') Die("-dir must be an absolute path of at most %zu characters", sizeof(dir) - 257);
      strcpy(dir, argv[i]);
    } else if (!strcmp(a, "-pidfile")) {
      NEED(1);
      if (strlen(argv[++i]) >= sizeof(pidfile) - 16 || argv[i][0] != '/') Die("-pidfile must be an absolute path");
      strcpy(pidfile, argv[i]);
    } else if (!strcmp(a, "-period-us")) {
      NEED(1);
      period = 1e-6 * (double)ParseLong("-period-us", argv[++i], 200, 1000000);
    } else if (!strcmp(a, "-write-us")) {
      NEED(1);
      wperiod = 1e-6 * (double)ParseLong("-write-us", argv[++i], 1000, 1000000);
    } else if (!strcmp(a, "-tick-ns")) {
      NEED(1);
      tick = 1e-9 * (double)ParseLong("-tick-ns", argv[++i], 1, 1000000000);
    } else if (!strcmp(a, "-hostrate")) {
      NEED(1);
      hostrate = (double)ParseLong("-hostrate", argv[++i], 0, LONG_MAX);
    } else if (!strcmp(a, "-switch")) {
      NEED(2);
      if (nsw >= MAX_SWITCHES) Die("more than %d switches", MAX_SWITCHES);
      if (strcmp(argv[i + 1], "-")) {
        CheckName("namespace", argv[i + 1], sizeof(sw[nsw].ns));
        strcpy(sw[nsw].ns, argv[i + 1]);
      }
      if (strcmp(argv[i + 2], "-")) {
        CheckName("uplink device", argv[i + 2], sizeof(sw[nsw].uplink));
        strcpy(sw[nsw].uplink, argv[i + 2]);
      }
      nsw++;
      i += 2;
    } else if (!strcmp(a, "-node")) {
      NEED(4);
      if (nnode >= MAX_NODES) Die("more than %d nodes", MAX_NODES);
      Node *n = &node[nnode++];
      CheckName("node name", argv[i + 1], sizeof(n->name));
      strcpy(n->name, argv[i + 1]);
      n->sw = (int)ParseLong("-node switch", argv[i + 2], 0, nsw - 1);
      CheckName("port", argv[i + 3], sizeof(n->port));
      strcpy(n->port, argv[i + 3]);
      n->classid = (uint32_t)ParseLong("-node class", argv[i + 4], 0, 0xffff);
      i += 4;
    } else Usage();
#undef NEED
  }
  if (!dir[0] || !pidfile[0] || !nsw || !nnode) Usage();
}

/* The cluster is gone when its first switch's namespace is (down was run, or the machine's namespaces were
   cleared): our sockets would otherwise keep the deleted namespaces alive */
static int ClusterGone(void)
{
  char        path[PATH_MAX];
  struct stat st;
  if (!sw[0].ns[0]) return stat(dir, &st) != 0;
  snprintf(path, sizeof(path), "/run/netns/%s", sw[0].ns);
  return stat(path, &st) != 0 || stat(dir, &st) != 0;
}

int main(int argc, char **argv)
{
  struct sigaction sa;
  double           t_prev, t_check, t_write;
  int              idle = 0, idle_prev_any = 1;
  char             text[32];
  unsigned int     seed     = (unsigned int)getpid();
  int              failures = 0;

  ParseArgs(argc, argv);
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = OnSignal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  for (int j = 0; j < nsw; j++) {
    struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
    sw[j].fd             = OpenIn(sw[j].ns);
    if (Dump(&sw[j], RTM_GETLINK, &ifi, sizeof(ifi), OnLink)) Die("cannot list the interfaces of switch %d (%s)", j, sw[j].ns[0] ? sw[j].ns : "this namespace");
    if (sw[j].uplink[0] && sw[j].uplink_ifindex <= 0) Die("switch %d (%s) has no interface %s", j, sw[j].ns, sw[j].uplink);
  }
  for (int k = 0; k < nnode; k++)
    if (node[k].ifindex <= 0) Die("switch %d (%s) has no interface %s for node %s", node[k].sw, sw[node[k].sw].ns, node[k].port, node[k].name);
  for (int j = 0; j < nsw; j++)
    if (ReadSwitch(&sw[j])) Die("cannot read the counters of switch %d (%s)", j, sw[j].ns);
  for (int k = 0; k < nnode; k++) {
    if (!node[k].seen_port) Die("no counters for the port %s of node %s", node[k].port, node[k].name);
    node[k].base_rx   = node[k].rx;
    node[k].base_tx   = node[k].tx;
    node[k].base_drop = node[k].rxdrop + node[k].cdrops;
    SetupNode(&node[k]);
    WriteCounters(&node[k]);
  }
  /* the pid file last: up waits for it, so that the counters exist when up returns */
  snprintf(text, sizeof(text), "%ld\n", (long)getpid());
  if (WriteAtomic(pidfile, text)) Die("cannot write %s: %s", pidfile, strerror(errno));

  /* Every period (with jitter, 0.5 to 1.5 periods, so that samples do not lock onto a periodic traffic pattern) the
     uplinks' queues are read; a leaf whose uplink holds data has its ports read too, for the stall counters. Every
     write period all ports are read and the files that changed rewritten. While no uplink holds data and none
     did at the last sample, the period grows up to the write period (an idle cluster costs next to nothing); the
     stall time credited at one sample is at most 1.5 periods, so that a long idle gap is never credited whole. */
  t_prev = t_check = t_write = Now();
  while (!stop) {
    double          d  = (idle ? wperiod : period) * (0.5 + (double)rand_r(&seed) / RAND_MAX);
    struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
    double          t, dt;
    int             bad = 0, any = 0;
    while (nanosleep(&ts, &ts) && errno == EINTR && !stop) { }
    if (stop) break;
    t      = Now();
    dt     = t - t_prev;
    t_prev = t;
    if (dt > 1.5 * period) dt = 1.5 * period;
    for (int j = 0; j < nsw; j++) {
      int queued;
      bad |= ReadUplink(&sw[j], &queued);
      if (!queued) continue;
      any = 1;
      bad |= ReadPorts(&sw[j]);
      for (int k = 0; k < nnode; k++)
        if (node[k].sw == j && node[k].seen_class && node[k].backlog) AddWait(&node[k], dt);
    }
    idle          = !any && !idle_prev_any;
    idle_prev_any = any;
    if (t - t_write >= wperiod) {
      t_write = t;
      for (int j = 0; j < nsw; j++) bad |= ReadPorts(&sw[j]);
      for (int k = 0; k < nnode; k++) WriteCounters(&node[k]);
    }
    if (bad && ++failures > 100) Die("netlink requests keep failing: %s", strerror(errno));
    if (t - t_check > 1.0) {
      t_check = t;
      if (ClusterGone()) break;
    }
  }
  unlink(pidfile);
  return 0;
}
