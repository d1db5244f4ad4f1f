static const char help[] = "Unit tests of the network topology (src/topology/hostlist.c, topology.c, linkload.c, locality.c; src/perf/models/netload.c; src/perf/monitor/netcounters.c).\n"
                           "Single rank, no KSP. Every check states its hand computation. Exit status 1 if any check fails.\n"
                           "  -section <names>  run these sections only, comma-separated (hostlist parse slurm routes badfile loads allreduce place topofile counters escape hwloc)\n"
                           "  -v                print every check, not only failures\n"
                           "  -compare <n> [-seed s -uniform k -maxn m]  the placement heuristic against the exhaustive search on n random\n"
                           "                    small trees and grids (a measurement for docs/models.md 7.8, not a test; -v lists the misses)\n"
                           "  -bad <twice|hostlist|cycle|device|cpumask>   an invalid input, with PETSc's own error output (must fail clearly)\n\n";

#include <hwloc.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pipekrylov/private/pkplace.h>
#include <pipekrylov/private/pknet.h>
#include <pipekrylov/private/pklocality.h>
#include <pipekrylov/private/pkfiles.h>

static PetscInt  npass, nfail;
static PetscBool verbose;
static char      lasterr[4096];

static void Count(const char what[], PetscBool ok, const char got[], const char want[])
{
  if (ok) npass++;
  else nfail++;
  if (!ok || verbose) (void)PetscPrintf(PETSC_COMM_SELF, "%s %-62s got %s want %s\n", ok ? "ok  " : "FAIL", what, got, want);
}

static void Check(const char what[], PetscReal got, PetscReal want, PetscReal rtol)
{
  char g[64], w[64];
  (void)PetscSNPrintf(g, sizeof(g), "%.12g", (double)got);
  (void)PetscSNPrintf(w, sizeof(w), "%.12g", (double)want);
  Count(what, PetscAbsReal(got - want) <= rtol * PetscAbsReal(want) ? PETSC_TRUE : PETSC_FALSE, g, w);
}

static void CheckStr(const char what[], const char got[], const char want[])
{
  Count(what, strcmp(got, want) ? PETSC_FALSE : PETSC_TRUE, got, want);
}

/* PETSc's error handler for the calls expected to fail: keeps the first message of the error */
static PetscErrorCode CatchError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  (void)comm, (void)line, (void)fun, (void)file, (void)ctx;
  if (p == PETSC_ERROR_INITIAL) (void)PetscStrncpy(lasterr, mess, sizeof(lasterr));
  return n;
}

static void CheckError(const char what[], PetscErrorCode e, const char want[])
{
  Count(what, e && strstr(lasterr, want) ? PETSC_TRUE : PETSC_FALSE, e ? lasterr : "(no error)", want);
}

#define EXPECT_ERROR(what, call, want) \
  do { \
    PetscErrorCode e_; \
    lasterr[0] = 0; \
    PetscCall(PetscPushErrorHandler(CatchError, NULL)); \
    e_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    CheckError(what, e_, want); \
  } while (0)

static PetscErrorCode TopoFromText(const char text[], PKTopo *t)
{
  return PKTopoCreateFromString(text, strlen(text), t);
}

static PetscInt NodeOf(PKTopo t, const char name[])
{
  PetscInt n = -1;
  (void)PKTopoFindNode(t, name, &n);
  return n;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Host lists */

static PetscErrorCode Joined(const char expr[], PetscInt max, char out[], size_t len)
{
  char   **names;
  PetscInt n;

  PetscFunctionBegin;
  out[0] = 0;
  PetscCall(PKHostlistExpand(expr, max, &n, &names));
  for (PetscInt i = 0; i < n; i++) {
    if (i) PetscCall(PetscStrlcat(out, " ", len));
    PetscCall(PetscStrlcat(out, names[i], len));
  }
  PetscCall(PetscStrArrayDestroy(&names));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestHostlist(void)
{
  const char *cases[][2] = {
    {"node[01-04,20]",       "node01 node02 node03 node04 node20"                                           }, /* range, list, padding */
    {"node[001-003]",        "node001 node002 node003"                                                      }, /* width of the lower end */
    {"tux[0-3,12,18-20]",    "tux0 tux1 tux2 tux3 tux12 tux18 tux19 tux20"                                  }, /* topology.conf(5)'s example */
    {"node[8-10]",           "node8 node9 node10"                                                           }, /* no padding: width 1 */
    {"n[07-10]",             "n07 n08 n09 n10"                                                              },
    {"rack[0-1]_blade[0-2]", "rack0_blade0 rack0_blade1 rack0_blade2 rack1_blade0 rack1_blade1 rack1_blade2"}, /* first group slowest */
    {"alpha,beta, gamma",    "alpha beta gamma"                                                             },
    {"node[1-2]-ib,login",   "node1-ib node2-ib login"                                                      }, /* text after the bracket */
    {"s[0-1] t",             "s0 s1 t"                                                                      }, /* white space separates too */
    {"x[2,1-2]",             "x2 x1 x2"                                                                     }, /* order kept, repeats passed on */
    {"[1-2]",                "1 2"                                                                          },
  };
  const char *bad[][3] = {
    {"node[3-1]",                            "100",  "range 3-1 decreases"            },
    {"node[1-3",                             "100",  "not closed with ']'"            },
    {"node[]",                               "100",  "expected a number"              },
    {"node[1,,2]",                           "100",  "expected a number"              },
    {"a,,b",                                 "100",  "an empty name"                  },
    {"a,",                                   "100",  "an empty name"                  },
    {"",                                     "100",  "an empty host list"             },
    {"node]1",                               "100",  "']' without '['"                },
    {"bgl[123x456]",                         "100",  "box syntax"                     },
    {"n[0-1234567890]",                      "100",  "more than 9 digits"             },
    {"n[0-99999]",                           "1000", "expands to more than 1000 names"},
    {"n[0-9]_[0-9]_[0-9]_[0-9]",             "1000", "expands to more than 1000 names"}, /* 10^4 */
    {"a[0-1],b[0-1]",                        "3",    "more than 3 names in all"       },
    {"n[1 -2]",                              "100",  "white space inside brackets"    },
    {"a=b",                                  "100",  "character 0x3d not allowed"     },
    {"a[0]b[0]c[0]d[0]e[0]f[0]g[0]h[0]i[0]", "100",  "more than 8 bracket groups"     },
  };
  char     out[512], lng[300];
  PetscInt n;
  char   **names;

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char what[96];
    PetscCall(Joined(cases[i][0], 100, out, sizeof(out)));
    PetscCall(PetscSNPrintf(what, sizeof(what), "host list %s", cases[i][0]));
    CheckStr(what, out, cases[i][1]);
  }
  PetscCall(PKHostlistExpand("node[001-016]", 100, &n, &names));
  Check("node[001-016]: 16 names", n, 16, 0);
  CheckStr("node[001-016]: the last", names[15], "node016");
  PetscCall(PetscStrArrayDestroy(&names));
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char what[96];
    PetscCall(PetscSNPrintf(what, sizeof(what), "bad host list '%s'", bad[i][0]));
    EXPECT_ERROR(what, PKHostlistExpand(bad[i][0], atoi(bad[i][1]), &n, &names), bad[i][2]);
  }
  PetscCall(PetscMemzero(lng, sizeof(lng)));
  PetscCall(PetscMemzero(lng, 256));
  for (PetscInt i = 0; i < 256; i++) lng[i] = 'a'; /* 256 characters: one more than PK_TOPO_MAX_NAME */
  EXPECT_ERROR("bad host list: a name of 256 characters", PKHostlistExpand(lng, 10, &n, &names), "a name longer than 255 characters");
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* topology.conf */

/* The tree of the link-load tests: 8 nodes under 2 leaf switches and one spine (docs/models.md §7) */
static const char TwoLeaves[] = "# 8 nodes, 2 leaf switches, 1 spine\n"
                                "SwitchName=s0 Nodes=node[01-04]\n"
                                "SwitchName=s1 Nodes=node[05-08]   LinkSpeed=100\n"
                                "SwitchName=spine Switches=s[0-1]  # the top\n";

static PetscErrorCode TestParse(void)
{
  PKTopo      t;
  PetscInt    nsw, nn, nr, depth, leaf, parent, level, speed, s;
  const char *name;
  /* the same tree in Slurm's other spellings: keys in any case, blanks around '=', a quoted list with a blank,
     continuation lines (one ending in blanks after the backslash), CRLF, comments, escapes */
  const char variants[] = "  switchname = s0 NODES=\"node01, node0[2-4]\" \\   \r\n"
                          "      linkspeed=10   # a comment, \\ no continuation here\r\n"
                          "\n"
                          "SwitchName=s1 Nodes=node[05-08]\r\n"
                          "SwitchName=spi\\ne Switches=s0,\\\n"
                          "s1\n";

  PetscFunctionBegin;
  PetscCall(TopoFromText(TwoLeaves, &t));
  PetscCall(PKTopoGetSizes(t, &nsw, &nn, &nr, &depth));
  Check("two leaves: 3 switches", nsw, 3, 0);
  Check("two leaves: 8 nodes", nn, 8, 0);
  Check("two leaves: 1 root", nr, 1, 0);
  Check("two leaves: depth 1", depth, 1, 0);
  Check("node01 is node 0", NodeOf(t, "node01"), 0, 0);
  Check("node08 is node 7", NodeOf(t, "node08"), 7, 0);
  Check("node09 is not listed", NodeOf(t, "node09"), -1, 0);
  Check("node01.cluster.org finds node01 by its short name", NodeOf(t, "node01.cluster.org"), 0, 0);
  PetscCall(PKTopoGetNode(t, 7, &name, &leaf));
  CheckStr("node 7's name", name, "node08");
  Check("node08 under s1 (switch 1)", leaf, 1, 0);
  PetscCall(PKTopoFindSwitch(t, "spine", &s));
  Check("spine is switch 2", s, 2, 0);
  PetscCall(PKTopoGetSwitch(t, 0, &name, &parent, &level, &speed));
  Check("s0's parent is the spine", parent, 2, 0);
  Check("s0 one level below the root", level, 1, 0);
  Check("s0's LinkSpeed defaults to 1", speed, 1, 0);
  PetscCall(PKTopoGetSwitch(t, 1, NULL, NULL, NULL, &speed));
  Check("s1's LinkSpeed=100", speed, 100, 0);
  PetscCall(PKTopoGetSwitch(t, 2, NULL, &parent, &level, NULL));
  Check("the spine is a root", parent, -1, 0);
  Check("the spine at level 0", level, 0, 0);
  PetscCall(PKTopoDestroy(&t));

  PetscCall(TopoFromText(variants, &t));
  PetscCall(PKTopoGetSizes(t, &nsw, &nn, &nr, &depth));
  Check("spellings: 3 switches", nsw, 3, 0);
  Check("spellings: 8 nodes", nn, 8, 0);
  Check("spellings: 1 root", nr, 1, 0);
  PetscCall(PKTopoFindSwitch(t, "spine", &s));
  Check("spellings: 'spi\\ne' is spine", s, 2, 0);
  PetscCall(PKTopoGetNode(t, 3, &name, &leaf));
  CheckStr("spellings: node 3 from the quoted list", name, "node04");
  Check("spellings: node04 under s0", leaf, 0, 0);
  PetscCall(PKTopoGetSwitch(t, 0, NULL, NULL, NULL, &speed));
  Check("spellings: LinkSpeed on the continued line", speed, 10, 0);
  PetscCall(PKTopoDestroy(&t));

  /* 5000 nodes: the name tables grow well past their first size */
  PetscCall(TopoFromText("SwitchName=s0 Nodes=n[0000-2999]\nSwitchName=s1 Nodes=m[1-2000]\nSwitchName=top Switches=s[0-1]\n", &t));
  PetscCall(PKTopoGetSizes(t, NULL, &nn, NULL, NULL));
  Check("5000 nodes", nn, 5000, 0);
  Check("n2999 is node 2999", NodeOf(t, "n2999"), 2999, 0);
  Check("m2000 is node 4999", NodeOf(t, "m2000"), 4999, 0);
  Check("n299 is not listed (n0299 is)", NodeOf(t, "n299"), -1, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "n0007"), NodeOf(t, "m1234"), &s));
  Check("hops n0007-m1234 across the top", s, 4, 0);
  PetscCall(PKTopoDestroy(&t));

  /* fully qualified names in the file: the short processor name finds them; a short name two nodes share does not */
  PetscCall(TopoFromText("SwitchName=s0 Nodes=n1.a,n1.b,n2.a\n", &t));
  Check("n2 finds n2.a", NodeOf(t, "n2"), 2, 0);
  Check("n2.other finds n2.a (short names compared)", NodeOf(t, "n2.other"), 2, 0);
  Check("n1.b is found as it is", NodeOf(t, "n1.b"), 1, 0);
  EXPECT_ERROR("n1 could be n1.a or n1.b", PKTopoFindNode(t, "n1", &s), "node name 'n1' could be 'n1.a' (topology.conf line 1) or 'n1.b' (line 1)");
  PetscCall(PKTopoDestroy(&t));
  PetscFunctionReturn(0);
}

/* The names of the links of a route, blank-separated */
static PetscErrorCode RouteNames(PKTopo t, const char a[], const char b[], char out[], size_t len)
{
  PKTopoLink links[PK_TOPO_MAX_ROUTE];
  PetscInt   n;

  PetscFunctionBegin;
  out[0] = 0;
  PetscCall(PKTopoRoute(t, NodeOf(t, a), NodeOf(t, b), &n, links));
  for (PetscInt k = 0; k < n; k++) {
    char l[80];
    PetscCall(PKTopoLinkName(t, links[k], l, sizeof(l)));
    if (k) PetscCall(PetscStrlcat(out, " ", len));
    PetscCall(PetscStrlcat(out, l, len));
  }
  if (n < 0) PetscCall(PetscStrncpy(out, "no route", len));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestRoutes(void)
{
  /* three levels, leaves at two depths:            core
                                                  /   |    \
                                                a0    a1    l3 (n6)
                                               /  \    |
                                         (n0,n1)l0 l1  l2 (n4,n5)
                                                (n2,n3)                                                            */
  const char deep[]   = "SwitchName=l0 Nodes=n[0-1]\n"
                        "SwitchName=l1 Nodes=n[2-3]\n"
                        "SwitchName=l2 Nodes=n[4-5]\n"
                        "SwitchName=l3 Nodes=n6\n"
                        "SwitchName=a0 Switches=l[0-1]\n"
                        "SwitchName=a1 Switches=l2\n"
                        "SwitchName=core Switches=a[0-1],l3\n";
  const char forest[] = "SwitchName=s0 Nodes=a[1-2]\nSwitchName=s1 Nodes=b[1-2]\n";
  PKTopo     t;
  PetscInt   h, depth, nr;
  char       out[512];

  PetscFunctionBegin;
  PetscCall(TopoFromText(deep, &t));
  PetscCall(PKTopoGetSizes(t, NULL, NULL, &nr, &depth));
  Check("deep: depth 2 (l0 under a0 under core)", depth, 2, 0);
  Check("deep: 1 root", nr, 1, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "n0"), NodeOf(t, "n0"), &h));
  Check("hops n0-n0 (one node): 0", h, 0, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "n0"), NodeOf(t, "n1"), &h));
  Check("hops n0-n1 (one leaf): 2 host links", h, 2, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "n0"), NodeOf(t, "n2"), &h));
  Check("hops n0-n2 (l0-a0-l1): 2 + 2", h, 4, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "n0"), NodeOf(t, "n4"), &h));
  Check("hops n0-n4 (l0-a0-core-a1-l2): 2 + 4", h, 6, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "n6"), NodeOf(t, "n1"), &h));
  Check("hops n6-n1 (l3-core-a0-l0): 2 + 3", h, 5, 0);
  PetscCall(RouteNames(t, "n0", "n4", out, sizeof(out)));
  CheckStr("route n0 -> n4", out, "n0->l0 l0->a0 a0->core core->a1 a1->l2 l2->n4");
  PetscCall(RouteNames(t, "n4", "n0", out, sizeof(out)));
  CheckStr("route n4 -> n0 (the same links, the other way)", out, "n4->l2 l2->a1 a1->core core->a0 a0->l0 l0->n0");
  PetscCall(RouteNames(t, "n0", "n6", out, sizeof(out)));
  CheckStr("route n0 -> n6 (leaves at two depths)", out, "n0->l0 l0->a0 a0->core core->l3 l3->n6");
  PetscCall(RouteNames(t, "n2", "n3", out, sizeof(out)));
  CheckStr("route n2 -> n3 (one leaf)", out, "n2->l1 l1->n3");
  PetscCall(PKTopoDestroy(&t));

  PetscCall(TopoFromText(forest, &t));
  PetscCall(PKTopoGetSizes(t, NULL, NULL, &nr, NULL));
  Check("forest: 2 roots", nr, 2, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "a1"), NodeOf(t, "a2"), &h));
  Check("forest: hops a1-a2 in one tree", h, 2, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "a1"), NodeOf(t, "b1"), &h));
  Check("forest: a1-b1 have no route (-1)", h, -1, 0);
  PetscCall(PKTopoDestroy(&t));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestBadFile(void)
{
  const char *bad[][2] = {
    {"SwitchName=s0 Nodes=n[1-2]\nSwitchName=s0 Nodes=n3\n",                        "topology.conf line 2: switch 's0' is defined twice (first on line 1)"                         },
    {"SwitchName=s0 \\\n  Nodes=n1\nSwitchName=s0 Nodes=n2\n",                      "topology.conf line 3: switch 's0' is defined twice (first on line 1)"                         }, /* lines counted through a continuation */
    {"SwitchName=s0 Nodes=n1\nSwitchName=s1 Nodes=n[0-1]\n",                        "topology.conf line 2: node 'n1' is under switch 's1' here and under 's0' on line 1"           },
    {"SwitchName=s0 Nodes=n1 Switches=s1\n",                                        "topology.conf line 1: switch 's0' has both Nodes= and Switches="                              },
    {"SwitchName=s0 Nodes=n1\nSwitchName=top Switches=s[0-1]\n",                    "topology.conf line 2: switch 'top' lists 's1' in Switches=, which no SwitchName= line defines"},
    {"SwitchName=l Nodes=n1\nSwitchName=a Switches=l,b\nSwitchName=b Switches=a\n", "the switches form a cycle: 'a' under 'b' under 'a'"                                           },
    {"SwitchName=a Switches=a\nSwitchName=l Nodes=n1\n",                            "topology.conf line 1: switch 'a' lists itself"                                                },
    {"SwitchName=l Nodes=n1\nSwitchName=p1 Switches=l\nSwitchName=p2 Switches=l\n", "topology.conf line 3: switch 'l' is under 'p2' here and under 'p1' on line 2"                 },
    {"SwitchName=s0 Nodes=n1 Foo=3\n",                                              "topology.conf line 1: unknown key 'Foo'"                                                      },
    {"\n# c\nNodes=n1\n",                                                           "topology.conf line 3: unknown key 'Nodes': a topology/tree line starts with SwitchName="      },
    {"BlockName=b1 Nodes=n1\n",                                                     "BlockName= is Slurm's topology/block plugin"                                                  },
    {"SwitchName s0\n",                                                             "topology.conf line 1: expected '=' after 'SwitchName'"                                        },
    {"SwitchName=s0 Nodes=\n",                                                      "topology.conf line 1: Nodes= has no value"                                                    },
    {"SwitchName=s0 Nodes=\"n1\n",                                                  "topology.conf line 1: Nodes=\"...: the quote is not closed"                                   },
    {"SwitchName=s0 Nodes=n1 LinkSpeed=fast\n",                                     "topology.conf line 1: LinkSpeed=fast is not an integer"                                       },
    {"\n\nSwitchName=s0 Nodes=node[5-3]\n",                                         "topology.conf line 3: Nodes= 'node[5-3]': range 5-3 decreases"                                },
    {"# nothing\n",                                                                 "topology.conf: no SwitchName= line"                                                           },
    {"SwitchName=top\n",                                                            "topology.conf: no switch has Nodes="                                                          },
    {"SwitchName=s[0-1] Nodes=n1\n",                                                "topology.conf line 1: SwitchName= 's[0-1]': one name, not a host list"                        },
    {"SwitchName=a\\#b Nodes=n1\n",                                                 "character 0x23 not allowed"                                                                   }, /* \# is a '#', not a comment */
    {"SwitchName=s0 Nodes=n[0-2000000]\n",                                          "expands to more than 1048576 names"                                                           },
    {"SwitchName=s0 Nodes=a Nodes=b\n",                                             "topology.conf line 1: Nodes= given twice"                                                     },
    {"SwitchName=s0 Nodes+=a\n",                                                    "topology.conf line 1: operator '+=' not accepted"                                             },
  };
  char    *deep, *lng;
  size_t   len = 0;
  PKTopo   t   = NULL;
  PetscInt nsw, depth;

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char what[96];
    PetscCall(PetscSNPrintf(what, sizeof(what), "bad topology.conf %zu", i + 1));
    EXPECT_ERROR(what, TopoFromText(bad[i][0], &t), bad[i][1]);
    Count("nothing returned after an error", t ? PETSC_FALSE : PETSC_TRUE, t ? "a topology" : "NULL", "NULL");
  }
  /* a chain of switches s20 > s19 > ... > s0 (Nodes=n1): s0 is 20 levels below its root, PK_TOPO_MAX_DEPTH; one
     more switch on top makes 21 */
  PetscCall(PetscMalloc1(4096, &deep));
  PetscCall(PetscStrncpy(deep, "SwitchName=s0 Nodes=n1\n", 4096));
  for (PetscInt k = 1; k <= 20; k++) {
    PetscCall(PetscStrlen(deep, &len));
    PetscCall(PetscSNPrintf(deep + len, 4096 - len, "SwitchName=s%" PetscInt_FMT " Switches=s%" PetscInt_FMT "\n", k, k - 1));
  }
  PetscCall(TopoFromText(deep, &t));
  PetscCall(PKTopoGetSizes(t, &nsw, NULL, NULL, &depth));
  Check("a chain of 21 switches is read", nsw, 21, 0);
  Check("its depth is 20", depth, 20, 0);
  PetscCall(PKTopoDestroy(&t));
  PetscCall(PetscStrlcat(deep, "SwitchName=s21 Switches=s20\n", 4096));
  EXPECT_ERROR("a tree 21 levels deep", TopoFromText(deep, &t), "switch 's0' is 21 levels below its root: more than 20");
  PetscCall(PetscFree(deep));
  /* one logical line of more than PK_TOPO_MAX_LINE characters; a NUL byte */
  PetscCall(PetscMalloc1(PK_TOPO_MAX_LINE + 100, &lng));
  PetscCall(PetscStrncpy(lng, "SwitchName=s0 Nodes=", 64));
  PetscCall(PetscStrlen(lng, &len));
  for (size_t k = len; k < PK_TOPO_MAX_LINE + 50; k++) lng[k] = (k % 4 == 3) ? ',' : 'a';
  lng[PK_TOPO_MAX_LINE + 50] = 0;
  EXPECT_ERROR("a line longer than 65536 characters", TopoFromText(lng, &t), "topology.conf line 1: longer than 65536 characters");
  PetscCall(PetscFree(lng));
  EXPECT_ERROR("a NUL byte", PKTopoCreateFromString("SwitchName=s0 Nodes=n1\nSwitch\0Name", 34, &t), "topology.conf line 2: a NUL byte");
  EXPECT_ERROR("more than PK_TOPO_MAX_TEXT bytes", PKTopoCreateFromString("", PK_TOPO_MAX_TEXT + 1, &t), "more than 4194304");
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Link loads of DMDA halo exchanges on TwoLeaves, one rank per node */

/* The messages of one ghost update of a DMDA with a star stencil of width 1 and one value (8 bytes) per point:
   rank (i, j, k) = i + p0 (j + p1 k), as PETSc numbers them, holds m0 x m1 x m2 points and sends each face
   neighbour its face: m1 m2 points in x, m0 m2 in y, m0 m1 in z. node[r] is rank r's node. */
static void StarHalo(const PetscInt p[3], const PetscInt m[3], const PetscInt node[], PetscInt *n, PetscInt src[], PetscInt dst[], PetscReal bytes[])
{
  *n = 0;
  for (PetscInt r = 0; r < p[0] * p[1] * p[2]; r++) {
    PetscInt c[3] = {r % p[0], (r / p[0]) % p[1], r / (p[0] * p[1])}, stride[3] = {1, p[0], p[0] * p[1]};
    for (PetscInt d = 0; d < 3; d++) {
      for (PetscInt s = -1; s <= 1; s += 2) {
        if (c[d] + s < 0 || c[d] + s >= p[d]) continue;
        src[*n]   = node[r];
        dst[*n]   = node[r + s * stride[d]];
        bytes[*n] = 8.0 * m[0] * m[1] * m[2] / m[d];
        (*n)++;
      }
    }
  }
}

/* The link loads of StarHalo's messages on t */
static PetscErrorCode HaloLoads(PKTopo t, const PetscInt p[3], const PetscInt m[3], const PetscInt node[], PetscInt *n, PKTopoLoads *L)
{
  PetscInt  src[64], dst[64];
  PetscReal bytes[64];

  PetscFunctionBegin;
  StarHalo(p, m, node, n, src, dst, bytes);
  PetscCall(PKTopoLoadsCreate(t, L));
  PetscCall(PKTopoLoadsAdd(t, *n, src, dst, bytes, L));
  PetscCall(PKTopoLoadsSummarize(t, L));
  PetscFunctionReturn(0);
}

static PetscErrorCode LinkOf(PKTopo t, PKTopoLink l, char out[], size_t len)
{
  PetscFunctionBegin;
  if (l.link < 0) PetscCall(PetscStrncpy(out, "none", len));
  else PetscCall(PKTopoLinkName(t, l, out, len));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestLoads(void)
{
  PKTopo          t;
  PKTopoLoads     L;
  PKMachineParams m;
  PetscInt        n, node[8], s0, host02;
  char            name[80];

  PetscFunctionBegin;
  PetscCall(TopoFromText(TwoLeaves, &t));
  PetscCall(PKTopoFindSwitch(t, "s0", &s0));
  host02 = 3 + 1; /* links: 3 switches (s0, s1, the spine: no uplink), then the host links of node01, node02, ... */

  /* 2-D DMDA 32 x 8 on a 4 x 2 process grid, 8 x 4 points per rank, rank r on node0(r+1): ranks 0-3 (row j = 0)
     under s0, ranks 4-7 under s1.
       x neighbours (6 pairs, 12 messages, 4 points = 32 B each) stay under one leaf: 2 hops;
       y neighbours (4 pairs, 8 messages, 8 points = 64 B each) cross the spine: 4 hops.
     off-node messages 20, bytes 12 x 32 + 8 x 64 = 896; hops: (12 x 2 + 8 x 4) / 20 = 2.8, largest 4;
     per byte: (384 x 2 + 512 x 4) / 896 = 2816 / 896 = 3.142857...
     s0's uplink carries the 4 y messages of ranks 0-3 up (256 B) and those of ranks 4-7 down (256 B), s1's the
     same: the four spine link directions tie at 256 B and the tie goes to the lowest link, up: s0->spine.
     Host links: node01 sends 32 + 64 = 96 B (2 messages), node02 32 + 32 + 64 = 128 B (3 messages).
     Check: all links together carry sum(bytes x hops) = 2816 B = 4 x 256 + 2 x 2 x (96 + 128 + 128 + 96). */
  for (PetscInt r = 0; r < 8; r++) node[r] = r;
  PetscCall(HaloLoads(t, (PetscInt[]){4, 2, 1}, (PetscInt[]){8, 4, 1}, node, &n, &L));
  Check("2-D: 20 messages", n, 20, 0);
  Check("2-D: 20 off node", L.n_off, 20, 0);
  Check("2-D: bytes off node", L.bytes_off, 896, 0);
  Check("2-D: average hops", L.hops_avg, 2.8, 1e-14);
  Check("2-D: largest hops", L.hops_max, 4, 0);
  Check("2-D: hops per byte", L.hops_byte_avg, 2816.0 / 896.0, 1e-14);
  Check("2-D: s0->spine bytes", L.bytes[2 * s0 + PK_TOPO_UP], 256, 0);
  Check("2-D: spine->s0 bytes", L.bytes[2 * s0 + PK_TOPO_DOWN], 256, 0);
  Check("2-D: s0->spine messages", L.nmsg[2 * s0 + PK_TOPO_UP], 4, 0);
  Check("2-D: node01->s0 bytes", L.bytes[2 * 3 + PK_TOPO_UP], 96, 0);
  Check("2-D: node02->s0 bytes", L.bytes[2 * host02 + PK_TOPO_UP], 128, 0);
  Check("2-D: node02->s0 messages", L.nmsg[2 * host02 + PK_TOPO_UP], 3, 0);
  Check("2-D: all links carry sum(bytes x hops)", L.hops_bytes, 2816, 0);
  PetscCall(LinkOf(t, L.busiest, name, sizeof(name)));
  CheckStr("2-D: busiest link", name, "s0->spine");
  Check("2-D: busiest link bytes", L.busiest_bytes, 256, 0);
  Check("2-D: busiest link messages", L.busiest_nmsg, 4, 0);
  PetscCall(LinkOf(t, L.busiest_net, name, sizeof(name)));
  CheckStr("2-D: busiest switch link", name, "s0->spine");
  Check("2-D: busiest switch link bytes (004's l)", L.busiest_net_bytes, 256, 0);
  /* 004's contention delta l with delta = 1e-10 s/B: 256 x 1e-10 = 2.56e-8 s */
  PetscCall(PetscMemzero(&m, sizeof(m)));
  m.delta = 1e-10;
  Check("2-D: contention delta l", PKModelContentionLoad(&m, L.busiest_net_bytes), 2.56e-8, 1e-14);
  PetscCall(PKTopoLoadsDestroy(&L));

  /* The same halo placed so that each leaf switch holds a 2 x 2 block of the grid: ranks 0, 1, 4, 5 on
     node01-04 (s0), ranks 2, 3, 6, 7 on node05-08 (s1). Now the y messages stay under a leaf and only the x pairs
     (1, 2) and (5, 6) cross the spine: 4 messages x 32 B = 128 B instead of 512 B.
       s0->spine: 1->2 and 5->6, 64 B, 2 messages;
       hops (4 x 4 + 16 x 2) / 20 = 2.4; per byte (128 x 4 + 768 x 2) / 896 = 2048 / 896 = 2.285714...;
       busiest link: node02's host link up (rank 1 sends 32 + 32 + 64 = 128 B, 3 messages), before the spine's 64 B. */
  node[0] = 0, node[1] = 1, node[4] = 2, node[5] = 3, node[2] = 4, node[3] = 5, node[6] = 6, node[7] = 7;
  PetscCall(HaloLoads(t, (PetscInt[]){4, 2, 1}, (PetscInt[]){8, 4, 1}, node, &n, &L));
  Check("2-D by blocks: s0->spine bytes", L.bytes[2 * s0 + PK_TOPO_UP], 64, 0);
  Check("2-D by blocks: s0->spine messages", L.nmsg[2 * s0 + PK_TOPO_UP], 2, 0);
  Check("2-D by blocks: average hops", L.hops_avg, 2.4, 1e-14);
  Check("2-D by blocks: hops per byte", L.hops_byte_avg, 2048.0 / 896.0, 1e-14);
  PetscCall(LinkOf(t, L.busiest, name, sizeof(name)));
  CheckStr("2-D by blocks: busiest link", name, "node02->s0");
  Check("2-D by blocks: busiest link bytes", L.busiest_bytes, 128, 0);
  PetscCall(LinkOf(t, L.busiest_net, name, sizeof(name)));
  CheckStr("2-D by blocks: busiest switch link", name, "s0->spine");
  Check("2-D by blocks: busiest switch link bytes", L.busiest_net_bytes, 64, 0);
  PetscCall(PKTopoLoadsDestroy(&L));

  /* 3-D DMDA 8 x 12 x 16 on 2 x 2 x 2, 4 x 6 x 8 points per rank, rank r on node0(r+1): the k = 0 plane
     (ranks 0-3) under s0, k = 1 under s1. Each rank has one neighbour per direction: 24 messages,
       x faces 6 x 8 = 48 points = 384 B, y faces 4 x 8 = 32 points = 256 B (under one leaf: 2 hops),
       z faces 4 x 6 = 24 points = 192 B (across the spine: 4 hops).
     bytes off node 8 x (384 + 256 + 192) = 6656; hops (16 x 2 + 8 x 4) / 24 = 2.6667, largest 4;
     per byte ((3072 + 2048) x 2 + 1536 x 4) / 6656 = 16384 / 6656 = 2.461538...;
     s0->spine: 4 z messages x 192 B = 768 B; every host link carries 384 + 256 + 192 = 832 B each way: the
     busiest link is node01->s0 (lowest link of the tie), the busiest switch link s0->spine. */
  for (PetscInt r = 0; r < 8; r++) node[r] = r;
  PetscCall(HaloLoads(t, (PetscInt[]){2, 2, 2}, (PetscInt[]){4, 6, 8}, node, &n, &L));
  Check("3-D: 24 messages", n, 24, 0);
  Check("3-D: bytes off node", L.bytes_off, 6656, 0);
  Check("3-D: average hops", L.hops_avg, 64.0 / 24.0, 1e-14);
  Check("3-D: largest hops", L.hops_max, 4, 0);
  Check("3-D: hops per byte", L.hops_byte_avg, 16384.0 / 6656.0, 1e-14);
  Check("3-D: s0->spine bytes", L.bytes[2 * s0 + PK_TOPO_UP], 768, 0);
  Check("3-D: s0->spine messages", L.nmsg[2 * s0 + PK_TOPO_UP], 4, 0);
  Check("3-D: node08's host link down", L.bytes[2 * (3 + 7) + PK_TOPO_DOWN], 832, 0);
  PetscCall(LinkOf(t, L.busiest, name, sizeof(name)));
  CheckStr("3-D: busiest link", name, "node01->s0");
  Check("3-D: busiest link bytes", L.busiest_bytes, 832, 0);
  Check("3-D: busiest link messages", L.busiest_nmsg, 3, 0);
  PetscCall(LinkOf(t, L.busiest_net, name, sizeof(name)));
  CheckStr("3-D: busiest switch link", name, "s0->spine");
  Check("3-D: busiest switch link bytes", L.busiest_net_bytes, 768, 0);

  /* Accumulating: two ranks on one node (no link), a node the file does not list (-1), then the summary again */
  PetscCall(PKTopoLoadsAdd(t, 2, (PetscInt[]){0, -1}, (PetscInt[]){0, 3}, (PetscReal[]){100, 100}, &L));
  PetscCall(PKTopoLoadsSummarize(t, &L));
  Check("on-node message: no link", L.n_on, 1, 0);
  Check("unlisted node: not routed", L.n_unknown, 1, 0);
  Check("the loads unchanged by them", L.bytes_off, 6656, 0);
  EXPECT_ERROR("a negative message size", PKTopoLoadsAdd(t, 1, (PetscInt[]){0}, (PetscInt[]){1}, (PetscReal[]){-1}, &L), "Message 0: negative size -1");
  PetscCall(PKTopoLoadsDestroy(&L));
  PetscCall(PKTopoDestroy(&t));

  /* Two roots: a message between the trees is not routed */
  PetscCall(TopoFromText("SwitchName=s0 Nodes=a1\nSwitchName=s1 Nodes=b1\n", &t));
  PetscCall(PKTopoLoadsCreate(t, &L));
  PetscCall(PKTopoLoadsAdd(t, 1, (PetscInt[]){0}, (PetscInt[]){1}, (PetscReal[]){8}, &L));
  PetscCall(PKTopoLoadsSummarize(t, &L));
  Check("forest: the message between trees is not routed", L.n_unknown, 1, 0);
  Check("forest: no busiest link", L.busiest.link, -1, 0);
  PetscCall(PKTopoLoadsDestroy(&L));
  PetscCall(PKTopoDestroy(&t));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Topology-aware placement of node blocks (src/dm/topoplace.c, docs/models.md §7.8) */

/* The placement of a DMDA (star or box stencil of width 1, 1 dof: 8-byte values) on nnodes x ppn, node names
   fmt % (1 .. nnodes) unless names are given, on the tree text; maxsteps as PKDMDAPlacementComputeTopology's */
static PetscErrorCode TopoPlace(const char tree[], PetscInt dim, const PetscInt M[], DMDAStencilType st, PetscInt nnodes, PetscInt ppn, const PetscInt procs[], const char fmt[], const char *const given[], PetscInt maxsteps, PKPlacement *pl, PKTopoPlacement *tp)
{
  PKTopo t;
  char **names;

  PetscFunctionBegin;
  PetscCall(TopoFromText(tree, &t));
  PetscCall(PKDMDAPlacementCompute(dim, M, st, 1, 1, nnodes, ppn, procs, pl));
  PetscCall(PetscMalloc1(nnodes, &names));
  for (PetscInt i = 0; i < nnodes; i++) {
    PetscCall(PetscMalloc1(64, &names[i]));
    if (given) PetscCall(PetscStrncpy(names[i], given[i], 64));
    else PetscCall(PetscSNPrintf(names[i], 64, fmt, (int)(i + 1)));
  }
  PetscCall(PKDMDAPlacementComputeTopology(pl, NULL, t, (const char *const *)names, maxsteps, tp));
  for (PetscInt i = 0; i < nnodes; i++) PetscCall(PetscFree(names[i]));
  PetscCall(PetscFree(names));
  PetscCall(PKTopoDestroy(&t));
  PetscFunctionReturn(0);
}

/* The three layouts' bytes on switch-to-switch links (summed; busiest direction) and bytes leaving a leaf */
static void CheckTraffic(const char what[], const PKTopoPlacement *tp, const PetscReal want[9])
{
  const PKTopoTraffic *tr[3] = {&tp->def, &tp->nodeaware, &tp->topo};
  const char          *nm[3] = {"default", "node-aware", "topology-aware"};
  char                 w[160];
  for (PetscInt k = 0; k < 3; k++) {
    (void)PetscSNPrintf(w, sizeof(w), "%s: %s switch-link bytes", what, nm[k]);
    Check(w, tr[k]->link_bytes, want[3 * k], 0);
    (void)PetscSNPrintf(w, sizeof(w), "%s: %s busiest switch link", what, nm[k]);
    Check(w, tr[k]->busiest_bytes, want[3 * k + 1], 0);
    (void)PetscSNPrintf(w, sizeof(w), "%s: %s bytes leaving a leaf", what, nm[k]);
    Check(w, tr[k]->leaf_bytes, want[3 * k + 2], 0);
  }
}

static void CheckOrder(const char what[], const PKTopoPlacement *tp, const PetscInt want[])
{
  char g[256] = "", w[256] = "";
  for (PetscInt b = 0; b < tp->nnodes; b++) {
    char x[16];
    (void)PetscSNPrintf(x, sizeof(x), "%s%d", b ? " " : "", (int)tp->order[b]);
    (void)PetscStrlcat(g, x, sizeof(g));
    (void)PetscSNPrintf(x, sizeof(x), "%s%d", b ? " " : "", (int)want[b]);
    (void)PetscStrlcat(w, x, sizeof(w));
  }
  CheckStr(what, g, w);
}

/* A node order must be a permutation */
static void CheckPermutation(const char what[], const PKTopoPlacement *tp)
{
  PetscBool ok = PETSC_TRUE, seen[64] = {PETSC_FALSE};
  for (PetscInt b = 0; b < tp->nnodes && b < 64; b++) {
    if (tp->order[b] < 0 || tp->order[b] >= tp->nnodes || seen[tp->order[b]]) ok = PETSC_FALSE;
    else seen[tp->order[b]] = PETSC_TRUE;
  }
  Count(what, ok, ok ? "a permutation" : "not a permutation", "a permutation");
}

static void CheckNote(const char what[], const PKTopoPlacement *tp, const char want[])
{
  Count(what, strstr(tp->note, want) ? PETSC_TRUE : PETSC_FALSE, tp->note, want);
}

/* 16 nodes: two pods of two leaf switches of four nodes each (a three-level tree) */
static const char Pods[] = "SwitchName=l0 Nodes=n[01-04]\nSwitchName=l1 Nodes=n[05-08]\nSwitchName=l2 Nodes=n[09-12]\nSwitchName=l3 Nodes=n[13-16]\n"
                           "SwitchName=p0 Switches=l[0-1]\nSwitchName=p1 Switches=l[2-3]\nSwitchName=top Switches=p[0-1]\n";

static PetscErrorCode TestPlace(void)
{
  PKPlacement     pl;
  PKTopoPlacement tp;
  /* PETSc's grid for 32 x 8 on 8 ranks, fixed: with one rank per node the node-aware search would take 8 x 1 slabs
     (as many bytes off node, 896, in 14 messages instead of 20) */
  const PetscInt G42[2] = {4, 2};

  PetscFunctionBegin;
  /* The worked example of docs/models.md §7.3 and §7.8: TwoLeaves (node01-04 under s0, node05-08 under s1), a 2-D
     DMDA 32 x 8, star, on 8 nodes x 1: PETSc's grid 4 x 2 of 8 x 4 points; an x message carries 4 values (32 B),
     a y message 8 (64 B). With one rank per node and the grid fixed, node-aware is the default layout (ranks 0-3,
     row j = 0, under s0).
       default:  the 8 y messages cross the spine: 512 B leave a leaf, 1024 B on the switch links (each goes up
                 and down), 4 x 64 = 256 B on each spine link direction.
       topology: a 2 x 2 block of the grid under each leaf (blocks 0 1 4 5 on node01-04, 2 3 6 7 on node05-08):
                 only the x pairs (1,2) and (5,6) cross: 4 x 32 = 128 B leave, 256 B on the links, 64 B busiest. */
  PetscCall(TopoPlace(TwoLeaves, 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, "node%02d", NULL, PETSC_DEFAULT, &pl, &tp));
  Check("7.3 2-D: PETSc's grid 4 x 2", pl.def_procs[0] * 10 + pl.def_procs[1], 42, 0);
  CheckTraffic("7.3 2-D", &tp, (PetscReal[]){1024, 256, 512, 1024, 256, 512, 256, 64, 128});
  Check("7.3 2-D: placed", tp.placed, 1, 0);
  Check("7.3 2-D: optimal (exhaustive)", tp.optimal, 1, 0);
  Check("7.3 2-D: 2 leaves", tp.nleaves, 2, 0);
  Check("7.3 2-D: the tree is usable", tp.usable, 1, 0);
  CheckOrder("7.3 2-D: blocks 0 1 4 5 under s0", &tp, (PetscInt[]){0, 1, 4, 5, 2, 3, 6, 7});
  Check("7.3 2-D: busiest messages (5->6 and 1->2)", tp.topo.busiest_nmsg, 2, 0);
  Check("7.3 2-D: 20 messages routed", tp.topo.n_off, 20, 0);
  PetscCall(PKTopoPlacementDestroy(&tp));
  /* the heuristic alone (no exhaustive search) finds the same */
  PetscCall(TopoPlace(TwoLeaves, 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, "node%02d", NULL, 0, &pl, &tp));
  CheckTraffic("7.3 2-D heuristic", &tp, (PetscReal[]){1024, 256, 512, 1024, 256, 512, 256, 64, 128});
  Check("7.3 2-D heuristic: not proven optimal", tp.optimal, 0, 0);
  CheckNote("7.3 2-D heuristic: says so", &tp, "heuristic");
  PetscCall(PKTopoPlacementDestroy(&tp));

  /* 3-D, 27-point (box), 16 x 12 x 8 on a fixed 2 x 2 x 2 grid, 8 nodes x 1, TwoLeaves: 8 x 6 x 4 points per rank.
     Faces carry x 6 x 4 = 24, y 8 x 4 = 32, z 8 x 6 = 48 values; edges along z 4, along y 6, along x 8; corners 1.
     Cutting the grid in two halves cuts 4 face pairs, 4 pairs of each of the two edge kinds crossing the cut and
     the 4 corner pairs, two messages each:
       z cut (default: k = 0 under s0): 8 x (48 + 6 + 8 + 1) = 504 values = 4032 B leave a leaf, 8064 B on links,
                                        2016 B each spine direction;
       x cut (topology-aware):          8 x (24 + 4 + 6 + 1) = 280 values = 2240 B, 4480 B, 1120 B
       (a y cut: 8 x (32 + 4 + 8 + 1) = 360 values). Blocks i = 0 (0 2 4 6) under s0. */
  PetscCall(TopoPlace(TwoLeaves, 3, (PetscInt[]){16, 12, 8}, DMDA_STENCIL_BOX, 8, 1, (PetscInt[]){2, 2, 2}, "node%02d", NULL, PETSC_DEFAULT, &pl, &tp));
  CheckTraffic("3-D box", &tp, (PetscReal[]){8064, 2016, 4032, 8064, 2016, 4032, 4480, 1120, 2240});
  CheckOrder("3-D box: blocks 0 2 4 6 under s0", &tp, (PetscInt[]){0, 4, 1, 5, 2, 6, 3, 7});
  Check("3-D box: optimal", tp.optimal, 1, 0);
  PetscCall(PKTopoPlacementDestroy(&tp));

  /* Nothing to gain: 3-D star 8 x 12 x 16 on 2 x 2 x 2 (4 x 6 x 8 points per rank; the loads tests' case). z faces
     are the smallest (4 x 6 = 24 values = 192 B) and the default already cuts z: 8 x 192 = 1536 B leave a leaf,
     3072 on links, 768 busiest; the node-aware order is kept. */
  PetscCall(TopoPlace(TwoLeaves, 3, (PetscInt[]){8, 12, 16}, DMDA_STENCIL_STAR, 8, 1, (PetscInt[]){2, 2, 2}, "node%02d", NULL, PETSC_DEFAULT, &pl, &tp));
  CheckTraffic("3-D, nothing to gain", &tp, (PetscReal[]){3072, 768, 1536, 3072, 768, 1536, 3072, 768, 1536});
  Check("3-D, nothing to gain: not placed", tp.placed, 0, 0);
  CheckNote("3-D, nothing to gain: the note", &tp, "already optimal");
  CheckOrder("3-D, nothing to gain: the node-aware order", &tp, (PetscInt[]){0, 1, 2, 3, 4, 5, 6, 7});
  PetscCall(PKTopoPlacementDestroy(&tp));
  /* and all nodes under one leaf switch: nothing crosses a switch-to-switch link */
  PetscCall(TopoPlace("SwitchName=only Nodes=node[01-08]\n", 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, "node%02d", NULL, PETSC_DEFAULT, &pl, &tp));
  CheckTraffic("one leaf", &tp, (PetscReal[]){0, 0, 0, 0, 0, 0, 0, 0, 0});
  CheckNote("one leaf: the note", &tp, "all 8 nodes are under one leaf switch, 'only'");
  Check("one leaf: usable, nothing to place", tp.usable * 10 + tp.placed, 10, 0);
  Check("one leaf: busiest link none", tp.topo.busiest.link, -1, 0);
  PetscCall(PKTopoPlacementDestroy(&tp));

  /* An uneven tree: a holds n1-n5, b n6-n8; 32 x 8 on 4 x 2 as above. Default (ranks 0-4 under a): y pairs (1,5)
     (2,6) (3,7) and the x pair (4,5) cross: 6 x 64 + 2 x 32 = 448 B leave, 896 B on links, 224 B busiest (a up: 3 x 64
     + 32). Three blocks under b: the best is an L (a 2 x 2 corner less one, e.g. 2 3 7): cut x (1,2), x (6,7), y (2,6):
     2 x 32 + 2 x 32 + 2 x 64 = 256 B leave, 512 on links, 128 busiest (a row of three would leave 448). */
  PetscCall(TopoPlace("SwitchName=a Nodes=n[1-5]\nSwitchName=b Nodes=n[6-8]\nSwitchName=top Switches=a,b\n", 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, "n%d", NULL, PETSC_DEFAULT, &pl, &tp));
  CheckTraffic("uneven 5 + 3", &tp, (PetscReal[]){896, 224, 448, 896, 224, 448, 512, 128, 256});
  CheckPermutation("uneven 5 + 3: the order", &tp);
  Check("uneven 5 + 3: optimal", tp.optimal, 1, 0);
  PetscCall(PKTopoPlacementDestroy(&tp));
  PetscCall(TopoPlace("SwitchName=a Nodes=n[1-5]\nSwitchName=b Nodes=n[6-8]\nSwitchName=top Switches=a,b\n", 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, "n%d", NULL, 0, &pl, &tp));
  CheckTraffic("uneven 5 + 3, heuristic", &tp, (PetscReal[]){896, 224, 448, 896, 224, 448, 512, 128, 256});
  PetscCall(PKTopoPlacementDestroy(&tp));

  /* Node-aware blocks of 2 ranks, nodes interleaved on the switches: 32 x 8 on 4 nodes x 2 (grid 4 x 2 of 8 x 4
     points), s0 holds n1 n3, s1 holds n2 n4. Node-aware: 1 x 2 blocks (columns: 12 x messages of 32 B off node, 384 B,
     against the default rows' 640 B), column b on node b: columns 0 2 under s0, all three column boundaries cross:
     384 B leave, 768 B on links, 192 B busiest (s0 up: 0->1, 2->1, 2->3, two rows each). Topology-aware: columns 0 1 on
     n1 n3 (s0), 2 3 on n2 n4: one boundary, 128 B, 256 B, 64 B. The default layout (rank pairs 2k, 2k+1 on node k:
     rows of two) puts x pairs (1,2), (5,6) across: 128 B, 256 B, 64 B. */
  PetscCall(TopoPlace("SwitchName=s0 Nodes=n1,n3\nSwitchName=s1 Nodes=n2,n4\nSwitchName=top Switches=s0,s1\n", 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 4, 2, G42, "n%d", NULL, PETSC_DEFAULT, &pl, &tp));
  Check("blocks of 2: node-aware columns (1 x 2 blocks)", pl.block[0] * 10 + pl.block[1], 12, 0);
  Check("blocks of 2: node-aware off-node bytes", (PetscReal)pl.bytes_off, 384, 0);
  CheckTraffic("blocks of 2", &tp, (PetscReal[]){256, 64, 128, 768, 192, 384, 256, 64, 128});
  CheckOrder("blocks of 2: columns 0 1 on n1 n3", &tp, (PetscInt[]){0, 2, 1, 3});
  PetscCall(PKTopoPlacementDestroy(&tp));

  /* 16 nodes under 4 leaves of 4 (one spine), 2-D 64 x 64 on 4 x 4 (16 x 16 points, 128 B a message). Default: a row
     of the grid under each leaf: 3 row boundaries x 4 pairs x 2 = 24 messages = 3072 B leave, 6144 on links, 1024
     busiest (rows 1 and 2 send 8 messages up). Topology-aware: a 2 x 2 quadrant under each leaf: 16 messages = 2048
     B, 4096 B, 512 B (each quadrant sends 4 up). Exhaustive (within the default budget) and heuristic alike. */
  {
    const char Four[] = "SwitchName=l0 Nodes=n[01-04]\nSwitchName=l1 Nodes=n[05-08]\nSwitchName=l2 Nodes=n[09-12]\nSwitchName=l3 Nodes=n[13-16]\nSwitchName=top Switches=l[0-3]\n";
    PetscCall(TopoPlace(Four, 2, (PetscInt[]){64, 64, 1}, DMDA_STENCIL_STAR, 16, 1, NULL, "n%02d", NULL, PETSC_DEFAULT, &pl, &tp));
    CheckTraffic("4 leaves", &tp, (PetscReal[]){6144, 1024, 3072, 6144, 1024, 3072, 4096, 512, 2048});
    PetscCall(PKTopoPlacementDestroy(&tp));
    PetscCall(TopoPlace(Four, 2, (PetscInt[]){64, 64, 1}, DMDA_STENCIL_STAR, 16, 1, NULL, "n%02d", NULL, 0, &pl, &tp));
    CheckTraffic("4 leaves, heuristic", &tp, (PetscReal[]){6144, 1024, 3072, 6144, 1024, 3072, 4096, 512, 2048});
    PetscCall(PKTopoPlacementDestroy(&tp));
  }
  /* Three levels (Pods: leaves l0-l3 of 4 nodes, l0 l1 under p0, l2 l3 under p1, p0 p1 under top), the same grid.
     Default (row k under lk): row boundaries 0|1 and 2|3 inside a pod (1024 B each, 2 switch links), 1|2 between the
     pods (1024 B, 4 links: leaf, pod, pod, leaf): 8192 B on links, 3072 B leave a leaf, 1024 busiest (l1 up). Topology-
     aware: a half of the grid per pod, a quadrant per leaf: 1024 B between the leaves of a pod (2 links), 1024 B
     between the pods (4 links): 6144 B, 2048 B leave a leaf, 512 busiest. */
  PetscCall(TopoPlace(Pods, 2, (PetscInt[]){64, 64, 1}, DMDA_STENCIL_STAR, 16, 1, NULL, "n%02d", NULL, PETSC_DEFAULT, &pl, &tp));
  CheckTraffic("pods", &tp, (PetscReal[]){8192, 1024, 3072, 8192, 1024, 3072, 6144, 512, 2048});
  PetscCall(PKTopoPlacementDestroy(&tp));
  PetscCall(TopoPlace(Pods, 2, (PetscInt[]){64, 64, 1}, DMDA_STENCIL_STAR, 16, 1, NULL, "n%02d", NULL, 0, &pl, &tp));
  CheckTraffic("pods, heuristic", &tp, (PetscReal[]){8192, 1024, 3072, 8192, 1024, 3072, 6144, 512, 2048});
  PetscCall(PKTopoPlacementDestroy(&tp));

  /* Nodes the file does not list: the node-aware order is kept, with a note naming the first; the messages of the
     unlisted node are not routed (node08 -> ghost: rank 7's 3 messages each way) */
  {
    const char *names[8] = {"node01", "node02", "node03", "node04", "node05", "node06", "node07", "ghost"};
    PetscCall(TopoPlace(TwoLeaves, 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, NULL, names, PETSC_DEFAULT, &pl, &tp));
    Check("missing node: not placed", tp.placed, 0, 0);
    CheckNote("missing node: the note", &tp, "1 of the 8 nodes is not in the topology (the first: 'ghost'): node-aware order kept");
    Check("missing node: its 4 messages not routed", tp.def.n_unknown, 4, 0);
    Check("missing node: tnode -1", tp.tnode[7], -1, 0);
    Check("missing node: the tree is not usable", tp.usable, 0, 0);
    PetscCall(PKTopoPlacementDestroy(&tp));
  }
  /* the same node twice (ranks of one host given as two nodes, e.g. with -ksp_perf_node_size) */
  {
    const char *names[8] = {"node01", "node02", "node03", "node04", "node05", "node06", "node07", "node07"};
    PetscCall(TopoPlace(TwoLeaves, 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, NULL, names, PETSC_DEFAULT, &pl, &tp));
    CheckNote("one node twice: the note", &tp, "nodes 6 ('node07') and 7 ('node07') are one node of the topology, 'node07'");
    Check("one node twice: not usable, not placed", tp.usable * 10 + tp.placed, 0, 0);
    PetscCall(PKTopoPlacementDestroy(&tp));
  }
  /* full names find the file's short ones (MPI_Get_processor_name may give a domain) */
  {
    const char *names[8] = {"node01.c.org", "node02.c.org", "node03.c.org", "node04.c.org", "node05.c.org", "node06.c.org", "node07.c.org", "node08.c.org"};
    PetscCall(TopoPlace(TwoLeaves, 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, NULL, names, PETSC_DEFAULT, &pl, &tp));
    Check("long names: placed", tp.placed, 1, 0);
    Check("long names: busiest 64", tp.topo.busiest_bytes, 64, 0);
    PetscCall(PKTopoPlacementDestroy(&tp));
  }
  /* two roots */
  PetscCall(TopoPlace("SwitchName=a Nodes=n[1-4]\nSwitchName=b Nodes=n[5-8]\n", 2, (PetscInt[]){32, 8, 1}, DMDA_STENCIL_STAR, 8, 1, G42, "n%d", NULL, PETSC_DEFAULT, &pl, &tp));
  CheckNote("two roots: the note", &tp, "separate trees ('a' and 'b' have no route between them)");
  Check("two roots: not usable", tp.usable, 0, 0);
  PetscCall(PKTopoPlacementDestroy(&tp));
  PetscFunctionReturn(0);
}

/* -compare N: the heuristic against the exhaustive search on N random small cases (docs/models.md §7.8 quotes it;
   not part of the tests: it measures, it does not check). Trees of 4..maxn nodes in leaves of 1-5 nodes (or all of
   -uniform k nodes, the node count then a multiple of k), flat or, from 4 leaves, two pods; grids 2-D or 3-D with
   sizes from 8 to 48, star or box, 1 or 2 ranks per node; PETSc's grid free. A case counts when the exhaustive
   search finished (optimal). Random numbers from a fixed LCG, so that a seed gives the same cases everywhere. */
static PetscInt Draw(unsigned long long *st, PetscInt n)
{
  *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
  return (PetscInt)((*st >> 33) % (unsigned long long)n);
}

static PetscErrorCode ComparePlacement(PetscInt ntrials, PetscInt seed, PetscInt uniform, PetscInt maxn)
{
  unsigned long long st   = (unsigned long long)seed;
  PetscInt           done = 0, miss = 0, busy_only = 0;
  PetscReal          excess = 0, worst = 0;

  PetscFunctionBegin;
  PetscCheck(maxn >= 4 && maxn <= 24 && uniform >= 0 && uniform <= maxn / 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need 4 <= -maxn <= 24 and 0 <= -uniform <= maxn / 2");
  for (PetscInt k = 0; k < ntrials; k++) {
    PetscInt        nn  = uniform ? uniform * (2 + Draw(&st, maxn / uniform - 1)) : 4 + Draw(&st, maxn - 3);
    PetscInt        ppn = 1 + Draw(&st, 2), dim = 2 + Draw(&st, 2), M[3], nl = 0, node = 0, sz[24];
    DMDAStencilType stn;
    char            tree[4096] = "", line[128];
    PKPlacement     pl;
    PKTopoPlacement a, b;
    PetscErrorCode  e;

    while (node < nn) {
      sz[nl] = PetscMin(uniform ? uniform : 1 + Draw(&st, 5), nn - node);
      node += sz[nl++];
    }
    node = 0;
    for (PetscInt l = 0; l < nl; l++) {
      PetscCall(PetscSNPrintf(line, sizeof(line), "SwitchName=l%d Nodes=n[%d-%d]\n", (int)l, (int)node + 1, (int)(node + sz[l]))); /* n1, n2, ... */
      PetscCall(PetscStrlcat(tree, line, sizeof(tree)));
      node += sz[l];
    }
    if (nl >= 4 && Draw(&st, 2)) PetscCall(PetscSNPrintf(line, sizeof(line), "SwitchName=p0 Switches=l[0-%d]\nSwitchName=p1 Switches=l[%d-%d]\nSwitchName=top Switches=p0,p1\n", (int)(nl / 2 - 1), (int)(nl / 2), (int)(nl - 1)));
    else PetscCall(PetscSNPrintf(line, sizeof(line), "SwitchName=top Switches=l[0-%d]\n", (int)(nl - 1)));
    PetscCall(PetscStrlcat(tree, line, sizeof(tree)));
    for (PetscInt d = 0; d < 3; d++) M[d] = 8 * (1 + Draw(&st, 6));
    stn = Draw(&st, 2) ? DMDA_STENCIL_STAR : DMDA_STENCIL_BOX;
    if (nl < 2) continue;
    /* a case the node-aware search refuses (a grid too fine for the sizes) is skipped */
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    e = TopoPlace(tree, dim, M, stn, nn, ppn, NULL, "n%d", NULL, 100000000, &pl, &a);
    PetscCall(PetscPopErrorHandler());
    if (e) continue;
    PetscCall(TopoPlace(tree, dim, M, stn, nn, ppn, NULL, "n%d", NULL, 0, &pl, &b));
    if (a.optimal) {
      done++;
      if ((b.topo.link_bytes > a.topo.link_bytes || (b.topo.link_bytes == a.topo.link_bytes && b.topo.busiest_bytes > a.topo.busiest_bytes))) {
        const PetscReal r = b.topo.link_bytes / a.topo.link_bytes - 1;
        miss++;
        if (a.topo.link_bytes == b.topo.link_bytes) busy_only++;
        excess += r;
        worst = PetscMax(worst, r);
        if (verbose)
          (void)PetscPrintf(PETSC_COMM_SELF, "case %d: %d nodes x %d, %dx%dx%d (%dD %s), optimum %g/%g, heuristic %g/%g\n%s", (int)k, (int)nn, (int)ppn, (int)M[0], (int)M[1], (int)M[2], (int)dim, stn == DMDA_STENCIL_BOX ? "box" : "star",
                            (double)a.topo.link_bytes, (double)a.topo.busiest_bytes, (double)b.topo.link_bytes, (double)b.topo.busiest_bytes, tree);
      }
    }
    PetscCall(PKTopoPlacementDestroy(&a));
    PetscCall(PKTopoPlacementDestroy(&b));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "compared %" PetscInt_FMT " cases: the heuristic is optimal in %" PetscInt_FMT " (%.1f%%); in the other %" PetscInt_FMT " its switch-link bytes are %.1f%% higher on average, at most %.1f%%; %" PetscInt_FMT " of them differ only in the busiest link\n", done, done - miss, done ? 100.0 * (done - miss) / done : 0.0, miss, miss ? 100 * excess / miss : 0.0, 100 * worst, busy_only));
  PetscFunctionReturn(0);
}

/* A topology file: read, and its errors with the file's name (and the line) */
static PetscErrorCode TestTopoFile(void)
{
  char   dir[] = "/tmp/pktopofileXXXXXX", path[PETSC_MAX_PATH_LEN], want[PETSC_MAX_PATH_LEN + 64];
  FILE  *f;
  PKTopo t;

  PetscFunctionBegin;
  PetscCheck(mkdtemp(dir), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "mkdtemp failed");
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/topology.conf", dir));
  f = fopen(path, "w");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", path);
  fputs(TwoLeaves, f);
  fclose(f);
  PetscCall(PKTopoCreateFromFile(path, &t));
  Check("file: 8 nodes", NodeOf(t, "node08") + 1, 8, 0);
  PetscCall(PKTopoDestroy(&t));
  f = fopen(path, "w");
  fputs("SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-\n", f);
  fclose(f);
  PetscCall(PetscSNPrintf(want, sizeof(want), "Topology file '%s': topology.conf line 2: Nodes= 'n[3-': ", path));
  EXPECT_ERROR("file: malformed, with its name and line", PKTopoCreateFromFile(path, &t), want);
  EXPECT_ERROR("file: a directory is refused", PKTopoCreateFromFile(dir, &t), "not a regular file (a directory)");
  PetscCall(PetscSNPrintf(want, sizeof(want), "%s/none", dir));
  EXPECT_ERROR("file: missing", PKTopoCreateFromFile(want, &t), "No such file or directory");
  (void)unlink(path);
  (void)rmdir(dir);
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Network counters from a directory in sysfs's layout, and the congestion penalty (000 5.7) */

static PetscErrorCode WriteFile(const char dir[], const char rel[], const char text[])
{
  char  path[PETSC_MAX_PATH_LEN], *p;
  FILE *f;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, rel));
  for (p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) { /* mkdir -p of the parent */
    *p = 0;
    (void)mkdir(path, 0700);
    *p = '/';
  }
  f = fopen(path, "w");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", path);
  fputs(text, f);
  fclose(f);
  PetscFunctionReturn(0);
}

/* The tree of Slurm's topology addresses (src/topology/slurmtopo.c): the tasks of 4 nodes under two leaves of one
   spine, two tasks a node, give the tree of TwoLeaves' shape: 3 switches, 4 nodes, depth 1; 2 hops within a leaf, 4
   across the spine. Malformed addresses fail naming the task. */
static PetscErrorCode TestSlurm(void)
{
  const char *addr[] = {"spine.leaf0.n0", "spine.leaf0.n0", "spine.leaf0.n1", "spine.leaf0.n1", "spine.leaf1.n2", "spine.leaf1.n2", "spine.leaf1.n3", "spine.leaf1.n3"};
  const char *pat[]  = {"switch.switch.node", "switch.switch.node", "switch.switch.node", "switch.switch.node", "switch.switch.node", "switch.switch.node", "switch.switch.node", "switch.switch.node"};
  PKTopo      t;
  PetscInt    nsw, nn, nr, depth, hops;

  PetscFunctionBegin;
  PetscCall(PKTopoCreateFromSlurmAddrs(8, addr, pat, &t));
  PetscCall(PKTopoGetSizes(t, &nsw, &nn, &nr, &depth));
  Check("slurm: 3 switches", nsw, 3, 0);
  Check("slurm: 4 nodes", nn, 4, 0);
  Check("slurm: 1 root", nr, 1, 0);
  Check("slurm: depth 1", depth, 1, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "n0"), NodeOf(t, "n1"), &hops));
  Check("slurm: n0 to n1 under leaf0: 2 hops", hops, 2, 0);
  PetscCall(PKTopoHops(t, NodeOf(t, "n1"), NodeOf(t, "n2"), &hops));
  Check("slurm: n1 to n2 across the spine: 4 hops", hops, 4, 0);
  PetscCall(PKTopoDestroy(&t));
  {
    const char *a1[] = {"leaf0.n0"}, *p1[] = {"switch.node"};
    PetscCall(PKTopoCreateFromSlurmAddrs(1, a1, p1, &t));
    PetscCall(PKTopoGetSizes(t, &nsw, &nn, NULL, &depth));
    Check("slurm: one leaf, one node: 1 switch", nsw, 1, 0);
    Check("slurm: one leaf, one node: depth 0", depth, 0, 0);
    PetscCall(PKTopoDestroy(&t));
  }
  {
    const char *a2[] = {"spine.leaf0.n0", "spine.n1"}, *p2[] = {"switch.switch.node", "switch.node"};
    const char *a3[] = {"spine.leaf0.n0"}, *p3[] = {"switch.node.node"};
    const char *a4[] = {"spine.leaf[0-1].n0"}, *p4[] = {"switch.switch.node"};
    const char *a5[] = {"spine.leaf0.n0", "top.leaf0.n1"}, *p5[] = {"switch.switch.node", "switch.switch.node"};
    const char *a6[] = {"n0"}, *p6[] = {"node"};
    EXPECT_ERROR("slurm: nodes and switches under one switch", PKTopoCreateFromSlurmAddrs(2, a2, p2, &t), "both nodes and switches under switch spine");
    EXPECT_ERROR("slurm: a pattern not switch...node", PKTopoCreateFromSlurmAddrs(1, a3, p3, &t), "Rank 0: SLURM_TOPOLOGY_ADDR_PATTERN 'switch.node.node'");
    EXPECT_ERROR("slurm: a host list where a name belongs", PKTopoCreateFromSlurmAddrs(1, a4, p4, &t), "leaf[0-1]");
    EXPECT_ERROR("slurm: a switch under two parents", PKTopoCreateFromSlurmAddrs(2, a5, p5, &t), "leaf0");
    EXPECT_ERROR("slurm: a node without a switch", PKTopoCreateFromSlurmAddrs(1, a6, p6, &t), "Rank 0: SLURM_TOPOLOGY_ADDR 'n0' does not match");
  }
  { /* scontrol show topology (Slurm 22.05's layout): the spine lists every node below it as well as its switches */
    const char sc[]    = "SwitchName=leaf0 Level=0 LinkSpeed=1 Nodes=n[0-1]\nSwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=n[2-3]\n"
                         "SwitchName=spine Level=1 LinkSpeed=1 Nodes=n[0-3] Switches=leaf[0-1]\n";
    const char none[]  = "No topology information available\n";
    const char cycle[] = "SwitchName=a Level=1 Switches=b\nSwitchName=b Level=1 Switches=a\n";
    PetscCall(PKTopoCreateFromScontrol(sc, sizeof(sc) - 1, &t));
    PetscCall(PKTopoGetSizes(t, &nsw, &nn, &nr, &depth));
    Check("scontrol: 3 switches", nsw, 3, 0);
    Check("scontrol: 4 nodes", nn, 4, 0);
    Check("scontrol: 1 root", nr, 1, 0);
    PetscCall(PKTopoHops(t, NodeOf(t, "n0"), NodeOf(t, "n1"), &hops));
    Check("scontrol: n0 to n1 under leaf0: 2 hops", hops, 2, 0);
    PetscCall(PKTopoHops(t, NodeOf(t, "n1"), NodeOf(t, "n3"), &hops));
    Check("scontrol: n1 to n3 across the spine: 4 hops", hops, 4, 0);
    PetscCall(PKTopoDestroy(&t));
    EXPECT_ERROR("scontrol: no tree", PKTopoCreateFromScontrol(none, sizeof(none) - 1, &t), "Slurm has no switch tree: scontrol show topology printed no SwitchName= line (it printed 'No topology information available')");
    EXPECT_ERROR("scontrol: a cycle is a topology.conf error", PKTopoCreateFromScontrol(cycle, sizeof(cycle) - 1, &t), "");
  }
  PetscFunctionReturn(0);
}

/* PKTextEscape (src/core/files.c): what every message quoting a file's text goes through */
static PetscErrorCode TestEscape(void)
{
  char out[64], small[6];

  PetscFunctionBegin;
  CheckStr("escape: plain text kept", PKTextEscape("node01 = 3e9 'x'", out, sizeof(out)), "node01 = 3e9 'x'");
  CheckStr("escape: C0 controls and DEL", PKTextEscape("a\033[31m\a\tb\x7f", out, sizeof(out)), "a\\x1b[31m\\x07\\x09b\\x7f");
  CheckStr("escape: UTF-8 kept", PKTextEscape("n\xc3\xa9ud \xe4\xbd\xa0 \xf0\x9f\x98\x80", out, sizeof(out)), "n\xc3\xa9ud \xe4\xbd\xa0 \xf0\x9f\x98\x80");
  CheckStr("escape: a C1 control (U+009B, CSI)", PKTextEscape("\xc2\x9bx", out, sizeof(out)), "\\xc2\\x9bx");
  CheckStr("escape: bytes that are no UTF-8 (lone, cut, surrogate, overlong)", PKTextEscape("\xff\xc3(\xed\xa0\x80\xc0\xaf", out, sizeof(out)), "\\xff\\xc3(\\xed\\xa0\\x80\\xc0\\xaf");
  CheckStr("escape: cut before an escape that does not fit", PKTextEscape("ab\033c", small, sizeof(small)), "ab");
  CheckStr("escape: cut before a sequence that does not fit", PKTextEscape("abc\xe4\xbd\xa0", small, sizeof(small)), "abc");
  CheckStr("escape: NULL is empty", PKTextEscape(NULL, out, sizeof(out)), "");
  PetscFunctionReturn(0);
}

static PetscErrorCode TestCounters(void)
{
  char          root[] = "/tmp/pktopo-XXXXXX", cmd[PETSC_MAX_PATH_LEN + 16];
  const char   *ib     = "class/infiniband/mlx5_0/ports/1/";
  char          path[PETSC_MAX_PATH_LEN];
  PKNetPort     port;
  PKNetCounters before, after, d;
  PetscBool     found, measured;
  PetscReal     tc;

  PetscFunctionBegin;
  PetscCheck(mkdtemp(root), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot make a temporary directory");
  PetscCall(PetscSNPrintf(path, sizeof(path), "%sstate", ib));
  PetscCall(WriteFile(root, path, "4: ACTIVE\n"));
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "1000\n"));
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "1000000\n"));
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "500\n"));
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_discards", "0\n"));
  PetscCall(WriteFile(root, "class/net/lo/operstate", "unknown\n"));
  PetscCall(WriteFile(root, "class/net/eth0/operstate", "up\n"));
  PetscCall(WriteFile(root, "class/net/eth0/statistics/tx_bytes", "5000\n"));
  PetscCall(WriteFile(root, "class/net/eth0/statistics/rx_bytes", "7000\n"));
  PetscCall(WriteFile(root, "class/net/eth0/statistics/tx_dropped", "3\n"));

  PetscCall(PKNetPortFind(root, &port, &found));
  Count("the active InfiniBand port is found", found && port.infiniband && port.port == 1 ? PETSC_TRUE : PETSC_FALSE, port.name, "mlx5_0 port 1");
  PetscCall(PKNetCountersRead(root, &port, &before));
  /* the solve: 2,000,000 stall ticks while 250,000 4-byte words (1,000,000 bytes) were sent */
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "2001000\n"));
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "1250000\n"));
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "750\n"));
  PetscCall(PKNetCountersRead(root, &port, &after));
  PetscCall(PKNetCountersDelta(&before, &after, &d));
  Check("stall ticks during the solve", d.value[PK_NETCTR_STALLS], 2e6, 0);
  Check("bytes sent: 4 x 250000 words", d.value[PK_NETCTR_XMIT_BYTES], 1e6, 0);
  Check("bytes received: 4 x 250 words", d.value[PK_NETCTR_RCV_BYTES], 1000, 0);
  CheckStr("nothing missing", d.missing, "");
  /* 000 5.7: (2e6 / 1e6 stalls per byte) x 4096 B x 16 cores x 0.120 ns = 1.572864e-5 s, x 4 hops = 6.291456e-5 s */
  PetscCall(PKModelCongestionCounters(&d, 4096, 16, 0.120e-9, 0, &tc, &measured));
  Check("congestion penalty, hops unknown", tc, 1.572864e-5, 1e-12);
  Count("congestion measured", measured, measured ? "yes" : "no", "yes");
  PetscCall(PKModelCongestionCounters(&d, 4096, 16, 0.120e-9, 4, &tc, &measured));
  Check("congestion penalty x 4 hops", tc, 6.291456e-5, 1e-12);
  /* a counter reset between the readings */
  PetscCall(PKNetCountersDelta(&after, &before, &d));
  Count("a counter that went down is not used", d.have[PK_NETCTR_STALLS] ? PETSC_FALSE : PETSC_TRUE, d.missing, "counter stalls went down");
  Count("... and says so", strstr(d.missing, "counter stalls went down from 2001000 to 1000") ? PETSC_TRUE : PETSC_FALSE, d.missing, "counter stalls went down from 2001000 to 1000");

  /* what is missing, and why */
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%scounters/port_xmit_wait", root, ib));
  (void)unlink(path);
  PetscCall(PKNetCountersRead(root, &port, &after));
  Count("no port_xmit_wait: says which file it looked for", after.have[PK_NETCTR_STALLS] == PETSC_FALSE && strstr(after.missing, "looked for") && strstr(after.missing, "counters/port_xmit_wait: No such file") ? PETSC_TRUE : PETSC_FALSE, after.missing, "looked for .../counters/port_xmit_wait: No such file or directory");
  PetscCall(PKNetCountersDelta(&before, &after, &d));
  PetscCall(PKModelCongestionCounters(&d, 4096, 16, 0.120e-9, 4, &tc, &measured));
  Count("... and the penalty is not measured", !measured && tc == 0 ? PETSC_TRUE : PETSC_FALSE, measured ? "measured" : "not measured", "not measured");
  (void)mkdir(path, 0700);
  PetscCall(PKNetCountersRead(root, &port, &after));
  Count("a directory is not a counter", strstr(after.missing, "is not a regular file") ? PETSC_TRUE : PETSC_FALSE, after.missing, "... is not a regular file");
  (void)rmdir(path);
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "lots\n"));
  PetscCall(PKNetCountersRead(root, &port, &after));
  Count("text that is no number", strstr(after.missing, "does not hold a counter ('lots") ? PETSC_TRUE : PETSC_FALSE, after.missing, "... does not hold a counter ('lots')");
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "\033[2Jlots\n"));
  PetscCall(PKNetCountersRead(root, &port, &after));
  Count("a counter's control characters shown escaped", strstr(after.missing, "does not hold a counter ('\\x1b[2Jlots')") && !strchr(after.missing, '\033') ? PETSC_TRUE : PETSC_FALSE, after.missing, "... does not hold a counter ('\\x1b[2Jlots')");
  PetscCall(WriteFile(root, "class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "4294967295\n"));
  PetscCall(PKNetCountersRead(root, &port, &after));
  Count("a saturated 32-bit counter", strstr(after.missing, "saturated at 2^32 - 1") ? PETSC_TRUE : PETSC_FALSE, after.missing, "... saturated at 2^32 - 1");

  /* no active InfiniBand port: the Linux interface that is up (not lo), which has no stall counter */
  PetscCall(PetscSNPrintf(path, sizeof(path), "%sstate", ib));
  PetscCall(WriteFile(root, path, "1: DOWN\n"));
  PetscCall(PKNetPortFind(root, &port, &found));
  Count("no active port: the interface eth0", found && !port.infiniband && !strcmp(port.name, "eth0") ? PETSC_TRUE : PETSC_FALSE, port.name, "eth0");
  PetscCall(PKNetCountersRead(root, &port, &after));
  Check("eth0 tx_bytes", after.value[PK_NETCTR_XMIT_BYTES], 5000, 0);
  Check("eth0 tx_dropped", after.value[PK_NETCTR_DROPS], 3, 0);
  Count("eth0 has no stall counter, and says so", !after.have[PK_NETCTR_STALLS] && strstr(after.missing, "no stall counter: interface eth0 has only Linux statistics") ? PETSC_TRUE : PETSC_FALSE, after.missing, "no stall counter: interface eth0 has only Linux statistics ...");
  PetscCall(PetscStrncpy(port.name, "../x", sizeof(port.name)));
  EXPECT_ERROR("a device name with '/'", PKNetCountersRead(root, &port, &after), "Network device name '../x': only letters, digits and _ . : - (no '/')");
  PetscCall(PKNetPortFind("/nonexistent-pktopo", &port, &found));
  Count("no sysfs: nothing found", found ? PETSC_FALSE : PETSC_TRUE, found ? "found" : "not found", "not found");

  PetscCall(PetscSNPrintf(cmd, sizeof(cmd), "rm -rf %s", root));
  PetscCheck(system(cmd) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "%s failed", cmd);
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Sockets and NUMA nodes with hwloc's synthetic and XML topologies */

static PetscErrorCode TestHwloc(void)
{
  PKNodeTopo       nt;
  PetscInt         np, nn, npu, pk[6], nu[6];
  const char      *masks[]  = {"0", "3", "4", "0-7", "2-3", "3-4"};
  const char      *masks4[] = {"0-3", "4", "0-7", "8-15", "6-9"};
  char             xml[]    = "/tmp/pktopo-XXXXXX", spec[64], bind[PK_CPULIST_MAX];
  hwloc_topology_t h;
  int              fd;

  PetscFunctionBegin;
  /* 2 packages of 4 cores, 1 PU each: PUs 0-3 in package 0, 4-7 in package 1; hwloc adds one NUMA node */
  PetscCall(PKNodeTopoCreate("synthetic:pack:2 core:4 pu:1", &nt));
  PetscCall(PKNodeTopoGetSizes(nt, &np, &nn, &npu));
  Check("pack:2 core:4 pu:1: 2 packages", np, 2, 0);
  Check("pack:2 core:4 pu:1: 8 PUs", npu, 8, 0);
  PetscCall(PKNodeTopoPlace(nt, 6, masks, pk, nu));
  Check("CPU 0 in package 0", pk[0], 0, 0);
  Check("CPU 3 in package 0", pk[1], 0, 0);
  Check("CPU 4 in package 1", pk[2], 1, 0);
  Check("CPUs 0-7 span both: -1", pk[3], -1, 0);
  Check("CPUs 2-3 in package 0", pk[4], 0, 0);
  Check("CPUs 3-4 span both: -1", pk[5], -1, 0);
  Check("CPUs 0-7 in the one NUMA node", nu[3], 0, 0);
  Count("ranks on CPUs 0 and 3: same socket", PKLevelOf(0, pk[0], 0, pk[1]) == PK_LEVEL_SAME_SOCKET ? PETSC_TRUE : PETSC_FALSE, PKLevelNames[PKLevelOf(0, pk[0], 0, pk[1])], "same socket");
  Count("ranks on CPUs 0 and 4: other socket", PKLevelOf(0, pk[0], 0, pk[2]) == PK_LEVEL_OTHER_SOCKET ? PETSC_TRUE : PETSC_FALSE, PKLevelNames[PKLevelOf(0, pk[0], 0, pk[2])], "other socket");
  Count("a rank on CPUs 0-7 and one on CPU 0: same node, socket unknown", PKLevelOf(0, pk[3], 0, pk[0]) == PK_LEVEL_SAME_NODE ? PETSC_TRUE : PETSC_FALSE, PKLevelNames[PKLevelOf(0, pk[3], 0, pk[0])], "same node (socket unknown)");
  Count("CPU 0 of node 0 and CPU 0 of node 1: other node", PKLevelOf(0, pk[0], 1, pk[0]) == PK_LEVEL_OTHER_NODE ? PETSC_TRUE : PETSC_FALSE, PKLevelNames[PKLevelOf(0, pk[0], 1, pk[0])], "other node");
  EXPECT_ERROR("CPUs the topology does not have", PKNodeTopoPlace(nt, 1, (const char *[]){"0-8"}, pk, nu), "CPU mask 0 '0-8': CPUs this topology does not have (it has 0-7)");
  EXPECT_ERROR("not a CPU list", PKNodeTopoPlace(nt, 1, (const char *[]){"zero"}, pk, nu), "not a CPU list");
  EXPECT_ERROR("an empty mask", PKNodeTopoPlace(nt, 1, (const char *[]){""}, pk, nu), "CPU mask 0: 0 characters, not 1 to 16384");
  PetscCall(PKNodeTopoDestroy(&nt));

  /* 2 packages x 2 NUMA nodes x 2 cores x 2 PUs: NUMA node k holds PUs 4k..4k+3, package p PUs 8p..8p+7 */
  PetscCall(PKNodeTopoCreate("synthetic:pack:2 numa:2 core:2 pu:2", &nt));
  PetscCall(PKNodeTopoGetSizes(nt, &np, &nn, &npu));
  Check("pack:2 numa:2 core:2 pu:2: 4 NUMA nodes", nn, 4, 0);
  PetscCall(PKNodeTopoPlace(nt, 5, masks4, pk, nu));
  Check("0-3: NUMA 0", nu[0], 0, 0);
  Check("4: NUMA 1", nu[1], 1, 0);
  Check("0-7: NUMA -1 (two), package 0", nu[2] * 10 + pk[2], -10, 0);
  Check("8-15: package 1, NUMA -1", pk[3] * 10 + nu[3], 9, 0);
  Check("6-9: package -1", pk[4], -1, 0);
  /* the same topology through an XML export */
  PetscCheck(!hwloc_topology_init(&h) && !hwloc_topology_set_synthetic(h, "pack:2 numa:2 core:2 pu:2") && !hwloc_topology_load(h), PETSC_COMM_SELF, PETSC_ERR_LIB, "hwloc synthetic topology");
  fd = mkstemp(xml);
  PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot make a temporary file");
  (void)close(fd);
  PetscCheck(!hwloc_topology_export_xml(h, xml, 0), PETSC_COMM_SELF, PETSC_ERR_LIB, "hwloc XML export to %s", xml);
  hwloc_topology_destroy(h);
  PetscCall(PKNodeTopoDestroy(&nt));
  PetscCall(PetscSNPrintf(spec, sizeof(spec), "xml:%s", xml));
  PetscCall(PKNodeTopoCreate(spec, &nt));
  PetscCall(PKNodeTopoPlace(nt, 5, masks4, pk, nu));
  Check("XML: 4: NUMA 1", nu[1], 1, 0);
  Check("XML: 8-15: package 1", pk[3], 1, 0);
  PetscCall(PKNodeTopoDestroy(&nt));
  (void)unlink(xml);
  EXPECT_ERROR("a synthetic description hwloc refuses", PKNodeTopoCreate("synthetic:pack:2 banana:3", &nt), "hwloc could not load the topology 'synthetic:pack:2 banana:3'");
  EXPECT_ERROR("neither synthetic: nor xml:", PKNodeTopoCreate("pack:2", &nt), "give synthetic:<description>, xml:<file>, or nothing for this machine");

  /* this machine: this process's binding is a CPU list of it */
  PetscCall(PKNodeTopoCreate(NULL, &nt));
  PetscCall(PKNodeTopoGetBinding(nt, bind, sizeof(bind)));
  PetscCall(PKNodeTopoPlace(nt, 1, (const char *[]){bind}, pk, nu));
  Count("this process's binding is placed", pk[0] >= -1 ? PETSC_TRUE : PETSC_FALSE, bind, "a CPU list of this machine");
  PetscCall(PKNodeTopoDestroy(&nt));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------------------------ */

static PetscErrorCode TestBad(const char which[])
{
  PetscBool eq;
  PKTopo    t;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(which, "twice", &eq));
  if (eq) PetscCall(TopoFromText("SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\nSwitchName=s0 Nodes=n5\n", &t));
  PetscCall(PetscStrcmp(which, "hostlist", &eq));
  if (eq) PetscCall(TopoFromText("# a leaf\nSwitchName=s0 Nodes=node[01-04,\n", &t));
  PetscCall(PetscStrcmp(which, "cycle", &eq));
  if (eq) PetscCall(TopoFromText("SwitchName=l Nodes=n1\nSwitchName=a Switches=l,b\nSwitchName=b Switches=a\n", &t));
  PetscCall(PetscStrcmp(which, "device", &eq));
  if (eq) {
    PKNetPort     port = {PETSC_TRUE, "../mlx5_0", 1};
    PKNetCounters c;
    PetscCall(PKNetCountersRead(NULL, &port, &c));
  }
  PetscCall(PetscStrcmp(which, "cpumask", &eq));
  if (eq) {
    PKNodeTopo nt;
    PetscInt   pk;
    PetscCall(PKNodeTopoCreate("synthetic:pack:2 core:4 pu:1", &nt));
    PetscCall(PKNodeTopoPlace(nt, 1, (const char *[]){"0-15"}, &pk, NULL));
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "No bad case '%s'", which);
}

/* An allreduce's off-node rounds on the tree: recursive doubling over the nodes, the farthest pair of each round */
static PetscErrorCode TestAllreduceHops(void)
{
  PKTopo    t;
  PetscInt  where[8], known;
  PetscReal mean;

  PetscFunctionBegin;
  PetscCall(TopoFromText(TwoLeaves, &t));
  for (PetscInt i = 0; i < 8; i++) where[i] = i; /* node01..node08 in order: s0 holds nodes 0-3, s1 nodes 4-7 */
  PetscCall(PKTopoRecursiveDoublingHops(t, 8, where, &mean, &known));
  /* rounds 1 and 2 pair nodes under one leaf (2 links), round 4 across the spine (4): (2 + 2 + 4) / 3 */
  Check("allreduce over 8 nodes in order: 3 rounds", known, 3, 0);
  Check("allreduce over 8 nodes in order: mean of the rounds' farthest pairs 8/3", mean, 8.0 / 3.0, 1e-14);
  where[1] = 4; /* nodes 0 and 1 of the run under different leaves: round 1 crosses the spine */
  where[4] = 1;
  PetscCall(PKTopoRecursiveDoublingHops(t, 8, where, &mean, &known));
  Check("allreduce, two nodes swapped: (4 + 4 + 4) / 3", mean, 4, 1e-14);
  where[7] = -1; /* a node not in the tree: the rounds it takes part in are left out */
  PetscCall(PKTopoRecursiveDoublingHops(t, 8, where, &mean, &known));
  Check("allreduce with a node not in the tree: no round complete", known, 0, 0);
  PetscCall(PKTopoRecursiveDoublingHops(t, 1, where, &mean, &known));
  Check("allreduce on one node: no off-node round", known, 0, 0);
  PetscCall(PKTopoDestroy(&t));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char      bad[64] = "", section[64] = "";
  PetscBool all;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-section", section, sizeof(section), NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-v", &verbose));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bad", bad, sizeof(bad), NULL));
  if (bad[0]) PetscCall(TestBad(bad));
  {
    PetscInt ncompare = 0, seed = 1, uniform = 0, maxn = 12;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-compare", &ncompare, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-uniform", &uniform, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxn", &maxn, NULL));
    if (ncompare > 0) {
      PetscCall(ComparePlacement(ncompare, seed, uniform, maxn));
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  all = section[0] ? PETSC_FALSE : PETSC_TRUE;
#define RUN(nm, fn) \
  do { \
    PetscBool m_; \
    PetscCall(PetscStrInList(nm, section, ',', &m_)); \
    if (all || m_) PetscCall(fn()); \
  } while (0)
  RUN("hostlist", TestHostlist);
  RUN("parse", TestParse);
  RUN("slurm", TestSlurm);
  RUN("routes", TestRoutes);
  RUN("badfile", TestBadFile);
  RUN("loads", TestLoads);
  RUN("allreduce", TestAllreduceHops);
  RUN("place", TestPlace);
  RUN("topofile", TestTopoFile);
  RUN("counters", TestCounters);
  RUN("escape", TestEscape);
  RUN("hwloc", TestHwloc);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "topology_unit: %" PetscInt_FMT " checks passed, %" PetscInt_FMT " failed\n", npass, nfail));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
