#!/usr/bin/env python3
"""Flow sets for the SimGrid conformance cases: prints "src,dst,bytes,start_s" lines.

  gen_flows.py HOSTS PATTERN [ARG] [--sizes equal|varied] [--stagger]

PATTERN: perm SEED (a random derangement), shift K (i -> i+K mod HOSTS), alltoall, incast DST
(every other host -> DST, plus four flows across the tree). Sizes are whole bytes (SimGrid's
Comm::sendto takes an integer): equal = 1e9; varied = 1e9 * (0.5 + (7*i mod 11)/10). --stagger
starts flow i at (3*i mod 8) * 0.05 s. Deterministic (Python's random with a fixed seed).
"""
import random
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = [a for a in sys.argv[1:] if a.startswith("--")]
    hosts, pattern = int(args[0]), args[1]
    if pattern == "perm":
        rng = random.Random(int(args[2]))
        while True:
            dst = list(range(hosts))
            rng.shuffle(dst)
            if all(d != s for s, d in enumerate(dst)):
                break
        pairs = list(enumerate(dst))
    elif pattern == "shift":
        k = int(args[2])
        pairs = [(s, (s + k) % hosts) for s in range(hosts)]
    elif pattern == "alltoall":
        pairs = [(s, d) for s in range(hosts) for d in range(hosts) if s != d]
    elif pattern == "incast":
        t = int(args[2])
        pairs = [(s, t) for s in range(hosts) if s != t]
        n = hosts
        pairs += [(n // 4, n // 2 + 1), (n // 4 + 1, 3 * n // 4 + 1), (n // 2, 2), (3 * n // 4, n // 4 + 2)]
    else:
        sys.exit("unknown pattern " + pattern)
    varied = "--sizes=varied" in opts
    stagger = "--stagger" in opts
    print("src,dst,bytes,start_s")
    for i, (s, d) in enumerate(pairs):
        size = int(1e9 * (0.5 + (7 * i % 11) / 10)) if varied else 1000000000
        start = round((3 * i % 8) * 0.05, 6) if stagger else 0.0
        print(f"{s},{d},{size},{start!r}")


if __name__ == "__main__":
    main()
