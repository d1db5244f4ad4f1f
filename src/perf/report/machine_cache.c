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
#include <pipekrylov/private/pkfiles.h>
#include <stdlib.h>
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
  size_t n    = 0;
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
.  cached    - PETSC_TRUE when a cached profile was used
-  cachepath - the cache file looked for ("" when there is no cache directory); may be NULL

   Notes:
   Without a profile of this host, the newest cached profile of another host with the same processor model is used
   (the nodes of a cluster share the home directory and the processor, not the node name); its path, not this
   host's, is then m->origin. Another host's profile that does not read (broken, or not the caller's own) is
   skipped with a warning and the next newest one tried.
   This host's cached profile that does not parse (a format error or a value out of range) is an error naming the
   file: a broken profile is not silently replaced by the default.
   The cache is trusted only when it is the caller's own (docs/security.md): a cache directory that is a symbolic
   link, not owned by the caller or writable by group or others is ignored with a warning, and so is a file in it
   that is a link, not a regular file, not the caller's own or writable by others; profiles are read only from
   regular files of at most PK_PROFILE_MAX_BYTES (pkfiles.h).

   Level: developer

.seealso: PKMachineCachePath(), PKMachineLoad(), PKMachineDefault()
@*/

/* A warning on standard error, once per process for each distinct text (the profile is looked for at every
   KSPSetFromOptions of a reported KSP) */
static void PKCacheWarn(const char *text)
{
  static char said[8][512];
  static int  nsaid = 0;

  for (int i = 0; i < nsaid; i++)
    if (!strncmp(said[i], text, sizeof(said[i]) - 1)) return;
  if (nsaid < 8) snprintf(said[nsaid++], sizeof(said[0]), "%s", text);
  (void)PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "WARNING pipekrylov: %s\n", text);
}

/* Profiles in dir named <anything>_<cpu>.profile other than `self`, newest first (the newest max of them): a node
   of a cluster that shares the home directory finds the profile calibrated on another node with the same
   processor */
typedef struct {
  char   path[PETSC_MAX_PATH_LEN];
  time_t mtime;
} PKCacheCand;

static int PKCacheCandCmp(const void *a, const void *b)
{
  time_t x = ((const PKCacheCand *)a)->mtime, y = ((const PKCacheCand *)b)->mtime;
  return x > y ? -1 : x < y;
}

static int PKSameProcessorProfiles(const char dir[], const char self[], PKCacheCand c[], int max)
{
  char           cpu[256], scpu[96], suffix[128];
  DIR           *d;
  struct dirent *e;
  int            n = 0;

  PKCPUModel(cpu, sizeof(cpu));
  PKSlug(cpu, scpu, sizeof(scpu));
  if (!scpu[0] || !(d = opendir(dir))) return 0;
  snprintf(suffix, sizeof(suffix), "_%s.profile", scpu);
  while ((e = readdir(d))) {
    size_t      len = strlen(e->d_name), k = strlen(suffix);
    struct stat st;

    /* c[n] is scratch until it is kept; a name starting with '.' is a calibration's temporary file */
    if (len <= k || strcmp(e->d_name + len - k, suffix) || e->d_name[0] == '.') continue;
    if (snprintf(c[n].path, sizeof(c[n].path), "%s/%s", dir, e->d_name) >= (int)sizeof(c[n].path)) continue;
    if (!strcmp(c[n].path, self) || lstat(c[n].path, &st)) continue;
    c[n].mtime = st.st_mtime;
    if (n < max - 1) n++;
    else qsort(c, (size_t)max, sizeof(c[0]), PKCacheCandCmp); /* full: the oldest, last, is the next scratch */
  }
  closedir(d);
  qsort(c, (size_t)n, sizeof(c[0]), PKCacheCandCmp);
  return n;
}

#define PK_CACHE_MAX_OTHERS 64

PetscErrorCode PKMachineLoadForHost(MPI_Comm comm, PKMachine *m, PetscBool *cached, char cachepath[], size_t len)
{
  char        path[PETSC_MAX_PATH_LEN] = "", dir[PETSC_MAX_PATH_LEN] = "";
  PetscMPIInt rank;
  struct {
    int  rc, used;
    char msg[1024];
  } st = {0, 0, ""};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PKMachineDefault(m));
  if (!rank) {
    char        why[sizeof(st.msg) - 128], warn[sizeof(st.msg) + 128];
    struct stat sb;

    PetscCall(PKMachineCachePath(path, sizeof(path), dir, sizeof(dir)));
    if (dir[0] && !lstat(dir, &sb)) {
      if (PKDirCheckPrivate(dir, why, sizeof(why))) {
        snprintf(warn, sizeof(warn), "the profile cache is ignored: %s (it must be your own directory, writable by you alone; docs/security.md)", why);
        PKCacheWarn(warn);
      } else if (!lstat(path, &sb)) { /* this host's profile: read it; broken is an error, not ours is ignored */
        st.rc = PKMachineReadFile(path, PK_FILE_PRIVATE, m, st.msg, sizeof(st.msg));
        if (!st.rc) st.used = 1;
        else if (st.rc == PETSC_ERR_FILE_READ) {
          snprintf(warn, sizeof(warn), "this host's cached profile is ignored: %s", st.msg);
          PKCacheWarn(warn);
          st.rc     = 0;
          st.msg[0] = 0;
          PetscCall(PKMachineDefault(m));
        }
      } else {
        PKCacheCand *cand;
        int          n;

        PetscCall(PetscMalloc1(PK_CACHE_MAX_OTHERS, &cand));
        n = PKSameProcessorProfiles(dir, path, cand, PK_CACHE_MAX_OTHERS);
        for (int i = 0; i < n && !st.used; i++) {
          if (!PKMachineReadFile(cand[i].path, PK_FILE_PRIVATE, m, st.msg, sizeof(st.msg))) st.used = 1;
          else {
            snprintf(warn, sizeof(warn), "another host's cached profile is skipped: %s", st.msg);
            PKCacheWarn(warn);
            PetscCall(PKMachineDefault(m));
          }
        }
        st.msg[0] = 0;
        PetscCall(PetscFree(cand));
      }
    }
  }
  PetscCallMPI(MPI_Bcast(path, (PetscMPIInt)sizeof(path), MPI_CHAR, 0, comm));
  PetscCallMPI(MPI_Bcast(&st, (PetscMPIInt)sizeof(st), MPI_BYTE, 0, comm));
  PetscCheck(!st.rc, comm, (PetscErrorCode)st.rc, "%s", st.msg);
  PetscCallMPI(MPI_Bcast(m, (PetscMPIInt)sizeof(*m), MPI_BYTE, 0, comm));
  if (cachepath) PetscCall(PetscStrncpy(cachepath, path, len));
  *cached = st.used ? PETSC_TRUE : PETSC_FALSE;
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

/*@C
   PKMachineChoose - the profile of a model, chosen as every report and example chooses it: the file given, else this
   host's cached profile, else (the nodes of a cluster share the home directory and the processor) the newest cached
   profile of another host with this processor, else the embedded default. m->origin says which.

   Collective (PKMachineLoad, PKMachineLoadForHost)

   Input Parameters:
+  comm - the communicator
-  path - the file asked for (-ksp_perfmodel_machine, an example's -machine); "" or NULL: none

   Output Parameters:
+  m   - the profile
-  how - which it is and the cache file looked for (may be NULL)

   Level: developer

.seealso: PKMachineLoadForHost(), PKMachineLoad()
@*/
PetscErrorCode PKMachineChoose(MPI_Comm comm, const char path[], PKMachine *m, PKMachineChoice *how)
{
  PKMachineChoice c;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&c, sizeof(c)));
  if (path && path[0]) {
    PetscCall(PKMachineLoad(comm, path, m));
    c.where = PK_MACHINE_FILE;
    PetscCall(PetscStrncpy(c.file, path, sizeof(c.file)));
  } else {
    PetscBool cached, self;
    PetscCall(PKMachineLoadForHost(comm, m, &cached, c.cache, sizeof(c.cache)));
    c.where = PK_MACHINE_DEFAULT;
    if (cached) {
      char o[PETSC_MAX_PATH_LEN + 64];
      PetscCall(PetscStrcmp(c.cache, m->origin, &self));
      c.where = self ? PK_MACHINE_HOST : PK_MACHINE_OTHER_HOST;
      PetscCall(PetscStrncpy(c.file, m->origin, sizeof(c.file)));
      PetscCall(PetscSNPrintf(o, sizeof(o), "%s %s", self ? "this host's profile" : "the profile of another host with this processor,", m->origin));
      PetscCall(PetscStrncpy(m->origin, o, sizeof(m->origin)));
    }
  }
  if (how) *how = c;
  PetscFunctionReturn(0);
}
