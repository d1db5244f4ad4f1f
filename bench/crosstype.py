#!/usr/bin/python3
"""Why one type's report mispredicts another's time: bench/crosstype.py DIR [SETUP]

Reads a bench/accuracy run directory (files SETUP-ROWS-PC-TYPE-rR.csv, each -ksp_perfmodel_view ::ascii_csv of a run
that solved twice; the last report is used) and prints, per case and type, medians over the rounds of what was
measured per iteration (KSPSolve, the activities: SpMV, PC, vector work, halo wait, reduction wait, the overlapped
work, MPI_Test calls) beside the self model's terms per iteration, then the cross-prediction errors. A what-if takes
the measured solver's SpMV, PC and per-stream vector times for the other type: where the per-iteration activities of
two types differ, that is where the what-if goes wrong.
"""
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy import last_report, num  # noqa: E402


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else float("nan")


def main():
    d = sys.argv[1]
    want = sys.argv[2] if len(sys.argv) > 2 else None
    pat = re.compile(r"(?P<setup>[^-]+)-(?P<rows>\d+)-(?P<pc>[a-z]+)-(?P<typ>[a-z0-9_]+)-r(?P<rep>\d+)\.csv$")
    runs = {}
    for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
        m = pat.search(os.path.basename(path))
        if not m or (want and m["setup"] != want):
            continue
        r = last_report(path)
        if r and num(r, "measured", "ksp_solve") is not None:
            runs[(m["setup"], int(m["rows"]), m["pc"], m["typ"], int(m["rep"]))] = r
    cases = sorted({k[:3] for k in runs})
    types = [t for t in ["pcg", "sapcg", "nbpcg", "pipecg", "pipe2cg", "cg"] if any(k[3] == t for k in runs)]
    acts = ["spmv", "pc", "vec", "halo", "reduce", "overlap"]
    terms = ["spmv", "pc", "vec", "halo.postal", "allr.comm", "sync", "overlap", "init"]
    for setup, rows, pc in cases:
        print(f"\n### {setup}, {rows} rows per rank, {pc}: per iteration, microseconds (medians over rounds)\n")
        print("| type | its | KSPSolve | " + " | ".join("work." + a for a in acts) + " | tests per reduction | early | "
              + " | ".join("model." + t for t in terms) + " | model total | gap |")
        print("| --- |" + " ---: |" * (2 + len(acts) + 2 + len(terms) + 2))
        for t in types:
            rs = [r for k, r in runs.items() if k[:4] == (setup, rows, pc, t)]
            if not rs:
                continue
            its = med([num(r, "run", "iterations") for r in rs])
            per = lambda *k: med([num(r, *k) / num(r, "run", "iterations") * 1e6 for r in rs if num(r, *k) is not None])
            nb = med([num(r, "measured", "reductions.nonblocking") for r in rs])
            early = med([num(r, "measured", "reductions.early") for r in rs])
            tests = med([num(r, "measured", "tests") for r in rs])
            cells = [f"{its:.0f}", f"{per('measured', 'ksp_solve'):.1f}"]
            cells += [f"{per('measured', 'work.' + a):.1f}" for a in acts]
            cells += [f"{tests / nb:.1f}" if nb and nb == nb and tests == tests else "-", f"{early:.0f}/{nb:.0f}" if nb == nb else "-"]
            cells += [f"{per('analytic', x):.1f}" for x in terms]
            cells += [f"{per('analytic', 'total'):.1f}", f"{med([num(r, 'analytic', 'gap') for r in rs]):+.1f}%"]
            print(f"| {t} | " + " | ".join(cells) + " |")
        print("\ncross predictions (row: the report of A; column: B measured; median signed error over rounds):\n")
        print("| A \\ B | " + " | ".join(types) + " |")
        print("| --- |" + " ---: |" * len(types))
        for a in types:
            cells = []
            for b in types:
                errs = []
                for rep in {k[4] for k in runs}:
                    ra, rb = runs.get((setup, rows, pc, a, rep)), runs.get((setup, rows, pc, b, rep))
                    if a == b or not ra or not rb:
                        continue
                    p, m = num(ra, "whatif.solver", b), num(rb, "measured", "ksp_solve")
                    if p is not None and m:
                        errs.append(100 * (p - m) / m)
                cells.append("-" if a == b else (f"{med(errs):+.0f}%" if errs else "n/a"))
            print(f"| {a} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
