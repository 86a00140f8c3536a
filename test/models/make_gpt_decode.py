# SPDX-License-Identifier: Apache-2.0
# A GPT-2-style decoder with a key/value cache, exported as Hugging Face-style exports
# write it: make_transformer_onnx.py's Gpt (its weights, seeded), one step of which reads
# `seq` new token ids after `past` cached positions,
#   ids [1, seq] int64, positions [1, seq] int64 (past, past + 1, ...: position_ids),
#   past_key_i / past_value_i [1, heads, past, d / heads]
#   -> logits [1, seq, vocab], present_key_i / present_value_i [1, heads, past + seq, ...]
# (the new keys and values appended by Concat, a causal mask from Trilu with the past
# as its diagonal), exported with dynamic seq and past axes.
# With --reference it also writes PyTorch's own cached greedy decode: a prompt, then
# --steps tokens one at a time, each step's logits (reference_logits.npy, [steps + 1,
# vocab]: the prompt's last row, then each step's) and tokens (reference_tokens.npy),
# and checks them against the uncached model.
#
#   python3 make_gpt_decode.py --out-dir DIR [--d 64 --heads 4 --layers 2 --vocab 97
#       --max-seq 64] [--reference --prompt 5 --steps 32]
import argparse
import math
import os

import numpy as np
import torch

import make_transformer_onnx as mt

OPSET = 14


def block_step(blk, x, past_k, past_v):
    """blk (make_transformer_onnx.Block) on x [b, s, d] after the cached keys and
    values [b, h, p, d / h]: the block's output and the keys and values with x's
    appended."""
    b, s, _ = x.shape
    d, h = blk.d, blk.heads
    q, k, v = blk.qkv(blk.ln1(x)).split(d, dim=2)
    heads = lambda t: t.view(b, s, h, d // h).transpose(1, 2)
    q, k, v = heads(q), heads(k), heads(v)
    k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
    att = (q @ k.transpose(-2, -1)) / math.sqrt(d // h)
    # Query i (position p + i) sees the keys up to position p + i.
    causal = torch.ones(s, k.shape[2], dtype=torch.bool).tril(past_k.shape[2])
    att = att.masked_fill(~causal, float("-inf")).softmax(-1)
    y = (att @ v).transpose(1, 2).reshape(b, s, d)
    x = x + blk.proj(y)
    x = x + blk.out(torch.nn.functional.gelu(blk.fc(blk.ln2(x)), approximate="tanh"))
    return x, k, v


class GptStep(torch.nn.Module):
    """One cached step of a make_transformer_onnx.Gpt."""

    def __init__(self, gpt):
        super().__init__()
        self.gpt = gpt

    def forward(self, ids, positions, *past):
        g = self.gpt
        x = g.tok(ids) + g.pos(positions)
        present = []
        for i, blk in enumerate(g.blocks):
            x, k, v = block_step(blk, x, past[2 * i], past[2 * i + 1])
            present += [k, v]
        return (g.ln(x) @ g.tok.weight.t(), *present)


def names(layers):
    past = [f"past_{kind}_{i}" for i in range(layers) for kind in ("key", "value")]
    return past, [n.replace("past_", "present_") for n in past]


def export(step, layers, heads, d, path, past_len=3, seq=2):
    past_names, present_names = names(layers)
    past = [torch.zeros(1, heads, past_len, d // heads) for _ in past_names]
    axes = {"ids": {1: "seq"}, "positions": {1: "seq"}, "logits": {1: "seq"}}
    axes.update({n: {2: "past"} for n in past_names})
    axes.update({n: {2: "total"} for n in present_names})
    ids = torch.zeros(1, seq, dtype=torch.long)
    positions = torch.arange(past_len, past_len + seq)[None]
    torch.onnx.export(step, (ids, positions, *past), path,
                      opset_version=OPSET, input_names=["ids", "positions", *past_names],
                      output_names=["logits", *present_names], dynamic_axes=axes)


def reference(step, gpt, layers, heads, d, vocab, prompt_len, steps, out_dir):
    g = torch.Generator().manual_seed(2)
    prompt = torch.randint(0, vocab, (1, prompt_len), generator=g)
    past = [torch.zeros(1, heads, 0, d // heads) for _ in range(2 * layers)]
    ids, tokens, logits = prompt, [], []
    with torch.no_grad():
        for _ in range(steps + 1):
            p = past[0].shape[2]
            out, *past = step(ids, torch.arange(p, p + ids.shape[1])[None], *past)
            logits.append(out[0, -1].numpy())
            token = int(out[0, -1].argmax())
            tokens.append(token)
            ids = torch.tensor([[token]])
        # The cache changes nothing: the uncached model on the whole sequence.
        whole = torch.cat([prompt, torch.tensor([tokens[:-1]])], dim=1)
        full = gpt(whole)[0, prompt_len - 1:].numpy()
    assert np.allclose(full, np.stack(logits), atol=1e-4, rtol=1e-4)
    np.save(os.path.join(out_dir, "prompt.npy"), prompt.numpy())
    np.save(os.path.join(out_dir, "reference_logits.npy"), np.stack(logits))
    np.save(os.path.join(out_dir, "reference_tokens.npy"), np.array(tokens, np.int64))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out-dir", required=True)
    p.add_argument("--d", type=int, default=mt.D)
    p.add_argument("--heads", type=int, default=mt.HEADS)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--vocab", type=int, default=mt.VOCAB)
    p.add_argument("--max-seq", type=int, default=64)
    p.add_argument("--reference", action="store_true")
    p.add_argument("--prompt", type=int, default=5)
    p.add_argument("--steps", type=int, default=32)
    a = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    gpt = mt.Gpt(a.d, a.heads, a.layers, a.vocab, a.max_seq).eval()
    step = GptStep(gpt).eval()
    os.makedirs(a.out_dir, exist_ok=True)
    export(step, a.layers, a.heads, a.d, os.path.join(a.out_dir, "gpt_step.onnx"))
    if a.reference:
        reference(step, gpt, a.layers, a.heads, a.d, a.vocab, a.prompt, a.steps, a.out_dir)


if __name__ == "__main__":
    main()
