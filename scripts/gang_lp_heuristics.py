#!/usr/bin/python3
"""LP-guided and server-neighbourhood improvement of a gang oracle
placement, with HiGHS as the exact sub-solver: a measurement for the gang
oracle's primal side on the large DLRM slots (issue 29), not used by
msched.

    go run ./scripts/gangbench -out /tmp/g431 -modes exact -runs 1 \\
        -time 10s -only dlrm-slot-431
    /usr/bin/python3 scripts/gang_lp_heuristics.py /tmp/g431 dlrm-slot-431 \\
        --servers 4 --steps 300

It reads the instance (DIR/NAME.json) and GangExact's placement
(DIR/msched.json), solves the LP relaxation of scripts/gang_highs.py's
MILP and reports:

- RENS: the MILP over the LP's fractional support (the variables integral
  in the LP fixed there);
- the MILP over the LP's support and the placement's channels;
- RINS: the MILP with the variables where the LP and the placement agree
  (within 0.01) fixed at the placement's values;

then runs the server neighbourhood from the placement: each step frees
every component on SERVERS random servers (and the unplaced components of
the served jobs that have a channel there), places them anew exactly (the
served jobs keep at least m_l components, the rest is fixed), and keeps
an improvement. Seeded (--seed), so a run repeats. Needs scipy
(apt-get install python3-scipy).
"""
import argparse
import json
import os
import random
import sys
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gang_highs  # noqa: E402


def load(folder, name):
    inst = json.load(open(os.path.join(folder, name + ".json")))
    runs = [x for x in json.load(open(os.path.join(folder, "msched.json")))
            if x["name"] == name]
    if not runs:
        sys.exit("%s: no msched run of %s" % (folder, name))
    place = {c: s for c, s in enumerate(runs[0]["placement"]) if s >= 0}
    return inst, place


def lp_guided(inst, place):
    K, _, _, demand, job_of, mins, chans = gang_highs.parse(inst)
    obj, A, lo, hi, nvar = gang_highs.build(inst)
    C = LinearConstraint(A, lo, hi)
    t = time.time()
    lp = milp(c=obj, constraints=[C], integrality=np.zeros(nvar),
              bounds=Bounds(0, 1))
    x = lp.x
    print("LP %.4f (%.2f s)" % (-lp.fun, time.time() - t))
    inc = np.zeros(nvar)
    for col, i in enumerate(chans):
        if place.get(inst["comp"][i]) == inst["server"][i]:
            inc[col] = 1
    jobs_on = sorted({job_of[inst["comp"][i]] for i in chans})
    served = {job_of[c] for c in place}
    for t_, l in enumerate(jobs_on):
        inc[len(chans) + t_] = 1 if l in served else 0
    print("placement %.4f" % (-obj @ inc))

    def sub(name, lb, ub):
        t = time.time()
        r = milp(c=obj, constraints=[C], integrality=np.ones(nvar),
                 bounds=Bounds(lb, ub), options={"time_limit": 60})
        v = "none" if r.x is None else "%.4f" % -r.fun
        print("%s: %d free variables, %s (%s, %.2f s)"
              % (name, int((ub - lb > 0.5).sum()), v, r.message.split(".")[0],
                 time.time() - t))

    sub("RENS", np.where(x > 1 - 1e-6, 1.0, 0.0), np.where(x < 1e-6, 0.0, 1.0))
    sub("LP support and placement", np.zeros(nvar),
        np.where((x > 1e-6) | (inc > 0.5), 1.0, 0.0))
    agree = np.abs(x - inc) < 0.01
    sub("RINS", np.where(agree, inc, 0.0), np.where(agree, inc, 1.0))


def servers(inst, place, k, steps, seed):
    K, cap, tol, demand, job_of, mins, chans = gang_highs.parse(inst)
    R = len(cap) // K
    val, by_comp = {}, {}
    for i in chans:
        c, s = inst["comp"][i], inst["server"][i]
        val[c, s] = inst["value"][i]
        by_comp.setdefault(c, []).append(s)
    pl = dict(place)

    def total(p):
        return sum(val[c, s] for c, s in p.items())

    print("server neighbourhood, %d servers a step, %d steps, from %.4f"
          % (k, steps, total(pl)))
    rng = random.Random(seed)
    served = {job_of[c] for c in pl}
    for step in range(steps):
        S = set(rng.sample(range(R), k))
        free = [c for c in by_comp if job_of[c] in served
                and (pl.get(c) in S or c not in pl)
                and any(s in S for s in by_comp[c])]
        fixed = {c: s for c, s in pl.items() if s not in S}
        var = [(c, s) for c in free for s in by_comp[c] if s in S]
        if not var:
            continue
        rows, lo, hi = [], [], []

        def row(cols, l, h):
            r = np.zeros(len(var))
            for j, a in cols:
                r[j] += a
            rows.append(r)
            lo.append(l)
            hi.append(h)

        for c in free:
            row([(j, 1) for j, (cc, _) in enumerate(var) if cc == c], 0, 1)
        for s in S:
            for kk in range(K):
                # the capacity rule of bipartite (gang_highs.build's rows)
                row([(j, demand[c][kk]) for j, (c, ss) in enumerate(var)
                     if ss == s], -np.inf,
                    cap[s * K + kk] * (1 + tol))
        for l in {job_of[c] for c in free}:
            have = sum(1 for c in fixed if job_of[c] == l)
            row([(j, 1) for j, (c, _) in enumerate(var) if job_of[c] == l],
                mins[l] - have, np.inf)
        r = milp(c=-np.array([val[v] for v in var]),
                 constraints=[LinearConstraint(np.array(rows), lo, hi)],
                 integrality=np.ones(len(var)), bounds=Bounds(0, 1))
        if r.x is None:
            continue
        if -r.fun + total(fixed) > total(pl) + 1e-9:
            pl = dict(fixed)
            for j, v in enumerate(var):
                if r.x[j] > 0.5:
                    pl[v[0]] = v[1]
            print("step %d: %.4f" % (step, total(pl)), flush=True)
    print("server neighbourhood: %.4f" % total(pl))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("name")
    ap.add_argument("--servers", type=int, default=4)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    inst, place = load(a.folder, a.name)
    lp_guided(inst, place)
    if a.steps > 0:
        servers(inst, place, a.servers, a.steps, a.seed)


if __name__ == "__main__":
    main()
