"""Pre-norm encoder-decoder Transformer of the vkattn translation demo (contract).

d_model 128, 4 heads of 32, 2 encoder + 2 decoder layers, decoder self-attention
with 2 KV heads (query head h reads KV head h // 2), exact-erf GELU FFN of 256,
LayerNorm eps 1e-5, sinusoidal positions added to unscaled embeddings, max_len 64.
Parameter names match the tensor names of ``en_fr.safetensors``.
"""

import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402
from tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocab, detokenize, tokenize  # noqa: E402

FORMAT = "vkattn-translation-v1"
CONFIG = dict(d_model=128, heads=4, encoder_layers=2, decoder_layers=2,
              encoder_kv_heads=4, decoder_kv_heads=2, cross_kv_heads=4,
              ffn=256, max_len=64, norm_eps=1e-5)


class Linear(nn.Linear):
    """nn.Linear (same parameters, y = x W^T + b). In training mode it runs as a
    1x1 convolution: Debian's torch links the reference BLAS, while convolutions
    go through oneDNN, which makes training many times faster. Evaluation uses
    F.linear, the plain reference."""

    def forward(self, x):
        if not (self.training and torch.backends.mkldnn.is_available() and x.dim() >= 2):
            return F.linear(x, self.weight, self.bias)
        shape = x.shape
        x2 = x.reshape(-1, shape[-1])
        n = x2.shape[0]
        x4 = x2.view(1, n, 1, shape[-1]).permute(0, 3, 1, 2)  # NCHW view, channels-last strides
        y = F.conv2d(x4, self.weight.view(self.out_features, self.in_features, 1, 1), self.bias)
        return y.permute(0, 2, 3, 1).reshape(*shape[:-1], self.out_features)


def sinusoidal_table(max_len, d):
    pe = np.zeros((max_len, d), dtype=np.float64)
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    i2 = np.arange(0, d, 2, dtype=np.float64)[None, :]
    angle = pos / np.power(10000.0, i2 / d)
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)
    return pe.astype(np.float32)


class Attention(nn.Module):
    def __init__(self, d, heads, kv_heads, dropout=0.0):
        super().__init__()
        assert heads % kv_heads == 0
        self.heads, self.kv_heads, self.dh = heads, kv_heads, d // heads
        self.q_proj = Linear(d, heads * self.dh)
        self.k_proj = Linear(d, kv_heads * self.dh)
        self.v_proj = Linear(d, kv_heads * self.dh)
        self.o_proj = Linear(heads * self.dh, d)
        self.dropout = dropout

    def forward(self, x, mem, key_pad=None, causal=False, return_weights=False):
        """x [B, Lq, d], mem [B, Lk, d]; key_pad [B, Lk] bool, True = padding."""
        B, Lq, _ = x.shape
        Lk = mem.shape[1]
        q = self.q_proj(x).view(B, Lq, self.heads, self.dh).transpose(1, 2)
        k = self.k_proj(mem).view(B, Lk, self.kv_heads, self.dh).transpose(1, 2)
        v = self.v_proj(mem).view(B, Lk, self.kv_heads, self.dh).transpose(1, 2)
        group = self.heads // self.kv_heads
        if group > 1:  # query head h uses kv head h // group
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
        s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.dh))
        if key_pad is not None:
            s = s.masked_fill(key_pad[:, None, None, :], float("-inf"))
        if causal:
            m = torch.ones(Lq, Lk, dtype=torch.bool, device=x.device).triu(1)
            s = s.masked_fill(m, float("-inf"))
        p = torch.softmax(s, dim=-1)
        pd = F.dropout(p, self.dropout, self.training) if self.dropout > 0 else p
        o = torch.matmul(pd, v).transpose(1, 2).reshape(B, Lq, self.heads * self.dh)
        o = self.o_proj(o)
        return (o, p) if return_weights else o


class FFN(nn.Module):
    def __init__(self, d, hidden, dropout=0.0):
        super().__init__()
        self.fc1 = Linear(d, hidden)
        self.fc2 = Linear(hidden, d)
        self.dropout = dropout

    def forward(self, x):
        h = F.gelu(self.fc1(x))  # exact erf GELU
        if self.dropout > 0:
            h = F.dropout(h, self.dropout, self.training)
        return self.fc2(h)


class EncoderLayer(nn.Module):
    def __init__(self, c, dropout):
        super().__init__()
        d = c["d_model"]
        self.self_attn = Attention(d, c["heads"], c["encoder_kv_heads"], dropout)
        self.norm1 = nn.LayerNorm(d, eps=c["norm_eps"])
        self.norm2 = nn.LayerNorm(d, eps=c["norm_eps"])
        self.ffn = FFN(d, c["ffn"], dropout)
        self.dropout = dropout

    def forward(self, x, pad):
        h = self.norm1(x)
        x = x + F.dropout(self.self_attn(h, h, key_pad=pad), self.dropout, self.training)
        x = x + F.dropout(self.ffn(self.norm2(x)), self.dropout, self.training)
        return x


class DecoderLayer(nn.Module):
    def __init__(self, c, dropout):
        super().__init__()
        d = c["d_model"]
        self.self_attn = Attention(d, c["heads"], c["decoder_kv_heads"], dropout)
        self.cross_attn = Attention(d, c["heads"], c["cross_kv_heads"], dropout)
        self.norm1 = nn.LayerNorm(d, eps=c["norm_eps"])
        self.norm2 = nn.LayerNorm(d, eps=c["norm_eps"])
        self.norm3 = nn.LayerNorm(d, eps=c["norm_eps"])
        self.ffn = FFN(d, c["ffn"], dropout)
        self.dropout = dropout

    def forward(self, y, mem, src_pad, return_cross=False):
        h = self.norm1(y)
        y = y + F.dropout(self.self_attn(h, h, causal=True), self.dropout, self.training)
        c, w = self.cross_attn(self.norm2(y), mem, key_pad=src_pad, return_weights=True)
        y = y + F.dropout(c, self.dropout, self.training)
        y = y + F.dropout(self.ffn(self.norm3(y)), self.dropout, self.training)
        return (y, w) if return_cross else y


class Encoder(nn.Module):
    def __init__(self, c, dropout):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(c, dropout) for _ in range(c["encoder_layers"])])
        self.norm = nn.LayerNorm(c["d_model"], eps=c["norm_eps"])


class Decoder(nn.Module):
    def __init__(self, c, dropout):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayer(c, dropout) for _ in range(c["decoder_layers"])])
        self.norm = nn.LayerNorm(c["d_model"], eps=c["norm_eps"])


class Translator(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, config=None, dropout=0.0):
        super().__init__()
        c = dict(CONFIG, **(config or {}))
        self.config = c
        d = c["d_model"]
        self.src_embed = nn.Embedding(src_vocab_size, d)
        self.tgt_embed = nn.Embedding(tgt_vocab_size, d)
        self.register_buffer("pos_encoding", torch.from_numpy(sinusoidal_table(c["max_len"], d)))
        self.encoder = Encoder(c, dropout)
        self.decoder = Decoder(c, dropout)
        self.generator = Linear(d, tgt_vocab_size)
        self.dropout = dropout

    def _embed(self, table, ids):
        L = ids.shape[1]
        x = table(ids) + self.pos_encoding[:L][None]
        return F.dropout(x, self.dropout, self.training)

    def encode(self, src):
        pad = src.eq(PAD_ID)
        x = self._embed(self.src_embed, src)
        for layer in self.encoder.layers:
            x = layer(x, pad)
        return self.encoder.norm(x), pad

    def decode(self, tgt_in, mem, src_pad, return_cross=False):
        y = self._embed(self.tgt_embed, tgt_in)
        cross = []
        for layer in self.decoder.layers:
            if return_cross:
                y, w = layer(y, mem, src_pad, return_cross=True)
                cross.append(w)
            else:
                y = layer(y, mem, src_pad)
        logits = self.generator(self.decoder.norm(y))
        return (logits, cross) if return_cross else logits

    def forward(self, src, tgt_in):
        mem, pad = self.encode(src)
        return self.decode(tgt_in, mem, pad)

    # ---- serialisation ---------------------------------------------------
    def metadata(self):
        c = self.config
        return {
            "format": FORMAT, "d_model": c["d_model"], "heads": c["heads"],
            "encoder_layers": c["encoder_layers"], "decoder_layers": c["decoder_layers"],
            "encoder_kv_heads": c["encoder_kv_heads"], "decoder_kv_heads": c["decoder_kv_heads"],
            "cross_kv_heads": c["cross_kv_heads"], "ffn": c["ffn"], "activation": "gelu",
            "norm_eps": "1e-05", "max_len": c["max_len"], "pad_id": PAD_ID,
            "bos_id": BOS_ID, "eos_id": EOS_ID, "unk_id": UNK_ID,
        }

    def tensors(self):
        out = {}
        for name, t in self.state_dict().items():
            out[name] = t.detach().cpu().numpy().astype(np.float32)
        return out


def save_model(model, src_vocab, tgt_vocab, out_dir, stem="en_fr"):
    os.makedirs(out_dir, exist_ok=True)
    safetensors_io.save_file(model.tensors(), os.path.join(out_dir, stem + ".safetensors"),
                             metadata=model.metadata())
    src_vocab.save(os.path.join(out_dir, stem + ".src.txt"))
    tgt_vocab.save(os.path.join(out_dir, stem + ".tgt.txt"))


def load_model(model_dir, stem="en_fr"):
    """Returns (model in eval mode, src_vocab, tgt_vocab) from model_dir."""
    tensors, meta = safetensors_io.load_file(os.path.join(model_dir, stem + ".safetensors"))
    if meta.get("format") != FORMAT:
        raise ValueError("unexpected format %r" % meta.get("format"))
    src_vocab = Vocab.load(os.path.join(model_dir, stem + ".src.txt"))
    tgt_vocab = Vocab.load(os.path.join(model_dir, stem + ".tgt.txt"))
    config = {k: int(meta[k]) for k in ("d_model", "heads", "encoder_layers", "decoder_layers",
                                        "encoder_kv_heads", "decoder_kv_heads", "cross_kv_heads",
                                        "ffn", "max_len")}
    config["norm_eps"] = float(meta["norm_eps"])
    model = Translator(len(src_vocab), len(tgt_vocab), config)
    state = {k: torch.from_numpy(v) for k, v in tensors.items()}
    model.load_state_dict(state, strict=True)
    model.eval()
    return model, src_vocab, tgt_vocab


@torch.no_grad()
def greedy_translate(model, src_vocab, tgt_vocab, sentence, max_tokens=64, return_cross=False):
    """Greedy decoding of one sentence, recomputing the decoder over the whole
    prefix at every step (no cache), as the reference for the C++ runtime.

    Returns dict:
      ids     generated target ids, including the final <eos> when produced
      tokens  target tokens, without <eos>
      text    detokenized tokens
      logits  np.ndarray float32 [len(ids), V_tgt]: row t is the generator
              output for step t (its argmax is ids[t])
      src_tokens / src_ids  the encoder input (src_ids ends with <eos>)
      cross   (if return_cross) np.ndarray [decoder_layers, heads, len(ids), len(src_ids)]:
              cross-attention probabilities of each step
    """
    was_training = model.training
    model.eval()
    max_len = model.config["max_len"]
    src_tokens = tokenize(sentence)
    src_ids = src_vocab.encode(src_tokens)[: max_len - 1] + [EOS_ID]
    src = torch.tensor([src_ids], dtype=torch.long)
    mem, pad = model.encode(src)
    ids, rows = [], []
    cross = None
    limit = min(max_tokens, max_len)
    while len(ids) < limit:
        tgt_in = torch.tensor([[BOS_ID] + ids], dtype=torch.long)
        logits, cw = model.decode(tgt_in, mem, pad, return_cross=True)
        last = logits[0, -1]
        rows.append(last.numpy().astype(np.float32))
        nxt = int(torch.argmax(last).item())
        ids.append(nxt)
        cross = cw
        if nxt == EOS_ID:
            break
    if was_training:
        model.train()
    tokens = tgt_vocab.decode([i for i in ids if i != EOS_ID] if ids and ids[-1] == EOS_ID else ids)
    out = dict(ids=ids, tokens=tokens, text=detokenize(tokens),
               logits=np.stack(rows) if rows else np.zeros((0, len(tgt_vocab)), np.float32),
               src_tokens=src_tokens, src_ids=src_ids)
    if return_cross:
        out["cross"] = np.stack([w[0].numpy() for w in cross]) if cross else None
    return out
