#!/usr/bin/python3
"""bench/smpi/platform.py NAME NODES PPN DIR: a SimGrid platform for the simulated studies (bench/smpi/run).

Writes DIR/NAME-NODES.xml (the platform), DIR/NAME-NODES-PPN.hosts (one line per rank, PPN ranks per node, in
node order) and prints the smpirun options the platform needs (the protocol factors), one per line.

  fattree     a two-level fat tree of 16-port switches: 100 Gb/s host links, 0.5 us per host link, 0.1 us per
              switch hop, one MPI protocol (no per-size factors): a generic modern cluster
  bluewaters  a 3-D torus (Cray Gemini, paper 000 section 5): the postal parameters of Table 1 (Blue Waters, per
              protocol: short up to 1 KiB, eager up to 8 KiB, rendezvous above; off and on node) and the hop
              latency of Table 2 (0.108 us, the mean of the X, Y and Z dimensions)
  pizdaint    a dragonfly (Cray Aries): Table 1's Piz Daint parameters and Table 2's dynamic-routing hop latencies
              (black 0.341 us within a chassis, green 0.761 us between chassis, blue 3.113 us between groups)

The platform is a graph written out (routing "Floyd"): node k is host nodek with PPN cores, its own link to its
router (up and down the same link) and a loopback link for its on-node messages; routers joined as the topology
says, each router-to-router link one hop. The paper's postal parameters map onto SimGrid's flow model so: a
message between two nodes of one router crosses two host links, whose latencies sum to the short protocol's
off-node alpha and whose bandwidth is its 1/beta; every further hop adds the topology's hop latency; the eager and
rendezvous segments get Table 1's alpha and beta through smpi/lat-factor and smpi/bw-factor (piecewise by size;
SimGrid applies a factor to the whole route, so their hops are scaled by it too). On-node messages cross the
loopback link, set to the short protocol's on-node alpha and the eager protocol's on-node rate (the factors apply to
it too: SimGrid has one set), so on-node short and rendezvous messages get other rates than Table 1's
(docs/benchmarks.md says by how much, with what the simulated calibration measures).
"""
import math
import os
import sys

# paper 000, Table 1: alpha (s), beta (s/byte), off and on node, per protocol
TABLE1 = {
    "bluewaters": {"off": {"short": (2.2467e-6, 0.3451e-9), "eager": (7.1826e-6, 0.5092e-9), "rdvz": (8.9720e-6, 0.1498e-9)},
                   "on": {"short": (1.1284e-6, 0.8154e-9), "eager": (2.3950e-6, 0.0489e-9), "rdvz": (2.1162e-6, 0.0954e-9)}},
    "pizdaint": {"off": {"short": (1.7416e-6, 0.0041e-9), "eager": (4.3080e-6, 0.2224e-9), "rdvz": (5.9433e-6, 0.1083e-9)},
                 "on": {"short": (0.51055e-6, 0.22926e-9), "eager": (0.97865e-6, 0.03879e-9), "rdvz": (0.85828e-6, 0.05603e-9)}},
}
SHORT, EAGER = 1024, 8192  # the paper's protocol limits (section 4: 1k and 8k bytes)


def fmt_bw(bps):
    return "%.6gBps" % bps


def fmt_lat(s):
    return "%.6gs" % s


# paper 000, section 5.5: the largest off-node rate of a node (max-rate model's R_N), bytes/s
RN = {"bluewaters": 9.03e9, "pizdaint": 11.77e9}


def factors(name):
    """smpi/lat-factor and smpi/bw-factor per protocol segment: a message's latency is the short protocol's times
    alpha_p / alpha_short, its rate 1/beta_p (the link, at R_N, is what the node's messages share: the max-rate
    model of section 5.5)"""
    off = TABLE1[name]["off"]
    a0 = off["short"][0]
    lat = "0:1;%d:%.6g;%d:%.6g" % (SHORT + 1, off["eager"][0] / a0, EAGER + 1, off["rdvz"][0] / a0)
    rate = lambda p: min(1.0, 1 / off[p][1] / RN[name])  # a factor above 1 would exceed R_N: the link caps it
    bw = "0:%.6g;%d:%.6g;%d:%.6g" % (rate("short"), SHORT + 1, rate("eager"), EAGER + 1, rate("rdvz"))
    return lat, bw


def params(name):
    """host link (lat, bw), loopback (lat, bw), hop latency by link kind"""
    if name == "fattree":
        return (0.5e-6, 12.5e9), (0.3e-6, 20e9), {"hop": 0.1e-6}
    t = TABLE1[name]
    a0 = t["off"]["short"][0]
    ao = t["on"]["short"][0]
    # the loopback's bandwidth is divided by the eager segment's factor, which SimGrid applies to it too: on-node halo
    # messages of a few KiB then have Table 1's on-node eager rate (short and rendezvous ones a larger one)
    be = t["on"]["eager"][1]
    fe = min(1.0, 1 / t["off"]["eager"][1] / RN[name])
    hops = {"hop": 0.108e-6} if name == "bluewaters" else {"black": 0.341e-6, "green": 0.761e-6, "blue": 3.113e-6}
    return (a0 / 2, RN[name]), (ao, 1 / be / fe), hops


def graph(name, nodes):
    """routers, router of each node, router-to-router links (a, b, kind)"""
    links = []
    if name == "fattree":  # leaves of 16 nodes, each joined to every spine (one spine per 4 leaves, at least 1)
        leaves = max(1, math.ceil(nodes / 16))
        spines = max(1, math.ceil(leaves / 4)) if leaves > 1 else 0
        routers = ["leaf%d" % i for i in range(leaves)] + ["spine%d" % i for i in range(spines)]
        at = ["leaf%d" % (k // 16) for k in range(nodes)]
        links = [("leaf%d" % i, "spine%d" % j, "hop") for i in range(leaves) for j in range(spines)]
        return routers, at, links
    if name == "bluewaters":  # a 3-D torus of routers (Gemini), 2 nodes per router
        nr = max(1, math.ceil(nodes / 2))
        d = [1, 1, 1]
        while d[0] * d[1] * d[2] < nr:
            d[d.index(min(d))] *= 2
        rid = lambda x, y, z: "r%d_%d_%d" % (x % d[0], y % d[1], z % d[2])
        routers = sorted({rid(x, y, z) for x in range(d[0]) for y in range(d[1]) for z in range(d[2])})
        coords = [(x, y, z) for z in range(d[2]) for y in range(d[1]) for x in range(d[0])]
        at = [rid(*coords[k // 2]) for k in range(nodes)]
        seen = set()
        for x, y, z in coords:
            for dx, dy, dz in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
                a, b = rid(x, y, z), rid(x + dx, y + dy, z + dz)
                if a != b and (b, a) not in seen and (a, b) not in seen:
                    seen.add((a, b))
                    links.append((a, b, "hop"))
        return routers, at, links
    # pizdaint (Aries dragonfly): 4 nodes per router, 4 routers per chassis (all-to-all: black), 2 chassis per group
    # (router i of each chassis joined: green), groups joined all-to-all (blue, between routers of matching index)
    groups = max(1, math.ceil(nodes / 32))
    rid = lambda g, c, r: "g%dc%dr%d" % (g, c, r)
    routers = [rid(g, c, r) for g in range(groups) for c in range(2) for r in range(4)]
    at = [rid(k // 32, (k // 16) % 2, (k // 4) % 4) for k in range(nodes)]
    for g in range(groups):
        for c in range(2):
            for r in range(4):
                for r2 in range(r + 1, 4):
                    links.append((rid(g, c, r), rid(g, c, r2), "black"))
        for r in range(4):
            links.append((rid(g, 0, r), rid(g, 1, r), "green"))
        for g2 in range(g + 1, groups):
            links.append((rid(g, (g2 % 2), g2 % 4), rid(g2, (g % 2), g % 4), "blue"))
    return routers, at, links


def platform_xml(name, nodes, ppn):
    (hl, hb), (ll, lb), hop = params(name)
    routers, at, links = graph(name, nodes)
    out = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">', '<platform version="4.1">',
           '  <zone id="world" routing="Floyd">']
    for k in range(nodes):
        out.append('    <host id="node%d" speed="1Gf" core="%d"/>' % (k, ppn))
        out.append('    <link id="node%d-link" bandwidth="%s" latency="%s"/>' % (k, fmt_bw(hb), fmt_lat(hl)))
        out.append('    <link id="node%d-loop" bandwidth="%s" latency="%s" sharing_policy="FATPIPE"/>' % (k, fmt_bw(lb), fmt_lat(ll)))
    for r in routers:
        out.append('    <router id="%s"/>' % r)
    for a, b, kind in links:
        out.append('    <link id="%s-%s" bandwidth="%s" latency="%s"/>' % (a, b, fmt_bw(hb), fmt_lat(hop[kind])))
    for k in range(nodes):
        out.append('    <route src="node%d" dst="%s"><link_ctn id="node%d-link"/></route>' % (k, at[k], k))
        out.append('    <route src="node%d" dst="node%d" symmetrical="NO"><link_ctn id="node%d-loop"/></route>' % (k, k, k))
    for a, b, kind in links:
        out.append('    <route src="%s" dst="%s"><link_ctn id="%s-%s"/></route>' % (a, b, a, b))
    out += ["  </zone>", "</platform>", ""]
    return "\n".join(out)


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("fattree", "bluewaters", "pizdaint"):
        sys.exit("usage: platform.py fattree|bluewaters|pizdaint NODES PPN DIR")
    name, nodes, ppn, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    if nodes < 1 or ppn < 1 or nodes > 4096 or ppn > 256:
        sys.exit("platform.py: NODES in 1..4096 and PPN in 1..256")
    xml = os.path.join(out, "%s-%d.xml" % (name, nodes))
    hosts = os.path.join(out, "%s-%d-%d.hosts" % (name, nodes, ppn))
    with open(xml + ".tmp", "w") as f:
        f.write(platform_xml(name, nodes, ppn))
    os.replace(xml + ".tmp", xml)
    with open(hosts + ".tmp", "w") as f:
        for n in range(nodes):
            for _ in range(ppn):
                f.write("node%d\n" % n)
    os.replace(hosts + ".tmp", hosts)
    print(xml)
    print(hosts)
    lat, bw = factors(name) if name != "fattree" else ("0:1", "0:1")
    print("--cfg=smpi/lat-factor:%s" % lat)
    print("--cfg=smpi/bw-factor:%s" % bw)
    print("--cfg=smpi/async-small-thresh:%d" % SHORT)
    print("--cfg=smpi/send-is-detached-thresh:%d" % EAGER)


if __name__ == "__main__":
    main()
