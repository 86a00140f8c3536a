# SPDX-License-Identifier: Apache-2.0
# Makes the fixtures of test/models/transformer_dynamic_batch.test: two small transformers
# with seeded weights, exported by torch.onnx.export (opset 14) with dynamic batch and
# sequence axes, and PyTorch's outputs at several batch sizes of one sequence length:
#   encoder.onnx  torch's own nn.TransformerEncoder (2 layers, d 64, 4 heads, FF 128,
#                 GELU, batch_first), x [batch, seq, 64] -> y
#   gpt.onnx      a GPT-2-style decoder: token and learned position embeddings, causal
#                 self-attention (mask from torch.tril), LayerNorm, GELU (tanh form), and
#                 a head tied to the token embedding; ids [batch, seq] int64 -> logits
#   gqa.onnx      the same decoder with grouped-query attention: 4 query heads, 2 key
#                 and value heads, each repeated for its 2 query heads as exports
#                 write it (expand a new axis, reshape)
import argparse
import math
import os

import numpy as np
import torch

OPSET = 14
D, HEADS, VOCAB, MAX_SEQ = 64, 4, 97, 32


class Block(torch.nn.Module):
    """A GPT-2 block of width `d` and `heads` heads (bench/transformer_bench.py
    builds its GPT-2-small-shaped decoder from these too)."""

    def __init__(self, d=D, heads=HEADS, kv_heads=None):
        super().__init__()
        self.d, self.heads, self.kv_heads = d, heads, kv_heads or heads
        kv = self.kv_heads * (d // heads)
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, d + 2 * kv), torch.nn.Linear(d, d)
        self.fc, self.out = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, _ = x.shape
        d, h, hkv = self.d, self.heads, self.kv_heads
        q, k, v = self.qkv(self.ln1(x)).split([d, hkv * (d // h), hkv * (d // h)], dim=2)
        heads = lambda t, n: t.view(b, s, n, d // h).transpose(1, 2)
        q, k, v = heads(q, h), heads(k, hkv), heads(v, hkv)
        if hkv != h:  # each key and value head serves h / hkv query heads
            group = lambda t: t[:, :, None].expand(b, hkv, h // hkv, s, d // h).reshape(
                b, h, s, d // h)
            k, v = group(k), group(v)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // h)
        causal = torch.tril(torch.ones(s, s, dtype=torch.bool))
        att = att.masked_fill(~causal, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x)),
                                                     approximate="tanh"))


class Gpt(torch.nn.Module):
    def __init__(self, d=D, heads=HEADS, layers=2, vocab=VOCAB, max_seq=MAX_SEQ,
                 kv_heads=None):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(max_seq, d)
        self.blocks = torch.nn.Sequential(*(Block(d, heads, kv_heads)
                                            for _ in range(layers)))
        self.ln = torch.nn.LayerNorm(d)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1])
        x = self.blocks(self.tok(ids) + self.pos(positions))
        return self.ln(x) @ self.tok.weight.t()  # the head tied to the embedding


def encoder():
    layer = torch.nn.TransformerEncoderLayer(D, HEADS, dim_feedforward=128, dropout=0.0,
                                             activation="gelu", batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out-dir", required=True)
    p.add_argument("--seq", type=int, default=16)
    p.add_argument("--batches", default="1,3,8")
    a = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    models = {"encoder": encoder().eval(), "gpt": Gpt().eval(),
              "gqa": Gpt(kv_heads=2).eval()}
    g = torch.Generator().manual_seed(1)
    os.makedirs(a.out_dir, exist_ok=True)
    for name, model in models.items():
        make = ((lambda b, s: torch.randn(b, s, D, generator=g)) if name == "encoder" else
                (lambda b, s: torch.randint(0, VOCAB, (b, s), generator=g)))
        inp, out = ("x", "y") if name == "encoder" else ("ids", "logits")
        torch.onnx.export(model, make(2, a.seq), os.path.join(a.out_dir, name + ".onnx"),
                          opset_version=OPSET, input_names=[inp], output_names=[out],
                          dynamic_axes={inp: {0: "batch", 1: "seq"},
                                        out: {0: "batch", 1: "seq"}})
        for b in map(int, a.batches.split(",")):
            x = make(b, a.seq)
            with torch.no_grad():
                y = model(x)
            np.save(os.path.join(a.out_dir, f"{name}_in_{b}.npy"), x.numpy())
            np.save(os.path.join(a.out_dir, f"{name}_out_{b}.npy"), y.numpy())


if __name__ == "__main__":
    main()
