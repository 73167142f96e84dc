#!/usr/bin/env python3
"""Writes FILE (default sacct-q1.txt): a synthetic quarter (2026-01-05 to 2026-04-05) of a quant desk's GPU
accounting in `sacct --parsable2` form, deterministic (seeded). A 64-GPU cluster: the nightly
VaR batch (account var, 24:00-06:00) grows in March (quarter-end stress runs), EOD pricing at
18:00, training runs through the week, and backtests in bursts. Run: python3 make_sacct.py FILE"""
import datetime as dt
import heapq
import random
import sys

rng = random.Random(26)
t0 = dt.datetime(2026, 1, 5)
cap = 64
jobs = []  # (account, qos, submit, runtime_s, gpus)
for day in range(90):
    d = t0 + dt.timedelta(days=day)
    weekday = d.weekday() < 5
    if weekday:
        n_var = 24 if d.month == 3 else 12  # quarter-end: the stress grid doubles
        for i in range(n_var):
            jobs.append(("var", "var", d + dt.timedelta(hours=24, minutes=rng.randint(0, 20)), rng.randint(2400, 3600), 8))
        for i in range(6):
            jobs.append(("eod", "eod", d + dt.timedelta(hours=18, minutes=rng.randint(0, 10)), rng.randint(1200, 1800), 8))
    if day % 3 == 0:
        jobs.append(("training", "training", d + dt.timedelta(hours=rng.randint(8, 12)), rng.randint(8, 20) * 3600, 16))
    if day % 14 in (3, 4):  # backtest bursts: a pile of jobs every other week
        for i in range(30):
            jobs.append(("backtest", "spot", d + dt.timedelta(hours=20, minutes=rng.randint(0, 60)), rng.randint(1800, 5400), 8))

# A FIFO replay on `cap` GPUs gives start and end times (what the accounting records).
jobs.sort(key=lambda j: j[2])
running = []  # (end, gpus)
free = cap
clock = t0
rows = []
queue = list(jobs)
heap = []
pending = []
idx = 0
events = []
t = t0
order = 0
while queue or pending or heap:
    nxt_sub = queue[0][2] if queue else None
    nxt_end = heap[0][0] if heap else None
    if nxt_sub is not None and (nxt_end is None or nxt_sub <= nxt_end):
        t = nxt_sub
        pending.append(queue.pop(0))
    else:
        t, _, g = heapq.heappop(heap)
        free += g
    while pending and pending[0][4] <= free:
        a, q, sub, rt, g = pending.pop(0)
        free -= g
        end = t + dt.timedelta(seconds=rt)
        order += 1
        heapq.heappush(heap, (end, order, g))
        rows.append((a, q, sub, t, end, rt, g))

def ts(x):
    return x.strftime("%Y-%m-%dT%H:%M:%S")

def el(s):  # sacct's [D-]HH:MM:SS
    d, s = divmod(s, 86400)
    return ("%d-" % d if d else "") + "%02d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)

users = {"var": "riskbatch", "eod": "pricer", "training": "mlteam", "backtest": "quant1"}
with open(sys.argv[1] if len(sys.argv) > 1 else "sacct-q1.txt", "w") as f:
    f.write("JobID|Account|User|QOS|Partition|Submit|Start|End|Elapsed|Timelimit|State|NNodes|AllocTRES\n")
    for i, (a, q, sub, st, end, rt, g) in enumerate(sorted(rows, key=lambda r: (r[2], r[3])), start=1000):
        f.write(f"{i}|{a}|{users[a]}|{q}|gpu|{ts(sub)}|{ts(st)}|{ts(end)}|{el(rt)}|{el(rt * 2)}|COMPLETED|1|"
                f"billing={g},cpu={g},gres/gpu={g},node=1\n")
