#!/usr/bin/env python3
"""Per-token decode time from an nh-ref-gen --events file: for each prompt, the span from its
first to its last token event divided by the tokens after the first (prefill excluded)."""
import json
import sys

for path in sys.argv[1:]:
    per_prompt = {}
    for line in open(path):
        ev = json.loads(line)
        if ev["event"] == "token":
            per_prompt.setdefault((ev["mode"], ev["prompt"]), []).append(int(ev["tNs"]))
    for mode in sorted({m for m, _ in per_prompt}):
        rows = [t for (m, _), t in per_prompt.items() if m == mode]
        spans = sum(t[-1] - t[0] for t in rows)
        steps = sum(len(t) - 1 for t in rows)
        if steps <= 0:
            print(f"{path} mode={mode}: per token REFUSED (ZERO_DENOMINATOR): no steps after the first token")
            continue
        print(f"{path} mode={mode}: per token {spans / steps / 1e9:.6f} s ({spans / 1e9:.4f} s over {steps} steps after the first token, {len(rows)} prompt(s); first prefill and load excluded)")
