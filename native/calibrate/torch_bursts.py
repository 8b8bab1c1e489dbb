#!/usr/bin/env python3
"""Independent calibration load for the busy sampler (issue #23): a torch program that keeps the GPU busy in
irregular bursts and records its own busy time with CUDA events, the kind of load round 2 measured by hand.

Each burst is a run of back-to-back fp16 matmuls (large enough that launches stay ahead of the GPU, so the
events bracket kernel time only), 2-120 ms long, skewed short; the gap after it is drawn so the long-run busy
share is the duty. Prints "LOAD READY" (flushed) when the timed window opens if --ready-line is given, and one
JSON object as its last stdout line, with the same fields as native/calibrate/duty.cu's:

    python3 native/calibrate/torch_bursts.py --duty 0.5 --seconds 4 [--seed 1] [--size 4096] [--ready-line]

Exit 2 on bad arguments, 3 when torch has no CUDA device.
"""
import argparse
import json
import random
import sys
import time


def parse(argv):
    ap = argparse.ArgumentParser(prog="torch_bursts.py", description=__doc__.splitlines()[0])
    ap.add_argument("--duty", type=float, required=True, help="long-run busy share, 0 < duty < 1")
    ap.add_argument("--seconds", type=float, default=6.0, help="length of the timed window")
    ap.add_argument("--seed", type=int, default=1, help="seed of the burst pattern")
    ap.add_argument("--size", type=int, default=4096, help="matmul size (n x n, fp16)")
    ap.add_argument("--ready-line", action="store_true", help='print "LOAD READY" when the window opens')
    a = ap.parse_args(argv)
    if not (0 < a.duty < 1) or not (a.seconds > 0) or a.size < 64:
        ap.error("need 0 < duty < 1, seconds > 0, size >= 64")
    return a


def main(argv):
    a = parse(argv)
    import torch  # imported after the arguments are checked: a usage error needs no GPU

    if not torch.cuda.is_available():
        print("torch_bursts: torch sees no CUDA device", file=sys.stderr)
        return 3
    dev = torch.device("cuda")
    x = torch.randn(a.size, a.size, device=dev, dtype=torch.float16)
    y = torch.randn(a.size, a.size, device=dev, dtype=torch.float16)
    out = torch.empty_like(x)
    event = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731

    # Warm-up (cuBLAS picks its kernel), then the time of one matmul, to size the bursts.
    for _ in range(5):
        torch.matmul(x, y, out=out)
    s, e = event(), event()
    s.record()
    for _ in range(20):
        torch.matmul(x, y, out=out)
    e.record()
    e.synchronize()
    op_ms = max(s.elapsed_time(e) / 20, 1e-3)

    rnd = random.Random(a.seed)
    first, last, bs, be = event(), event(), event(), event()
    torch.cuda.synchronize()
    first.record()
    first.synchronize()
    t0 = time.monotonic()  # CLOCK_MONOTONIC on Linux: the harness's clock
    if a.ready_line:
        print("LOAD READY", flush=True)
    busy_ms, bursts, ops = 0.0, 0, 0
    while time.monotonic() - t0 < a.seconds:
        target_ms = 2.0 + 118.0 * rnd.random() * rnd.random()
        n = max(1, round(target_ms / op_ms))
        bs.record()
        for _ in range(n):
            torch.matmul(x, y, out=out)
        be.record()
        be.synchronize()
        ms = bs.elapsed_time(be)
        busy_ms += ms
        bursts += 1
        ops += n
        time.sleep(2.0 * rnd.random() * ms * (1.0 - a.duty) / a.duty / 1000.0)
    last.record()
    last.synchronize()
    t1 = time.monotonic()
    window_ms = first.elapsed_time(last)
    print(json.dumps({
        "variant": "torch-bursts", "pattern": "bursts", "seed": a.seed, "dutyTarget": a.duty, "seconds": a.seconds,
        "size": a.size, "opMs": round(op_ms, 6), "bursts": bursts, "iterations": ops, "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__, "busyMs": round(busy_ms, 3), "windowMs": round(window_ms, 3),
        "trueBusyFraction": round(busy_ms / window_ms, 6), "monoStartS": round(t0, 6), "monoEndS": round(t1, 6),
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
