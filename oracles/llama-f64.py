#!/usr/bin/env python3
"""An independent float64 oracle for llama-architecture GGUF checkpoints, speaking nh-gate's oracle protocol.

It shares no code with llama.cpp: its own GGUF reader (f32/f16 tensors), its own forward pass (RMSNorm,
RoPE in ggml's "normal" pair layout, grouped-query attention, SwiGLU), all in numpy float64.

Protocol (docs/engines.md): one JSON request on stdin
  {"schemaVersion": 1, "prompts": [{"id": 0, "promptTokens": [..]}], "sampling": {"kind": "greedy", "maxNewTokens": N}}
and one JSON answer on stdout
  {"schemaVersion": 1, "oracle": {..}, "checkpoint": {..}, "engineConfigRecorded": "yes", "engineConfig": {..},
   "prompts": [{"id": 0, "tokens": [..], "top2MarginNats": [..], "runnerUp": [..]}]}
Greedy decoding over every token except the end-of-generation token (llama-server's ignore_eos masks it).

usage: llama-f64.py --model FILE.gguf  < request.json > answer.json
"""
import argparse
import hashlib
import json
import struct
import sys

import numpy as np

VERSION = "1.0.0"
SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<B", 10: "<Q", 11: "<q", 12: "<d"}


class Reader:
    def __init__(self, data):
        self.d, self.o = data, 0
    def take(self, fmt):
        v = struct.unpack_from(fmt, self.d, self.o)
        self.o += struct.calcsize(fmt)
        return v[0]
    def string(self):
        n = self.take("<Q")
        s = self.d[self.o:self.o + n].decode("utf-8")
        self.o += n
        return s
    def value(self, t):
        if t == 8:
            return self.string()
        if t == 9:
            et, n = self.take("<I"), self.take("<Q")
            return [self.value(et) for _ in range(n)]
        if t not in SCALARS:
            raise ValueError("unknown GGUF value type %d" % t)
        return self.take(SCALARS[t])


def read_gguf(path):
    data = open(path, "rb").read()
    r = Reader(data)
    if r.take("<4s") != b"GGUF":
        raise ValueError("%s: not a GGUF file" % path)
    version, n_t, n_kv = r.take("<I"), r.take("<Q"), r.take("<Q")
    if version < 2:
        raise ValueError("%s: GGUF version %d is too old" % (path, version))
    meta = {}
    for _ in range(n_kv):
        k = r.string()
        meta[k] = r.value(r.take("<I"))
    infos = []
    for _ in range(n_t):
        name = r.string()
        dims = [r.take("<Q") for _ in range(r.take("<I"))]
        infos.append((name, dims, r.take("<I"), r.take("<Q")))
    align = meta.get("general.alignment", 32)
    base = r.o + ((-r.o) % align)
    tensors = {}
    for name, dims, kind, off in infos:
        n = int(np.prod(dims))
        if kind == 0:
            a = np.frombuffer(data, dtype="<f4", count=n, offset=base + off)
        elif kind == 1:
            a = np.frombuffer(data, dtype="<f2", count=n, offset=base + off)
        else:
            raise ValueError("%s: tensor %s has ggml type %d; this oracle reads only F32 (0) and F16 (1)" % (path, name, kind))
        tensors[name] = a.astype(np.float64).reshape(list(reversed(dims)))
    return meta, tensors, hashlib.sha256(data).hexdigest()


class Llama:
    def __init__(self, meta, t):
        if meta.get("general.architecture") != "llama":
            raise ValueError("architecture %r is not llama" % meta.get("general.architecture"))
        a = "llama."
        self.L = meta[a + "block_count"]
        self.nh = meta[a + "attention.head_count"]
        self.nkv = meta.get(a + "attention.head_count_kv", self.nh)
        self.d = meta[a + "embedding_length"]
        self.hd = self.d // self.nh
        self.eps = meta[a + "attention.layer_norm_rms_epsilon"]
        self.base = meta.get(a + "rope.freq_base", 10000.0)
        self.rope_dims = meta.get(a + "rope.dimension_count", self.hd)
        self.t = t
        self.out = t.get("output.weight", t["token_embd.weight"])
        self.eog = [meta["tokenizer.ggml.eos_token_id"]] if "tokenizer.ggml.eos_token_id" in meta else []

    def norm(self, x, w):
        return x / np.sqrt(np.mean(x * x) + self.eps) * w

    def rope(self, x, pos):
        # ggml's NORM mode: adjacent pairs (x[2i], x[2i+1]) rotate by pos * base^(-2i/n_dims).
        x = x.copy()
        i = np.arange(self.rope_dims // 2)
        theta = pos * self.base ** (-2.0 * i / self.rope_dims)
        c, s = np.cos(theta), np.sin(theta)
        x0, x1 = x[..., 0:self.rope_dims:2].copy(), x[..., 1:self.rope_dims:2].copy()
        x[..., 0:self.rope_dims:2] = x0 * c - x1 * s
        x[..., 1:self.rope_dims:2] = x0 * s + x1 * c
        return x

    def step(self, tok, pos, cache):
        t = self.t
        x = t["token_embd.weight"][tok].copy()
        for l in range(self.L):
            p = "blk.%d." % l
            h = self.norm(x, t[p + "attn_norm.weight"])
            q = self.rope((t[p + "attn_q.weight"] @ h).reshape(self.nh, self.hd), pos)
            k = self.rope((t[p + "attn_k.weight"] @ h).reshape(self.nkv, self.hd), pos)
            v = (t[p + "attn_v.weight"] @ h).reshape(self.nkv, self.hd)
            cache[l][0].append(k); cache[l][1].append(v)
            K, V = np.stack(cache[l][0]), np.stack(cache[l][1])  # (T, nkv, hd)
            r = self.nh // self.nkv
            o = np.empty((self.nh, self.hd))
            for hh in range(self.nh):
                s = K[:, hh // r, :] @ q[hh] / np.sqrt(self.hd)
                w = np.exp(s - s.max()); w /= w.sum()
                o[hh] = w @ V[:, hh // r, :]
            x = x + t[p + "attn_output.weight"] @ o.reshape(-1)
            h = self.norm(x, t[p + "ffn_norm.weight"])
            g = t[p + "ffn_gate.weight"] @ h
            x = x + t[p + "ffn_down.weight"] @ ((g / (1.0 + np.exp(-g))) * (t[p + "ffn_up.weight"] @ h))
        return self.out @ self.norm(x, t["output_norm.weight"])

    def generate(self, prompt, n_new):
        cache = [([], []) for _ in range(self.L)]
        logits = None
        for pos, tok in enumerate(prompt):
            logits = self.step(tok, pos, cache)
        toks, margins, runner = [], [], []
        pos = len(prompt)
        for _ in range(n_new):
            z = logits.copy()
            z[self.eog] = -np.inf
            order = np.argsort(-z, kind="stable")
            best, second = int(order[0]), int(order[1])
            toks.append(best); runner.append(second); margins.append(float(z[best] - z[second]))
            logits = self.step(best, pos, cache)
            pos += 1
        return toks, margins, runner


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    a = ap.parse_args()
    req = json.load(sys.stdin)
    if req.get("sampling", {}).get("kind") != "greedy":
        print("llama-f64: only greedy sampling is supported", file=sys.stderr)
        return 2
    meta, tensors, sha = read_gguf(a.model)
    m = Llama(meta, tensors)
    n_new = int(req["sampling"]["maxNewTokens"])
    answers = []
    for p in req["prompts"]:
        toks, margins, runner = m.generate([int(x) for x in p["promptTokens"]], n_new)
        answers.append({"id": p["id"], "tokens": toks, "top2MarginNats": margins, "runnerUp": runner})
        print("llama-f64: prompt %s done (%d tokens)" % (p["id"], len(toks)), file=sys.stderr)
    json.dump({
        "schemaVersion": 1,
        "oracle": {"name": "llama-f64 (numpy float64, oracles/llama-f64.py)", "version": VERSION},
        "checkpoint": {"name": meta.get("general.name", a.model), "revision": sha},
        "engineConfigRecorded": "yes",
        "engineConfig": {"architecture": "llama", "dtype": "float64", "n_layer": m.L, "n_head": m.nh, "n_head_kv": m.nkv,
                         "n_embd": m.d, "rope_freq_base": m.base, "rms_eps": m.eps, "eogMasked": m.eog,
                         "sampling": "greedy (argmax over all tokens but the end-of-generation ones)"},
        "prompts": answers,
    }, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
