/*
   Network counters of this node's port, read from sysfs for 000 5.7's congestion penalty. The counters
   are differenced and turned into the penalty by plain functions (src/perf/models/netload.c); reading them around
   each solve is the monitor's (netwatch.c), so it is here.

   Layout read (root is /sys unless given, so that tests and the emulated cluster can point at a directory laid out
   the same way):
     InfiniBand / RoCE   <root>/class/infiniband/<dev>/ports/<port>/counters/port_xmit_wait      stalls (ticks)
                                                                              port_xmit_data      bytes / 4
                                                                              port_rcv_data       bytes / 4
                                                                              port_xmit_discards  packets
                         <root>/class/infiniband/<dev>/ports/<port>/state ("4: ACTIVE")
     Linux interface     <root>/class/net/<if>/statistics/tx_bytes, rx_bytes, tx_dropped; <root>/class/net/<if>/operstate
   A Linux interface has no stall counter: its penalty is "not measured", and the reading says what it looked for.

   Every file is opened without blocking (a FIFO cannot hang a solve), must be a regular file, and at most 64 bytes
   of it are read. Symbolic links are followed, as they must be in sysfs (class/net/eth0 is a link into
   /sys/devices), and are not confined to the root: the root is a convenience for tests, not a sandbox. A counter
   that cannot be read is never an error: it is marked missing with the path and the reason; errors are kept for
   invalid arguments (a device name with '/', a port out of range).
*/
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pipekrylov/private/pknet.h>
#include <pipekrylov/private/pkfiles.h>

#define PK_NETCTR_MAX_READ 64

/* The first at most PK_NETCTR_MAX_READ - 1 bytes of a regular file, NUL-terminated; *ok false and why[] if not */
static void ReadSmall(const char path[], char buf[], PetscBool *ok, char why[], size_t whylen)
{
  struct stat st;
  ssize_t     n;
  int         fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

  *ok    = PETSC_FALSE;
  buf[0] = 0;
  if (fd < 0) {
    (void)PetscSNPrintf(why, whylen, "looked for %s: %s", path, strerror(errno));
    return;
  }
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    (void)PetscSNPrintf(why, whylen, "%s is not a regular file", path);
    (void)close(fd);
    return;
  }
  n = read(fd, buf, PK_NETCTR_MAX_READ - 1);
  (void)close(fd);
  if (n <= 0) {
    (void)PetscSNPrintf(why, whylen, "%s: %s", path, n < 0 ? strerror(errno) : "empty");
    return;
  }
  buf[n] = 0;
  *ok    = PETSC_TRUE;
}

/* One counter: a decimal unsigned integer and white space */
static void ReadCounter(const char path[], PetscReal scale, PetscBool saturating, PKNetCounters *c, PKNetCounterId k)
{
  char               buf[PK_NETCTR_MAX_READ], *end, why[PETSC_MAX_PATH_LEN + 64];
  unsigned long long v;
  PetscBool          ok;

  ReadSmall(path, buf, &ok, why, sizeof(why));
  if (ok) {
    errno = 0;
    v     = strtoull(buf, &end, 10);
    while (*end && isspace((unsigned char)*end)) end++;
    if (end == buf || *end || errno || buf[0] == '-') {
      char safe[96];

      ok = PETSC_FALSE;
      if (strlen(buf) > 20) buf[20] = 0; /* enough to recognise it */
      for (size_t n = strlen(buf); n && isspace((unsigned char)buf[n - 1]); n--) buf[n - 1] = 0;
      (void)PetscSNPrintf(why, sizeof(why), "%s does not hold a counter ('%s')", path, PKTextEscape(buf, safe, sizeof(safe)));
    } else if (saturating && v == 4294967295ULL) { /* InfiniBand's 32-bit PortCounters stop at 2^32 - 1 */
      ok = PETSC_FALSE;
      (void)PetscSNPrintf(why, sizeof(why), "%s is saturated at 2^32 - 1 (a 32-bit counter)", path);
    }
  }
  c->have[k]  = ok;
  c->value[k] = ok ? scale * (PetscReal)v : 0;
  if (!ok && !c->missing[0]) (void)PetscStrncpy(c->missing, why, sizeof(c->missing));
}

static PetscErrorCode CheckName(const char name[])
{
  size_t len;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(name, &len));
  PetscCheck(len > 0 && len < sizeof(((PKNetPort *)0)->name), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Network device name of %zu characters: 1 to %zu", len, sizeof(((PKNetPort *)0)->name) - 1);
  PetscCheck(strcmp(name, ".") && strcmp(name, ".."), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Network device name '%s'", name);
  for (size_t i = 0; i < len; i++) PetscCheck(isalnum((unsigned char)name[i]) || strchr("_.:-", name[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Network device name '%s': only letters, digits and _ . : - (no '/')", name);
  PetscFunctionReturn(0);
}

static PetscErrorCode RootOf(const char root[], const char **r)
{
  size_t len;

  PetscFunctionBegin;
  *r = root && root[0] ? root : "/sys";
  PetscCall(PetscStrlen(*r, &len));
  PetscCheck(len < PETSC_MAX_PATH_LEN - 128, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Counter root of %zu characters: at most %d", len, PETSC_MAX_PATH_LEN - 129);
  PetscFunctionReturn(0);
}

/*@C
   PKNetCountersRead - Reads the counters of one network port.

   Not Collective

   Input Parameters:
+  root - the sysfs root (NULL or "": /sys)
-  port - the port: an InfiniBand/RoCE device and port, or a Linux interface (PKNetPortFind())

   Output Parameter:
.  c - each counter's value (bytes for the byte counters: 4 x port_xmit_data) and whether it was read; missing
       names the first counter it looked for and could not read, and why

   Notes:
   A counter that cannot be read is marked, never an error (a missing counter must not stop a solve). Files are
   read as described at the top of src/perf/monitor/netcounters.c.

   Level: developer

.seealso: `PKNetPortFind()`, `PKNetCountersDelta()`, `PKModelCongestionCounters()`
@*/
PetscErrorCode PKNetCountersRead(const char root[], const PKNetPort *port, PKNetCounters *c)
{
  const char *r;
  char        dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(RootOf(root, &r));
  PetscCall(CheckName(port->name));
  PetscCall(PetscMemzero(c, sizeof(*c)));
  if (port->infiniband) {
    const char *const files[PK_NETCTR_N] = {"port_xmit_wait", "port_xmit_data", "port_rcv_data", "port_xmit_discards"};
    const PetscReal   scale[PK_NETCTR_N] = {1, 4, 4, 1}; /* the data counters count 4-byte words */
    PetscCheck(port->port >= 1 && port->port <= 255, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "InfiniBand port %" PetscInt_FMT ": 1 to 255", port->port);
    PetscCall(PetscSNPrintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%" PetscInt_FMT "/counters", r, port->name, port->port));
    for (PetscInt k = 0; k < PK_NETCTR_N; k++) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, files[k]));
      ReadCounter(path, scale[k], PETSC_TRUE, c, (PKNetCounterId)k);
    }
  } else {
    const char *const files[PK_NETCTR_N] = {NULL, "tx_bytes", "rx_bytes", "tx_dropped"};
    PetscCall(PetscSNPrintf(dir, sizeof(dir), "%s/class/net/%s/statistics", r, port->name));
    for (PetscInt k = 1; k < PK_NETCTR_N; k++) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, files[k]));
      ReadCounter(path, 1, PETSC_FALSE, c, (PKNetCounterId)k);
    }
    if (!c->missing[0]) PetscCall(PetscSNPrintf(c->missing, sizeof(c->missing), "no stall counter: interface %s has only Linux statistics (an InfiniBand or RoCE port has port_xmit_wait under %s/class/infiniband)", port->name, r));
  }
  PetscFunctionReturn(0);
}

/* The entries of a directory, sorted, without . and ..; n = 0 if it cannot be read */
static void ListDir(const char path[], struct dirent ***list, int *n)
{
  *n = scandir(path, list, NULL, alphasort);
  if (*n < 0) {
    *n    = 0;
    *list = NULL;
  }
}

static void FreeDir(struct dirent **list, int n)
{
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
}

/* Whether a state file starts with one of the words (sysfs's "4: ACTIVE", "up") */
static PetscBool StateIs(const char path[], const char word[])
{
  char      buf[PK_NETCTR_MAX_READ], why[PETSC_MAX_PATH_LEN + 64];
  PetscBool ok;

  ReadSmall(path, buf, &ok, why, sizeof(why));
  return ok && strstr(buf, word) ? PETSC_TRUE : PETSC_FALSE;
}

/*@C
   PKNetRootExpand - The counter root of one node: spec with every "%h" replaced by the node's name, so that one
   option (-ksp_perfmodel_netcounters, pipekrylov-calibrate's -netcounters) serves a cluster whose counters are
   mirrored per node (the emulated cluster's $PK_CLUSTER_DIR/counters/%h).

   Not Collective

   Input Parameters:
+  spec - the root as given, with "%h" where the node's name goes
.  name - the node's name (MPI_Get_processor_name())
.  option - the option that gave spec, for the error message
-  len - the size of out

   Output Parameter:
.  out - the expanded root

   Level: developer

.seealso: `PKNetPortFind()`
@*/
PetscErrorCode PKNetRootExpand(const char spec[], const char name[], const char option[], char out[], size_t len)
{
  size_t n = 0, ln;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(name, &ln));
  for (const char *p = spec; *p; p++) {
    const char *add = p;
    size_t      k   = 1;
    if (p[0] == '%' && p[1] == 'h') {
      add = name;
      k   = ln;
      p++;
    }
    PetscCheck(n + k < len, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s '%s': longer than %zu characters with %%h replaced by '%s'", option, spec, len - 1, name);
    PetscCall(PetscMemcpy(out + n, add, k));
    n += k;
  }
  out[n] = 0;
  PetscFunctionReturn(0);
}

/*@C
   PKNetPortFind - This node's network port: the first active InfiniBand/RoCE port (devices and ports in name
   order), else the first Linux interface that is up, other than lo.

   Not Collective

   Input Parameter:
.  root - the sysfs root (NULL or "": /sys)

   Output Parameters:
+  port  - the port
-  found - whether there is one

   Level: developer

.seealso: `PKNetCountersRead()`
@*/
PetscErrorCode PKNetPortFind(const char root[], PKNetPort *port, PetscBool *found)
{
  const char     *r;
  char            path[PETSC_MAX_PATH_LEN];
  struct dirent **dev, **prt;
  int             ndev, nprt;

  PetscFunctionBegin;
  PetscCall(RootOf(root, &r));
  PetscCall(PetscMemzero(port, sizeof(*port)));
  *found = PETSC_FALSE;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/class/infiniband", r));
  ListDir(path, &dev, &ndev);
  for (int d = 0; d < ndev && !*found; d++) {
    const char *dn = dev[d]->d_name;
    if (dn[0] == '.' || strlen(dn) >= sizeof(port->name)) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/class/infiniband/%s/ports", r, dn));
    ListDir(path, &prt, &nprt);
    for (int p = 0; p < nprt && !*found; p++) {
      long pn = strtol(prt[p]->d_name, NULL, 10);
      if (pn < 1 || pn > 255) continue;
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%ld/state", r, dn, pn));
      if (!StateIs(path, "ACTIVE")) continue;
      port->infiniband = PETSC_TRUE;
      port->port       = (PetscInt)pn;
      PetscCall(PetscStrncpy(port->name, dn, sizeof(port->name)));
      *found = PETSC_TRUE;
    }
    FreeDir(prt, nprt);
  }
  FreeDir(dev, ndev);
  if (*found) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/class/net", r));
  ListDir(path, &dev, &ndev);
  for (int d = 0; d < ndev && !*found; d++) {
    const char *dn = dev[d]->d_name;
    if (dn[0] == '.' || !strcmp(dn, "lo") || strlen(dn) >= sizeof(port->name)) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/class/net/%s/operstate", r, dn));
    if (!StateIs(path, "up")) continue;
    PetscCall(PetscStrncpy(port->name, dn, sizeof(port->name)));
    *found = PETSC_TRUE;
  }
  FreeDir(dev, ndev);
  PetscFunctionReturn(0);
}
