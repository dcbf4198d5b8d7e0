#!/usr/bin/python3
"""The Dantzig-Wolfe (per-server pattern) LP bound of the gang knapsacks
written by scripts/gangbench: a measurement for the gang oracle's next
node bound (issue 29), not used by msched.

    go run ./scripts/gangbench -out /tmp/gangbench -modes exact
    /usr/bin/python3 scripts/gang_dw_bound.py /tmp/gangbench/medium-*.json

Every feasible set of channels of one server (each component at most
once, the server's capacities under bipartite's rule) is a column; the LP

    max  sum_p value(p) lambda_p
    s.t. sum_{p on r} lambda_p <= 1                      each server one pattern
         sum_{p holding c} lambda_p <= y_l              component c of job l
         sum_p |p ∩ Q_l| lambda_p >= m_l y_l            a served job's minimum
         lambda >= 0, 0 <= y <= 1

is the Lagrangian-decomposition bound (the assignment relaxed, one
integer knapsack per server): at least as strong as the LP relaxation,
which is the oracle's Lagrangian bound. By default every pattern is
enumerated: only for instances whose servers have few (the medium ones:
163-316 columns in all; a DLRM slot has far too many). With --colgen the
columns are generated instead (for DLRM slots written by gangbench -only
dlrm-slot-T): the LP over the columns so far gives duals, each server's
pattern of the largest reduced value is a knapsack solved exactly by
scipy's milp, and the rounds stop when none has a positive reduced
value; every round prints the LP's value and the Lagrangian bound (the LP
plus each server's best reduced value), both converging to the bound.
Needs scipy (apt-get install python3-scipy).

    /usr/bin/python3 scripts/gang_dw_bound.py --colgen /tmp/gangbench/dlrm-slot-431.json
"""
import json
import os
import sys

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, linprog, milp
from scipy.sparse import lil_matrix

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gang_highs  # noqa: E402


def patterns(inst, demand, K, cap, tol, cs):
    """Every feasible set of the channels cs of one server."""
    lim = cap * (1 + tol)
    out = []

    def rec(k, load, chosen, comps):
        out.append(list(chosen))
        for j in range(k, len(cs)):
            i = cs[j]
            c = inst["comp"][i]
            if c in comps:
                continue
            nl = load + np.array(demand[c])
            if np.all(nl <= lim):
                chosen.append(i)
                comps.add(c)
                rec(j + 1, nl, chosen, comps)
                chosen.pop()
                comps.discard(c)

    rec(0, np.zeros(K), [], set())
    return out


def bound(path, colgen=False, rounds=1000):
    inst = json.load(open(path))
    K, cap, tol, demand, job_of, mins, chans = gang_highs.parse(inst)
    by_srv = {}
    for i in chans:
        by_srv.setdefault(inst["server"][i], []).append(i)
    cols = []  # (server, channels)
    if not colgen:
        for r, cs in by_srv.items():
            cols += [(r, p) for p in patterns(inst, demand, K, cap[r * K:(r + 1) * K], tol, cs)]
    jobs = sorted({job_of[inst["comp"][i]] for i in chans})
    comps = sorted({inst["comp"][i] for i in chans})
    srvs = sorted(by_srv)
    si = {r: t for t, r in enumerate(srvs)}
    ci = {c: len(srvs) + t for t, c in enumerate(comps)}
    ji = {l: len(srvs) + len(comps) + t for t, l in enumerate(jobs)}
    nrow = len(srvs) + len(comps) + len(jobs)

    def master():
        nv = len(cols) + len(jobs)
        yi = {l: len(cols) + t for t, l in enumerate(jobs)}
        A, b, obj = lil_matrix((nrow, nv)), np.zeros(nrow), np.zeros(nv)
        for r in srvs:
            b[si[r]] = 1
        for p, (r, ch) in enumerate(cols):
            A[si[r], p] = 1
            obj[p] = -sum(inst["value"][i] for i in ch)
            for i in ch:
                c = inst["comp"][i]
                A[ci[c], p] += 1          # sum lambda - y_l <= 0
                A[ji[job_of[c]], p] -= 1  # m_l y_l - sum |p ∩ Q_l| lambda <= 0
        for c in comps:
            A[ci[c], yi[job_of[c]]] = -1
        for l in jobs:
            A[ji[l], yi[l]] = mins[l]
        res = linprog(obj, A_ub=A.tocsr(), b_ub=b, bounds=[(0, None)] * len(cols) + [(0, 1)] * len(jobs), method="highs")
        return -res.fun, -res.ineqlin.marginals  # duals of the max problem, >= 0

    if not colgen:
        return len(cols), master()[0]
    for it in range(rounds):
        z, u = master()
        lag, added = z, 0
        for r in srvs:
            # a channel's price: its value less its component's dual plus
            # its job's; the best pattern is a knapsack over the positive
            ks = [i for i in by_srv[r] if inst["value"][i] - u[ci[inst["comp"][i]]] + u[ji[job_of[inst["comp"][i]]]] > 1e-12]
            if not ks:
                continue
            price = np.array([inst["value"][i] - u[ci[inst["comp"][i]]] + u[ji[job_of[inst["comp"][i]]]] for i in ks])
            A = np.array([[demand[inst["comp"][i]][k] for i in ks] for k in range(K)])
            kp = milp(c=-price, constraints=[LinearConstraint(A, -np.inf, cap[r * K:(r + 1) * K] * (1 + tol))],
                      integrality=np.ones(len(ks)), bounds=Bounds(0, 1), options={"mip_rel_gap": 1e-9})
            red = -kp.fun - u[si[r]]
            if red > 1e-9:
                cols.append((r, [ks[t] for t in range(len(ks)) if kp.x[t] > 0.5]))
                added += 1
                lag += red
        print("  round %d: LP %.5f, Lagrangian bound %.5f, %d columns" % (it, z, lag, len(cols)), flush=True)
        if added == 0:
            return len(cols), z
    return len(cols), float("nan")


if __name__ == "__main__":
    colgen = "--colgen" in sys.argv[1:]
    for p in sys.argv[1:]:
        if p == "--colgen":
            continue
        n, v = bound(p, colgen)
        print("%s: %d columns, Dantzig-Wolfe bound %.4f" % (p, n, v))
