# pipekrylov machine profile: the parameters of the analytic performance model.
# Use: -ksp_perfmodel_machine <this file>. Made by bin/pipekrylov-calibrate (mpiexec -n N bin/pipekrylov-calibrate -o file).
# Format: one 'key = value' per line, '#' starts a comment, SI units (s, bytes, bytes/s, 1/s);
# 'none' = not available (not measurable at calibration). A key left out keeps the embedded default.
# Measured on pknode0 at 2026-11-21 08:52:52 UTC: 4 ranks, 2 node(s) (MPI_COMM_TYPE_SHARED), 2 per node, 0.2-quantile of the repeats.
# Open MPI v4.1.4
# This profile: two emulated nodes on the 2-core development machine (bin/pipekrylov-cluster up 2 --rate 1gbit:
# network namespaces on a bridge, tbf 1 Gbit/s on each node's link, no added delay: the kernel has no netem), run as
#   bin/pipekrylov-cluster run 4 2 bin/pipekrylov-calibrate -quantile 0.2 -sweeps 3 -o <file>
# On-node = vader shared memory inside a namespace, off-node = TCP over the rate-limited veths. The machine was
# shared with other jobs (4 ranks on 2 cores, load 6 to 9): on-node values are slower than the embedded default's.
pipekrylov_machine_profile = 1

# Point-to-point between two ranks of one node: postal model T = alpha + beta * bytes per MPI protocol (000 section 5.1-5.2)
alpha_on_short = 4.643555495156499e-06       # s, on-node latency, short protocol
beta_on_short = 3.358541050280563e-10        # s/byte, on-node time per byte, short protocol
alpha_on_eager = 4.643555495156499e-06       # s, on-node latency, eager protocol
beta_on_eager = 3.1595076454141234e-10       # s/byte, on-node time per byte, eager protocol
alpha_on_rendezvous = 4.643555495156499e-06  # s, on-node latency, rendezvous protocol
beta_on_rendezvous = 4.709971048336874e-10   # s/byte, on-node time per byte, rendezvous protocol
eager_limit_on = 49152                       # bytes, on-node: largest message of the short protocol
rendezvous_limit_on = 196608                 # bytes, on-node: largest message of the eager protocol (larger: rendezvous)
Rb_on = 2123155301.2477803                   # bytes/s, on-node rate of one process pair (1/beta_on_rendezvous)
allreduce_alpha_on = 6.895676372269351e-06   # s, on-node allreduce: latency per recursive-doubling round
allreduce_beta_on = 1.365385941059124e-09    # s/byte, on-node allreduce: time per byte per round

# Point-to-point between nodes (none: no off-node pair at calibration)
alpha_off_short = 2.7448303907517592e-05     # s, off-node latency, short protocol
beta_off_short = 9.617416200436907e-10       # s/byte, off-node time per byte, short protocol
alpha_off_eager = 4.9306368271385486e-05     # s, off-node latency, eager protocol
beta_off_eager = 5.791110369457634e-09       # s/byte, off-node time per byte, eager protocol
alpha_off_rendezvous = 0.0007659188051633017 # s, off-node latency, rendezvous protocol
beta_off_rendezvous = 1.1851345195508633e-08 # s/byte, off-node time per byte, rendezvous protocol
eager_limit_off = 2048                       # bytes, off-node: largest message of the short protocol
rendezvous_limit_off = 49152                 # bytes, off-node: largest message of the eager protocol (larger: rendezvous)
Rb_off = 84378607.11195682                   # bytes/s, off-node rate of one process pair (1/beta_off_rendezvous)
allreduce_alpha_off = 3.0074118719278627e-05 # s, allreduce between nodes: latency per recursive-doubling round
allreduce_beta_off = 8.722258306867225e-09   # s/byte, allreduce between nodes: time per byte per round

# Network penalties: max-rate (Gropp, Olson, Samfass), queue search and contention (004), hops (000 section 5.6)
RN = 111609276.53634967                      # bytes/s, max-rate: off-node injection bandwidth of one node (all pairs at once)
gamma = 2.665896607460805e-09                # s, queue search: T_q = gamma n^2 for n messages posted out of order (004)
delta = 8.777002918954416e-10                # s/byte, contention: T_c = delta l, l = bytes crossing the busiest link (004)
hop_latency = 0                              # s, per extra network hop (0: topology unknown)

# Node-local compute
mem_bw = 2878223162.9241295                  # bytes/s, STREAM triad bandwidth of one rank while every rank runs it
spmv_per_nnz = 4.4897081208234195e-09        # s, AIJ MatMult time per stored nonzero (27-point stencil, all ranks at once)
flop_time = 2.2448540604117098e-09           # s, time per flop of a memory-bound sweep (SpMV: 2 flops per nonzero; AMG t_i)

# Noise: detours seen by fixed-work quanta on every core at once
noise_rate = 281.73071588614107              # 1/s, detours per second of one core (fixed-work quanta)
noise_mean = 0.00289799948888629             # s, mean length of a detour
noise_max = 0.2000586070000736               # s, longest detour seen

# The run that measured this profile
ppn = 2                                      # ranks, ranks per node at calibration
nodes = 2                                    # nodes, nodes at calibration
