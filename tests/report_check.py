#!/usr/bin/python3
"""Check a -ksp_perfmodel_view ::ascii_csv report: every section present, the analytic terms add up to the total,
the gap is (total - measured) / measured, predictions positive. Several reports (repeated solves) may follow each
other in the file; each is checked. Usage: report_check.py FILE [--type T] [--solves N]"""
import sys, csv, math

def reports(path):
    cur = None
    with open(path) as f:
        for row in csv.reader(f):
            if not row or len(row) < 5:
                continue
            if row[0] == "section":
                if cur is not None:
                    yield cur
                cur = []
                continue
            if cur is not None:
                cur.append(row)
    if cur is not None:
        yield cur

def check(rows, want_type):
    get = {}
    for sec, name, val, unit, status in (r[:5] for r in rows):
        get[(sec, name)] = (val, status)
    err = []
    t = get.get(("run", "type"), ("?",))[0]
    if want_type and t != want_type:
        err.append(f"type {t}, expected {want_type}")
    measured = float(get[("measured", "ksp_solve")][0])
    if not measured > 0:
        err.append("measured KSPSolve time is not positive")
    terms = [(n, float(v)) for (s, n), (v, st) in get.items() if s == "analytic" and n not in ("total", "gap")]
    if len(terms) < 15:
        err.append(f"only {len(terms)} analytic terms")
    total = float(get[("analytic", "total")][0])
    tsum = sum(v for _, v in terms)
    if not math.isclose(tsum, total, rel_tol=1e-9, abs_tol=1e-15):
        err.append(f"terms add up to {tsum:.9e}, total is {total:.9e}")
    gap = float(get[("analytic", "gap")][0])
    if not math.isclose(gap, 100 * (total - measured) / measured, rel_tol=1e-3, abs_tol=1e-3):
        err.append(f"gap {gap} is not (total - measured) / measured")
    if not any(s == "whatif.ranks" for (s, n) in get):
        err.append("no what-if for rank counts")
    for (s, n), (v, st) in get.items():
        if (s, n) == ("whatif.ranks", "refused"):  # no off-node parameters: refused, with the reason
            continue
        if s in ("whatif.solver", "whatif.ranks") and not float(v) > 0:
            err.append(f"{s} {n} predicts {v}")
    its = int(get[("run", "iterations")][0])
    if its >= 4 and not any(s == "stochastic" for (s, n) in get):
        err.append("no stochastic model")
    if ("stochastic", "ET") in get:
        for key in ("ET", "ETprime", "EThat", "ETprimehat", "cramer", "bertsimas"):
            if not float(get[("stochastic", key)][0]) > 0:
                err.append(f"stochastic {key} not positive")
    return t, measured, total, gap, err

def main():
    path = sys.argv[1]
    want_type = sys.argv[sys.argv.index("--type") + 1] if "--type" in sys.argv else None
    want_n = int(sys.argv[sys.argv.index("--solves") + 1]) if "--solves" in sys.argv else None
    n, bad = 0, 0
    for rows in reports(path):
        t, m, tot, gap, err = check(rows, want_type)
        n += 1
        print(f"report {n}: {t} measured {m:.4e} s, model {tot:.4e} s, gap {gap:+.1f}%: {'ok' if not err else '; '.join(err)}")
        bad += bool(err)
    if want_n is not None and n != want_n:
        print(f"{n} reports, expected {want_n}")
        bad += 1
    if n == 0:
        print("no report found")
        bad += 1
    sys.exit(1 if bad else 0)

main()
