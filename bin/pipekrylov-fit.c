static const char usage[] = "usage: pipekrylov-fit < VALUES\n"
                            "\n"
                            "The library's Johnson SU fit (docs/algorithms.md §10: Slifker-Shapiro percentiles, refined by maximum\n"
                            "likelihood; the fit the report's stochastic section makes) of the numbers on standard input, separated by\n"
                            "white space. One line on standard output:\n"
                            "  johnsonsu GAMMA DELTA XI LAMBDA D N    the fit, the one-sample Kolmogorov-Smirnov distance D of the sample\n"
                            "                                         from it, and the sample size (full precision)\n"
                            "  none N                                 too few values (fewer than 8) or no spread: no fit\n"
                            "bin/pipekrylov-plot draws its Johnson SU curves with it, so that the plot and the report fit alike.\n"
                            "At most 10000000 values, each a finite number of at most 64 characters; anything else is an error\n"
                            "that names the value's position (exit status 1), and nothing is printed on standard output.\n";

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pipekrylov/private/pkmodel.h>

#define PK_FIT_MAX_VALUES 10000000
#define PK_FIT_MAX_TOKEN  64

/* The next white-space separated token of f into tok (at most PK_FIT_MAX_TOKEN characters): 1, 0 at the end, -1 if
   longer */
static int next_token(FILE *f, char tok[])
{
  int c, n = 0;
  while ((c = getc(f)) != EOF && isspace(c)) { }
  if (c == EOF) return 0;
  do {
    if (n == PK_FIT_MAX_TOKEN) return -1;
    tok[n++] = (char)c;
  } while ((c = getc(f)) != EOF && !isspace(c));
  tok[n] = 0;
  return 1;
}

static void die(const char *msg, long pos, const char *tok)
{
  if (pos > 0) fprintf(stderr, "pipekrylov-fit: value %ld%s%s%s: %s\n", pos, tok ? " '" : "", tok ? tok : "", tok ? "'" : "", msg);
  else fprintf(stderr, "pipekrylov-fit: %s\n\n%s", msg, usage);
  exit(1);
}

int main(int argc, char **argv)
{
  PetscReal   *x = NULL;
  long         n = 0, cap = 0;
  char         tok[PK_FIT_MAX_TOKEN + 1];
  int          got;
  PKJSU        fit;
  PKJSUFitInfo info;
  PetscReal    D = 0;

  if (argc > 1) {
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-help"))) {
      fputs(usage, stdout);
      return 0;
    }
    die("takes no argument: the values come on standard input", 0, NULL);
  }
  while ((got = next_token(stdin, tok)) != 0) {
    char  *end;
    double v;
    if (got < 0) die("longer than 64 characters", n + 1, NULL);
    if (n == PK_FIT_MAX_VALUES) die("more than 10000000 values", n + 1, NULL);
    errno = 0;
    v     = strtod(tok, &end);
    if (*end || end == tok || errno == ERANGE || !isfinite(v)) die("not a finite number", n + 1, tok);
    if (n == cap) {
      PetscReal *y;
      cap = cap ? 2 * cap : 1024;
      y   = (PetscReal *)realloc(x, (size_t)cap * sizeof(*x));
      if (!y) die("out of memory", n + 1, NULL);
      x = y;
    }
    x[n++] = (PetscReal)v;
  }
  if (ferror(stdin)) die("cannot read standard input", 0, NULL);
  /* PETSc for the fit's minimiser and its error handling; no options of its own (the values are the input) */
  if (PetscInitializeNoArguments()) return 1;
  if (PKJSUFit((PetscInt)n, x, &fit, &info)) return 1;
  if (info.ok && PKKSOneSampleJSU((PetscInt)n, x, &fit, &D)) return 1;
  if (info.ok) printf("johnsonsu %.17g %.17g %.17g %.17g %.17g %ld\n", (double)fit.gamma, (double)fit.delta, (double)fit.xi, (double)fit.lambda, (double)D, n);
  else printf("none %ld\n", n);
  free(x);
  if (PetscFinalize()) return 1;
  if (fflush(stdout) || ferror(stdout)) {
    fprintf(stderr, "pipekrylov-fit: cannot write standard output\n");
    return 1;
  }
  return 0;
}
