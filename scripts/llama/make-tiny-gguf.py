#!/usr/bin/env python3
"""Writes nh-gate's tiny llama GGUF deterministically and checks it against its pinned sha256.

The model is a real llama-architecture checkpoint (RMSNorm, RoPE, GQA attention, SwiGLU FFN) with a
small SentencePiece-style vocabulary (3 specials, 96 printable-ASCII byte tokens, 221 word pieces). Weights come from
splitmix64 over a per-tensor seed, in integer arithmetic, so the bytes do not depend on the numpy
version's random streams. The GGUF writer is our own (the format is a header, key/values, tensor
infos and aligned data): nothing here needs llama.cpp's gguf-py.

--preset small writes a larger model of the same kind (8 layers, 512 wide, and a bare "\u2581" piece so that
llama-server can tokenize any printable-ASCII text for it): the stand-in for "your own model" in
docs/own-model.md and the longer decodes measured there.

usage: make-tiny-gguf.py --out FILE [--preset tiny|small] [--check] [--print-sha]
"""
import argparse
import hashlib
import os
import struct
import sys

# The pinned content sha256 of each preset's file. Change a model -> change its pin, in review.
PINNED_SHA256 = {
    "tiny": "ffc84ac2a84d14f7d3a89b33af1e223f7d50e4be0c0e0922baa55fbb2d7ecfc9",
    "small": "aaf4c1e58b130f398f8b1aa23032e4b8726a1858242a963e69aaf5f82fec13bb",
}

PRESETS = {
    "tiny": dict(n_vocab=320, n_embd=64, n_layer=2, n_head=4, n_head_kv=2, n_ff=160, n_ctx=4096,
                 eps=1e-5, rope_base=10000.0, seed=20261201, name="nh-gate-tiny-llama", space_piece=False),
    "small": dict(n_vocab=320, n_embd=512, n_layer=8, n_head=8, n_head_kv=4, n_ff=1408, n_ctx=4096,
                  eps=1e-5, rope_base=10000.0, seed=20261202, name="nh-gate-small-llama", space_piece=True),
}
HP = PRESETS["tiny"]

GGUF_TYPES = dict(u32=4, i32=5, f32=6, bool=7, str=8, arr=9, u64=10)
F32, F16 = 0, 1
ALIGN = 32


def splitmix_uniform(seed, n):
    """n floats uniform in [-1, 1), from splitmix64 (wrapping uint64 arithmetic)."""
    import numpy as np
    with np.errstate(over="ignore"):
        i = np.arange(1, n + 1, dtype=np.uint64)
        z = np.uint64(seed) + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * (2.0 ** -53) * 2.0 - 1.0


def vocab():
    """3 specials, byte tokens for "\\n" and printable ASCII only (every token then decodes to valid UTF-8:
    llama-server refuses to stream a lone continuation byte), then word pieces."""
    tokens, scores, types = ["<unk>", "<s>", "</s>"], [0.0, 0.0, 0.0], [2, 3, 3]
    for b in [0x0A] + list(range(0x20, 0x7F)):
        tokens.append("<0x%02X>" % b); scores.append(0.0); types.append(6)
    if HP["space_piece"]:  # text tokenizes to "\u2581"-prefixed pieces; without the bare piece, "\u2581" falls back to bytes not in the vocab
        tokens.append("\u2581"); scores.append(-0.5); types.append(1)
    words = ["the", "of", "and", "to", "in", "is", "it", "on", "at", "as", "an", "or", "be", "by", "we", "he", "do", "go",
             "no", "so", "up", "if", "me", "my", "us", "am", "oh", "ok", "hi", "yes", "cat", "dog", "sun", "sky", "sea"]
    words += [chr(c) for c in range(ord("a"), ord("z") + 1)]
    words += [x + y for x in "bcdfghjklmnpqrstvwxyz" for y in "aeiou"] + [y + x for y in "aeiou" for x in "bcdfghjklmnpqrstvwxyz"]
    words = list(dict.fromkeys(words))  # one token per text
    for k, w in enumerate(words):
        if len(tokens) == HP["n_vocab"]:
            break
        tokens.append("\u2581" + w); scores.append(-1.0 - k); types.append(1)
    assert len(tokens) == HP["n_vocab"], len(tokens)
    return tokens, scores, types


def tensors():
    """(name, numpy array in row-major (out, in) shape, ggml type) in file order."""
    import numpy as np
    h = HP
    d, hd = h["n_embd"], h["n_embd"] // h["n_head"]
    out = []
    def lin(name, rows, cols, scale=1.0, kind=F32):
        seed = h["seed"] * 1000 + len(out)
        w = splitmix_uniform(seed, rows * cols).reshape(rows, cols) * (np.sqrt(3.0 / cols) * scale)
        out.append((name, w, kind))
    def norm(name, n):
        seed = h["seed"] * 1000 + len(out)
        out.append((name, (1.0 + 0.1 * splitmix_uniform(seed, n)).reshape(n), F32))
    lin("token_embd.weight", h["n_vocab"], d, scale=np.sqrt(d / 3.0), kind=F16)  # entries uniform in [-1, 1)
    for L in range(h["n_layer"]):
        p = "blk.%d." % L
        norm(p + "attn_norm.weight", d)
        lin(p + "attn_q.weight", h["n_head"] * hd, d)
        lin(p + "attn_k.weight", h["n_head_kv"] * hd, d)
        lin(p + "attn_v.weight", h["n_head_kv"] * hd, d)
        lin(p + "attn_output.weight", d, h["n_head"] * hd)
        norm(p + "ffn_norm.weight", d)
        lin(p + "ffn_gate.weight", h["n_ff"], d)
        lin(p + "ffn_up.weight", h["n_ff"], d)
        lin(p + "ffn_down.weight", d, h["n_ff"])
    norm("output_norm.weight", d)
    lin("output.weight", h["n_vocab"], d, scale=3.0)  # sharper logits: wider top-2 margins
    return out


def gguf_bytes():
    import numpy as np
    h = HP
    tokens, scores, types = vocab()
    def s(x):
        b = x.encode("utf-8"); return struct.pack("<Q", len(b)) + b
    kv = []
    def put(key, kind, value):
        t = GGUF_TYPES[kind]
        if kind == "str": body = s(value)
        elif kind == "u32": body = struct.pack("<I", value)
        elif kind == "i32": body = struct.pack("<i", value)
        elif kind == "u64": body = struct.pack("<Q", value)
        elif kind == "f32": body = struct.pack("<f", value)
        elif kind == "bool": body = struct.pack("<B", 1 if value else 0)
        else: raise ValueError(kind)
        kv.append(s(key) + struct.pack("<I", t) + body)
    def put_arr(key, kind, values):
        t = GGUF_TYPES[kind]
        if kind == "str": body = b"".join(s(v) for v in values)
        elif kind == "f32": body = np.asarray(values, dtype="<f4").tobytes()
        elif kind == "i32": body = np.asarray(values, dtype="<i4").tobytes()
        else: raise ValueError(kind)
        kv.append(s(key) + struct.pack("<I", GGUF_TYPES["arr"]) + struct.pack("<IQ", t, len(values)) + body)
    put("general.architecture", "str", "llama")
    put("general.name", "str", h["name"])
    put("general.alignment", "u32", ALIGN)
    put("general.file_type", "u32", 0)
    put("llama.context_length", "u32", h["n_ctx"])
    put("llama.embedding_length", "u32", h["n_embd"])
    put("llama.block_count", "u32", h["n_layer"])
    put("llama.feed_forward_length", "u32", h["n_ff"])
    put("llama.attention.head_count", "u32", h["n_head"])
    put("llama.attention.head_count_kv", "u32", h["n_head_kv"])
    put("llama.attention.layer_norm_rms_epsilon", "f32", h["eps"])
    put("llama.rope.dimension_count", "u32", h["n_embd"] // h["n_head"])
    put("llama.rope.freq_base", "f32", h["rope_base"])
    put("llama.vocab_size", "u32", h["n_vocab"])
    put("tokenizer.ggml.model", "str", "llama")
    put_arr("tokenizer.ggml.tokens", "str", tokens)
    put_arr("tokenizer.ggml.scores", "f32", scores)
    put_arr("tokenizer.ggml.token_type", "i32", types)
    put("tokenizer.ggml.unknown_token_id", "u32", 0)
    put("tokenizer.ggml.bos_token_id", "u32", 1)
    put("tokenizer.ggml.eos_token_id", "u32", 2)
    put("tokenizer.ggml.add_bos_token", "bool", False)
    put("tokenizer.ggml.add_eos_token", "bool", False)
    ts = tensors()
    infos, blobs, off = [], [], 0
    for name, arr, kind in ts:
        data = arr.astype("<f2" if kind == F16 else "<f4").tobytes()
        dims = list(reversed(arr.shape))  # ggml ne[0] is the contiguous (input) dimension
        infos.append(s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", x) for x in dims) + struct.pack("<IQ", kind, off))
        pad = (-len(data)) % ALIGN
        blobs.append(data + b"\0" * pad)
        off += len(data) + pad
    head = b"GGUF" + struct.pack("<IQQ", 3, len(ts), len(kv)) + b"".join(kv) + b"".join(infos)
    head += b"\0" * ((-len(head)) % ALIGN)
    return head + b"".join(blobs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="tiny")
    ap.add_argument("--check", action="store_true", help="exit 2 unless the written file has the pinned sha256")
    ap.add_argument("--print-sha", action="store_true")
    ap.add_argument("--gguf-py", help="accepted for compatibility; unused (own writer)")
    a = ap.parse_args()
    global HP
    HP = PRESETS[a.preset]
    pinned = PINNED_SHA256[a.preset]
    # An existing file with the pinned sha is kept as it is (hosts without numpy can carry the file).
    if a.check and not a.print_sha and os.path.exists(a.out):
        with open(a.out, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() == pinned:
                print("%s: already has the pinned sha256 %s" % (a.out, pinned))
                return 0
    data = gguf_bytes()
    sha = hashlib.sha256(data).hexdigest()
    if a.print_sha:
        print(sha)
        return 0
    if a.check and sha != pinned:
        print("make-tiny-gguf: the %s model's sha256 is %s, pinned %s: the writer or numpy changed the bytes; "
              "review the change, then update PINNED_SHA256" % (a.preset, sha, pinned), file=sys.stderr)
        return 2
    tmp = a.out + ".tmp-%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, a.out)
    print("%s model: %d bytes sha256 %s -> %s" % (a.preset, len(data), sha, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
