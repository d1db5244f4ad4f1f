static const char help[] = "Machine profile reader and writer checks.\n"
                           "  -load <file>        read a profile (collective: rank 0 reads, all ranks receive) and view it\n"
                           "                      (without -load: the embedded default)\n"
                           "  -write <file>       write the profile that was read (or the default)\n"
                           "  -roundtrip <tmp>    write to <tmp>, read it back, and check every value and source is identical\n"
                           "  -plausible          check the values a calibration wrote are positive and plausible\n"
                           "  -cases              parse a list of malformed profiles held in memory; each must fail with its reason\n\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkprofile.h>

static PetscErrorCode Cases(void)
{
  /* text, expected substring of the message */
  static const char *const cases[][2] = {
    {"",                                                                                    "end of file without the version line"                                        },
    {"# only a comment\n",                                                                  "end of file without the version line"                                        },
    {"alpha_on_short = 1e-6\n",                                                             "line 1: not a pipekrylov machine profile"                                    },
    {"pipekrylov_machine_profile = 2\n",                                                    "line 1: unsupported profile version 2"                                       },
    {"pipekrylov_machine_profile = 1\nfoo = 3\n",                                           "line 2: unknown key 'foo'"                                                   },
    {"pipekrylov_machine_profile = 1\n\nmem_bw 3e9\n",                                      "line 3: missing '='"                                                         },
    {"pipekrylov_machine_profile = 1\nmem_bw = fast\n",                                     "line 2: value 'fast' of 'mem_bw' is not a number"                            },
    {"pipekrylov_machine_profile = 1\nmem_bw = 3e9 GB/s\n",                                 "line 2: value '3e9 GB/s' of 'mem_bw' is not a number"                        },
    {"pipekrylov_machine_profile = 1\nmem_bw =\n",                                          "line 2: missing value for 'mem_bw'"                                          },
    {"pipekrylov_machine_profile = 1\n = 3\n",                                              "line 2: missing key"                                                         },
    {"pipekrylov_machine_profile = 1\nRN = -1e9\n",                                         "line 2: impossible value -1e9 for 'RN': it must be > 0"                      },
    {"pipekrylov_machine_profile = 1\nalpha_on_short = 0\n",                                "line 2: impossible value 0 for 'alpha_on_short'"                             },
    {"pipekrylov_machine_profile = 1\ngamma = -1e-9\n",                                     "line 2: impossible value -1e-9 for 'gamma': it must be >= 0"                 },
    {"pipekrylov_machine_profile = 1\nmem_bw = inf\n",                                      "not a finite number"                                                         },
    {"pipekrylov_machine_profile = 1\nmem_bw = nan\n",                                      "not a finite number"                                                         },
    {"pipekrylov_machine_profile = 1\nppn = 2.5\n",                                         "line 2: impossible value 2.5 for 'ppn': it must be an integer >= 1"          },
    {"pipekrylov_machine_profile = 1\nppn = none\n",                                        "'ppn' cannot be 'none'"                                                      },
    {"pipekrylov_machine_profile = 1\nmem_bw = 1e9\n# c\nmem_bw = 2e9\n",                   "line 4: duplicate key 'mem_bw' (first set on line 2)"                        },
    {"pipekrylov_machine_profile = 1\npipekrylov_machine_profile = 1\n",                    "line 2: duplicate key 'pipekrylov_machine_profile'"                          },
    {"pipekrylov_machine_profile = 1\nmem bw = 1e9\n",                                      "line 2: 'mem bw' is not a key"                                               },
    {"pipekrylov_machine_profile = 1\neager_limit_on = 8192\nrendezvous_limit_on = 4096\n", "line 3: impossible value: rendezvous_limit_on = 4096 is below eager_limit_on"},
  };
  PetscInt nfail = 0, n = (PetscInt)(sizeof(cases) / sizeof(cases[0]));

  PetscFunctionBegin;
  for (PetscInt k = 0; k < n; k++) {
    PKMachine      m;
    char           err[1024];
    PetscErrorCode rc;

    PetscCall(PKMachineDefault(&m));
    rc = PKMachineParseString(cases[k][0], "case", &m, err, sizeof(err));
    if (!rc || !strstr(err, cases[k][1])) {
      nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL case %" PetscInt_FMT ": rc %d, message \"%s\", expected \"%s\"\n", k, (int)rc, err, cases[k][1]));
    } else PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok   case %" PetscInt_FMT ": %s\n", k, err));
  }
  { /* and a valid one: comments, blank lines, none, a key left out keeps the default */
    PKMachine m, d;
    char      err[1024];
    PetscInt  i;
    PetscCall(PKMachineDefault(&m));
    PetscCall(PKMachineDefault(&d));
    PetscCall(PKMachineParseString("# header\n\n  pipekrylov_machine_profile = 1   # version\nmem_bw = 3.5e9 # bytes/s\r\nRN = none\n", "valid", &m, err, sizeof(err)));
    PetscCall(PKMachineFieldIndex("RN", &i));
    if (err[0] || m.p.mem_bw != 3.5e9 || m.src[i] != PK_SRC_NONE || m.p.alpha[0][0] != d.p.alpha[0][0] || m.src[0] != PK_SRC_DEFAULT) {
      nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL valid profile: \"%s\"\n", err));
    } else PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok   valid profile read (none, defaults kept)\n"));
  }
  PetscCheck(!nfail, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " of %" PetscInt_FMT " malformed-profile cases were not rejected as expected", nfail, n + 1);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "all %" PetscInt_FMT " cases rejected with their reason\n", n));
  PetscFunctionReturn(0);
}

/* Rough bounds any real machine of the last 20 years meets; a calibration outside them is broken. The latencies may
   reach tens of milliseconds: on a loaded machine (two CPU hogs beside 2 ranks on 2 cores) a ping-pong waits for a
   scheduler slice, and the calibration measured alpha_on_short = 1.8 ms, alpha_on_eager = 4.0 ms there. A unit
   error (microseconds read as seconds) still lands far outside. */
static PetscErrorCode Plausible(const PKMachine *m)
{
  static const struct {
    const char *key;
    PetscReal   lo, hi;
    PetscBool   optional; /* may be missing: what a loaded machine cannot always show (then not written) */
  } b[] = {
    {"alpha_on_short",            1e-9,  5e-2, PETSC_FALSE},
    {"alpha_on_eager",            1e-9,  5e-2, PETSC_FALSE},
    {"alpha_on_rendezvous",       1e-9,  5e-2, PETSC_FALSE},
    {"beta_on_rendezvous",        1e-13, 1e-6, PETSC_FALSE},
    {"Rb_on",                     1e6,   1e13, PETSC_FALSE},
    {"allreduce_alpha_on",        1e-9,  5e-2, PETSC_FALSE},
    {"eager_limit_on",            1,     1e8,  PETSC_FALSE},
    {"rendezvous_limit_on",       1,     1e9,  PETSC_FALSE},
    {"sync_limit_on",             1,     2e6,  PETSC_FALSE}, /* bytes: 1 (every send waits) to the largest tried, 1 MiB */
    {"gamma",                     0,     1e-3, PETSC_FALSE},
    {"mem_bw",                    1e8,   1e13, PETSC_FALSE},
    {"spmv_per_nnz",              1e-12, 1e-6, PETSC_FALSE},
    {"flop_time",                 1e-13, 1e-6, PETSC_FALSE},
    {"noise_rate",                0,     1e6,  PETSC_FALSE},
    {"noise_mean",                0,     1,    PETSC_FALSE},
    {"noise_max",                 0,     10,   PETSC_FALSE},
    {"vec_pcg_diag_4096",         1e-11, 1e-6, PETSC_FALSE}, /* s/row: each type's vector work, at the sizes -quick measures too */
    {"vec_pipe2cg_nondiag_32768", 1e-11, 1e-6, PETSC_FALSE},
    {"vec_cg_diag_32768",         1e-11, 1e-6, PETSC_FALSE},
    {"test_on",                   1e-10, 1e-2, PETSC_FALSE}, /* s: the progress calls, posts and polled completion in a solve */
    {"post_on",                   1e-10, 1e-2, PETSC_FALSE},
    {"test_idle_on",              1e-11, 1e-2, PETSC_FALSE},
    {"recv_on",                   1e-10, 1e-2, PETSC_TRUE },
    {"poll_on",                   1e-9,  1e-1, PETSC_TRUE },
  };
  PetscInt nbad = 0, n;

  PetscFunctionBegin;
  PetscCall(PKMachineGetNFields(&n));
  for (PetscInt i = 0; i < n; i++) {
    const char   *key;
    PetscReal     v;
    PKParamSource src;
    PetscCall(PKMachineGetField(m, i, &key, &v, &src));
    if (src == PK_SRC_DEFAULT) {
      nbad++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s was not written by the calibration\n", key));
    }
    if (src != PK_SRC_NONE && !(v >= 0)) {
      nbad++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s = %g is negative\n", key, (double)v));
    }
  }
  for (size_t k = 0; k < sizeof(b) / sizeof(b[0]); k++) {
    PetscInt      i;
    PetscReal     v;
    PKParamSource src;
    PetscCall(PKMachineFieldIndex(b[k].key, &i));
    PetscCall(PKMachineGetField(m, i, NULL, &v, &src));
    if (src == PK_SRC_NONE && b[k].optional) continue;
    if (src == PK_SRC_NONE || v < b[k].lo || v > b[k].hi) {
      nbad++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s = %g (%s) outside [%g, %g]\n", b[k].key, (double)v, PKMachineSourceName(src), (double)b[k].lo, (double)b[k].hi));
    }
  }
  PetscCheck(!nbad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " implausible values in the profile", nbad);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "profile values positive and plausible\n"));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char      load[PETSC_MAX_PATH_LEN] = "", out[PETSC_MAX_PATH_LEN] = "", tmp[PETSC_MAX_PATH_LEN] = "";
  PetscBool hasload, hasout, hastmp, cases = PETSC_FALSE, plausible = PETSC_FALSE;
  PKMachine m;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-load", load, sizeof(load), &hasload));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-write", out, sizeof(out), &hasout));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-roundtrip", tmp, sizeof(tmp), &hastmp));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cases", &cases, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-plausible", &plausible, NULL));
  if (cases) PetscCall(Cases());
  if (hasload) PetscCall(PKMachineLoad(PETSC_COMM_WORLD, load, &m));
  else PetscCall(PKMachineDefault(&m));
  PetscCall(PKMachineView(&m, PETSC_VIEWER_STDOUT_WORLD));
  if (plausible) PetscCall(Plausible(&m));
  if (hasout) PetscCall(PKMachineWrite(PETSC_COMM_WORLD, &m, out, "written by tests/profile"));
  if (hastmp) {
    PKMachine m2;
    PetscInt  n, ndiff = 0;
    PetscCall(PKMachineWrite(PETSC_COMM_WORLD, &m, tmp, NULL));
    PetscCall(PKMachineLoad(PETSC_COMM_WORLD, tmp, &m2));
    PetscCall(PKMachineGetNFields(&n));
    for (PetscInt i = 0; i < n; i++) {
      const char   *key;
      PetscReal     a, b;
      PKParamSource sa, sb;
      PetscCall(PKMachineGetField(&m, i, &key, &a, &sa));
      PetscCall(PKMachineGetField(&m2, i, NULL, &b, &sb));
      if (sa == PK_SRC_DEFAULT) sa = PK_SRC_PROFILE; /* a default written out reads back as a profile value */
      if (a != b || sa != sb) {
        ndiff++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "DIFF %s: %.17g (%s) read back as %.17g (%s)\n", key, (double)a, PKMachineSourceName(sa), (double)b, PKMachineSourceName(sb)));
      }
    }
    PetscCheck(!ndiff, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " fields differ after write and read", ndiff);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "roundtrip identical: %" PetscInt_FMT " fields\n", n));
  }
  PetscCall(PetscFinalize());
  return 0;
}
