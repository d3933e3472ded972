#!/usr/bin/env python3
"""Event simulation of one step of DeepSpeed's pipeline engine with blocking
point-to-point transfers (docs/model.md, "Frameworks", serial exchanges;
workload/framework.hpp `pp_serial_exchanges`).

The op order on each stage is DeepSpeed's TrainSchedule
(deepspeed/runtime/pipe/schedule.py @ v0.5.3 30537e7, lines 182-273; the
same at v0.8.2): 2 (m + p - 1) steps; at step t stage s runs a forward when
t and s have the same parity, else a backward. A forward step first receives
its micro-batch's activation from stage s-1, then sends s-1 the gradient of
the micro-batch of the step before; a backward step first sends stage s+1 the
activation of the step before, then receives its micro-batch's gradient from
s+1. Each transfer is its own blocking call (runtime/pipe/p2p.py @ v0.5.3,
lines 31-55: a broadcast in the two stages' group, async_op forced False;
dist.send/recv from torch 1.8 on): it starts when both partners have reached
it and ends tau later for both.

Usage: deepspeed_pipe_sim.py p m F B tau_act tau_grad
(F, B: a stage's forward and backward seconds per micro-batch, recompute in
B). Prints the step, (m + p - 1)(F + B), and the excess per micro-batch.
With zero transfer times the step is exactly (m + p - 1)(F + B), 1F1B's; the
excess is 2 (tau_act + tau_grad) per micro-batch from p = 3 on (a middle
stage exchanges with both neighbours in turn; a little more, 2.06-2.13 x,
where the fill and drain add theirs) and tau_act + tau_grad at p = 2.
"""
import sys


def train_schedule(s, p, m):
    """Stage s's ops in order: ("F"|"B", mb) or (kind, peer, "act"|"grad")."""
    ops, prev = [], -1

    def valid(i):
        return 0 <= i < m

    for t in range(2 * (m + p - 1)):
        forward = t % 2 == s % 2
        if forward:
            mb = (t if t % 2 == 0 else t - 1) // 2 - s // 2
        elif t % 2 == 0:
            mb = t // 2 - p + (s + 1) // 2
        else:
            mb = (t - 1) // 2 - p + 1 + s // 2
        if forward and s > 0:
            if valid(mb):
                ops.append(("recv", s - 1, "act"))
            if valid(prev):
                ops.append(("send", s - 1, "grad"))
        if not forward and s < p - 1:
            if valid(prev):
                ops.append(("send", s + 1, "act"))
            if valid(mb):
                ops.append(("recv", s + 1, "grad"))
        if valid(mb):
            ops.append(("F" if forward else "B", mb))
        prev = mb
    return ops


def step_time(p, m, f, b, tau_act, tau_grad):
    stages = [train_schedule(s, p, m) for s in range(p)]
    at, free = [0] * p, [0.0] * p
    moved = True
    while moved:
        moved = False
        for s in range(p):
            while at[s] < len(stages[s]):
                op = stages[s][at[s]]
                if op[0] in ("F", "B"):
                    free[s] += f if op[0] == "F" else b
                    at[s] += 1
                    moved = True
                    continue
                kind, peer, what = op
                if at[peer] >= len(stages[peer]):
                    raise RuntimeError("unmatched transfer")
                want = ("recv" if kind == "send" else "send", s, what)
                if stages[peer][at[peer]] != want:
                    break
                end = max(free[s], free[peer]) + (tau_act if what == "act" else tau_grad)
                free[s] = free[peer] = end
                at[s] += 1
                at[peer] += 1
                moved = True
    if any(at[s] < len(stages[s]) for s in range(p)):
        raise RuntimeError("deadlock")
    return max(free)


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    p, m = int(sys.argv[1]), int(sys.argv[2])
    f, b, ta, tg = (float(x) for x in sys.argv[3:7])
    t = step_time(p, m, f, b, ta, tg)
    ideal = (m + p - 1) * (f + b)
    ratio = f"{(t - ideal) / m / (ta + tg):.2f}" if ta + tg > 0 else "-"
    print(f"step {t:.4f} s  (m+p-1)(F+B) {ideal:.4f} s  excess {t - ideal:.4f} s"
          f" = {(t - ideal) / m * 1e3:.3f} ms per micro-batch"
          f" = {ratio} x (tau_act + tau_grad)")


if __name__ == "__main__":
    main()
