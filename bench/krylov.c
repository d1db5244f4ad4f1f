static const char help[] = "Side-by-side benchmark of pipekrylov's solvers against PETSc's on poisson27, interleaved in one run.\n"
                           "Every configuration gets its own KSP (own options prefix) on the same matrix, PC type and tolerance;\n"
                           "each repeat runs every configuration once in a freshly shuffled order, so machine noise hits all alike.\n"
                           "Reported: median time per iteration per configuration, and per pairing the median of the per-repeat ratios.\n"
                           "A STREAM triad on all ranks at once is one more item of the shuffled order; pcg's achieved bandwidth is\n"
                           "reported against it with an explicit byte model. Times are printed, never judged pass/fail.\n"
                           "  -configs \"label=type opts;...\"  configurations (label= optional; default label = type)\n"
                           "  -pairs \"num/den<=target;...\"     pairings: ratio of per-iteration times and its target\n"
                           "  -rtol <r>                        relative tolerance of every solve (default 1e-8); 0: exactly -its iterations\n"
                           "  -its <n>                         maximum iterations per solve (default 10000)\n"
                           "  -repeats <n>                     at most n repeats (default 50), at least -min_repeats (default 5)\n"
                           "  -time_budget <s>                 stop repeating after s seconds (default 120)\n"
                           "  -pc_type <type>                  the preconditioner of every configuration (default jacobi)\n"
                           "  -monitor_overhead <bool>         add pcg+mon and pipe2cg+mon (logging monitor and the default PAPI events on)\n"
                           "  -stream_n <n>                    doubles per triad array per rank (default 2^24), 0 = no STREAM\n"
                           "  -tsv <file>                      also write the summary rows as tab-separated values (rank 0 appends)\n"
                           "  -rows_per_rank <k>, -problem ... the problem (examples/common/problems.h), default poisson27, 8000\n\n";

#include <ctype.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <pipekrylov.h>
#include "problems.h"

#define MAXCFG  32
#define MAXPAIR 32
#define MAXOPT  16

/* The monitor's overhead is measured as users get it: the default PAPI list (hardware counters where they exist,
   else none) */
#define MON_EVENTS "default"

static const char default_configs[] = "pcg;cg;sapcg;cg1r=cg -ksp_cg_single_reduction -ksp_norm_type natural;nbpcg;groppcg;pipecg;petsc_pipecg;pipe2cg;"
                                      "pgmres=pgmres -ksp_gmres_restart 30;petsc_pgmres=petsc_pgmres -ksp_gmres_restart 30";
static const char default_pairs[]   = "pcg/cg<=1.00;sapcg/cg1r<=1.00;nbpcg/groppcg<=1.00;pipecg/pcg<=1.10;pipecg/petsc_pipecg<=0.90;"
                                      "pipe2cg/pcg<=1.15;pgmres/petsc_pgmres<=1.00;pcg+mon/pcg<=1.02;pipe2cg+mon/pipe2cg<=1.02;pcg+trace/pcg<=-1";

typedef struct {
  char               label[64], type[64], opts[512], prefix[16];
  char               optnames[MAXOPT][64]; /* option names as given (without prefix) */
  PetscInt           nopt;
  PetscBool          ok; /* runs; else note says why not */
  char               note[256];
  KSP                ksp;
  Vec                x;
  PetscReal         *tsolve, *tloop, *tcpu; /* per repeat: seconds per iteration (max over ranks): wall, loop, CPU */
  PetscInt          *its;
  KSPConvergedReason reason;
  PetscLogDouble     t_first, t_last; /* loop timer (a KSPMonitor): times of the monitor calls at its 0 and last */
  PetscInt           its_last;
} Config;

typedef struct {
  char      num[64], den[64];
  PetscReal target;
} Pair;

/* ---------------------------------------------------------------------------------------------------------- */
/* Order statistics */
static PetscReal Quantile(const PetscReal *v, PetscInt n, PetscReal q)
{
  PetscReal *s, r, h;
  PetscInt   lo;

  if (n <= 0) return NAN;
  if (PetscMalloc1(n, &s)) return NAN;
  for (PetscInt i = 0; i < n; i++) s[i] = v[i];
  if (PetscSortReal(n, s)) {
    (void)PetscFree(s);
    return NAN;
  }
  h  = q * (n - 1);
  lo = (PetscInt)PetscFloorReal(h);
  r  = (lo + 1 < n) ? s[lo] + (h - lo) * (s[lo + 1] - s[lo]) : s[n - 1];
  (void)PetscFree(s);
  return r;
}

/* Deterministic, identical on every rank (the solves are collective: all ranks must run the same order) */
static PetscInt Rand(PetscInt64 *state, PetscInt n)
{
  *state = *state * 6364136223846793005LL + 1442695040888963407LL;
  return (PetscInt)(((unsigned long long)*state >> 33) % (unsigned long long)n);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Call a PETSc function that may fail (a type still being written, an option it does not take): errors come
   back as values with their message, not as a traceback and an abort. All ranks agree on the outcome. */
#define TRY(call, msg) TryEnd(PETSC_COMM_WORLD, (TryBegin(), (call)), msg, sizeof(msg))
static void TryBegin(void)
{
  (void)PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
}

static PetscBool TryEnd(MPI_Comm comm, PetscErrorCode ierr, char *msg, size_t len)
{
  PetscErrorCode ierr2 = PetscPopErrorHandler();
  int            bad = (ierr || ierr2) ? 1 : 0, anybad = 0;
  char          *specific = NULL;

  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
  if (!anybad) return PETSC_TRUE;
  if (bad) {
    (void)PetscErrorMessage(ierr, NULL, &specific);
    snprintf(msg, len, "%s", specific && specific[0] ? specific : "error");
  } else snprintf(msg, len, "failed on another rank");
  for (char *c = msg; *c; c++)
    if (*c == '\n' || *c == '\t') *c = ' ';
  return PETSC_FALSE;
}

static PetscErrorCode LoopTimer(KSP ksp, PetscInt its, PetscReal rnorm, void *ctx)
{
  Config        *c = (Config *)ctx;
  PetscLogDouble t;
  (void)ksp;
  (void)rnorm;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t));
  if (its == 0) c->t_first = t;
  c->t_last   = t;
  c->its_last = its;
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* "label=type -opt val -flag" -> label, type, options with the config's prefix inserted into the database */
static PetscErrorCode ConfigParse(const char *spec, PetscInt idx, Config *c)
{
  char  buf[640], *s, *eq, *tok, *save = NULL;
  char *toks[2 * MAXOPT + 2];
  int   nt = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscCall(PetscStrncpy(buf, spec, sizeof(buf)));
  s = buf;
  while (*s == ' ') s++;
  eq = strchr(s, '=');
  if (eq && (!strchr(s, ' ') || eq < strchr(s, ' '))) {
    *eq = 0;
    PetscCall(PetscStrncpy(c->label, s, sizeof(c->label)));
    s = eq + 1;
  }
  for (tok = strtok_r(s, " ", &save); tok && nt < 2 * MAXOPT + 2; tok = strtok_r(NULL, " ", &save)) toks[nt++] = tok;
  PetscCheck(nt > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Empty configuration in -configs: '%s'", spec);
  PetscCall(PetscStrncpy(c->type, toks[0], sizeof(c->type)));
  if (!c->label[0]) PetscCall(PetscStrncpy(c->label, c->type, sizeof(c->label)));
  PetscCall(PetscSNPrintf(c->prefix, sizeof(c->prefix), "c%" PetscInt_FMT "_", idx));
  for (int i = 1; i < nt; i++) {
    const char *name = toks[i], *val = NULL;
    char        full[128];
    PetscCheck(name[0] == '-' && name[1] && !isdigit((unsigned char)name[1]), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Configuration '%s': expected an option name, got '%s'", spec, name);
    if (i + 1 < nt && !(toks[i + 1][0] == '-' && toks[i + 1][1] && !isdigit((unsigned char)toks[i + 1][1]) && toks[i + 1][1] != '.')) val = toks[++i];
    PetscCheck(c->nopt < MAXOPT, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Configuration '%s' has too many options", spec);
    PetscCall(PetscStrncpy(c->optnames[c->nopt++], name, sizeof(c->optnames[0])));
    PetscCall(PetscSNPrintf(full, sizeof(full), "-%s%s", c->prefix, name + 1));
    PetscCall(PetscOptionsSetValue(NULL, full, val));
    PetscCall(PetscStrlcat(c->opts, c->opts[0] ? " " : "", sizeof(c->opts)));
    PetscCall(PetscStrlcat(c->opts, name, sizeof(c->opts)));
    if (val) {
      PetscCall(PetscStrlcat(c->opts, " ", sizeof(c->opts)));
      PetscCall(PetscStrlcat(c->opts, val, sizeof(c->opts)));
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ConfigSkip(Config *c, const char *why)
{
  PetscFunctionBegin;
  c->ok = PETSC_FALSE;
  PetscCall(PetscStrncpy(c->note, why, sizeof(c->note)));
  for (PetscInt k = 0; k < c->nopt; k++) { /* so that -options_left does not complain about them */
    char full[128];
    PetscCall(PetscSNPrintf(full, sizeof(full), "-%s%s", c->prefix, c->optnames[k] + 1));
    PetscCall(PetscOptionsClearValue(NULL, full));
  }
  PetscFunctionReturn(0);
}

/* One timed solve; per-iteration times are the max over ranks (the solve ends when the slowest rank does) */
/* CPU time of this thread: unlike wall time, not inflated while the scheduler runs someone else's process */
static PetscLogDouble CpuTime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static PetscErrorCode ConfigRun(Config *c, PKProblem *prob, PetscInt r, PetscBool *ok)
{
  PetscLogDouble t0, t1, c0, c1;
  PetscReal      loc[3], glob[3];
  PetscInt       its;
  char           msg[256];

  PetscFunctionBegin;
  PetscCall(VecSet(c->x, 0.0));
  c->t_first = c->t_last = 0;
  c->its_last            = 0;
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  c0 = CpuTime();
  PetscCall(PetscTime(&t0));
  *ok = TRY(KSPSolve(c->ksp, prob->b, c->x), msg);
  PetscCall(PetscTime(&t1));
  c1 = CpuTime();
  if (!*ok) {
    char why[300];
    PetscCall(PetscSNPrintf(why, sizeof(why), "KSPSolve failed: %s", msg));
    PetscCall(ConfigSkip(c, why));
    PetscFunctionReturn(0);
  }
  PetscCall(KSPGetIterationNumber(c->ksp, &its));
  PetscCall(KSPGetConvergedReason(c->ksp, &c->reason));
  its    = PetscMax(its, 1);
  loc[0] = (t1 - t0) / its;
  loc[1] = c->its_last > 0 ? (c->t_last - c->t_first) / c->its_last : loc[0];
  loc[2] = (c1 - c0) / its;
  PetscCall(MPIU_Allreduce(loc, glob, 3, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  if (r >= 0) {
    c->tsolve[r] = glob[0];
    c->tloop[r]  = glob[1];
    c->tcpu[r]   = glob[2];
    c->its[r]    = its;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ConfigSetUp(Config *c, PKProblem *prob, const char *pctype, PetscReal rtol, PetscInt its)
{
  char      msg[256], why[320];
  PC        pc;
  PetscBool ok;

  PetscFunctionBegin;
  c->ok = PETSC_TRUE;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &c->ksp));
  PetscCall(KSPSetOptionsPrefix(c->ksp, c->prefix));
  PetscCall(KSPSetOperators(c->ksp, prob->A, prob->A));
  PetscCall(KSPGetPC(c->ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  /* Per-iteration time of an ordinary solve to a tolerance (the same for every configuration): solve time over
     iterations, so it includes what a user pays per solve (pipeline fill and drain, convergence checks, residual
     replacements). A fixed iteration count far past convergence (-rtol 0) measures a regime no user runs: the
     residual reaches rounding level, CG variants break down at different iterations, and the pipelined solvers
     replace and restart there far more often than in a real solve. */
  PetscCall(KSPSetTolerances(c->ksp, rtol, rtol > 0 ? PETSC_DEFAULT : 0.0, 1e300, its));
  PetscCall(KSPMonitorSet(c->ksp, LoopTimer, c, NULL));
  PetscCall(VecDuplicate(prob->b, &c->x));
  if (!TRY(KSPSetType(c->ksp, c->type), msg)) {
    PetscCall(PetscSNPrintf(why, sizeof(why), "KSPSetType: %s", msg));
    PetscCall(ConfigSkip(c, why));
    PetscFunctionReturn(0);
  }
  if (!TRY(KSPSetFromOptions(c->ksp), msg) || !TRY(KSPSetUp(c->ksp), msg)) {
    PetscCall(PetscSNPrintf(why, sizeof(why), "set-up: %s", msg));
    PetscCall(ConfigSkip(c, why));
    PetscFunctionReturn(0);
  }
  PetscCall(ConfigRun(c, prob, -1, &ok)); /* warm-up: first-touch, halo set-up, the chunked SpMV's self-check */
  if (!ok) PetscFunctionReturn(0);
  /* An option nobody asked for means the type does not have it (e.g. the logging monitor not merged yet) */
  for (PetscInt k = 0; k < c->nopt; k++) {
    char      full[128];
    PetscBool used;
    PetscCall(PetscSNPrintf(full, sizeof(full), "-%s%s", c->prefix, c->optnames[k] + 1));
    PetscCall(PetscOptionsUsed(NULL, full + 1, &used)); /* the database keeps names without the dash */
    if (!used) {
      PetscCall(PetscSNPrintf(why, sizeof(why), "option %s is not known to %s in this build", c->optnames[k], c->type));
      PetscCall(ConfigSkip(c, why));
      PetscFunctionReturn(0);
    }
  }
  PetscFunctionReturn(0);
}

static Config *FindConfig(Config *cfg, PetscInt n, const char *label)
{
  for (PetscInt i = 0; i < n; i++)
    if (!strcmp(cfg[i].label, label)) return &cfg[i];
  return NULL;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* STREAM triad a = b + s c on every rank at once; bytes counted as STREAM does (24 per element, no write-allocate) */
typedef struct {
  PetscInt   n;
  PetscReal *a, *b, *c;
  PetscReal *rank_gbs, *total_gbs; /* per repeat */
} Stream;

static PetscErrorCode StreamRun(Stream *st, PetscInt r, PetscMPIInt size)
{
  PetscLogDouble                  t0, t1;
  PetscReal                       dt, dtmax, bytes = 24.0 * st->n, s = 3.0;
  PetscReal *PETSC_RESTRICT       a = st->a;
  const PetscReal *PETSC_RESTRICT b = st->b, *PETSC_RESTRICT c = st->c;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t0));
  for (PetscInt i = 0; i < st->n; i++) a[i] = b[i] + s * c[i];
  PetscCall(PetscTime(&t1));
  dt = t1 - t0;
  PetscCall(MPIU_Allreduce(&dt, &dtmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  if (r >= 0) {
    PetscReal gbs = bytes / dt * 1e-9, sum;
    PetscCall(MPIU_Allreduce(&gbs, &sum, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    st->rank_gbs[r]  = sum / size; /* mean over ranks of each rank's own rate */
    st->total_gbs[r] = bytes * size / dtmax * 1e-9;
  }
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* pcg's bytes per iteration on this rank, kernel by kernel (src/ksp/impls/pcg/pcg.c, src/ksp/utils/kernels.c):
   each kernel is assumed to stream its operands from memory (no reuse between kernels), writes counted once. */
typedef struct {
  PetscReal nnz, rows, ghosts;
  PetscReal mat, vec, halo, total;
} ByteModel;

static PetscErrorCode PCGBytes(Mat A, ByteModel *bm)
{
  MatInfo  info;
  PetscInt m, N, M;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  bm->nnz    = info.nz_used;
  bm->rows   = m;
  bm->ghosts = 0;
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
    if (size > 1) {
      Mat             Ad, Ao;
      const PetscInt *garray;
      PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
      PetscCall(MatGetSize(Ao, &M, &N));
      bm->ghosts = N;
    }
  }
  /* matrix: values + column indices per nonzero, row pointers (two blocks when distributed) */
  bm->mat = 12.0 * bm->nnz + 4.0 * (bm->rows + 1) * (bm->ghosts > 0 ? 2 : 1);
  /* vectors, in vector-lengths of 8 bytes: p = z + b p (3), s = A p (x read 1, y write 1), (s,p) (2),
     x += a p and r -= a s fused (6), jacobi z = r ./ d (3), (z,r) and (z,z) fused (2) */
  bm->vec   = 8.0 * bm->rows * (3 + 2 + 2 + 6 + 3 + 2);
  bm->halo  = 8.0 * bm->ghosts; /* ghost values read by the off-diagonal product */
  bm->total = bm->mat + bm->vec + bm->halo;
  PetscFunctionReturn(0);
}

/* Bytes of the largest cache Linux lists for cpu0 (sysconf's figure is wrong in some VMs), -1 if unknown */
static long LastLevelCache(void)
{
  long best = -1;
  for (int i = 0; i < 8; i++) {
    char  path[128], unit = 0;
    long  v = 0;
    FILE *f;
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!(f = fopen(path, "r"))) continue;
    if (fscanf(f, "%ld%c", &v, &unit) >= 1) {
      if (unit == 'K') v *= 1024;
      else if (unit == 'M') v *= 1048576;
      best = v > best ? v : best;
    }
    fclose(f);
  }
  return best;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* One summary row for bench/run's table. Columns: kind label ranks rows_per_rank us_per_it reference ratio q25 q75
   target met cpu_ratio note (NaN where a figure does not apply). */
typedef struct {
  FILE       *f;
  PetscMPIInt size;
  PetscInt    rows;
} Tsv;

static void TsvRow(Tsv *t, const char *kind, const char *label, PetscReal us, const char *ref, PetscReal ratio, PetscReal q1, PetscReal q3, const char *target, const char *met, PetscReal cpu, const char *note)
{
  if (t->f) fprintf(t->f, "%s\t%s\t%d\t%" PetscInt_FMT "\t%.6g\t%s\t%.4f\t%.4f\t%.4f\t%s\t%s\t%.4f\t%s\n", kind, label, t->size, t->rows, us, ref, ratio, q1, q3, target, met, cpu, note);
}

/* Median and quartiles of v, or of the per-repeat ratios a/b when b is given */
typedef struct {
  PetscReal med, q1, q3;
} Q3;

static Q3 Quartiles(const PetscReal *a, const PetscReal *b, PetscInt n)
{
  Q3         q = {NAN, NAN, NAN};
  PetscReal *v;

  if (n <= 0 || PetscMalloc1(n, &v)) return q;
  for (PetscInt r = 0; r < n; r++) v[r] = b ? a[r] / b[r] : a[r];
  q.med = Quantile(v, n, 0.5);
  q.q1  = Quantile(v, n, 0.25);
  q.q3  = Quantile(v, n, 0.75);
  (void)PetscFree(v);
  return q;
}

int main(int argc, char **argv)
{
  PKProblem      prob;
  Config        *cfg;
  Pair           pairs[MAXPAIR];
  Stream         st = {0};
  ByteModel      bm;
  PetscInt       ncfg = 0, npair = 0, its = 10000, maxrep = 50, minrep = 5, nrep = 0, stream_n = 1 << 24, nrows;
  PetscReal      budget = 120.0, rtol = 1e-8;
  PetscBool      monitor = PETSC_TRUE, flg;
  PetscMPIInt    size, rank;
  char           configs[4096], pairspec[2048], pctype[64] = PCJACOBI, tsvname[PETSC_MAX_PATH_LEN] = "", tracedir[PETSC_MAX_PATH_LEN];
  PetscLogDouble tstart, tnow;
  Tsv            tsv = {NULL, 0, 0};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscStrncpy(configs, default_configs, sizeof(configs)));
  PetscCall(PetscStrncpy(pairspec, default_pairs, sizeof(pairspec)));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "pipekrylov benchmark", "");
  PetscCall(PetscOptionsString("-configs", "configurations: label=type -opt val;...", "", configs, configs, sizeof(configs), NULL));
  PetscCall(PetscOptionsString("-pairs", "pairings: num/den<=target;...", "", pairspec, pairspec, sizeof(pairspec), NULL));
  PetscCall(PetscOptionsReal("-rtol", "relative tolerance of every solve (0: exactly -its iterations)", "", rtol, &rtol, NULL));
  PetscCall(PetscOptionsInt("-its", "maximum iterations per solve", "", its, &its, NULL));
  PetscCall(PetscOptionsInt("-repeats", "at most this many repeats", "", maxrep, &maxrep, NULL));
  PetscCall(PetscOptionsInt("-min_repeats", "at least this many repeats", "", minrep, &minrep, NULL));
  PetscCall(PetscOptionsReal("-time_budget", "seconds of repeats", "", budget, &budget, NULL));
  PetscCall(PetscOptionsString("-pc_type", "preconditioner of every configuration", "", pctype, pctype, sizeof(pctype), NULL));
  PetscCall(PetscOptionsBool("-monitor_overhead", "add pcg+mon and pipe2cg+mon", "", monitor, &monitor, NULL));
  PetscCall(PetscOptionsInt("-stream_n", "doubles per STREAM array per rank (0: none)", "", stream_n, &stream_n, NULL));
  PetscCall(PetscOptionsString("-tsv", "append the summary as TSV to this file", "", tsvname, tsvname, sizeof(tsvname), &flg));
  PetscOptionsEnd();
  PetscCheck(its > 0 && maxrep > 0 && minrep > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-its, -repeats and -min_repeats must be positive");
  PetscCheck(rtol >= 0 && rtol < 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rtol must be in [0, 1), not %g", (double)rtol);
  minrep = PetscMin(minrep, maxrep);

  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(VecGetSize(prob.b, &nrows));
  PetscCall(PCGBytes(prob.A, &bm));

  /* configurations */
  PetscCall(PetscCalloc1(MAXCFG, &cfg));
  {
    char *save = NULL, *tok;
    for (tok = strtok_r(configs, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
      if (!tok[strspn(tok, " ")]) continue;
      PetscCheck(ncfg < MAXCFG - 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Too many configurations (max %d)", MAXCFG - 2);
      PetscCall(ConfigParse(tok, ncfg, &cfg[ncfg]));
      ncfg++;
    }
  }
  {
    const char *tmp = getenv("TMPDIR");
    PetscCall(PetscSNPrintf(tracedir, sizeof(tracedir), "%s", tmp && tmp[0] ? tmp : "/tmp"));
  }
  if (monitor) {
    /* the logging monitor (rows, phases, the default PAPI events, statistics at the end of each solve) against off;
       and, without a target, the same with the CSV trace written at the end of each solve to a scratch file */
    const char *base[2] = {"pcg", "pipe2cg"};
    for (int k = 0; k < 2; k++) {
      char spec[640];
      if (!FindConfig(cfg, ncfg, base[k])) continue;
      PetscCall(PetscSNPrintf(spec, sizeof(spec), "%s+mon=%s -ksp_perf_monitor -ksp_perf_papi_events " MON_EVENTS, base[k], base[k]));
      PetscCall(ConfigParse(spec, ncfg, &cfg[ncfg]));
      ncfg++;
      if (k) continue;
      PetscCall(PetscSNPrintf(spec, sizeof(spec), "%s+trace=%s -ksp_perf_trace %s/pk-bench-%d-%s.csv -ksp_perf_papi_events " MON_EVENTS, base[k], base[k], tracedir, (int)getpid(), base[k]));
      PetscCallMPI(MPI_Bcast(spec, sizeof(spec), MPI_CHAR, 0, PETSC_COMM_WORLD)); /* rank 0's pid names the file */
      PetscCall(ConfigParse(spec, ncfg, &cfg[ncfg]));
      ncfg++;
    }
  }
  {
    char *save = NULL, *tok;
    for (tok = strtok_r(pairspec, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
      char *slash = strchr(tok, '/'), *le = strstr(tok, "<=");
      if (!tok[strspn(tok, " ")]) continue;
      PetscCheck(slash && le && le > slash && npair < MAXPAIR, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Pairing '%s' is not num/den<=target", tok);
      *slash = *le = 0;
      PetscCall(PetscStrncpy(pairs[npair].num, tok + strspn(tok, " "), sizeof(pairs[0].num)));
      PetscCall(PetscStrncpy(pairs[npair].den, slash + 1, sizeof(pairs[0].den)));
      pairs[npair].target = atof(le + 2);
      npair++;
    }
  }

  if (rtol > 0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# pipekrylov bench: %s, %" PetscInt_FMT " rows on %d rank%s (%.0f nonzeros on rank 0), pc %s, every solve to rtol %g (at most %" PetscInt_FMT " iterations)\n", prob.name, nrows, size, size > 1 ? "s" : "",
                          (double)bm.nnz, pctype, (double)rtol, its));
  else
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "# pipekrylov bench: %s, %" PetscInt_FMT " rows on %d rank%s (%.0f nonzeros on rank 0), pc %s, %" PetscInt_FMT " iterations per solve (rtol = atol = 0)\n", prob.name, nrows, size, size > 1 ? "s" : "", (double)bm.nnz, pctype, its));
  for (PetscInt i = 0; i < ncfg; i++) {
    PetscCall(PetscMalloc4(maxrep, &cfg[i].tsolve, maxrep, &cfg[i].tloop, maxrep, &cfg[i].tcpu, maxrep, &cfg[i].its));
    PetscCall(ConfigSetUp(&cfg[i], &prob, pctype, rtol, its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "#   %-14s = %s%s%s%s%s\n", cfg[i].label, cfg[i].type, cfg[i].opts[0] ? " " : "", cfg[i].opts, cfg[i].ok ? "" : "   SKIPPED: ", cfg[i].ok ? "" : cfg[i].note));
  }
  if (stream_n > 0) {
    PetscCall(PetscMalloc3(stream_n, &st.a, stream_n, &st.b, stream_n, &st.c));
    PetscCall(PetscMalloc2(maxrep, &st.rank_gbs, maxrep, &st.total_gbs));
    st.n = stream_n;
    for (PetscInt i = 0; i < stream_n; i++) { /* first touch */
      st.a[i] = 0.0;
      st.b[i] = 1.0;
      st.c[i] = 2.0;
    }
    PetscCall(StreamRun(&st, -1, size));
  }

  /* the interleaved repeats */
  {
    PetscInt  *order, nitems = ncfg + (stream_n > 0 ? 1 : 0);
    PetscInt64 seed = 20240601;
    PetscCall(PetscMalloc1(nitems, &order));
    PetscCall(PetscTime(&tstart));
    for (nrep = 0; nrep < maxrep;) {
      int go;
      for (PetscInt i = 0; i < nitems; i++) order[i] = i;
      for (PetscInt i = nitems - 1; i > 0; i--) { /* Fisher-Yates, same on every rank */
        PetscInt j = Rand(&seed, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      for (PetscInt k = 0; k < nitems; k++) {
        PetscInt i = order[k];
        if (i == ncfg) PetscCall(StreamRun(&st, nrep, size));
        else if (cfg[i].ok) {
          PetscBool ok;
          PetscCall(ConfigRun(&cfg[i], &prob, nrep, &ok));
        }
      }
      nrep++;
      PetscCall(PetscTime(&tnow));
      go = (nrep < minrep || tnow - tstart < budget) ? 1 : 0;
      PetscCallMPI(MPI_Bcast(&go, 1, MPI_INT, 0, PETSC_COMM_WORLD)); /* rank 0's clock decides for all */
      if (!go) break;
    }
    PetscCall(PetscTime(&tnow));
    PetscCall(PetscFree(order));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# %" PetscInt_FMT " interleaved repeats in %.1f s (shuffled order per repeat)\n", nrep, tnow - tstart));
  }

  tsv.size = size;
  tsv.rows = (PetscInt)bm.rows;
  if (rank == 0 && tsvname[0]) {
    tsv.f = fopen(tsvname, "a");
    PetscCheck(tsv.f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open -tsv file %s", tsvname);
  }

  for (PetscInt i = 0; i < ncfg; i++) {
    char what[600];
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s%s%s", cfg[i].type, cfg[i].opts[0] ? " " : "", cfg[i].opts));
    TsvRow(&tsv, "legend", cfg[i].label, NAN, "-", NAN, NAN, NAN, "-", "-", NAN, what);
  }

  /* per configuration */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n# per configuration, microseconds per iteration (KSPSolve wall time / iterations, max over ranks): median, min;\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# loop: median between the monitor calls at iteration 0 and the last; cpu: median CPU time of the rank's thread\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# (not inflated while the scheduler runs other processes); IQR/med: spread of the wall times, the noise of this run\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-14s %5s %6s %12s %10s %10s %10s %8s  %s\n", "config", "ranks", "its", "median us/it", "min", "loop", "cpu", "IQR/med", "reason"));
  for (PetscInt i = 0; i < ncfg; i++) {
    Config  *c = &cfg[i];
    Q3       w, l, u;
    PetscInt itsmin = PETSC_MAX_INT, itsmax = 0;
    char     itss[32];

    if (!c->ok) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-14s %5d %6s %12s %10s %10s %10s %8s  skipped: %s\n", c->label, size, "-", "-", "-", "-", "-", "-", c->note));
      TsvRow(&tsv, "config", c->label, NAN, "-", NAN, NAN, NAN, "-", "skipped", NAN, c->note);
      continue;
    }
    for (PetscInt r = 0; r < nrep; r++) {
      itsmin = PetscMin(itsmin, c->its[r]);
      itsmax = PetscMax(itsmax, c->its[r]);
    }
    if (itsmin == itsmax) PetscCall(PetscSNPrintf(itss, sizeof(itss), "%" PetscInt_FMT, itsmin));
    else PetscCall(PetscSNPrintf(itss, sizeof(itss), "%" PetscInt_FMT "-%" PetscInt_FMT, itsmin, itsmax));
    w = Quartiles(c->tsolve, NULL, nrep);
    l = Quartiles(c->tloop, NULL, nrep);
    u = Quartiles(c->tcpu, NULL, nrep);
    {
      const PetscBool early = (PetscBool)(rtol > 0 ? c->reason < 0 : itsmin < its); /* did not run as asked */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-14s %5d %6s %12.2f %10.2f %10.2f %10.2f %7.1f%%  %s%s\n", c->label, size, itss, 1e6 * w.med, 1e6 * Quantile(c->tsolve, nrep, 0.0), 1e6 * l.med, 1e6 * u.med, 100 * (w.q3 - w.q1) / w.med, KSPConvergedReasons[c->reason], early ? " (stopped early: per-iteration time over the iterations done)" : ""));
      TsvRow(&tsv, "config", c->label, 1e6 * w.med, "-", NAN, 1e6 * w.q1, 1e6 * w.q3, "-", "-", 1e6 * u.med, early ? "stopped early" : "");
    }
  }

  /* pairings */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n# pairings: median over repeats of the per-repeat ratio of wall times per iteration, its [25%%, 75%%] quantiles,\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# and the median ratio of CPU times (less sensitive to other processes; includes MPI busy-waiting)\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-14s %5s %12s %-14s %7s %17s %7s %8s  %s\n", "config", "ranks", "median us/it", "reference", "ratio", "[q25, q75]", "cpu", "target", "met"));
  for (PetscInt p = 0; p < npair; p++) {
    Config *a = FindConfig(cfg, ncfg, pairs[p].num), *b = FindConfig(cfg, ncfg, pairs[p].den);
    char    target[32], note[300];

    if (pairs[p].target > 0) PetscCall(PetscSNPrintf(target, sizeof(target), "<= %.2f", (double)pairs[p].target));
    else PetscCall(PetscSNPrintf(target, sizeof(target), "-")); /* reported, no target */
    if (!a || !b) continue;                                     /* a pairing of configurations not in -configs */
    if (!a->ok || !b->ok) {
      PetscCall(PetscSNPrintf(note, sizeof(note), "skipped: %s: %s", !a->ok ? a->label : b->label, !a->ok ? a->note : b->note));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-14s %5d %12s %-14s %7s %17s %7s %8s  %s\n", pairs[p].num, size, "-", pairs[p].den, "-", "-", "-", target, note));
      TsvRow(&tsv, "pair", pairs[p].num, NAN, pairs[p].den, NAN, NAN, NAN, target, "skipped", NAN, note);
      continue;
    }
    for (int loop = 0; loop < ((strstr(a->label, "+mon") || strstr(a->label, "+trace")) ? 2 : 1); loop++) {
      /* for the monitor, also the loop alone: its cost per iteration without set-up and the end-of-solve trace output */
      const PetscReal *ta = loop ? a->tloop : a->tsolve, *tb = loop ? b->tloop : b->tsolve;
      Q3               q = Quartiles(ta, tb, nrep), u = Quartiles(a->tcpu, b->tcpu, nrep);
      const char      *met = pairs[p].target <= 0 ? "-" : (q.med <= pairs[p].target ? "yes" : "no");

      PetscCall(PetscSNPrintf(note, sizeof(note), "%s%s", a->label, loop ? " (loop)" : ""));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-14s %5d %12.2f %-14s %7.3f    [%5.3f, %5.3f] %7.3f %8s  %s\n", note, size, 1e6 * Quantile(ta, nrep, 0.5), b->label, q.med, q.q1, q.q3, loop ? NAN : u.med, target, met));
      {
        char itsnote[64];
        PetscCall(PetscSNPrintf(itsnote, sizeof(itsnote), "iterations %" PetscInt_FMT " and %" PetscInt_FMT, nrep ? a->its[nrep - 1] : 0, nrep ? b->its[nrep - 1] : 0));
        TsvRow(&tsv, "pair", note, 1e6 * Quantile(ta, nrep, 0.5), b->label, q.med, q.q1, q.q3, target, met, loop ? NAN : u.med, loop ? "iteration loop only: without set-up and end-of-solve output" : itsnote);
      }
    }
  }

  /* bandwidth */
  if (stream_n > 0) {
    Config   *c  = FindConfig(cfg, ncfg, "pcg");
    Q3        sr = Quartiles(st.rank_gbs, NULL, nrep), stt = Quartiles(st.total_gbs, NULL, nrep);
    PetscReal sbest = Quantile(st.total_gbs, nrep, 1.0), btot;
    long      llc   = LastLevelCache();

    PetscCall(MPIU_Allreduce(&bm.total, &btot, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n# STREAM triad a = b + 3 c, %" PetscInt_FMT " doubles per array per rank (%.0f MiB per rank), 24 bytes per element, all ranks at once\n", st.n, 24.0 * st.n / 1048576.0));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "STREAM triad: %.2f GB/s per rank, %.2f GB/s total (median; [%.2f, %.2f] quartiles; best %.2f GB/s total)\n", (double)sr.med, (double)stt.med, (double)stt.q1, (double)stt.q3, (double)sbest));
    TsvRow(&tsv, "stream", "STREAM triad", NAN, "-", stt.med, stt.q1, stt.q3, "-", "-", sr.med, "GB/s: ratio = total, q25/q75 of total, cpu column = per rank");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# STREAM's convention counts 24 B per element; with write-allocate the hardware moves 32 B (a's line is read\n"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# before it is written), so a read-mostly kernel such as pcg (matrix reads dominate) can reach more than 1.0 x STREAM\n"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# pcg byte model per iteration, rank 0 (each kernel streams its operands; writes counted once, no write-allocate):\n"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "#   matrix   12 B x %.0f nonzeros + 4 B x %.0f row pointers%s = %.3f MB\n", (double)bm.nnz, (double)bm.rows + 1, bm.ghosts > 0 ? " x 2 blocks" : "", bm.mat * 1e-6));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "#   vectors  18 x 8 B x %.0f rows = %.3f MB: p = z + b p (3), s = A p (p read, s written: 2), (s,p) (2),\n", (double)bm.rows, bm.vec * 1e-6));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "#            x += a p and r -= a s fused (6), jacobi z = r ./ diag (3), (z,r) and (z,z) fused (2)\n"));
    if (bm.ghosts > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "#   halo     8 B x %.0f ghost values = %.3f MB\n", (double)bm.ghosts, bm.halo * 1e-6));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "#   total    %.3f MB per iteration on rank 0, %.3f MB on all ranks%s\n", bm.total * 1e-6, btot * 1e-6, strcmp(pctype, PCJACOBI) ? " (PC other than jacobi: its own bytes are not modelled)" : ""));
    if (llc > 0 && btot < llc) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "#   NOTE: pcg's working set on all ranks (%.1f MB) fits in the %.0f MB last-level cache: the figure below is cache, not memory, bandwidth\n", btot * 1e-6, llc * 1e-6));
    if (c && c->ok) {
      PetscReal   t = Quantile(c->tsolve, nrep, 0.5), bw = btot / t * 1e-9, frac = bw / stt.med;
      const char *met = frac >= 0.8 ? "yes" : "no";
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pcg achieved: %.2f GB/s total, %.2f GB/s per rank = %.2f x STREAM triad (target >= 0.80: %s)\n", (double)bw, (double)bw / size, (double)frac, met));
      TsvRow(&tsv, "bw", "pcg bandwidth", 1e6 * t, "STREAM triad", frac, bw, stt.med, ">= 0.80", met, NAN, llc > 0 && btot < llc ? "cache-resident" : "");
    } else TsvRow(&tsv, "bw", "pcg bandwidth", NAN, "STREAM triad", NAN, NAN, stt.med, ">= 0.80", "n/a", NAN, "pcg not run");
  }
  if (tsv.f) fclose(tsv.f);

  /* clean up (and remove the monitor configurations' scratch traces) */
  for (PetscInt i = 0; i < ncfg; i++) {
    PetscCall(KSPDestroy(&cfg[i].ksp));
    PetscCall(VecDestroy(&cfg[i].x));
    PetscCall(PetscFree4(cfg[i].tsolve, cfg[i].tloop, cfg[i].tcpu, cfg[i].its));
    if (rank == 0 && strstr(cfg[i].label, "+trace")) {
      char path[PETSC_MAX_PATH_LEN];
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/pk-bench-%d-%s.csv", tracedir, (int)getpid(), cfg[i].type));
      (void)remove(path);
    }
  }
  if (stream_n > 0) {
    PetscCall(PetscFree3(st.a, st.b, st.c));
    PetscCall(PetscFree2(st.rank_gbs, st.total_gbs));
  }
  PetscCall(PetscFree(cfg));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}
