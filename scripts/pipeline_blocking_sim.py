#!/usr/bin/env python3
"""Event simulation of one step of an interleaved 1F1B pipeline whose
point-to-point exchanges block (docs/model.md, "Not modelled in step time",
the MegaScale Megatron-LM baseline).

The op order on each stage is that of Megatron-LM 285068c8's interleaved
schedule (megatron/schedules.py, forward_backward_pipelining_with_interleaving):
warm-up of (p - s - 1) * 2 + (v - 1) * p chunk forwards, then one forward and
one backward per exchange, then the cool-down backwards; the chunk of the k-th
forward is (k mod p*v) // p (backward: v - 1 minus that). Each exchange is one
batch of sends and receives to the two neighbours (ring order, the last stage
sending chunk c < v-1 to the first), and the stage waits for all of it
(megatron/p2p_communication.py `_communicate`: batch_isend_irecv, wait, then
torch.cuda.synchronize()).

Two semantics for an exchange posted at time P that carries one transfer of
tau seconds per op:
  blocking:  every op, send or receive, ends at max(P, partner's post) + tau
             (a send completes only when its receiver has posted; MegaScale
             §3.2: send and receive 'implemented together ... can be blocked
             by the slower one');
  decoupled: a send never waits; a receive ends at the sender's post + tau
             (MegaScale's PP overlap, §3.2, Figure 4).

Usage: pipeline_blocking_sim.py [per-micro-batch stage seconds] [tau] [jitter]
Prints, for a few micro-batch counts m, the step minus m x the per-micro-batch
time (the bubble plus the exposed transfers) under both semantics.
"""
import random
import sys


def stage_calls(s, p, v, m):
    """The exchanges of stage s in order: (computes before it, ops)."""
    n = m * v
    first, last = s == 0, s == p - 1

    def chunk(k, fwd):
        c = (k % (p * v)) // p
        return c if fwd else v - 1 - c

    all_warmup = m == p
    warm = n if all_warmup else min((p - s - 1) * 2 + (v - 1) * p, n)
    rest = n - warm
    calls = [([], [] if first else [("recv", "prev")])]
    for k in range(warm):
        ops = []
        if not (last and chunk(k, True) == v - 1):
            ops.append(("send", "next"))
        if not (first and chunk(k + 1, True) == 0) and k != n - 1:
            ops.append(("recv", "prev"))
        if k == warm - 1 and not all_warmup and not last:
            ops.append(("recv", "next"))
        calls.append(([("F", k)], ops))
    for k in range(rest):
        fk, bk = k + warm, k
        ops = []
        if not (last and chunk(fk, True) == v - 1):
            ops.append(("send", "next"))
        if not (first and chunk(bk, False) == 0):
            ops.append(("send", "prev"))
        recv_prev = not (first and chunk(fk - (p - 1), True) == v - 1) and k != rest - 1
        recv_next = not (last and chunk(bk - (p - 1), False) == 0)
        if recv_prev:
            ops.append(("recv", "prev"))
        if recv_next:
            ops.append(("recv", "next"))
        calls.append(([("F", fk), ("B", bk)], ops))
    if all_warmup:
        calls.append(([], [] if last else [("recv", "next")]))
    for k in range(rest, n):
        ops = []
        if not (first and chunk(k, False) == 0):
            ops.append(("send", "prev"))
        if not (last and chunk(k + 1, False) == v - 1) and k != n - 1:
            ops.append(("recv", "next"))
        calls.append(([("B", k)], ops))
    return calls


def step_time(p, v, m, f, b, tau, blocking, jitter=0.0, seed=1):
    """One step's time: f, b are one chunk's forward and backward seconds."""
    rnd = random.Random(seed)
    stages = [stage_calls(s, p, v, m) for s in range(p)]
    sends, recvs = {}, {}
    for s, calls in enumerate(stages):
        count = {}
        for ci, (_, ops) in enumerate(calls):
            for kind, side in ops:
                peer = (s + 1) % p if side == "next" else (s - 1) % p
                i = count.get((kind, peer), 0)
                count[(kind, peer)] = i + 1
                (sends if kind == "send" else recvs)[
                    (s, peer, i) if kind == "send" else (peer, s, i)] = (s, ci)
    assert sends.keys() == recvs.keys(), "unmatched send or receive"
    partners = [[[] for _ in calls] for calls in stages]
    for key, (s, ci) in sends.items():
        rs, rci = recvs[key]
        partners[s][ci].append((rs, rci, "send"))
        partners[rs][rci].append((s, ci, "recv"))
    post = [[None] * len(calls) for calls in stages]
    at, free = [0] * p, [0.0] * p
    moved = True
    while moved:
        moved = False
        for s in range(p):
            while at[s] < len(stages[s]):
                ci = at[s]
                if post[s][ci] is None:
                    work = sum((f if kind == "F" else b) * (1 + jitter * rnd.gauss(0, 1))
                               for kind, _ in stages[s][ci][0])
                    post[s][ci] = free[s] + work
                end = post[s][ci]
                if any(post[ps][pci] is None for ps, pci, _ in partners[s][ci]):
                    break
                for ps, pci, role in partners[s][ci]:
                    if blocking:
                        end = max(end, max(post[s][ci], post[ps][pci]) + tau)
                    elif role == "recv":
                        end = max(end, post[ps][pci] + tau)
                    else:
                        end = max(end, post[s][ci] + tau)
                free[s] = end
                at[s] += 1
                moved = True
    assert all(at[s] == len(stages[s]) for s in range(p)), "deadlock"
    return max(free)


def main():
    per_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 0.195
    tau = float(sys.argv[2]) if len(sys.argv) > 2 else 0.000314
    jitter = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    p, v = 8, 6
    f = per_mb / v / 3
    b = 2 * f
    seeds = range(5) if jitter > 0 else range(1)
    print("m  blocking  decoupled  (step - m x per-micro-batch, s)")
    for m in (32, 48, 64, 96, 128, 192):
        row = []
        for blocking in (True, False):
            t = sum(step_time(p, v, m, f, b, tau, blocking, jitter, sd) for sd in seeds) / len(seeds)
            row.append(t - m * per_mb)
        print(f"{m:3d}  {row[0]:.3f}  {row[1]:.3f}")


if __name__ == "__main__":
    main()
