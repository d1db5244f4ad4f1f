#!/usr/bin/python3
"""The table of bench/smpi/noise from its directory: files P-TYPE.csv, each the -ksp_perfmodel_view ::ascii_csv
output of a run whose noisy solves report noise,slowdown_measured and noise,slowdown_predicted.
Usage: noise.py DIR"""
import glob, os, re, statistics, sys


def main():
    d = sys.argv[1]
    rows = []
    for path in glob.glob(os.path.join(d, "*.csv")):
        m = re.fullmatch(r"(\d+)-([a-z0-9_]+)\.csv", os.path.basename(path))
        if not m:
            continue
        meas, pred, ref, kind = [], [], [], ""
        with open(path) as f:
            for line in f:
                p = line.rstrip("\n").split(",")
                if len(p) < 3 or p[0] != "noise":
                    continue
                if p[1] == "slowdown_measured":
                    meas.append(float(p[2]))
                elif p[1] == "slowdown_predicted":
                    pred.append(float(p[2]))
                    kind = p[4] if len(p) > 4 else ""
                elif p[1] == "reference_per_iteration":
                    ref.append(float(p[2]))
        if meas and pred:
            rows.append((m[2], int(m[1]), meas, pred, ref, kind))
    if not rows:
        print(f"no noisy reports in {d}")
        return 1
    print("| type | ranks | noise-free us/iteration | noisy solves | measured slowdown, median (range) | predicted | model | error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for typ, P, meas, pred, ref, kind in sorted(rows):
        mm, pm = statistics.median(meas), statistics.median(pred)
        print(f"| {typ} | {P} | {1e6 * statistics.median(ref):.0f} | {len(meas)} | {mm:.3f} ({min(meas):.3f}-{max(meas):.3f}) |"
              f" {pm:.3f} | {kind} | {100 * (pm - mm) / mm:+.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
