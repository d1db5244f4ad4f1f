/*
   netprobe: plain UDP and TCP traffic between the emulated cluster's nodes (bin/pipekrylov-cluster), for the tests of
   its tree and counters (tests/cluster-tree.sh). No MPI: a test must know exactly which bytes cross which link.

     netprobe echo PORT SECONDS                      UDP echo server (answers every datagram) for at most SECONDS
     netprobe pingpong PORT ROUNDS PER HOST...       UDP round trips of 8 bytes: ROUNDS rounds, in each PER round trips
                                                     to every HOST in turn (interleaved); prints per host the median
                                                     and quartiles of the round trips, in microseconds
     netprobe send HOST PORT COUNT SIZE              COUNT UDP datagrams of SIZE payload bytes (no answer), paced so
                                                     that none is dropped on a 10 Mbit/s link or faster
     netprobe sink PORT SECONDS                      TCP and UDP: accepts connections and reads them and datagrams
                                                     until SECONDS pass, then prints the bytes read
     netprobe stream HOST PORT BYTES                 TCP: sends BYTES to a sink, prints the seconds it took

   Why plain C without PETSc or MPI: it runs inside the namespaces with nothing else, and the tests count its
   bytes on the wire (an UDP datagram of P bytes is one Ethernet frame of P + 42 bytes for P <= 1472).
*/
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_HOSTS 8

static double Now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void Die(const char *what)
{
  fprintf(stderr, "netprobe: %s: %s\n", what, strerror(errno));
  exit(1);
}

static long Arg(const char *s, long lo, long hi)
{
  char *end;
  long  v = strtol(s, &end, 10);
  if (end == s || *end || v < lo || v > hi) {
    fprintf(stderr, "netprobe: '%s' is not an integer from %ld to %ld\n", s, lo, hi);
    exit(2);
  }
  return v;
}

static struct sockaddr_in Addr(const char *host, long port)
{
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
    fprintf(stderr, "netprobe: '%s' is not an IPv4 address\n", host);
    exit(2);
  }
  return a;
}

static int CmpD(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int Echo(long port, long seconds)
{
  struct sockaddr_in a   = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port), .sin_addr.s_addr = htonl(INADDR_ANY)};
  int                fd  = socket(AF_INET, SOCK_DGRAM, 0);
  double             end = Now() + (double)seconds;
  char               buf[2048];
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) Die("echo: bind");
  printf("echo: ready\n");
  fflush(stdout);
  while (Now() < end) {
    struct pollfd      p = {.fd = fd, .events = POLLIN};
    struct sockaddr_in from;
    socklen_t          fl = sizeof(from);
    ssize_t            n;
    if (poll(&p, 1, 100) <= 0) continue;
    n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
    if (n == 4 && !memcmp(buf, "quit", 4)) break;
    if (n > 0) (void)sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
  }
  return 0;
}

/* One round trip of 8 bytes; a lost datagram (after 200 ms) is sent again and not timed. Returns seconds. */
static double RoundTrip(int fd, const struct sockaddr_in *to, unsigned long seq)
{
  char buf[64];
  for (;;) {
    double        t0 = Now();
    struct pollfd p  = {.fd = fd, .events = POLLIN};
    memcpy(buf, &seq, sizeof(seq));
    if (sendto(fd, buf, 8, 0, (const struct sockaddr *)to, sizeof(*to)) != 8) Die("pingpong: send");
    while (poll(&p, 1, 200) > 0) {
      unsigned long got;
      ssize_t       n = recv(fd, buf, sizeof(buf), 0);
      memcpy(&got, buf, sizeof(got));
      if (n == 8 && got == seq) return Now() - t0;
    }
  }
}

static int PingPong(long port, long rounds, long per, int nh, char **hosts)
{
  struct sockaddr_in to[MAX_HOSTS];
  double            *t[MAX_HOSTS];
  int                fd  = socket(AF_INET, SOCK_DGRAM, 0);
  unsigned long      seq = 0;
  if (fd < 0) Die("pingpong: socket");
  for (int h = 0; h < nh; h++) {
    to[h] = Addr(hosts[h], port);
    if (!(t[h] = malloc(sizeof(double) * (size_t)(rounds * per)))) Die("malloc");
    for (int w = 0; w < 20; w++) (void)RoundTrip(fd, &to[h], ++seq); /* warm-up: ARP, caches */
  }
  for (long r = 0; r < rounds; r++)
    for (int h = 0; h < nh; h++)
      for (long i = 0; i < per; i++) t[h][r * per + i] = RoundTrip(fd, &to[h], ++seq);
  for (int h = 0; h < nh; h++) {
    long n = rounds * per;
    qsort(t[h], (size_t)n, sizeof(double), CmpD);
    printf("pingpong %s: %ld round trips, median %.3f us, quartiles %.3f %.3f us\n", hosts[h], n, 1e6 * t[h][n / 2], 1e6 * t[h][n / 4], 1e6 * t[h][3 * n / 4]);
  }
  for (int h = 0; h < nh; h++) (void)sendto(fd, "quit", 4, 0, (struct sockaddr *)&to[h], sizeof(to[h]));
  return 0;
}

static int Send(const char *host, long port, long count, long size)
{
  struct sockaddr_in to = Addr(host, port);
  int                fd = socket(AF_INET, SOCK_DGRAM, 0);
  char               buf[1472];
  memset(buf, 'x', sizeof(buf));
  if (fd < 0) Die("send: socket");
  for (long i = 0; i < count; i++) {
    struct timespec gap = {0, 2000000}; /* 2 ms: 1472 bytes take 1.2 ms at 10 Mbit/s */
    if (sendto(fd, buf, (size_t)size, 0, (struct sockaddr *)&to, sizeof(to)) != size) Die("send");
    nanosleep(&gap, NULL);
  }
  printf("send: %ld datagrams of %ld bytes to %s\n", count, size, host);
  return 0;
}

static int Sink(long port, long seconds)
{
  struct sockaddr_in a  = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port), .sin_addr.s_addr = htonl(INADDR_ANY)};
  int                fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, c[64], nc = 0;
  double             end   = Now() + (double)seconds;
  long long          total = 0;
  static char        buf[1 << 16];
  int                u = socket(AF_INET, SOCK_DGRAM, 0); /* and datagrams, so that no ICMP answers them */
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16)) Die("sink: listen");
  if (u < 0 || bind(u, (struct sockaddr *)&a, sizeof(a))) Die("sink: bind udp");
  printf("sink: ready\n");
  fflush(stdout);
  while (Now() < end) {
    struct pollfd p[66];
    int           np = 0;
    p[np++]          = (struct pollfd){.fd = fd, .events = POLLIN};
    p[np++]          = (struct pollfd){.fd = u, .events = POLLIN};
    for (int i = 0; i < nc; i++) p[np++] = (struct pollfd){.fd = c[i], .events = POLLIN};
    if (poll(p, (nfds_t)np, 100) <= 0) continue;
    if ((p[0].revents & POLLIN) && nc < 64) c[nc++] = accept(fd, NULL, NULL);
    for (int i = 1; i < np; i++)
      if (p[i].revents) {
        ssize_t n = p[i].fd == u ? recv(u, buf, sizeof(buf), 0) : read(p[i].fd, buf, sizeof(buf));
        if (n > 0) total += n;
        else if (p[i].fd != u) { /* the sender is done: closing tells it its data arrived */ close(p[i].fd);
          for (int q = 0; q < nc; q++)
            if (c[q] == p[i].fd) c[q] = c[--nc];
          break; /* the poll set no longer matches c[] */
        }
      }
  }
  printf("sink: %lld bytes\n", total);
  return 0;
}

static int Stream(const char *host, long port, long bytes)
{
  struct sockaddr_in to = Addr(host, port);
  int                fd = socket(AF_INET, SOCK_STREAM, 0);
  static char        buf[1 << 16];
  double             t0;
  long               left = bytes;
  if (fd < 0) Die("stream: socket");
  for (int k = 0; connect(fd, (struct sockaddr *)&to, sizeof(to)); k++) { /* the sink may start a moment later */
    if (k > 50) Die("stream: connect");
    usleep(100000);
    close(fd);
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0) Die("stream: socket");
  }
  t0 = Now();
  while (left > 0) {
    ssize_t n = write(fd, buf, left < (long)sizeof(buf) ? (size_t)left : sizeof(buf));
    if (n <= 0) Die("stream: write");
    left -= n;
  }
  shutdown(fd, SHUT_WR);
  if (read(fd, buf, 1) < 0) { } /* the sink closes when it has read everything: the data has arrived */
  printf("stream: %ld bytes to %s in %.3f s\n", bytes, host, Now() - t0);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 4 && !strcmp(argv[1], "echo")) return Echo(Arg(argv[2], 1, 65535), Arg(argv[3], 1, 3600));
  if (argc >= 6 && argc - 5 <= MAX_HOSTS && !strcmp(argv[1], "pingpong")) return PingPong(Arg(argv[2], 1, 65535), Arg(argv[3], 1, 100000), Arg(argv[4], 1, 100000), argc - 5, argv + 5);
  if (argc == 6 && !strcmp(argv[1], "send")) return Send(argv[2], Arg(argv[3], 1, 65535), Arg(argv[4], 1, 1000000), Arg(argv[5], 1, 1472));
  if (argc == 4 && !strcmp(argv[1], "sink")) return Sink(Arg(argv[2], 1, 65535), Arg(argv[3], 1, 3600));
  if (argc == 5 && !strcmp(argv[1], "stream")) return Stream(argv[2], Arg(argv[3], 1, 65535), Arg(argv[4], 1, 1L << 40));
  fprintf(stderr, "usage: netprobe echo PORT SECONDS | pingpong PORT ROUNDS PER HOST... | send HOST PORT COUNT SIZE | sink PORT SECONDS | stream HOST PORT BYTES\n");
  return 2;
}
