# SPDX-License-Identifier: Apache-2.0
# Makes a recurrent language model (embedding -> 2-layer LSTM or GRU -> linear over the
# vocabulary) with seeded weights, exports it with torch.onnx.export, and writes PyTorch's
# logits on seeded token ids: the fixture of test/models/rnn_lm_onnx.test and of
# bench/rnn_bench.py.
#   /usr/bin/python3 test/models/make_rnn_lm.py --cell lstm --batch 1 --seq 64 \
#       --onnx lm.onnx --out-dir ref
import argparse
import os

import numpy as np
import torch

OPSET = 14
SEED = 0


class LanguageModel(torch.nn.Module):
    def __init__(self, cell, vocab, embed, hidden, layers):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, embed)
        rnn = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
        self.rnn = rnn(embed, hidden, num_layers=layers)
        self.head = torch.nn.Linear(hidden, vocab)

    def forward(self, tokens):  # (seq, batch) int64 -> (seq, batch, vocab)
        y, _ = self.rnn(self.embed(tokens))
        return self.head(y)


def make(cell, vocab=1000, embed=128, hidden=256, layers=2):
    torch.manual_seed(SEED)
    return LanguageModel(cell, vocab, embed, hidden, layers).eval()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cell", choices=["lstm", "gru"], required=True)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--vocab", type=int, default=1000)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--onnx", required=True)
    p.add_argument("--out-dir", help="writes tokens.npy and torch_logits.npy here")
    a = p.parse_args()
    torch.set_num_threads(1)
    model = make(a.cell, vocab=a.vocab, hidden=a.hidden)
    g = torch.Generator().manual_seed(SEED + 1)
    tokens = torch.randint(0, a.vocab, (a.seq, a.batch), generator=g)
    with torch.no_grad():
        logits = model(tokens)
    torch.onnx.export(model, tokens, a.onnx, opset_version=OPSET,
                      input_names=["tokens"], output_names=["logits"])
    if a.out_dir:
        os.makedirs(a.out_dir, exist_ok=True)
        np.save(os.path.join(a.out_dir, "tokens.npy"), tokens.numpy())
        np.save(os.path.join(a.out_dir, "torch_logits.npy"), logits.numpy())
    print(f"{a.cell} logits {tuple(logits.shape)} std {logits.std():.4g}")


if __name__ == "__main__":
    main()
