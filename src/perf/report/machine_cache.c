/*
   Calibrate where the user is: the per-host machine profile in the user's cache directory.

   bin/pipekrylov-calibrate writes, by default, $XDG_CACHE_HOME/pipekrylov/<host>.profile ($HOME/.cache when
   XDG_CACHE_HOME is unset or not absolute, as the XDG base directory specification says); the report then uses it
   without any option. <host> is the node name and the processor model (so that a VM that comes back on another
   processor is not modelled with the old one's numbers). Precedence: -ksp_perfmodel_machine > this cache > the
   embedded default.
*/
#define _GNU_SOURCE /* dladdr */
#include <pipekrylov/private/pkprofile.h>
#include <ctype.h>
#include <dirent.h>
#include <time.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The processor model from /proc/cpuinfo ("model name", else "Processor"/"cpu model"), "" if none */
static void PKCPUModel(char cpu[], size_t len)
{
  FILE *fp = fopen("/proc/cpuinfo", "r");
  char  line[512];

  cpu[0] = 0;
  if (!fp) return;
  while (fgets(line, sizeof(line), fp)) {
    char *colon = strchr(line, ':');
    if (!colon) continue;
    if (!strncmp(line, "model name", 10) || !strncmp(line, "Processor", 9) || !strncmp(line, "cpu model", 9)) {
      char *v = colon + 1;
      while (*v == ' ' || *v == '\t') v++;
      v[strcspn(v, "\n")] = 0;
      snprintf(cpu, len, "%s", v);
      break;
    }
  }
  fclose(fp);
}

/* Letters, digits, '.', '_' kept; anything else becomes one '-'; at most max characters */
static void PKSlug(const char *in, char *out, size_t max)
{
  size_t n = 0;
  int    dash = 0;

  for (; *in && n + 1 < max; in++) {
    unsigned char ch = (unsigned char)*in;
    if (isalnum(ch) || ch == '.' || ch == '_') {
      if (dash && n) out[n++] = '-';
      if (n + 1 < max) out[n++] = (char)ch;
      dash = 0;
    } else dash = 1;
  }
  out[n] = 0;
}

/*@C
   PKMachineHostName - the name of this host for its cached machine profile: the node name and the processor model

   Not Collective

   Output Parameter:
.  host - for instance "node17_Intel-R-Xeon-R-Platinum-8370C-CPU-2.80GHz" (letters, digits, '.', '_', '-')

   Level: developer

.seealso: PKMachineCachePath(), PKMachineLoadForHost()
@*/
PetscErrorCode PKMachineHostName(char host[], size_t len)
{
  struct utsname u;
  char           cpu[256], node[128] = "unknown-host", scpu[96];

  PetscFunctionBegin;
  if (!uname(&u)) PKSlug(u.nodename, node, sizeof(node));
  if (!node[0]) PetscCall(PetscStrncpy(node, "unknown-host", sizeof(node)));
  PKCPUModel(cpu, sizeof(cpu));
  PKSlug(cpu, scpu, sizeof(scpu));
  if (scpu[0]) PetscCall(PetscSNPrintf(host, len, "%s_%s", node, scpu));
  else PetscCall(PetscStrncpy(host, node, len));
  PetscFunctionReturn(0);
}

/*@C
   PKMachineCachePath - where this host's machine profile lives: $XDG_CACHE_HOME/pipekrylov/<host>.profile

   Not Collective

   Output Parameters:
+  path - the file ("" when neither XDG_CACHE_HOME nor HOME is set)
-  dir  - its directory (may be NULL)

   Notes:
   XDG_CACHE_HOME is used when it is set to an absolute path, else $HOME/.cache.

   Level: developer

.seealso: PKMachineHostName(), PKMachineLoadForHost()
@*/
PetscErrorCode PKMachineCachePath(char path[], size_t len, char dir[], size_t dirlen)
{
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char        base[PETSC_MAX_PATH_LEN] = "", host[256], d[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  path[0] = 0;
  if (dir) dir[0] = 0;
  if (xdg && xdg[0] == '/') PetscCall(PetscStrncpy(base, xdg, sizeof(base)));
  else if (home && home[0]) PetscCall(PetscSNPrintf(base, sizeof(base), "%s/.cache", home));
  if (!base[0]) PetscFunctionReturn(0);
  PetscCall(PKMachineHostName(host, sizeof(host)));
  PetscCall(PetscSNPrintf(d, sizeof(d), "%s/pipekrylov", base));
  PetscCall(PetscSNPrintf(path, len, "%s/%s.profile", d, host));
  if (dir) PetscCall(PetscStrncpy(dir, d, dirlen));
  PetscFunctionReturn(0);
}

/*@C
   PKMachineLoadForHost - the profile the model uses when no -ksp_perfmodel_machine is given: this host's cached
   profile if there is one, else the embedded default

   Collective (rank 0 looks for the file and reads it; every rank gets the same profile or the same error)

   Input Parameter:
.  comm - the communicator

   Output Parameters:
+  m         - the profile
.  cached    - PETSC_TRUE when this host's cached profile was used
-  cachepath - the cache file looked for ("" when there is no cache directory); may be NULL

   Notes:
   Without a profile of this host, the newest cached profile of another host with the same processor model is used
   (the nodes of a cluster share the home directory and the processor, not the node name); its path, not this
   host's, is then m->origin.
   A cached profile that does not read (a format error or a value out of range) is an error naming the file: a
   broken profile is not silently replaced by the default.

   Level: developer

.seealso: PKMachineCachePath(), PKMachineLoad(), PKMachineDefault()
@*/
/* The newest profile in dir named <anything>_<cpu>.profile, other than `self`: a node of a cluster that shares the
   home directory finds the profile calibrated on another node with the same processor */
static void PKSameProcessorProfile(const char dir[], const char self[], char found[], size_t len)
{
  char           cpu[256], scpu[96], suffix[128];
  DIR           *d;
  struct dirent *e;
  time_t         newest = 0;

  found[0] = 0;
  PKCPUModel(cpu, sizeof(cpu));
  PKSlug(cpu, scpu, sizeof(scpu));
  if (!scpu[0] || !(d = opendir(dir))) return;
  snprintf(suffix, sizeof(suffix), "_%s.profile", scpu);
  while ((e = readdir(d))) {
    size_t      n = strlen(e->d_name), k = strlen(suffix);
    char        p[PETSC_MAX_PATH_LEN];
    struct stat st;

    if (n <= k || strcmp(e->d_name + n - k, suffix)) continue;
    snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
    if (!strcmp(p, self) || stat(p, &st) || access(p, R_OK) || st.st_mtime < newest) continue;
    newest = st.st_mtime;
    snprintf(found, len, "%s", p);
  }
  closedir(d);
}

PetscErrorCode PKMachineLoadForHost(MPI_Comm comm, PKMachine *m, PetscBool *cached, char cachepath[], size_t len)
{
  char        path[PETSC_MAX_PATH_LEN] = "", dir[PETSC_MAX_PATH_LEN] = "", use[PETSC_MAX_PATH_LEN] = "";
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscCall(PKMachineCachePath(path, sizeof(path), dir, sizeof(dir)));
    if (path[0] && !access(path, R_OK)) PetscCall(PetscStrncpy(use, path, sizeof(use)));
    else if (dir[0]) PKSameProcessorProfile(dir, path, use, sizeof(use));
  }
  PetscCallMPI(MPI_Bcast(path, (PetscMPIInt)sizeof(path), MPI_CHAR, 0, comm));
  PetscCallMPI(MPI_Bcast(use, (PetscMPIInt)sizeof(use), MPI_CHAR, 0, comm));
  if (cachepath) PetscCall(PetscStrncpy(cachepath, path, len));
  *cached = use[0] ? PETSC_TRUE : PETSC_FALSE;
  if (use[0]) PetscCall(PKMachineLoad(comm, use, m));
  else PetscCall(PKMachineDefault(m));
  PetscFunctionReturn(0);
}

/* mkdir -p of an absolute directory (0700 for what it creates: a user's cache) */
PetscErrorCode PKMakeDirs(const char dir[])
{
  char p[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(p, dir, sizeof(p)));
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    PetscCheck(!mkdir(p, 0700) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create directory '%s': %s", p, strerror(errno));
    *s = '/';
  }
  PetscCheck(!mkdir(p, 0700) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create directory '%s': %s", p, strerror(errno));
  PetscFunctionReturn(0);
}

/*@C
   PKCalibrateCommand - the one command that makes this host's profile, for messages: the calibration tool next to
   this library (<prefix>/bin beside <prefix>/lib, as in the source tree and after make install), else by name

   Not Collective

   Input Parameter:
.  ppn - ranks per node of the run the message is about (at least 2 are used: on-node pairs need two)

   Level: developer
@*/
PetscErrorCode PKCalibrateCommand(PetscInt ppn, char cmd[], size_t len)
{
  Dl_info info;
  char    tool[PETSC_MAX_PATH_LEN] = "pipekrylov-calibrate";

  PetscFunctionBegin;
  if (dladdr((void *)PKCalibrateCommand, &info) && info.dli_fname) {
    char        lib[PETSC_MAX_PATH_LEN], cand[PETSC_MAX_PATH_LEN];
    const char *slash;
    PetscCall(PetscStrncpy(lib, info.dli_fname, sizeof(lib)));
    slash = strrchr(lib, '/');
    if (slash) {
      lib[slash - lib] = 0; /* .../lib */
      slash            = strrchr(lib, '/');
      if (slash) {
        lib[slash - lib] = 0;
        PetscCall(PetscSNPrintf(cand, sizeof(cand), "%s/bin/pipekrylov-calibrate", lib));
        if (!access(cand, X_OK)) PetscCall(PetscStrncpy(tool, cand, sizeof(tool)));
      }
    }
  }
  PetscCall(PetscSNPrintf(cmd, len, "mpiexec -n %" PetscInt_FMT " %s", PetscMax(ppn, 2), tool));
  PetscFunctionReturn(0);
}
