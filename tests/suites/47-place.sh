# shellcheck shell=bash
# Node-aware placement (src/dm) and halo accounting: counts against hand-computed values, bin/pipekrylov-place,
# the same solve with and without placement (the emulated cluster's cases: 47-place-cluster.sh).
H=$PK_BUILD/tests/halo
PL=$PK_ROOT/bin/pipekrylov-place
PLD=$PK_BUILD/tests/place
mkdir -p "$PLD"
export H PL PLD
t_mpi_halo() { np=$1; shift; "$PK_ROOT/tests/mpirun.sh" "$np" "$H" "$@"; }

# 2-D 64 x 64, 5-point, 16 ranks as 4 nodes x 4, PETSc's grid 4 x 4 of 16 x 16 subdomains. Default: node k owns
# the 4 x 1 row k, so all 12 vertical neighbour pairs cross nodes: 24 messages of 16 values (128 bytes); the 24
# horizontal ones stay on node. Node-aware: 2 x 2 blocks, the two cuts cross 4 pairs each: 16 messages.
t_grep halo-2d-default 'offnode_msgs 24 offnode_bytes 3072 onnode_msgs 24 onnode_bytes 3072 offnode_msg_bytes 128\.\.128' t_mpi_halo 16 -ksp_perf_node_size 4
t_grep halo-2d-nodeaware 'offnode_msgs 16 offnode_bytes 2048 onnode_msgs 32 onnode_bytes 4096 offnode_msg_bytes 128\.\.128' t_mpi_halo 16 -ksp_perf_node_size 4 -nodeaware
# 3-D 16^3, 27-point (box), 16 ranks as 4 nodes x 4 on a fixed 4 x 4 x 1 grid of 4 x 4 x 16 subdomains: faces
# carry 64 values, the xy-diagonal (edge) neighbours 16. Default (rows): the 12 y-face pairs and all 18 diagonal
# pairs cross: 24 x 64 + 36 x 16 values = 16896 bytes in 60 messages. 2 x 2 blocks: 8 face pairs and 10 of the 18
# diagonal pairs cross: 16 x 64 + 20 x 16 values = 10752 bytes in 36 messages.
B3="-dim 3 -M 16 -N 16 -P 16 -stencil box -da_processors_x 4 -da_processors_y 4 -da_processors_z 1"
t_grep halo-3d-box-default 'offnode_msgs 60 offnode_bytes 16896 onnode_msgs 24 onnode_bytes 12288' t_mpi_halo 16 -ksp_perf_node_size 4 $B3
t_grep halo-3d-box-nodeaware 'offnode_msgs 36 offnode_bytes 10752 onnode_msgs 48 onnode_bytes 18432' t_mpi_halo 16 -ksp_perf_node_size 4 $B3 -nodeaware
# the same grid with the process grid free: the operator's counts equal the model's (the program checks)
t_grep halo-3d-free-grid 'model matches the operator' t_mpi_halo 16 -ksp_perf_node_size 4 -dim 3 -M 16 -N 16 -P 16 -stencil box -nodeaware
# 32^3, 27-point, 2 nodes x 8: the placed layout (library path, counted from the operator) carries no more halo
# bytes in all than PETSc's default grid (it once went to 1 x 1 x 16 slabs: 245760 bytes against 89280); the
# program exits non-zero when it does, or when the operator's counts differ from the model's
t_grep halo-3d-box-total 'total halo bytes: default 89280, placed [0-9]+: not more' t_mpi_halo 16 -ksp_perf_node_size 8 -dim 3 -M 32 -N 32 -P 32 -stencil box -nodeaware
# Unequal nodes: 6 ranks, nodes of 4 and 2; PETSc's grid 2 x 3 (32 x 22/21/21). Node 0 = rows 0-1, node 1 = row 2:
# off node the 2 vertical pairs between rows 1 and 2 (4 messages of 32 values); on node 3 horizontal pairs
# (2 x (22+21+21) values) and 2 vertical pairs (4 x 32): 10 messages, 2048 bytes. Placement keeps the default.
t_grep halo-unequal-nodes 'offnode_msgs 4 offnode_bytes 1024 onnode_msgs 10 onnode_bytes 2048 offnode_msg_bytes 256\.\.256' t_mpi_halo 6 -ksp_perf_node_size 4
t_grep halo-unequal-nodes-note 'nodes differ in size \(2 nodes for 6 ranks\): default layout kept' t_mpi_halo 6 -ksp_perf_node_size 4 -nodeaware

# bin/pipekrylov-place
place_2d() { "$PL" --nodes 4 --ppn 4 --grid 64x64 --rankfile "$PLD/rf-2d" 2>&1; }
t_grep place-options '^-da_processors_x 4 -da_processors_y 4$' place_2d
t_grep place-default-counts '^default: process grid 4x4x1.*: 24 off-node messages, 3072 bytes per SpMV' place_2d
t_grep place-placed-counts '^placed: process grid 4x4x1, each node a 2x2x1 block: 16 off-node messages, 2048 bytes per SpMV' place_2d
place_rankfile() {
  "$PL" --nodes 4 --ppn 4 --grid 64x64 --rankfile "$PLD/rf" >/dev/null 2>&1 || return 1
  # rank r = grid position (r % 4, r / 4); node = its 2 x 2 block, slot = its place in the block, x-fastest
  printf 'rank %d=pknode%d slot=%d\n' 0 0 0 1 0 1 2 1 0 3 1 1 4 0 2 5 0 3 6 1 2 7 1 3 \
    8 2 0 9 2 1 10 3 0 11 3 1 12 2 2 13 2 3 14 3 2 15 3 3 >"$PLD/rf-expected"
  diff "$PLD/rf-expected" "$PLD/rf" && echo "rankfile as expected"
}
t_grep place-rankfile-openmpi 'rankfile as expected' place_rankfile
place_slurm() {
  "$PL" --nodes 4 --ppn 2 --grid 64x64 --hosts n0,n1,n2,n3 --format slurm --rankfile "$PLD/hl" >/dev/null 2>&1 || return 1
  # grid 2 x 4, blocks 1 x 2 (columns of 2): ranks 0 2 on n0, 1 3 on n1, 4 6 on n2, 5 7 on n3
  printf '%s\n' n0 n1 n0 n1 n2 n3 n2 n3 >"$PLD/hl-expected"
  diff "$PLD/hl-expected" "$PLD/hl" && echo "host list as expected"
}
t_grep place-slurm-hostlist 'host list as expected' place_slurm
# 27-point 20 x 40 x 40 on 2 nodes x 2: PETSc's grid 1 x 2 x 2 (20^3 subdomains), 8 off-node messages, 13440 bytes, 26240
# in all. 1 x 1 x 4 slabs (20 x 40 x 10) would cut off-node bytes to 12800 but carry 38400 in all: the default stays.
t_grep place-3d-box '^-da_processors_x 1 -da_processors_y 2 -da_processors_z 2$' "$PL" --nodes 2 --ppn 2 --grid 20x40x40 --stencil box --rankfile "$PLD/rf-3d"
t_grep place-3d-box-kept '^placed: .*default layout kept' "$PL" --nodes 2 --ppn 2 --grid 20x40x40 --stencil box --rankfile "$PLD/rf-3d"
# the hand-computed 3-D case above (16^3, 27-point, 4 x 4 x 1 fixed, 4 nodes x 4) through the tool: 2 x 2 blocks
t_grep place-3d-box-blocks '^placed: process grid 4x4x1, each node a 2x2x1 block: 36 off-node messages, 10752 bytes per SpMV' "$PL" --nodes 4 --ppn 4 --grid 16x16x16 --stencil box --procs 4x4x1 --rankfile "$PLD/rf-3d"
# The placement never buys fewer off-node bytes with more halo bytes in all than PETSc's default grid: on 2 nodes x 8
# the 27-point 48^3 and 32^3 grids once went to 1 x 1 x 16 slabs (off-node 40000 -> 36864 and 18496 -> 16384 bytes,
# but on node 155264 -> 516096 and 70784 -> 229376). Placed total (on + off node) must not exceed the default's.
place_total() { # ARGS...: the tool's default and placed totals, then the verdict
  "$PL" "$@" --rankfile "$PLD/rf-total" 2>&1 >/dev/null | awk '
    /^default:/ { d = $0 }
    /^placed:/  { p = $0 }
    # "N off-node messages, B bytes per SpMV (on node n messages, b bytes)": B + b
    function tot(s) { match(s, /[0-9]+ bytes per SpMV/); t = substr(s, RSTART) + 0; match(s, /[0-9]+ bytes\)/); return t + substr(s, RSTART) }
    END { if (d == "") { print "no counts"; exit 1 }
      if (p !~ /bytes per SpMV/) p = d # the default layout kept
      printf "total halo bytes per SpMV: default %d, placed %d: %s\n", tot(d), tot(p), tot(p) <= tot(d) ? "not more" : "MORE"; exit !(tot(p) <= tot(d)) }'
}
t_grep place-total-box48 'default 195264, placed [0-9]+: not more' place_total --nodes 2 --ppn 8 --grid 48x48x48 --stencil box
t_grep place-total-box32 'default 89280, placed [0-9]+: not more' place_total --nodes 2 --ppn 8 --grid 32x32x32 --stencil box
t_fail place-missing-rankfile '--rankfile FILE is required' "$PL" --nodes 2 --ppn 2 --grid 8x8
t_fail place-bad-grid '--grid must be M, MxN or MxNxP' "$PL" --nodes 2 --ppn 2 --grid 8y8 --rankfile "$PLD/never"
# malformed lists are errors, not a shorter grid: an empty size (trailing, doubled or leading x), a sign, a space
t_fail place-bad-grid-trailing-x "--grid must be M, MxN or MxNxP .*not '64x64x'" "$PL" --nodes 2 --ppn 2 --grid 64x64x --rankfile "$PLD/never"
t_fail place-bad-grid-double-x "--grid must be M, MxN or MxNxP .*not '64xx64'" "$PL" --nodes 2 --ppn 2 --grid 64xx64 --rankfile "$PLD/never"
t_fail place-bad-grid-leading-x "--grid must be M, MxN or MxNxP" "$PL" --nodes 2 --ppn 2 --grid x64x64 --rankfile "$PLD/never"
t_fail place-bad-grid-sign "--grid must be M, MxN or MxNxP" "$PL" --nodes 2 --ppn 2 --grid 64x+64 --rankfile "$PLD/never"
t_fail place-bad-grid-four "--grid must be M, MxN or MxNxP" "$PL" --nodes 2 --ppn 2 --grid 8x8x8x8 --rankfile "$PLD/never"
t_fail place-bad-procs-empty "--procs must be m, mxn or mxnxp .*not '2xx2'" "$PL" --nodes 2 --ppn 2 --grid 8x8 --procs 2xx2 --rankfile "$PLD/never"
t_fail place-bad-nodes "--nodes must be a positive integer, not '4x'" "$PL" --nodes 4x --ppn 2 --grid 8x8 --rankfile "$PLD/never"
t_fail place-bad-hosts '--hosts must name exactly --nodes hosts' "$PL" --nodes 2 --ppn 2 --grid 8x8 --hosts a --rankfile "$PLD/never"
# refused with the reason and the usage, and no rankfile written: an unknown option is named as one even when it
# ends the line (it was "missing value after"), and a host named twice is not two nodes (both nodes' ranks went to
# its slots 0 on and the counts still took it for two nodes)
place_refused() { # REGEX ARGS...
  local re=$1 out rc; shift
  rm -f "$PLD/rf-refused"
  out=$("$PL" --rankfile "$PLD/rf-refused" "$@" 2>&1); rc=$?
  echo "$out"
  [ $rc != 0 ] || { echo "FAIL: succeeded"; return 1; }
  [ ! -e "$PLD/rf-refused" ] || { echo "FAIL: wrote the rankfile"; return 1; }
  echo "$out" | grep -q '^usage: pipekrylov-place' || { echo "FAIL: no usage"; return 1; }
  echo "$out" | grep -Eq -- "$re"
}
t place-unknown-option-last place_refused '^pipekrylov-place: unknown option --bogus$' --nodes 2 --ppn 2 --grid 8x8 --bogus
t place-unknown-option-first place_refused '^pipekrylov-place: unknown option --bogus$' --bogus 2 --nodes 2 --ppn 2 --grid 8x8
t place-missing-value place_refused '^pipekrylov-place: missing value after --grid$' --nodes 2 --ppn 2 --grid
t place-duplicate-host place_refused "^pipekrylov-place: --hosts names host 'a' twice: one host per node" --nodes 2 --ppn 2 --grid 8x8 --hosts a,a
t place-duplicate-host-case-domain place_refused "^pipekrylov-place: --hosts names one host twice, as 'node1' and as 'NODE1.cluster'" --nodes 3 --ppn 1 --grid 8x8 --hosts node1,node2,NODE1.cluster
place_domains() { "$PL" --nodes 2 --ppn 1 --grid 8x8 --hosts a.x,a.y --rankfile "$PLD/rf-domains" >/dev/null 2>&1 && cat "$PLD/rf-domains"; }
t_grep place-distinct-domains "^rank 1=a.y slot=0$" place_domains
# a topology.conf's control characters are shown escaped in the message, never sent to the terminal
printf 'SwitchName=s0 Nodes=n1\n\033[2J\033]0;pwned\007Foo=bar\n' >"$PLD/esc.conf"
t_grep place-topology-control-chars "esc.conf': topology.conf line 2: expected Key=Value, found '\\\\x1b\\[2J\\\\x1b\\]0;pwned\\\\x07Foo=bar'" "$PK_ROOT/tests/fails-escaped.sh" "$PL" --nodes 1 --ppn 1 --grid 8 --topology "$PLD/esc.conf" --rankfile "$PLD/rf-esc"
t_fail place-too-fine 'too fine' "$PL" --nodes 2 --ppn 2 --grid 3x3 --procs 4x1 --rankfile "$PLD/never"

# bin/pipekrylov-place --topology (docs/models.md §7.8): the node blocks go to hosts by a Slurm topology.conf.
# §7.3's case: 8 hosts, node01-04 under s0, node05-08 under s1, a spine; 32 x 8 on the grid 4 x 2, one rank per
# host (8 x 4 points: x messages 32 B, y messages 64 B). Default: the 8 y messages cross the spine (512 B leave a
# leaf, 1024 B on switch links, 256 B each spine direction); topology-aware: a 2 x 2 block of the grid under each
# leaf, only 4 x messages cross (128 B, 256 B, 64 B): ranks 0 1 4 5 on node01-04, 2 3 6 7 on node05-08.
printf 'SwitchName=s0 Nodes=node[01-04]\nSwitchName=s1 Nodes=node[05-08]\nSwitchName=spine Switches=s[0-1]\n' >"$PLD/two.conf"
export H8=node01,node02,node03,node04,node05,node06,node07,node08
# shellcheck disable=SC2120 # called with no argument here, with more where a test needs
topo_73() { "$PL" --nodes 8 --ppn 1 --grid 32x8 --procs 4x2 --hosts $H8 --topology "$PLD/two.conf" --rankfile "$PLD/rf-topo" "$@" 2>&1; }
t_grep topoplace-tool-default '^switch links, default: 1024 bytes per SpMV \(busiest s0->spine 256 bytes; 512 bytes leave a leaf switch\)' topo_73
t_grep topoplace-tool-placed '^switch links, topology-aware: 256 bytes per SpMV \(busiest s0->spine 64 bytes; 128 bytes leave a leaf switch\)' topo_73
t_grep topoplace-tool-order '^topology-aware: optimal .*node blocks 0\.\.7 on hosts node01 node02 node05 node06 node03 node04 node07 node08$' topo_73
topo_rankfile() {
  topo_73 >/dev/null || return 1
  printf 'rank %d=node%02d slot=0\n' 0 1 1 2 2 5 3 6 4 3 5 4 6 7 7 8 >"$PLD/rf-topo-expected"
  diff "$PLD/rf-topo-expected" "$PLD/rf-topo" && echo "rankfile as expected"
}
t_grep topoplace-tool-rankfile 'rankfile as expected' topo_rankfile
# Node-aware blocks of two ranks (columns of the 4 x 2 grid), hosts interleaved on the switches (s0: n1 n3, s1: n2
# n4): node-aware puts columns 0 2 under s0 (384 B leave a leaf), topology-aware columns 0 1 (128 B): column 1 on n3
printf 'SwitchName=s0 Nodes=n1,n3\nSwitchName=s1 Nodes=n2,n4\nSwitchName=top Switches=s0,s1\n' >"$PLD/inter.conf"
topo_blocks() {
  "$PL" --nodes 4 --ppn 2 --grid 32x8 --procs 4x2 --hosts n1,n2,n3,n4 --topology "$PLD/inter.conf" --rankfile "$PLD/rf-inter" 2>&1 || return 1
  # rank r = (r % 4, r / 4): column r % 4 is the block; columns 0 1 2 3 on n1 n3 n2 n4, slot = the row
  printf 'rank %d=n%d slot=%d\n' 0 1 0 1 3 0 2 2 0 3 4 0 4 1 1 5 3 1 6 2 1 7 4 1 >"$PLD/rf-inter-expected"
  diff "$PLD/rf-inter-expected" "$PLD/rf-inter" && echo "rankfile as expected"
}
t_grep topoplace-tool-blocks 'switch links, node-aware: 768 bytes per SpMV \(busiest s0->top 192 bytes; 384 bytes leave a leaf switch\)' topo_blocks
t_grep topoplace-tool-blocks-rankfile 'rankfile as expected' topo_blocks
# a host the file does not list: the node-aware order, with a note; a tree that gains nothing: the same
t_grep topoplace-tool-missing-host "^topology-aware: 1 of the 8 nodes is not in the topology \(the first: 'ghost'\): node-aware order kept" \
  "$PL" --nodes 8 --ppn 1 --grid 32x8 --procs 4x2 --hosts node01,node02,node03,node04,node05,node06,node07,ghost --topology "$PLD/two.conf" --rankfile "$PLD/rf-topo-missing"
t_grep topoplace-tool-nothing-to-gain '^topology-aware: the node-aware order is already optimal on this tree' \
  "$PL" --nodes 8 --ppn 1 --grid 8x12x16 --procs 2x2x2 --hosts $H8 --topology "$PLD/two.conf" --rankfile "$PLD/rf-topo-same"
# a malformed file: the parser's error with the file and the line, and no rankfile; a FIFO is refused unread
topo_bad() {
  printf 'SwitchName=s0 Nodes=node[01-04]\nSwitchName=s1 Nodes=node[05-\n' >"$PLD/bad.conf"
  rm -f "$PLD/rf-bad"
  "$PL" --nodes 8 --ppn 1 --grid 32x8 --hosts $H8 --topology "$PLD/bad.conf" --rankfile "$PLD/rf-bad"
  rc=$?
  [ ! -e "$PLD/rf-bad" ] || echo "a rankfile was written"
  return $rc
}
t_fail topoplace-tool-malformed "Topology file '.*/bad.conf': topology.conf line 2: Nodes= 'node\[05-': bracket group not closed" topo_bad
topo_fifo() { rm -f "$PLD/topo.fifo"; mkfifo "$PLD/topo.fifo" && "$PL" --nodes 8 --ppn 1 --grid 32x8 --hosts $H8 --topology "$PLD/topo.fifo" --rankfile "$PLD/rf-fifo"; }
t_fail topoplace-tool-fifo "Cannot read the topology file '.*topo.fifo': not a regular file \(a FIFO\)" topo_fifo
t_grep topoplace-tool-help '--topology' "$PL" --help

# An unmodified tutorial (ex50) with the tool's host list as node map and its options reaches the placed counts
tut_hostlist() {
  "$PL" --nodes 4 --ppn 4 --grid 64x64 --format slurm --rankfile "$PLD/tut-hl" >"$PLD/tut-opts" 2>/dev/null || return 1
  # shellcheck disable=SC2046
  "$PK_ROOT/tests/mpirun.sh" 16 "$PK_BUILD/petsc-tutorials/ex50" -dll_append "$PK_BUILD/tests/libpkhalotest.so" \
    -pk_halotest_hostfile "$PLD/tut-hl" -da_grid_x 64 -da_grid_y 64 $(cat "$PLD/tut-opts") -ksp_type cg -pc_type jacobi
}
t_grep place-tutorial-hostlist 'halotest: 16 ranks, 4 nodes; off-node 16 messages 2048 bytes' tut_hostlist
t_grep place-tutorial-default 'halotest: 16 ranks, 4 nodes; off-node 24 messages 3072 bytes' \
  "$PK_ROOT/tests/mpirun.sh" 16 "$PK_BUILD/petsc-tutorials/ex50" -dll_append "$PK_BUILD/tests/libpkhalotest.so" -ksp_perf_node_size 4 -da_grid_x 64 -da_grid_y 64 -ksp_type cg -pc_type jacobi

# The same solve with and without placement: same iterations, same error (to rounding)
same_solve() { # NP ARGS...
  np=$1; shift
  a=$("$PK_ROOT/tests/mpirun.sh" "$np" "$PK_BUILD/examples/poisson27" -halo_view "$@") || return 1
  b=$("$PK_ROOT/tests/mpirun.sh" "$np" "$PK_BUILD/examples/poisson27" -halo_view -nodeaware "$@") || return 1
  echo "$a"; echo "$b"
  ia=$(echo "$a" | sed -n 's/.* \([0-9]*\) iterations, relative error \([^,]*\),.*/\1 \2/p')
  ib=$(echo "$b" | sed -n 's/.* \([0-9]*\) iterations, relative error \([^,]*\),.*/\1 \2/p')
  # shellcheck disable=SC2086
  set -- $ia $ib
  [ $# = 4 ] || return 1
  awk -v i1="$1" -v e1="$2" -v i2="$3" -v e2="$4" 'BEGIN { d = (e2 - e1) / e1; if (d < 0) d = -d;
    ok = i1 == i2 && d < 1e-6; printf "iterations %d and %d, error %g and %g: %s\n", i1, i2, e1, e2, ok ? "same" : "DIFFERENT"; exit !ok }'
}
t_grep place-same-solve-poisson27 'same$' same_solve 4 -ksp_perf_node_size 2 -rows_per_rank 1000 -ksp_type pipecg -pc_type jacobi
t_grep place-same-solve-laplace2d 'same$' same_solve 16 -ksp_perf_node_size 4 -problem laplace2d -n 64 -ksp_type pcg -pc_type jacobi
t_grep poisson27-nodeaware-help 'nodeaware' "$PK_BUILD/examples/poisson27" -help
# DMDACreateNodeAware with -da_node_aware_topology on this one machine: -help lists the options; a malformed file is
# an error naming its line on every rank; this host not in the file keeps the node-aware order with a note on
# standard error (the placed case runs on the emulated cluster below)
t_grep topoplace-lib-help '-da_node_aware_topology:? <.*: Slurm topology.conf' "$PK_BUILD/examples/poisson27" -nodeaware -help
t_grep topoplace-lib-view-help '-da_node_aware_view' "$PK_BUILD/examples/poisson27" -nodeaware -help
t_fail topoplace-lib-malformed "-da_node_aware_topology: Topology file '.*/bad-lib.conf': topology.conf line 2: Nodes= 'node\[05-': bracket group not closed" \
  sh -c 'printf "SwitchName=s0 Nodes=node[01-04]\nSwitchName=s1 Nodes=node[05-\n" >"$PLD/bad-lib.conf" && "$PK_ROOT/tests/mpirun.sh" 2 "$PK_BUILD/examples/poisson27" -problem laplace2d -n 32 -nodeaware -da_node_aware_topology "$PLD/bad-lib.conf"'
t_grep topoplace-lib-missing-node "^DMDACreateNodeAware: -da_node_aware_topology .*two.conf: 2 of the 2 nodes are not in the topology \(the first: '$(hostname)'\): node-aware order kept" \
  "$PK_ROOT/tests/mpirun.sh" 4 "$PK_BUILD/examples/poisson27" -problem laplace2d -n 32 -nodeaware -ksp_perf_node_size 2 -da_node_aware_topology "$PLD/two.conf"

# The switch tree from Slurm (--topology slurm; by default inside a job): `scontrol show topology` run from PATH only
# where it and its directory are root's or ours and no one else may write them. A stand-in scontrol (Slurm 22.05's
# output for the emulated cluster's tree) in a directory of the test's own; the real one runs in 45-slurm.
place_slurm() { # place_slurm MODE [args]: MODE tree, none (no tree), fail (exit 1), open (a group-writable directory)
  local mode=$1 d rc
  shift
  d=$(mktemp -d "$PLD/scontrol.XXXXXX") || return 1
  chmod 755 "$d"
  case $mode in
    tree) printf '#!/bin/sh\n[ "$1 $2" = "show topology" ] || exit 3\nprintf "SwitchName=leaf0 Level=0 LinkSpeed=1 Nodes=pknode[0-1]\\nSwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=pknode[2-3]\\nSwitchName=spine Level=1 LinkSpeed=1 Nodes=pknode[0-3] Switches=leaf[0-1]\\n"\n' >"$d/scontrol" ;;
    none) printf '#!/bin/sh\necho "No topology information available"\n' >"$d/scontrol" ;;
    fail) printf '#!/bin/sh\necho "slurm_load_topo error: Unable to contact slurm controller"\nexit 1\n' >"$d/scontrol" ;;
    open) printf '#!/bin/sh\necho "SwitchName=s Nodes=pknode[0-3]"\n' >"$d/scontrol"; chmod 775 "$d" ;;
  esac
  chmod 755 "$d/scontrol"
  PATH="$d:/usr/bin:/bin" "$PL" --nodes 4 --ppn 2 --grid 64x64 --rankfile "$d/rf" "$@" 2>&1
  rc=$?
  [ -f "$d/rf" ] && { echo "rankfile:"; cat "$d/rf"; }
  rm -rf "$d"
  return $rc
}
export -f place_slurm
t_grep place-slurm-topology 'topology from Slurm \(scontrol show topology\): 4 hosts, leaf switches holding them: 2' place_slurm tree --topology slurm
t_grep place-slurm-job-default 'hosts from the Slurm job \(SLURM_JOB_NODELIST=n\[1-4\]\).* rankfile: n1 n2 n1 n2 n3 n4 n3 n4 $' env SLURM_JOB_ID=7 SLURM_JOB_NODELIST='n[1-4]' bash -c 'place_slurm tree --format slurm | tr "\n" " "'
t_grep place-slurm-job-tree 'topology from Slurm \(scontrol show topology\)' env SLURM_JOB_ID=7 SLURM_JOB_NODELIST='pknode[0-3]' bash -c 'place_slurm tree'
t_grep place-slurm-job-no-tree 'inside a Slurm job, but no switch tree from Slurm: .*Slurm has no switch tree: scontrol show topology printed no SwitchName= line \(it printed .No topology information available.\) \(the node-aware order is kept\)' env SLURM_JOB_ID=7 bash -c 'place_slurm none'
t_fail place-slurm-no-tree 'Slurm has no switch tree: scontrol show topology printed no SwitchName= line' place_slurm none --topology slurm
t_fail place-slurm-fails '--topology slurm: .*/scontrol show topology failed \(exit status 1\): slurm_load_topo error: Unable to contact slurm controller' place_slurm fail --topology slurm
t_fail place-slurm-untrusted '--topology slurm: .*/scontrol is not owned by root or you, or others may write it or its directory: not run' place_slurm open --topology slurm
t_fail place-slurm-missing '--topology slurm: scontrol is not on PATH' env PATH=/nonexistent "$PK_BUILD/bin/pipekrylov-place" --nodes 4 --ppn 2 --grid 64x64 --rankfile "$PLD/never.rf" --topology slurm
t_grep place-slurm-job-count 'the job has 3 node\(s\) \(SLURM_JOB_NODELIST=a\[1-3\]\) and --nodes says 4: give --hosts' env SLURM_JOB_ID=7 SLURM_JOB_NODELIST='a[1-3]' bash -c 'place_slurm tree; true'
