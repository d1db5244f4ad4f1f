/*
   The socket and NUMA node of CPU masks inside one node, with hwloc (004 section 3's three levels).
   Who uses it: include/pipekrylov/private/pklocality.h.
*/
#include <hwloc.h>
#include <pipekrylov/private/pklocality.h>

const char *const PKLevelNames[] = {"same socket", "other socket", "same node (socket unknown)", "other node"};

struct _n_PKNodeTopo {
  hwloc_topology_t topo;
};

/*@C
   PKNodeTopoCreate - Loads a node's topology with hwloc.

   Not Collective

   Input Parameter:
.  spec - NULL or "": this machine; "synthetic:<description>": hwloc's synthetic syntax, e.g.
          "synthetic:pack:2 numa:1 core:4 pu:2"; "xml:<file>": an export of hwloc's (lstopo file.xml)

   Output Parameter:
.  nt - the topology; destroy with PKNodeTopoDestroy()

   Level: developer

.seealso: `PKNodeTopoPlace()`, `PKNodeTopoGetBinding()`
@*/
PetscErrorCode PKNodeTopoCreate(const char spec[], PKNodeTopo *nt)
{
  PKNodeTopo t;
  size_t     len;
  PetscBool  syn, xml;
  int        err = 0;

  PetscFunctionBegin;
  *nt = NULL;
  if (!spec) spec = ""; /* PETSc 3.22's string functions do not take NULL */
  PetscCall(PetscStrlen(spec, &len));
  PetscCheck(len < PETSC_MAX_PATH_LEN, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Topology description of %zu characters: at most %d", len, PETSC_MAX_PATH_LEN - 1);
  syn = xml = PETSC_FALSE;
  if (len) PetscCall(PetscStrbeginswith(spec, "synthetic:", &syn));
  if (len) PetscCall(PetscStrbeginswith(spec, "xml:", &xml));
  PetscCheck(!len || syn || xml, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Topology '%s': give synthetic:<description>, xml:<file>, or nothing for this machine", spec);
  PetscCall(PetscNew(&t));
  PetscCheck(!hwloc_topology_init(&t->topo), PETSC_COMM_SELF, PETSC_ERR_LIB, "hwloc_topology_init failed");
  if (syn) err = hwloc_topology_set_synthetic(t->topo, spec + 10);
  if (xml) err = hwloc_topology_set_xml(t->topo, spec + 4);
  if (!err) err = hwloc_topology_load(t->topo);
  if (err) {
    hwloc_topology_destroy(t->topo);
    PetscCall(PetscFree(t));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "hwloc could not load the topology '%s' (%s)", len ? spec : "of this machine",
            syn   ? "not a synthetic description hwloc accepts"
            : xml ? "no such file, or not an hwloc XML export"
                  : "hwloc_topology_load failed");
  }
  *nt = t;
  PetscFunctionReturn(0);
}

/*@C
   PKNodeTopoDestroy - Frees a node topology.

   Not Collective

   Input Parameter:
.  nt - the topology (may be NULL); set to NULL

   Level: developer

.seealso: `PKNodeTopoCreate()`
@*/
PetscErrorCode PKNodeTopoDestroy(PKNodeTopo *nt)
{
  PetscFunctionBegin;
  if (!nt || !*nt) PetscFunctionReturn(0);
  hwloc_topology_destroy((*nt)->topo);
  PetscCall(PetscFree(*nt));
  PetscFunctionReturn(0);
}

/*@C
   PKNodeTopoGetSizes - Packages (sockets), NUMA nodes and processing units of a node topology.

   Not Collective

   Input Parameter:
.  nt - the topology

   Output Parameters (each may be NULL):
+  npackages - packages (0 if hwloc sees none: the node is then one socket)
.  nnuma     - NUMA nodes
-  npus      - processing units (hardware threads)

   Level: developer

.seealso: `PKNodeTopoCreate()`
@*/
PetscErrorCode PKNodeTopoGetSizes(PKNodeTopo nt, PetscInt *npackages, PetscInt *nnuma, PetscInt *npus)
{
  PetscFunctionBegin;
  if (npackages) *npackages = hwloc_get_nbobjs_by_type(nt->topo, HWLOC_OBJ_PACKAGE);
  if (nnuma) *nnuma = hwloc_get_nbobjs_by_type(nt->topo, HWLOC_OBJ_NUMANODE);
  if (npus) *npus = hwloc_get_nbobjs_by_type(nt->topo, HWLOC_OBJ_PU);
  PetscFunctionReturn(0);
}

/*@C
   PKNodeTopoGetBinding - The CPUs this process may run on, as a CPU list ("0-3,8").

   Not Collective

   Input Parameters:
+  nt  - this machine's topology (PKNodeTopoCreate(NULL))
-  len - the size of list

   Output Parameter:
.  list - the CPU list

   Level: developer

.seealso: `PKNodeTopoPlace()`
@*/
PetscErrorCode PKNodeTopoGetBinding(PKNodeTopo nt, char list[], size_t len)
{
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int            err;

  PetscFunctionBegin;
  PetscCheck(set, PETSC_COMM_SELF, PETSC_ERR_MEM, "hwloc_bitmap_alloc failed");
  err = hwloc_get_cpubind(nt->topo, set, HWLOC_CPUBIND_PROCESS);
  if (!err) err = hwloc_bitmap_list_snprintf(list, len, set) >= (int)len ? -1 : 0;
  hwloc_bitmap_free(set);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "hwloc could not give this process's CPU binding in %zu characters (a synthetic or XML topology is not this machine's)", len);
  PetscFunctionReturn(0);
}

/* The logical index of the one object of a type whose CPUs include set; -1 if none or several share it */
static PetscInt Inside(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_const_bitmap_t set)
{
  int n = hwloc_get_nbobjs_by_type(topo, type);

  for (int i = 0; i < n; i++) {
    hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, (unsigned)i);
    if (o->cpuset && !hwloc_bitmap_iszero(o->cpuset) && hwloc_bitmap_isincluded(set, o->cpuset)) return i;
  }
  return -1;
}

/*@C
   PKNodeTopoPlace - The package (socket) and NUMA node of each of a set of CPU masks of one node.

   Not Collective

   Input Parameters:
+  nt    - the node's topology
.  n     - the number of masks
-  lists - the masks as CPU lists ("0-3,8", operating-system CPU numbers, at most PK_CPULIST_MAX characters)

   Output Parameters (each may be NULL):
+  package - for each mask, the logical index of the package holding all its CPUs; -1 if they span several (a rank
             not bound to one socket); 0 for all if hwloc sees no package
-  numa    - the same for NUMA nodes (those with CPUs)

   Notes:
   A mask that is empty, not a CPU list, or names CPUs the topology does not have is an error that says which.

   Level: developer

.seealso: `PKLevelOf()`, `PKNodeTopoGetBinding()`
@*/
PetscErrorCode PKNodeTopoPlace(PKNodeTopo nt, PetscInt n, const char *const lists[], PetscInt package[], PetscInt numa[])
{
  hwloc_bitmap_t       set    = hwloc_bitmap_alloc();
  hwloc_const_bitmap_t all    = hwloc_topology_get_complete_cpuset(nt->topo);
  PetscBool            nopack = hwloc_get_nbobjs_by_type(nt->topo, HWLOC_OBJ_PACKAGE) == 0 ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(set, PETSC_COMM_SELF, PETSC_ERR_MEM, "hwloc_bitmap_alloc failed");
  for (PetscInt i = 0; i < n; i++) {
    size_t len;
    int    bad;

    PetscCall(PetscStrlen(lists[i], &len));
    bad = len == 0 || len > PK_CPULIST_MAX ? 1 : hwloc_bitmap_list_sscanf(set, lists[i]) ? 2 : hwloc_bitmap_iszero(set) ? 3 : !hwloc_bitmap_isincluded(set, all) ? 4 : 0;
    if (bad) {
      char have[64] = "?";
      (void)hwloc_bitmap_list_snprintf(have, sizeof(have), all);
      hwloc_bitmap_free(set);
      PetscCheck(bad != 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CPU mask %" PetscInt_FMT ": %zu characters, not 1 to %d", i, len, PK_CPULIST_MAX);
      PetscCheck(bad != 2, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "CPU mask %" PetscInt_FMT " '%.60s': not a CPU list such as 0-3,8", i, lists[i]);
      PetscCheck(bad != 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "CPU mask %" PetscInt_FMT " '%.60s': no CPU", i, lists[i]);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CPU mask %" PetscInt_FMT " '%.60s': CPUs this topology does not have (it has %s)", i, lists[i], have);
    }
    if (package) package[i] = nopack ? 0 : Inside(nt->topo, HWLOC_OBJ_PACKAGE, set);
    if (numa) numa[i] = Inside(nt->topo, HWLOC_OBJ_NUMANODE, set);
  }
  hwloc_bitmap_free(set);
  PetscFunctionReturn(0);
}

/*@C
   PKLevelOf - 004's level of a message between two ranks: same socket, other socket, or other node; "same node,
   socket unknown" when either rank's mask spans packages.

   Not Collective

   Input Parameters:
+  node_a, package_a - the node (any numbering shared by both ranks) and package (PKNodeTopoPlace(), -1: several) of one rank
-  node_b, package_b - the same of the other

   Level: developer

.seealso: `PKNodeTopoPlace()`
@*/
PKLevel PKLevelOf(PetscInt node_a, PetscInt package_a, PetscInt node_b, PetscInt package_b)
{
  if (node_a != node_b) return PK_LEVEL_OTHER_NODE;
  if (package_a < 0 || package_b < 0) return PK_LEVEL_SAME_NODE;
  return package_a == package_b ? PK_LEVEL_SAME_SOCKET : PK_LEVEL_OTHER_SOCKET;
}
