#!/usr/bin/python3
"""The tables of bench/smpi/run: bench/smpi/analyze.py RUNS_DIR

RUNS_DIR/<platform>/<rows>-<ranks>-<type>.csv (the first round) and <rows>-<ranks>-<type>.r<k>.csv (round k) are
-ksp_perfmodel_view ::ascii_csv reports of simulated runs (a fixed iteration count, no norm); every figure is the
median over the rounds (the simulated compute is this machine's real compute, noise included). Per platform and size
it prints, in microseconds per iteration of simulated time:
the measured (simulated) KSPSolve of every type at every rank count with the fastest marked; the self model's gap;
the self model on the iterations alone (less set-up, finish, start-up and arrival); the what-if of the smallest run's
report for each larger count against the simulated time, also with the larger run's measured terms in place of the
smallest run's (what remains is the communication the model predicts); the ranking by the model (each type's own
report) against the simulated ranking, and what a wrong first choice costs; autocg's choice (the model's, before any
solve) against the fastest type simulated; then the summary against issue 26's targets.
"""
import glob
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from accuracy import last_report, num  # noqa: E402

ORDER = ["pcg", "sapcg", "nbpcg", "pipecg", "pipe2cg", "cg", "petsc_pipecg"]
# autocg's run is another type's solve (the one it chose): judged against the types, never one of them
AUTO = "autocg"


def med(v):
    return statistics.median(v) if v else float("nan")


def mnum(rs, *k):
    """The median over a case's rounds of one report value, or None where no round has it"""
    v = [x for x in (num(r, *k) for r in rs) if x is not None]
    return statistics.median(v) if v else None


def fmt(v, f="%.1f"):
    return f % v if v == v else "-"


def measured_terms(r):
    """The sum of the run's model terms that are its own measurements (status "measured": the SpMV, preconditioner
    and vector compute, the synchronization gap, the ranks' arrival, the progress calls), over the solve."""
    total = 0.0
    for k, v in r.items():
        if len(k) == 2 and k[0] == "analytic" and r.get((k[0], k[1], "status")) == "measured":
            x = num(r, *k)
            total += x if x is not None and math.isfinite(x) else 0
    return total


def gap_table(types, Ps, cell):
    """A table of a row per type and a column per rank count; cell(t, P) gives (gap in %, text) or None ("-").
    Returns the (P, |gap|) of the cells drawn."""
    print("| type | " + " | ".join(f"{P}" for P in Ps) + " |")
    print("| --- |" + " ---: |" * len(Ps))
    out = []
    for t in types:
        cells = []
        for P in Ps:
            c = cell(t, P)
            if c is not None:
                out.append((P, abs(c[0])))
            cells.append(c[1] if c is not None else "-")
        print(f"| {t} | " + " | ".join(cells) + " |")
    return out


def main():
    root = sys.argv[1]
    summary = []
    for pdir in sorted(d for d in glob.glob(os.path.join(root, "*")) if os.path.isdir(d)):
        plat = os.path.basename(pdir)
        runs = {}
        rounds = {}  # (rows, ranks, type) -> {round: report}
        for path in glob.glob(os.path.join(pdir, "*.csv")):
            m = re.match(r"(\d+)-(\d+)-([a-z0-9_]+?)(?:\.r(\d+))?\.csv$", os.path.basename(path))
            r = last_report(path) if m else None
            if r and num(r, "measured", "ksp_solve"):
                rounds.setdefault((int(m[1]), int(m[2]), m[3]), {})[int(m[4] or 1)] = r
        # every case's reports in round order (a list: the figures are medians over it)
        runs = {k: [v[i] for i in sorted(v)] for k, v in rounds.items()}
        for rows in sorted({k[0] for k in runs}):
            Ps = sorted({k[1] for k in runs if k[0] == rows})
            types = [t for t in ORDER if any(k[0] == rows and k[2] == t for k in runs)]
            autos = {k[1]: runs[k] for k in runs if k[0] == rows and k[2] == AUTO}
            it = lambda r: num(r, "run", "iterations") or 1
            # per iteration, us: the median over the rounds of each round's value
            per_it = lambda rs, f: med([f(r) / it(r) * 1e6 for r in rs if f(r) is not None])
            cases = [(P, t) for P in Ps for t in types if (rows, P, t) in runs]
            meas = {(P, t): per_it(runs[(rows, P, t)], lambda r: num(r, "measured", "ksp_solve")) for P, t in cases}
            model = {(P, t): per_it(runs[(rows, P, t)], lambda r: num(r, "analytic", "total")) for P, t in cases}
            comp = {(P, t): per_it(runs[(rows, P, t)], measured_terms) for P, t in cases}
            nround = max(len(v) for k, v in runs.items() if k[0] == rows)
            print(f"\n### {plat}, {rows} rows per rank: simulated KSPSolve per iteration (us, median of {nround}"
                  f" round{'s' if nround > 1 else ''}); * the fastest\n")
            print("| type | " + " | ".join(f"{P} ranks" for P in Ps) + " |")
            print("| --- |" + " ---: |" * len(Ps))
            for t in types:
                cells = []
                for P in Ps:
                    v = meas.get((P, t))
                    best = min((meas[(P, u)] for u in types if (P, u) in meas), default=None)
                    cells.append(fmt(v) + ("*" if v is not None and v == best else "") if v is not None else "-")
                print(f"| {t} | " + " | ".join(cells) + " |")
            print(f"\nself model gap (model - simulated) / simulated:\n")

            def self_gap(t, P):
                if (P, t) not in meas or (P, t) not in model:
                    return None
                g = 100 * (model[(P, t)] - meas[(P, t)]) / meas[(P, t)]
                return g, f"{g:+.1f}%"
            gaps = [g for _, g in gap_table(types, Ps, self_gap)]
            # the iterations alone: KSPSolve less its set-up and finish, against the model less its start-up and the
            # ranks' arrival. Under the simulator the set-up holds PETSc's scatter set-up, whose collectives SimGrid
            # runs with P^2 messages (pcg at 1024 ranks: 4.3 ms before the first iteration, 0.5 ms at 256)
            print(f"\nthe iterations alone, model against simulated (KSPSolve less set-up and finish; the model less its"
                  " start-up and the ranks' arrival):\n")

            def iterations_gap(t, P):
                rs = runs.get((rows, P, t), [])
                mi = med([(num(r, "measured", "ksp_solve") or 0) - (num(r, "measured", "setup") or 0) - (num(r, "measured", "finish") or 0) for r in rs])
                mo = med([(num(r, "analytic", "total") or 0) - (num(r, "analytic", "init") or 0) - (num(r, "analytic", "arrival") or 0) for r in rs])
                if not (mi > 0 and mo > 0):
                    return None
                g = 100 * (mo - mi) / mi
                return g, f"{g:+.1f}%"
            igaps = [g for _, g in gap_table(types, Ps, iterations_gap)]
            # what-if from the smallest count's report for the larger counts it predicts; with replace, the smallest
            # run's measured terms replaced by the larger run's
            P0 = Ps[0]

            def whatif_gap(t, P, replace=False):
                r0 = runs.get((rows, P0, t))
                p = per_it(r0, lambda r: num(r, "whatif.ranks", str(P))) if r0 else float("nan")
                if p != p or (P, t) not in meas or (replace and ((P0, t) not in comp or (P, t) not in comp)):
                    return None
                pi = p + (comp[(P, t)] - comp[(P0, t)] if replace else 0)
                g = 100 * (pi - meas[(P, t)]) / meas[(P, t)]
                extra = f"; {comp[(P0, t)]:.0f} -> {comp[(P, t)]:.0f}" if replace else ""
                return g, f"{pi:.1f} / {meas[(P, t)]:.1f} ({g:+.0f}%{extra})"
            print(f"\nwhat-if of the {P0}-rank report for larger counts (predicted / simulated, per iteration):\n")
            wi = gap_table(types, Ps[1:], whatif_gap)
            # the same what-if with the larger run's measured terms in place of the smallest run's: every simulated
            # rank computes on this machine's one memory, so the compute per rank and its spread over the ranks (the
            # synchronization gap) grow with the simulated count as a machine with a core and a cache per rank would
            # not show; what is left is what the model predicts, the communication's growth
            print(f"\nthe same what-if, the {P0}-rank run's measured terms (compute, synchronization gap, arrival,"
                  " progress calls) replaced by the larger run's (predicted / simulated, per iteration; the measured"
                  " terms per iteration at the smallest -> larger count):\n")
            wic = gap_table(types, Ps[1:], lambda t, P: whatif_gap(t, P, True))
            # ranking: each type's own model against the simulation
            print("\nranking at each count: simulated / by the model (each type's own report):\n")
            right = 0
            for P in Ps:
                have = [t for t in types if (P, t) in meas and (P, t) in model]
                sm = sorted(have, key=lambda t: meas[(P, t)])
                mo = sorted(have, key=lambda t: model[(P, t)])
                ok = sm[:1] == mo[:1]
                right += ok
                # what a wrong first choice costs: its simulated time over the fastest type's
                cost = f" (the model's first, {mo[0]}, {meas[(P, mo[0])] / meas[(P, sm[0])]:.3f}x the fastest)" if have and not ok else ""
                print(f"- {P} ranks: simulated {' < '.join(sm)}; model {' < '.join(mo)}: fastest {'right' if ok else 'WRONG'}{cost}")
            # autocg: the type the model chose before any solve; its own simulated solve against the fastest type's, and
            # the chosen type's own run against it (the choice apart from the run-to-run noise of one simulated solve)
            worst_auto = worst_own = float("nan")
            if autos:
                print("\nautocg (the model's choice before any solve) against the fastest of its candidates simulated:\n")
                for P in Ps:
                    rs = autos.get(P, [])
                    # its candidates (the report lists their predictions), as simulated
                    cands = {k[1] for r in rs for k in r if len(k) == 2 and k[0] == "choice.predicted_per_iteration"}
                    have = [t for t in types if (P, t) in meas and t in cands]
                    if not rs or not have:
                        continue
                    chosen = sorted({r.get(("choice", "chosen"), "?") for r in rs})
                    fast = min(have, key=lambda t: meas[(P, t)])
                    # paired by round: autocg's solve over the fastest type's in the same round, the median of the ratios
                    frs = runs[(rows, P, fast)]
                    ratio = med([num(a, "measured", "ksp_solve") / it(a) / (num(b, "measured", "ksp_solve") / it(b))
                                 for a, b in zip(rs, frs)])
                    own = "; ".join(f"{c}'s own runs {meas[(P, c)] / meas[(P, fast)]:.3f}x" for c in chosen if (P, c) in meas)
                    print(f"- {P} ranks: chose {', '.join(chosen)}; its solve {ratio:.3f}x the fastest ({fast}; median of"
                          f" {min(len(rs), len(frs))} paired round(s)){'; ' + own if own else ''}")
                    worst_auto = ratio if worst_auto != worst_auto else max(worst_auto, ratio)
                    # the choice apart from autocg's own run: the chosen types' runs (the worst where it chose several)
                    for c in chosen:
                        if (P, c) in meas:
                            o = meas[(P, c)] / meas[(P, fast)]
                            worst_own = o if worst_own != worst_own else max(worst_own, o)
            largest = [g for P, g in wi if P == Ps[-1]]
            largest_c = [g for P, g in wic if P == Ps[-1]]
            summary.append((plat, rows, med(gaps), max(gaps) if gaps else float("nan"), med(igaps), max(igaps) if igaps else float("nan"),
                            max(largest) if largest else float("nan"),
                            max(largest_c) if largest_c else float("nan"), right, len(Ps), worst_auto, worst_own))
    print("\n### summary (targets of issue 26: per-iteration model median <= 10%, largest <= 25%; what-if from the"
          " smallest count within 20% at the largest; the fastest type ranked first at every count; autocg within 5% of the"
          " fastest type)\n")
    print("| platform | rows/rank | self gap median | largest | iterations alone: median | largest"
          " | what-if at the largest count, worst type | the same, the larger run's measured terms | fastest right"
          " | autocg / fastest, worst | its choice's own runs / fastest, worst |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for plat, rows, m, x, im, ix, w, wc, right, n, wa, wo in summary:
        print(f"| {plat} | {rows} | {fmt(m)}% | {fmt(x)}% | {fmt(im)}% | {fmt(ix)}% | {fmt(w)}% | {fmt(wc)}% | {right} of {n}"
              f" | {fmt(wa, '%.3f')} | {fmt(wo, '%.3f')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
