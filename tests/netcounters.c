static const char help[] = "The report's congestion penalty from network counters, end to end: a directory in InfiniBand's\n"
                           "sysfs layout holds the counters; rank 0 moves them by a known amount in the middle of the solve (a KSP\n"
                           "monitor at iteration 1, after every node's reader took its first reading, before any took its last), so\n"
                           "the report's stalls per byte and congestion penalty can be checked against the hand count.\n"
                           "  -dir <D>          the counters' root (made here): D/class/infiniband/pkt0/ports/1/...\n"
                           "  -stalls <s>       port_xmit_wait moves by s (default 6000)\n"
                           "  -bytes <b>        bytes sent move by b, a multiple of 4 (default 3000; port_xmit_data counts 4 bytes)\n"
                           "  -problem ...      model problem options (examples/common/problems.h)\n"
                           "Run it with -ksp_perfmodel_view ::ascii_csv -ksp_perfmodel_netcounters D.\n\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkfiles.h>
#include <errno.h>
#include <sys/stat.h>
#include "problems.h"

typedef struct {
  char      dir[PETSC_MAX_PATH_LEN];
  PetscReal stalls, bytes;
  PetscBool moved;
} Ctr;

/* One counter file, written whole (the reader never sees half a number) */
static PetscErrorCode Put(const char dir[], const char name[], double v)
{
  char path[PETSC_MAX_PATH_LEN + 64], text[64], why[256];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, name));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%.0f\n", v));
  PetscCheck(!PKFileWriteAtomic(path, text, strlen(text), 0644, why, sizeof(why)), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s", why);
  PetscFunctionReturn(0);
}

/* mkdir -p (the test's own directory) */
static PetscErrorCode MkdirP(const char path[])
{
  char p[PETSC_MAX_PATH_LEN + 96];

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(p, path, sizeof(p)));
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      PetscCheck(!mkdir(p, 0755) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "mkdir %s: %s", p, strerror(errno));
      *s = '/';
    }
  PetscCheck(!mkdir(p, 0755) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "mkdir %s: %s", p, strerror(errno));
  PetscFunctionReturn(0);
}

static PetscErrorCode Write(const Ctr *c, PetscBool after)
{
  char port[PETSC_MAX_PATH_LEN + 64], ctr[PETSC_MAX_PATH_LEN + 96];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(port, sizeof(port), "%s/class/infiniband/pkt0/ports/1", c->dir));
  PetscCall(PetscSNPrintf(ctr, sizeof(ctr), "%s/counters", port));
  PetscCall(MkdirP(ctr));
  if (!after) {
    char path[PETSC_MAX_PATH_LEN + 80], why[256];
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/state", port));
    PetscCheck(!PKFileWriteAtomic(path, "4: ACTIVE\n", 10, 0644, why, sizeof(why)), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s", why);
  }
  PetscCall(Put(ctr, "port_xmit_wait", 1000 + (after ? c->stalls : 0)));
  PetscCall(Put(ctr, "port_xmit_data", 250 + (after ? c->bytes / 4 : 0)));
  PetscCall(Put(ctr, "port_rcv_data", 250 + (after ? c->bytes / 4 : 0)));
  PetscCall(Put(ctr, "port_xmit_discards", 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode MoveCounters(KSP ksp, PetscInt its, PetscReal rnorm, void *ctx)
{
  Ctr        *c = (Ctr *)ctx;
  PetscMPIInt rank;

  PetscFunctionBegin;
  (void)rnorm;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
  if (its == 1 && !rank && !c->moved) PetscCall(Write(c, PETSC_TRUE));
  if (its == 1) c->moved = PETSC_TRUE;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PKProblem   prob;
  KSP         ksp;
  Vec         x;
  Ctr         c = {"", 6000, 3000, PETSC_FALSE};
  PetscMPIInt rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", c.dir, sizeof(c.dir), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-stalls", &c.stalls, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bytes", &c.bytes, NULL));
  PetscCheck(c.dir[0], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-dir is required");
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) PetscCall(Write(&c, PETSC_FALSE));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, prob.A, prob.A));
  PetscCall(KSPMonitorSet(ksp, MoveCounters, &c, NULL));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecDuplicate(prob.b, &x));
  PetscCall(KSPSolve(ksp, prob.b, x));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}
