#!/usr/bin/env python3
"""Compares floorsim's slurm model with a recorded run of a real slurmctld 22.05.

  compare.py FLOORSIM WORKLOAD.tsv RECORDED.tsv [--out DIR] [--tolerance-s 2]

RECORDED.tsv was written by tests/oracle/slurm22.sh on this workload; RECORDED.tsv.slurm.conf
is the slurm.conf it ran with, which floorsim reads too. The criteria are issue 3's: the same
start order, the same nodes, start times within the tolerance, and the same planned start
(squeue --start's last estimate) for jobs that had one, within the tolerance plus the backfill
resolution's rounding. Prints a table; exits 1 on any difference, 2 on bad input.
"""
import csv, json, os, subprocess, sys, tempfile


def die(msg):
    print(f"compare.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read_tsv(path, header):
    rows = []
    try:
        with open(path) as f:
            for ln, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = line.split("\t") if header else line.split()
                if header and parts[0] == "id":
                    continue
                rows.append((ln, parts))
    except OSError as e:
        die(f"{path}: {e.strerror}; expected a readable file")
    return rows


def expand(hl):
    """gpu[001-003,005],gpu007 -> list of names (the subset slurm prints)."""
    out, i = [], 0
    while i < len(hl):
        j = i
        while j < len(hl) and hl[j] not in ",[":
            j += 1
        prefix = hl[i:j]
        if j < len(hl) and hl[j] == "[":
            k = hl.index("]", j)
            for r in hl[j + 1:k].split(","):
                a, _, b = r.partition("-")
                b = b or a
                for n in range(int(a), int(b) + 1):
                    out.append(f"{prefix}{n:0{len(a)}d}")
            i = k + 2
        else:
            out.append(prefix)
            i = j + 1
    return sorted(out)


def main():
    args = sys.argv[1:]
    out_dir, tol = None, 2.0
    if "--out" in args:
        k = args.index("--out"); out_dir = args[k + 1]; del args[k:k + 2]
    if "--tolerance-s" in args:
        k = args.index("--tolerance-s"); tol = float(args[k + 1]); del args[k:k + 2]
    if len(args) != 3:
        die("usage: compare.py FLOORSIM WORKLOAD.tsv RECORDED.tsv [--out DIR] [--tolerance-s S]")
    floorsim, wl_path, rec_path = args
    conf = rec_path + ".slurm.conf"
    if not os.path.exists(conf):
        die(f"{conf}: missing; expected the slurm.conf slurm22.sh saved beside the recording")
    nodes = gpn = None
    with open(conf) as f:
        for line in f:
            if line.startswith("NodeName="):
                for kv in line.split():
                    if kv.startswith("Gres=gpu:"):
                        gpn = int(kv.split(":")[-1])
                names = expand(line.split()[0].split("=", 1)[1])
                nodes = len(names)
    if not nodes or not gpn:
        die(f"{conf}: no NodeName line with Gres=gpu:N; expected the oracle's slurm.conf")
    jobs = []
    for ln, p in read_tsv(wl_path, header=False):
        if len(p) < 6:
            die(f"{wl_path}:{ln}: {len(p)} fields; expected id submit_s nodes gpus time_limit_min runtime_s")
        jid, sub, nn, g, lim, run = (int(float(x)) for x in p[:6])
        j = {"id": jid, "submit_s": sub, "runtime_s": run, "time_limit_s": lim * 60, "gpus": g,
             "user": "oracle", "account": "oracle"}
        extra = p[6:]  # sbatch flags the recorder passed on; -p PARTITION is the one modelled
        for k, flag in enumerate(extra):
            if flag == "-p" and k + 1 < len(extra):
                j["partition"] = extra[k + 1]
            elif flag.startswith("--partition="):
                j["partition"] = flag.split("=", 1)[1]
            elif flag.startswith("-") and flag not in ("-p",) and not (k > 0 and extra[k - 1] == "-p"):
                die(f"{wl_path}:{ln}: sbatch flag {flag} is not modelled by compare.py; expected only -p PARTITION")
        # nodes 0 is `sbatch -n 1`: one task, so one node (floorsim's nodes 0 would let it spread).
        j["nodes"] = nn if nn > 0 else 1
        j["cpus"] = j["nodes"]  # one task per node, one CPU per task (sbatch's default)
        jobs.append(j)
    rec = {}
    for ln, p in read_tsv(rec_path, header=True):
        if len(p) < 5:
            die(f"{rec_path}:{ln}: {len(p)} fields; expected id submit_s start_s end_s nodes [planned_start_s]")
        rec[int(p[0])] = {"submit": int(p[1]), "start": int(p[2]), "nodes": expand(p[4]),
                          "planned": int(p[5]) if len(p) > 5 and p[5] else None}
    # Submit times as the real controller recorded them (sbatch latency is under a second).
    for j in jobs:
        if j["id"] in rec:
            j["submit_s"] = rec[j["id"]]["submit"]
    scenario = {
        "name": "oracle-" + os.path.basename(wl_path).rsplit(".", 1)[0],
        "description": "A workload replayed on a real slurmctld 22.05 (tests/oracle/slurm22.sh), compared by tests/oracle/compare.py",
        "cluster": {"nodes": nodes, "gpus_per_node": gpn, "node_prefix": "gpu"},
        "workload": {"jobs": jobs},
        "scheduler": {"type": "slurm", "version": "22.05", "slurm_conf": os.path.abspath(conf)},
    }
    tmp = tempfile.mkdtemp(prefix="floorsim-oracle-cmp.")
    out_dir = out_dir or os.path.join(tmp, "out")
    sc_path = os.path.join(tmp, "scenario.json")
    with open(sc_path, "w") as f:
        json.dump(scenario, f, indent=1)
    r = subprocess.run([floorsim, "run", sc_path, "--out", out_dir], capture_output=True, text=True)
    if r.returncode != 0:
        die(f"floorsim run failed ({r.returncode}): {r.stderr.strip()}")
    sim = {}
    with open(os.path.join(out_dir, "jobs.csv")) as f:
        for row in csv.DictReader(f):
            sim[int(row["job_id"])] = {"start": float(row["start_s"]), "nodes": expand(row["node_list"]) if row["node_list"] else [],
                                       "planned": float(row["planned_start_s"]) if row["planned_start_s"] else None}
    bad = 0
    print(f"{'job':>4} {'real start':>10} {'sim start':>10} {'real nodes':>22} {'sim nodes':>22} {'real plan':>9} {'sim plan':>9}  verdict")
    for jid in sorted(rec):
        a, b = rec[jid], sim.get(jid)
        why = []
        if b is None:
            why.append("not in floorsim's jobs.csv")
        else:
            if abs(a["start"] - b["start"]) > tol:
                why.append("start")
            if a["nodes"] != b["nodes"]:
                why.append("nodes")
            # A plan is compared when the real one exists and the job did not start at once.
            if a["planned"] is not None and a["planned"] > a["submit"] + tol:
                if b["planned"] is None or abs(a["planned"] - b["planned"]) > tol:
                    why.append("planned")
        bad += bool(why)
        print(f"{jid:>4} {a['start']:>10} {b['start'] if b else '-':>10} {','.join(a['nodes']):>22} "
              f"{','.join(b['nodes']) if b else '-':>22} {a['planned'] if a['planned'] is not None else '':>9} "
              f"{(b['planned'] if b and b['planned'] is not None else ''):>9}  {'ok' if not why else 'DIFFERS: ' + ', '.join(why)}")
    # Start order: jobs sorted by real start must also be sorted by simulated start (ties in the
    # recording, at one-second resolution, may come in either order).
    order = sorted(rec, key=lambda j: (rec[j]["start"], j))
    for x, y in zip(order, order[1:]):
        if rec[x]["start"] < rec[y]["start"] - tol and sim.get(x, {}).get("start", 0) > sim.get(y, {}).get("start", 0):
            print(f"order differs: real starts {x} before {y}, floorsim after")
            bad += 1
    print(f"{len(rec)} jobs, {bad} differences (tolerance {tol:g} s)")
    sys.exit(1 if bad else 0)


main()
