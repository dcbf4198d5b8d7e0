#!/usr/bin/python3
"""Solve the gang knapsacks written by scripts/gangbench with HiGHS
(scipy.optimize.milp) and print the comparison with the msched gang oracle.

    go run ./scripts/gangbench -out /tmp/gangbench
    /usr/bin/python3 scripts/gang_highs.py /tmp/gangbench [--time-limit 120]

Every DLRM slot with an arrival, both at the same time limit L seconds:

    go run ./scripts/gangbench -out /tmp/sweep -sweep Ls
    /usr/bin/python3 scripts/gang_highs.py /tmp/sweep --sweep --time-limit L

Needs scipy >= 1.9 (Debian: apt-get install python3-scipy). For every
instance HiGHS solves the MILP

    max  sum_i v_i x_i
    s.t. sum_{i in c} x_i <= y_l           each component of job l at most once, only if l is served
         sum_{i in Q_l} x_i >= m_l y_l     a served job places at least m_l components
         sum_i a_{c(i),k} x_i <= c_{r,k}(1 + CapacityTol)   per (server, resource), bipartite's capacity rule
         x, y in {0, 1}

over the channels i of the arrived jobs that fit their server alone, twice:
with --time-limit (default 120 s) and mip_rel_gap 1e-9 (the optimum, or the
best placement and bound within the limit), and with the time limit set to
each msched mode's own time ("same time": the placement HiGHS has by then).
With equal time limits (gangbench -time L, this script --time-limit L, in
seconds) the one solve at L serves for both.
It prints one row per instance and msched mode: the time ratio
HiGHS/msched (HiGHS's time to its answer over msched's), the value ratio
msched/HiGHS, the certified gaps of both, and the value ratio against HiGHS
at msched's time. Results go to highs.json in the same folder.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix


def parse(inst):
    """The model of a gangbench instance: the resources K, the capacities
    (per server and resource), the capacity tolerance, every component's
    demand vector, its job, each job's minimum m_l (all components when 0)
    and the channels of the arrived jobs that fit their server alone."""
    m = inst["model"]
    K = m["k"]
    cap = np.array(m["capacity"], dtype=float)
    tol = inst["capacity_tol"]
    demand, job_of, mins = [], [], []
    for l, j in enumerate(m["jobs"]):
        d = j["demand"]
        q = len(d) // K
        for c in range(q):
            demand.append(d[c * K:(c + 1) * K])
            job_of.append(l)
        mins.append(j["min"] if j["min"] > 0 else q)
    arrived = inst["arrived"]
    chans = [i for i in range(len(inst["comp"]))
             if inst["fits"][i] and arrived[job_of[inst["comp"][i]]]]
    return K, cap, tol, demand, job_of, mins, chans


def build(inst, with_jobs=False):
    K, cap, tol, demand, job_of, mins, chans = parse(inst)
    jobs_on = sorted({job_of[inst["comp"][i]] for i in chans})
    ycol = {l: len(chans) + t for t, l in enumerate(jobs_on)}
    nvar = len(chans) + len(jobs_on)
    rows, cols, vals, lo, hi = [], [], [], [], []
    r = 0
    # per component: sum x - y_l <= 0
    by_comp = {}
    for col, i in enumerate(chans):
        by_comp.setdefault(inst["comp"][i], []).append(col)
    for c, cs in by_comp.items():
        for col in cs:
            rows.append(r); cols.append(col); vals.append(1.0)
        rows.append(r); cols.append(ycol[job_of[c]]); vals.append(-1.0)
        lo.append(-np.inf); hi.append(0.0); r += 1
    # per job: sum x - m_l y_l >= 0
    by_job = {}
    for col, i in enumerate(chans):
        by_job.setdefault(job_of[inst["comp"][i]], []).append(col)
    for l, cs in by_job.items():
        for col in cs:
            rows.append(r); cols.append(col); vals.append(1.0)
        rows.append(r); cols.append(ycol[l]); vals.append(-float(mins[l]))
        lo.append(0.0); hi.append(np.inf); r += 1
    # capacities
    by_srv = {}
    for col, i in enumerate(chans):
        by_srv.setdefault(inst["server"][i], []).append((col, inst["comp"][i]))
    for s, cs in by_srv.items():
        for k in range(K):
            any_ = False
            for col, c in cs:
                a = demand[c][k]
                if a != 0:
                    rows.append(r); cols.append(col); vals.append(a); any_ = True
            if any_:
                c0 = cap[s * K + k]
                lo.append(-np.inf); hi.append(c0 + tol * c0); r += 1
    A = coo_matrix((vals, (rows, cols)), shape=(r, nvar)).tocsr()
    obj = np.zeros(nvar)
    for col, i in enumerate(chans):
        obj[col] = -inst["value"][i]
    if with_jobs:
        # the job of every column (channels, then the y of each job)
        col_job = [job_of[inst["comp"][i]] for i in chans] + list(jobs_on)
        return obj, A, np.array(lo), np.array(hi), nvar, np.array(col_job)
    return obj, A, np.array(lo), np.array(hi), nvar


def solve(inst, limit):
    obj, A, lo, hi, nvar = build(inst)
    if nvar == 0:
        return {"value": 0.0, "bound": 0.0, "seconds": 0.0, "status": "empty"}
    opts = {"time_limit": max(limit, 1e-3), "mip_rel_gap": 1e-9, "disp": False}
    t0 = time.perf_counter()
    res = milp(c=obj, constraints=[LinearConstraint(A, lo, hi)], integrality=np.ones(nvar),
               bounds=Bounds(0, 1), options=opts)
    dt = time.perf_counter() - t0
    val = -res.fun if res.x is not None else float("nan")
    bound = -getattr(res, "mip_dual_bound", float("nan")) if getattr(res, "mip_dual_bound", None) is not None else float("nan")
    return {"value": val, "bound": bound, "seconds": dt, "status": res.message.split(".")[0][:40]}


def sweep(args):
    """Every DLRM slot of gangbench -sweep: the model built once from
    dlrm-all.json, each slot's absent apps fixed to 0 by their bounds, HiGHS
    at --time-limit against msched's result at its own (equal) limit."""
    inst = json.load(open(os.path.join(args.dir, "dlrm-all.json")))
    ms = json.load(open(os.path.join(args.dir, "sweep.json")))
    obj, A, lo, hi, nvar, col_job = build(inst, with_jobs=True)
    cons = [LinearConstraint(A, lo, hi)]
    integ = np.ones(nvar)
    rows = []
    prev = {}
    if args.reuse:
        # HiGHS's results of an earlier run on the same slots and limit
        for x in json.load(open(args.reuse)):
            prev[x["slot"]] = x
    for r in ms:
        if r["slot"] in prev:
            x = dict(prev[r["slot"]])
            x.update({"msched_s": r["seconds"], "msched_value": r["value"], "msched_bound": r["bound"], "msched_status": r["status"]})
            rows.append(x)
            continue
        arrived = np.zeros(len(inst["arrived"]), dtype=bool)
        arrived[r["arrived"]] = True
        ub = np.where(arrived[col_job], 1.0, 0.0)
        opts = {"time_limit": args.time_limit, "mip_rel_gap": 1e-9, "disp": False}
        t0 = time.perf_counter()
        res = milp(c=obj, constraints=cons, integrality=integ, bounds=Bounds(0, ub), options=opts)
        dt = time.perf_counter() - t0
        hv = -res.fun if res.x is not None else float("nan")
        hb = -res.mip_dual_bound if getattr(res, "mip_dual_bound", None) is not None else float("nan")
        proved = res.status == 0  # scipy: 0 = optimal
        rows.append({"slot": r["slot"], "apps": len(r["arrived"]), "components": r["components"],
                     "msched_s": r["seconds"], "msched_value": r["value"], "msched_bound": r["bound"], "msched_status": r["status"],
                     "highs_s": dt, "highs_value": hv, "highs_bound": hb, "highs_status": "Optimal" if proved else res.message.split(".")[0][:40]})
        sys.stdout.write("slot %4d apps %3d  msched %9.4f (%s, %.3f s)  HiGHS %9.4f (%.3f s)\n" % (
            r["slot"], len(r["arrived"]), r["value"], r["status"], r["seconds"], hv, dt))
        sys.stdout.flush()
    json.dump(rows, open(os.path.join(args.dir, "highs-sweep.json"), "w"), indent=1)
    tol = 1e-9
    n = len(rows)
    ge = [x for x in rows if not (x["highs_value"] == x["highs_value"]) or x["msched_value"] >= x["highs_value"] * (1 - tol) - tol]
    better = [x for x in rows if x["highs_value"] == x["highs_value"] and x["msched_value"] > x["highs_value"] * (1 + tol) + tol]
    worse = [x for x in rows if x not in ge]
    def hproved(x):  # "Optimization terminated successfully": scipy's message for an optimal solve
        return x["highs_status"] == "Optimal" or x["highs_status"].startswith("Optimization terminated successfully")
    both = [x for x in rows if x["msched_status"] == "Optimal" and hproved(x)]
    ratios = sorted(x["highs_s"] / max(x["msched_s"], 1e-9) for x in both)
    print()
    none = [x for x in rows if not (x["highs_value"] == x["highs_value"])]
    print("| slots | msched >= HiGHS | msched > HiGHS | HiGHS no placement | HiGHS > msched | msched proved | HiGHS proved | both proved: time HiGHS/msched min / median / max | msched s in all | HiGHS s in all |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("| %d | %d | %d | %d | %d | %d | %d | %s | %.1f | %.1f |" % (
        n, len(ge), len(better), len(none), len(worse),
        sum(x["msched_status"] == "Optimal" for x in rows), sum(hproved(x) for x in rows),
        ("%.2f / %.2f / %.2f" % (ratios[0], ratios[len(ratios) // 2], ratios[-1])) if ratios else "-",
        sum(x["msched_s"] for x in rows), sum(x["highs_s"] for x in rows)))
    for x in worse:
        print("HiGHS better: slot %d (%d apps): msched %.6f, HiGHS %.6f (%.4f %%)" % (
            x["slot"], x["apps"], x["msched_value"], x["highs_value"], 100 * (x["highs_value"] - x["msched_value"]) / x["highs_value"]))


def pct(a, b):
    return 100.0 * (a - b) / max(abs(b), 1e-12)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--runs", type=int, default=1, help="runs of the long solve (median time)")
    ap.add_argument("--only", default="")
    ap.add_argument("--sweep", action="store_true", help="compare every DLRM slot of gangbench -sweep (sweep.json) at --time-limit")
    ap.add_argument("--reuse", default="", help="with --sweep: take HiGHS's results from this highs-sweep.json of an earlier run (same slots and time limit) instead of solving again")
    args = ap.parse_args()
    if args.sweep:
        sweep(args)
        return
    ms = json.load(open(os.path.join(args.dir, "msched.json")))
    names = []
    for r in ms:
        if r["name"] not in names and (not args.only or r["name"] == args.only):
            names.append(r["name"])
    out = {}
    print("| instance | jobs/comps | msched mode | msched s | msched value | msched gap | HiGHS s | HiGHS value | HiGHS gap | time HiGHS/msched | value msched/HiGHS | HiGHS at msched's time | msched/HiGHS same time |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        inst = json.load(open(os.path.join(args.dir, name + ".json")))
        runs = [solve(inst, args.time_limit) for _ in range(max(1, args.runs))]
        runs.sort(key=lambda x: x["seconds"])
        h = runs[len(runs) // 2]
        out[name] = {"long": h, "same_time": {}}
        for r in [r for r in ms if r["name"] == name]:
            if r.get("time_limit", 0) > 0 and abs(r["time_limit"] - args.time_limit) < 1e-9:
                same = h  # equal time limits (gangbench -time): the long solve is the same-time one
            else:
                same = solve(inst, r["seconds"])
            out[name]["same_time"][r["mode"]] = same
            hgap = pct(h["bound"], h["value"]) if h["bound"] == h["bound"] else float("nan")
            print("| %s | %d/%d | %s | %.4f | %.4f | %.3f%% | %.3f | %.4f | %.3f%% | %.2f | %.4f | %.4f | %s |" % (
                name, r["jobs"], r["components"], r["mode"], r["seconds"], r["value"],
                pct(r["bound"], r["value"]), h["seconds"], h["value"], hgap,
                h["seconds"] / max(r["seconds"], 1e-9), r["value"] / max(h["value"], 1e-12),
                same["value"], ("%.4f" % (r["value"] / same["value"])) if same["value"] == same["value"] and same["value"] > 0 else "no placement"))
            sys.stdout.flush()
    json.dump(out, open(os.path.join(args.dir, "highs.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
