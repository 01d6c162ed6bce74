#!/usr/bin/env python3
"""Trains the tiny LLaMA-family models shipped in assets/models/ (arch llama and arch qwen2).

Text: the King James Bible from Debian's bible-kjv package (`bible -f "Gen1:1-Rev22:21"`), the
verse references stripped, one verse a line, each chapter a document that starts with
<|endoftext|>. The last 40 chapters (the end of Revelation and the books before it) are held out
for the validation loss.

Tokenizer: a byte-level BPE trained with PyPI `tokenizers` (GPT-2's byte-to-unicode alphabet, the
pre-tokenizer llama.cpp calls "gpt-2" for llama and "qwen2" for qwen2), <|endoftext|> its one
control token, stored with the standard tokenizer.ggml.* keys.

Model, from the published definitions (LLaMA; Qwen2 = LLaMA with q/k/v biases):
  x = embed(ids); per layer: x += Wo attn(rope(Wq n), rope(Wk n), Wv n) with n = rmsnorm(x),
  grouped-query attention (query head h reads key/value head h // (heads / kv_heads)), causal;
  x += Wdown(silu(Wgate n) * Wup n) with n = rmsnorm(x); logits = Wout rmsnorm(x).
RoPE as ggml applies it for each arch, so the weights go into GGUF unchanged:
  llama: NORM rope, rotating adjacent pairs (2i, 2i+1) by pos * base^(-2i/head_dim);
  qwen2: NEOX rope, rotating (i, i + head_dim/2) by the same angles.
The qwen2 model ties its output projection to the embedding (as small Qwen2 models do): its GGUF
has no output.weight, and readers use token_embd.weight in its place.

Everything is seeded (torch, data order) and runs a fixed number of steps on CPU threads fixed
below, so a rerun gives the same weights. Writes CHECKPOINT.npz (float32 tensors under their GGUF
names, torch's [out, in] layout) and CHECKPOINT.json (hyper-parameters, tokenizer, training log);
tools/models/make_tiny_model.py turns them into the shipped GGUF files.

usage: train_tiny_model.py {llama,qwen2} OUT_PREFIX   (run under a Python that has PyPI
`tokenizers` and sees Debian's torch, e.g. the venv tests/llama_crosscheck.py creates)
"""
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CONFIGS = {
    # Widths of 256 so every matrix but the embedding-sized ones holds whole Q4_K/Q6_K super-blocks.
    "llama": dict(vocab_size=512, dim=256, layers=2, heads=8, kv_heads=2, ffn=256, context=256,
                  rope_base=10000.0, rms_eps=1e-5, bias=False, neox=False, tied=False, pre="gpt-2",
                  steps=600, batch=24, seq=128, lr=3e-3, name="vkattn tiny llama (KJV)"),
    "qwen2": dict(vocab_size=512, dim=64, layers=2, heads=4, kv_heads=2, ffn=192, context=128,
                  rope_base=10000.0, rms_eps=1e-6, bias=True, neox=True, tied=True, pre="qwen2",
                  steps=1000, batch=24, seq=96, lr=4e-3, name="vkattn tiny qwen2 (KJV)"),
}
SEED = 20251126
THREADS = 1
HELD_OUT_CHAPTERS = 40
EOT = "<|endoftext|>"
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
               r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def chapters() -> list:
    """The Bible as a list of chapters, each the text of its verses one a line."""
    text = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"], capture_output=True, text=True, check=True).stdout
    out, current, key = [], [], None
    for line in text.splitlines():
        m = re.match(r"^(\S+?)(\d+):(\d+) (.*)$", line)
        if not m:
            raise SystemExit(f"unexpected line from bible: {line!r}")
        chapter = (m.group(1), m.group(2))
        if chapter != key and current:
            out.append("\n".join(current) + "\n")
            current = []
        key = chapter
        current.append(m.group(4))
    out.append("\n".join(current) + "\n")
    return out


def train_tokenizer(docs: list, cfg: dict):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    if cfg["pre"] == "gpt-2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(QWEN2_SPLIT), "isolated"),
                                                     pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(docs, trainers.BpeTrainer(
        vocab_size=cfg["vocab_size"], special_tokens=[EOT], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    spec = json.loads(tok.to_str())
    vocab = tok.get_vocab(with_added_tokens=True)
    tokens = [None] * len(vocab)
    for text, i in vocab.items():
        tokens[i] = text
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]
    return tok, dict(tokens=tokens, merges=merges, token_types=[3 if t == EOT else 1 for t in tokens],
                     pre=cfg["pre"], eot=vocab[EOT], json=tok.to_str())


def rope_tables(positions: int, head_dim: int, base: float):
    inv = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.arange(positions, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cos(angles).float(), torch.sin(angles).float()  # [T, head_dim/2]


def apply_rope(x, cos, sin, neox: bool):
    """x [B, T, H, D]; cos/sin [T, D/2]."""
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    if neox:
        a, b = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(dim)), eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, hd = c["dim"], c["dim"] // c["heads"]
        self.c, self.hd = c, hd
        self.attn_norm, self.ffn_norm = RMSNorm(d, c["rms_eps"]), RMSNorm(d, c["rms_eps"])
        self.attn_q = nn.Linear(d, c["heads"] * hd, bias=c["bias"])
        self.attn_k = nn.Linear(d, c["kv_heads"] * hd, bias=c["bias"])
        self.attn_v = nn.Linear(d, c["kv_heads"] * hd, bias=c["bias"])
        self.attn_output = nn.Linear(c["heads"] * hd, d, bias=False)
        self.ffn_gate = nn.Linear(d, c["ffn"], bias=False)
        self.ffn_up = nn.Linear(d, c["ffn"], bias=False)
        self.ffn_down = nn.Linear(c["ffn"], d, bias=False)

    def forward(self, x, cos, sin, mask):
        B, T, _ = x.shape
        c, hd = self.c, self.hd
        n = self.attn_norm(x)
        q = apply_rope(self.attn_q(n).view(B, T, c["heads"], hd), cos, sin, c["neox"]).transpose(1, 2)
        k = apply_rope(self.attn_k(n).view(B, T, c["kv_heads"], hd), cos, sin, c["neox"]).transpose(1, 2)
        v = self.attn_v(n).view(B, T, c["kv_heads"], hd).transpose(1, 2)
        group = c["heads"] // c["kv_heads"]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + mask
        att = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, c["heads"] * hd)
        x = x + self.attn_output(att)
        n = self.ffn_norm(x)
        return x + self.ffn_down(F.silu(self.ffn_gate(n)) * self.ffn_up(n))


class TinyLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.token_embd = nn.Embedding(c["vocab_size"], c["dim"])
        self.blocks = nn.ModuleList(Block(c) for _ in range(c["layers"]))
        self.output_norm = RMSNorm(c["dim"], c["rms_eps"])
        # Tied: the output projection is the embedding matrix, and the GGUF has no output.weight.
        self.output = None if c["tied"] else nn.Linear(c["dim"], c["vocab_size"], bias=False)
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() == 2:
                std = 0.02 / math.sqrt(2 * c["layers"]) if name.endswith(("attn_output.weight", "ffn_down.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, ids):
        T = ids.shape[1]
        cos, sin = rope_tables(T, self.c["dim"] // self.c["heads"], self.c["rope_base"])
        mask = torch.full((T, T), float("-inf")).triu(1)
        x = self.token_embd(ids)
        for block in self.blocks:
            x = block(x, cos, sin, mask)
        x = self.output_norm(x)
        return x @ self.token_embd.weight.T if self.output is None else self.output(x)

    def gguf_tensors(self) -> dict:
        out = {"token_embd.weight": self.token_embd.weight}
        for i, b in enumerate(self.blocks):
            for part in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up",
                         "ffn_down"):
                module = getattr(b, part)
                out[f"blk.{i}.{part}.weight"] = module.weight
                if getattr(module, "bias", None) is not None:
                    out[f"blk.{i}.{part}.bias"] = module.bias
        out["output_norm.weight"] = self.output_norm.weight
        if self.output is not None:
            out["output.weight"] = self.output.weight
        return {k: v.detach().numpy().astype(np.float32) for k, v in out.items()}


def main() -> int:
    arch, prefix = sys.argv[1], Path(sys.argv[2])
    cfg = CONFIGS[arch]
    torch.manual_seed(SEED)
    torch.set_num_threads(THREADS)
    docs = chapters()
    train_docs, held_docs = docs[:-HELD_OUT_CHAPTERS], docs[-HELD_OUT_CHAPTERS:]
    started = time.time()
    tok, tokenizer = train_tokenizer(train_docs, cfg)
    eot = tokenizer["eot"]

    def stream(chosen):
        ids = []
        for enc in tok.encode_batch(chosen, add_special_tokens=False):
            ids += [eot] + enc.ids
        return torch.tensor(ids, dtype=torch.long)

    train_ids, held_ids = stream(train_docs), stream(held_docs)
    counts = np.bincount(train_ids.numpy(), minlength=cfg["vocab_size"]).astype(np.float64)
    p = counts[counts > 0] / counts.sum()
    unigram = float(-(p * np.log(p)).sum())
    print(f"{arch}: {len(train_ids)} training tokens, {len(held_ids)} held out, unigram entropy {unigram:.3f} nats",
          flush=True)

    model = TinyLM(cfg)
    params = sum(p.numel() for p in model.parameters())
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    rest = [p for n, p in model.named_parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": rest, "weight_decay": 0.0}],
                            lr=cfg["lr"], betas=(0.9, 0.95))
    gen = torch.Generator().manual_seed(SEED)
    seq, steps, warmup = cfg["seq"], cfg["steps"], 50
    log = []
    for step in range(steps):
        lr = cfg["lr"] * min(1.0, (step + 1) / warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / steps)))
        for group in opt.param_groups:
            group["lr"] = lr
        starts = torch.randint(0, len(train_ids) - seq - 1, (cfg["batch"],), generator=gen)
        batch = torch.stack([train_ids[s: s + seq + 1] for s in starts.tolist()])
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, cfg["vocab_size"]), batch[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            log.append((step, float(loss)))
            print(f"step {step:4d}  loss {float(loss):.3f}  lr {lr:.2e}  {time.time() - started:.0f} s", flush=True)

    model.eval()
    with torch.no_grad():
        windows = held_ids[: (len(held_ids) - 1) // seq * seq + 1]
        x = windows[:-1].view(-1, seq)
        y = windows[1:].view(-1, seq)
        held = float(F.cross_entropy(model(x).reshape(-1, cfg["vocab_size"]), y.reshape(-1)))
        ids = tok.encode("And God said", add_special_tokens=False).ids
        for _ in range(60):
            ids.append(int(model(torch.tensor([ids[-cfg["context"]:]]))[0, -1].argmax()))
        sample = tok.decode(ids)
    seconds = time.time() - started
    print(f"{arch}: {params} parameters, {seconds:.0f} s, held-out loss {held:.3f} (unigram {unigram:.3f})\n"
          f"greedy sample: {sample!r}", flush=True)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    np.savez(prefix.with_suffix(".npz"), **model.gguf_tensors())
    hparams = {k: cfg[k] for k in ("vocab_size", "dim", "layers", "heads", "kv_heads", "ffn", "context", "rope_base",
                                   "rms_eps", "bias", "neox", "tied", "name")}
    prefix.with_suffix(".json").write_text(json.dumps(dict(
        arch=arch, hparams=hparams, tokenizer=tokenizer, parameters=params, seconds=seconds, log=log,
        held_out_loss=held, unigram_entropy=unigram, sample=sample, seed=SEED, steps=steps, batch=cfg["batch"],
        seq=seq, torch=torch.__version__), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
