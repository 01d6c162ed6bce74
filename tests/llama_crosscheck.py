#!/usr/bin/env python3
"""The shipped tiny models (assets/models/tiny_llama, tiny_qwen2) against independent references.

For every shipped GGUF file:
1. Round trip. gguf-py (PyPI `gguf`, llama.cpp's own package) reads the file; its metadata (values
   and value types) and its tensors (ggml types, shapes, and values dequantized by
   gguf.quants.dequantize) must equal what vkattn.read_gguf reads, bit for bit. The F16, Q8_0 and
   Q4_0 files must hold exactly the bytes gguf.quants.quantize makes of the F32 file's weights,
   the Q4_K_M file the types of llama.cpp's Q4_K_M mix with every value within half a
   quantization step of the F32 one (k_quant_bound: io's own K-quant encoder, so no bytes to
   compare with gguf-py's); every tensor must have the shape llama.cpp loads, and every file the
   F32 file's metadata but for general.file_type / general.quantization_version. Then
   gguf.GGUFWriter writes the same metadata and tensor bytes to a new file, and vkattn.read_gguf
   must read that back identically too.
2. Tokenizer. A PyPI `tokenizers` BPE built from the file's own vocabulary and merges (with the
   pre-tokenizer its tokenizer.ggml.pre names) and vkattn's tokenizer (tokenizers/tests/tokenizer_probe.cpp)
   must give the same ids and decoded text for every text, control tokens parsed and not.
3. Forward pass. A float64 NumPy LLaMA / Qwen2 forward written from the published definitions
   (forward_reference below) on the file's dequantized weights gives the logits of a fixed prompt.
   PyPI `transformers` (LlamaForCausalLM / Qwen2ForCausalLM in float64, eager attention) holding
   the same weights must agree: max |logit difference| <= 1e-4 (transformers computes the RoPE
   angles in float32, which bounds the agreement). For arch llama the q/k rows are permuted from
   GGUF's adjacent-pair rope layout to HF's rotate-half layout on the way in. A file without
   output.weight (the qwen2 model) ties the output projection to token_embd.weight.
4. vkattn.Model(path).logits(ids) (float32 on the device) against the NumPy float64 logits of the
   same file's dequantized weights: max |difference| <= 2e-5 * max |logit|, for every weight type
   (a quantized file's blocks decode to the same values on the device as in gguf-py, and fp32
   accumulation over widths of a few hundred, through two layers, stays far inside this), and
   the same argmax at the last position. vkattn.Model.tokenize(prompt) must give the prompt's ids
   (bos first, as tokenizer.ggml.add_bos_token says), and generate(prompt, temperature=0) the
   NumPy reference's greedy continuation (8 tokens, or up to a near tie); the copy gguf-py wrote
   (step 1) must give the same logits. Skipped, with the reason printed, when the vkattn module has
   no Model class (a build without PCRE2).
5. Gemma 2 (random_gemma2_checks): a random-weight model of Gemma 2's head shape written by
   llama_cpp_crosscheck's writer; the NumPy logits against transformers' Gemma2ForCausalLM
   (RMSNorm in float64, GGUF's stored 1 + weight undone) within 1e-4, and against vkattn's
   within 2e-5 * max |logit|, over a sequence three windows long. (The pinned transformers has
   no Qwen3 or Gemma 3 class; llama.cpp checks those, tests/llama_cpp_crosscheck.py.)

usage: llama_crosscheck.py TOKENIZER_PROBE MODELS_DIR WORKDIR
gguf, transformers and tokenizers (the versions pinned below; raise them on purpose) are
installed from PyPI into llama-venv beside WORKDIR, a venv that sees the system's NumPy and
torch, unless the running interpreter already has them. Exits 77 (ctest's skip) when PyPI cannot
be reached, except under CI=true, where that is a failure. The vkattn module must be importable
(PYTHONPATH).
"""
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pinned_packages  # noqa: E402

PINS = {"gguf": pinned_packages.GGUF_VERSION, "transformers": "4.44.2", "tokenizers": "0.19.1"}
PROMPT = "In the beginning God created the heaven and the earth. And the LORD said unto Moses,"
HF_TOLERANCE = 1e-4
VKATTN_TOLERANCE = 2e-5  # relative to max |logit|
GREEDY_STEPS = 8
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
               r"|\s*[\r\n]+|\s+(?!\S)|\s+")


# --- the reference forward pass --------------------------------------------------------------------
def rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rope(x, base, neox):
    """x [T, heads, head_dim], position t = row t. Pair j (j < head_dim/2) turns by t * base^(-2j/head_dim):
    the pair (2j, 2j+1) in ggml's NORM mode (arch llama), (j, j + head_dim/2) in NEOX mode (qwen2)."""
    T, _, d = x.shape
    angle = np.arange(T, dtype=np.float64)[:, None] * base ** (-np.arange(0, d, 2, dtype=np.float64) / d)[None, :]
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    a, b = (x[..., : d // 2], x[..., d // 2:]) if neox else (x[..., 0::2], x[..., 1::2])
    ra, rb = a * cos - b * sin, a * sin + b * cos
    out = np.empty_like(x)
    if neox:
        out[..., : d // 2], out[..., d // 2:] = ra, rb
    else:
        out[..., 0::2], out[..., 1::2] = ra, rb
    return out


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def softcap(x, cap):
    return cap * np.tanh(x / cap) if cap else x


def forward_reference(w, hp, ids):
    """Logits [T, vocab] in float64, from the published definitions: LLaMA (Touvron et al. 2023)
    with grouped-query attention; Qwen2 (q/k/v biases, NEOX rope); Qwen3 (RMSNorm of each q and k
    head before rope, when attn_q_norm is there); Gemma 2 (Gemma Team 2024: embeddings times
    sqrt(width), a tanh-GELU gate, RMSNorm after attention and after the feed-forward where
    post_attention_norm / post_ffw_norm are there, softcapped attention and final logits, layers
    sliding over a window of positions) and Gemma 3 (its sliding layers rotated with a base of
    their own). hp as hyper_parameters gives it."""
    H, KV, L, eps, hd = hp["heads"], hp["kv_heads"], hp["layers"], hp["eps"], hp["head_dim"]
    x = w["token_embd.weight"][ids].astype(np.float64) * hp["embedding_scale"]
    T = len(ids)
    position = np.arange(T)
    behind = position[:, None] - position[None, :]  # query row - key column

    def linear(name, inp):
        out = inp @ w[name + ".weight"].T
        return out + w[name + ".bias"] if name + ".bias" in w else out

    def head_norm(name, t):
        return rms_norm(t, w[name], eps) if name in w else t

    def post_norm(name, t):
        return rms_norm(t, w[name], eps) if name in w else t

    for i in range(L):
        p = f"blk.{i}."
        sliding = hp["window"] > 0 and i % hp["pattern"] < hp["pattern"] - 1
        base = hp["sliding_base"] if sliding and hp["sliding_base"] else hp["base"]
        mask = np.where((behind >= 0) & ((behind < hp["window"]) if sliding else True), 0.0, -np.inf)
        n = rms_norm(x, w[p + "attn_norm.weight"], eps)
        q = rope(head_norm(p + "attn_q_norm.weight", linear(p + "attn_q", n).reshape(T, H, hd)), base, hp["neox"])
        k = rope(head_norm(p + "attn_k_norm.weight", linear(p + "attn_k", n).reshape(T, KV, hd)), base, hp["neox"])
        v = linear(p + "attn_v", n).reshape(T, KV, hd)
        heads = []
        for h in range(H):
            g = h // (H // KV)
            s = softcap(q[:, h] @ k[:, g].T * hp["query_scale"], hp["attention_softcap"]) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            heads.append((s / s.sum(-1, keepdims=True)) @ v[:, g])
        x = x + post_norm(p + "post_attention_norm.weight", linear(p + "attn_output", np.concatenate(heads, axis=-1)))
        n = rms_norm(x, w[p + "ffn_norm.weight"], eps)
        gate = linear(p + "ffn_gate", n)
        gate = gelu_tanh(gate) if hp["geglu"] else gate / (1 + np.exp(-gate))
        x = x + post_norm(p + "post_ffw_norm.weight", linear(p + "ffn_down", gate * linear(p + "ffn_up", n)))
    # Without output.weight the output projection is tied to the embedding.
    out = w.get("output.weight", w["token_embd.weight"])
    return softcap(rms_norm(x, w["output_norm.weight"], eps) @ out.T, hp["final_softcap"])


# --- transformers ------------------------------------------------------------------------------------
def greedy_reference(w, hp, ids, steps, eos):
    """The argmax continuation, stopped early before a near tie (top two within 1e-3), which
    float32 arithmetic may break either way."""
    seq, out = list(ids), []
    for _ in range(steps):
        last = forward_reference(w, hp, seq)[-1]
        second, first = np.sort(last)[-2:]
        if first - second < 1e-3:
            break
        out.append(int(last.argmax()))
        seq.append(out[-1])
        if out[-1] == eos:
            break
    return out


def adjacent_to_rotate_half(weight, heads):
    """GGUF llama q/k rows: per head, pair j is rows (2j, 2j+1); HF's: rows (j, j + head_dim/2)."""
    rows, cols = weight.shape
    hd = rows // heads
    return weight.reshape(heads, hd // 2, 2, cols).transpose(0, 2, 1, 3).reshape(rows, cols)


def transformers_logits(arch, w, hp, ids):
    """Logits of transformers' own model class (float64, eager attention) holding w, GGUF's tensors
    under llama.cpp's names, renamed and re-laid-out as transformers keeps them."""
    import torch
    import transformers
    common = dict(vocab_size=hp["vocab"], hidden_size=hp["dim"], intermediate_size=hp["ffn"],
                  num_hidden_layers=hp["layers"], num_attention_heads=hp["heads"], num_key_value_heads=hp["kv_heads"],
                  max_position_embeddings=hp["context"], rms_norm_eps=hp["eps"], rope_theta=hp["base"],
                  tie_word_embeddings="output.weight" not in w)
    parts = {"attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm", "attn_q": "self_attn.q_proj",
             "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj",
             "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj"}
    norm_offset = 0.0
    if arch == "llama":
        config, model_class = transformers.LlamaConfig(**common, attention_bias=False), transformers.LlamaForCausalLM
    elif arch == "qwen2":
        config, model_class = transformers.Qwen2Config(**common, use_sliding_window=False), transformers.Qwen2ForCausalLM
    elif arch == "gemma2":
        config = transformers.Gemma2Config(**common, head_dim=hp["head_dim"], hidden_activation="gelu_pytorch_tanh",
                                           query_pre_attn_scalar=hp["query_scale"] ** -2,
                                           attn_logit_softcapping=hp["attention_softcap"],
                                           final_logit_softcapping=hp["final_softcap"], sliding_window=hp["window"])
        model_class = transformers.Gemma2ForCausalLM
        parts.update(post_attention_norm="post_attention_layernorm", ffn_norm="pre_feedforward_layernorm",
                     post_ffw_norm="post_feedforward_layernorm")
        # Gemma's RMSNorm scales by 1 + weight; llama.cpp's converter stores 1 + weight in GGUF.
        norm_offset = 1.0
        # Gemma2RMSNorm computes in float32 whatever the model's dtype; in the model's dtype here, so
        # that the comparison measures the definitions, not float32 rounding.
        module = sys.modules[model_class.__module__]

        def norm_in_model_dtype(self, x):
            return self._norm(x) * (1.0 + self.weight)
        module.Gemma2RMSNorm.forward = norm_in_model_dtype
    else:
        raise ValueError(f"no transformers class for {arch}")
    config._attn_implementation = "eager"
    is_norm = lambda name: name.endswith("norm.weight")  # noqa: E731
    sd = {"model.embed_tokens.weight": w["token_embd.weight"],
          "model.norm.weight": w["output_norm.weight"] - norm_offset,
          "lm_head.weight": w.get("output.weight", w["token_embd.weight"])}
    for i in range(hp["layers"]):
        for ours, theirs in parts.items():
            for suffix in ("weight", "bias"):
                name = f"blk.{i}.{ours}.{suffix}"
                if name not in w:
                    continue
                value = w[name] - norm_offset if is_norm(name) else w[name]
                if arch == "llama" and ours in ("attn_q", "attn_k"):
                    value = adjacent_to_rotate_half(value, hp["heads"] if ours == "attn_q" else hp["kv_heads"])
                sd[f"model.layers.{i}.{theirs}.{suffix}"] = value
    torch.manual_seed(0)
    model = model_class(config).double().eval()
    model.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in sd.items()}, strict=True)
    with torch.no_grad():
        return model(torch.tensor([ids]), use_cache=False).logits[0].numpy()


# --- the checks --------------------------------------------------------------------------------------
def k_quant_bound(source, ttype):
    """Half a quantization step per super-block of 256, the bound io's K-quant encoder keeps (its
    scales and mins rounded outward to their 6-bit / 8-bit steps, so nothing is clipped):
    Q4_K (1 + 1/63)^2 R / 30 with R = max(0, max x) - min(0, min x); Q6_K (1 + 1/127) max|x| / 62;
    plus 2^-24 (f16's smallest step) and a relative slack of 1e-5 for float rounding."""
    blocks = source.reshape(-1, 256).astype(np.float64)
    if ttype == "Q6_K":
        step = (1 + 1 / 127) * np.abs(blocks).max(axis=1) / 62
    else:
        span = np.maximum(0, blocks.max(axis=1)) - np.minimum(0, blocks.min(axis=1))
        step = (1 + 1 / 63) ** 2 * span / 30
    return ((step + 2.0 ** -24) * (1 + 1e-5))[:, None]


def gguf_py_read(path):
    """(metadata {key: (value, type name)}, tensors {name: (ggml type name, numpy shape, float32 values, raw bytes)})."""
    from gguf import GGUFReader, GGUFValueType
    from gguf.quants import dequantize
    reader = GGUFReader(path)
    meta = {}
    for key, field in reader.fields.items():
        if key.startswith("GGUF."):
            continue
        kind = field.types[0].name
        if field.types[0] == GGUFValueType.ARRAY:
            kind = f"ARRAY[{field.types[-1].name}]"
        meta[key] = (field.contents(), kind)
    tensors = {}
    for t in reader.tensors:
        shape = tuple(int(n) for n in reversed(t.shape))
        values = dequantize(t.data, t.tensor_type).reshape(shape).astype(np.float32)
        tensors[t.name] = (t.tensor_type.name, shape, values, np.array(t.data))
    return meta, tensors


def hyper_parameters(meta):
    """(arch, hp): the hyper-parameters under llama.cpp's keys, with llama.cpp's defaults (Gemma's
    from llama-model.cpp: softcaps 50 and 30 and window 4096 for Gemma 2; Gemma 3's window and
    final softcap only when given; the 27B models' query scale 1/sqrt(width/heads))."""
    arch = meta["general.architecture"][0]
    get = lambda key, default=None: meta[f"{arch}.{key}"][0] if f"{arch}.{key}" in meta else default  # noqa: E731
    dim, heads, layers = get("embedding_length"), get("attention.head_count"), get("block_count")
    head_dim = get("attention.key_length", dim // heads)
    gemma2, gemma = arch == "gemma2", arch in ("gemma2", "gemma3")
    is_27b = gemma and layers == (46 if gemma2 else 62)
    return arch, dict(vocab=get("vocab_size", len(meta["tokenizer.ggml.tokens"][0])), dim=dim, layers=layers,
                      ffn=get("feed_forward_length"), heads=heads, kv_heads=get("attention.head_count_kv", heads),
                      head_dim=head_dim, context=get("context_length"), eps=get("attention.layer_norm_rms_epsilon"),
                      base=get("rope.freq_base", 10000.0), neox=arch != "llama", geglu=gemma,
                      embedding_scale=np.sqrt(dim) if gemma else 1.0,
                      query_scale=1 / np.sqrt(dim // heads if is_27b else head_dim),
                      attention_softcap=get("attn_logit_softcapping", 50.0) if gemma2 else 0.0,
                      final_softcap=get("final_logit_softcapping", 30.0 if gemma2 else 0.0) if gemma else 0.0,
                      window=get("attention.sliding_window", 4096 if gemma2 else 0) if gemma else 0,
                      pattern=2 if gemma2 else 6, sliding_base=10000.0 if arch == "gemma3" else 0.0)


def expected_shapes(hp):
    """Tensor shapes outermost first (GGUF lists them innermost first: ne[0] = columns), as llama.cpp loads them."""
    D, q, kv, F = hp["dim"], hp["dim"], hp["dim"] // hp["heads"] * hp["kv_heads"], hp["ffn"]
    shapes = {"token_embd.weight": (hp["vocab"], D), "output_norm.weight": (D,), "output.weight": (hp["vocab"], D)}
    for i in range(hp["layers"]):
        for name, shape in {"attn_norm.weight": (D,), "attn_q.weight": (q, D), "attn_k.weight": (kv, D),
                            "attn_v.weight": (kv, D), "attn_output.weight": (D, q), "ffn_norm.weight": (D,),
                            "ffn_gate.weight": (F, D), "ffn_up.weight": (F, D), "ffn_down.weight": (D, F),
                            "attn_q.bias": (q,), "attn_k.bias": (kv,), "attn_v.bias": (kv,)}.items():
            shapes[f"blk.{i}.{name}"] = shape
    return shapes


def hf_tokenizer(meta):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    tokens, types = meta["tokenizer.ggml.tokens"][0], meta["tokenizer.ggml.token_type"][0]
    merges = [tuple(m.split(" ")) for m in meta["tokenizer.ggml.merges"][0]]
    tok = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
    pre = meta["tokenizer.ggml.pre"][0]
    if pre == "gpt-2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    elif pre == "qwen2":
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(QWEN2_SPLIT), "isolated"),
                                                     pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    else:
        raise SystemExit(f"no HF pre-tokenizer set up here for {pre!r}")
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([t for t, kind in zip(tokens, types) if kind == 3])
    return tok


def texts_to_encode():
    import random
    import tokenizer_texts as texts
    rng = random.Random(7)
    verses = ["In the beginning God created the heaven and the earth.",
              "And God said, Let there be light: and there was light.",
              "For God so loved the world, that he gave his only begotten Son,",
              "The LORD is my shepherd; I shall not want.",
              "Jesus wept.\nAnd the Jews said, Behold how he loved him!",
              "<|endoftext|>And it came to pass<|endoftext|>",
              "unto thee, O LORD, do I lift up my soul.  O my God, I trust in thee:"]
    words = " ".join(verses + texts.TEXTS).split()
    phrases = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 14))) for _ in range(120)]
    return verses + texts.TEXTS + phrases + texts.random_texts(200)


def random_gemma2_checks(work, check):
    """5. Gemma 2, which no shipped model has: a random-weight model of Gemma 2's head shape, written
    with gguf-py under llama.cpp's keys (llama_cpp_crosscheck's writer, sliding window 16), its
    NumPy float64 logits against transformers' Gemma2ForCausalLM and against vkattn's, over a
    sequence reaching past the window; reading the window as absent must change them (so the
    check sees the sliding layers). Returns the line to print."""
    import gguf
    import vkattn
    import llama_cpp_crosscheck as lc
    path = work / "random-gemma2-f32.gguf"
    vocab = lc.sentencepiece_vocabulary(True, " ".join(lc.TEXTS))
    lc.write_model(gguf, path, "gemma2", lc.ARCHS["gemma2"], vocab, "F32", seed=2)
    meta, tensors = gguf_py_read(path)
    arch, hp = hyper_parameters(meta)
    w = {name: values.astype(np.float64) for name, (_, _, values, _) in tensors.items()}
    first_piece = vocab["kinds"].index(1)  # past the control and byte tokens
    ids = [vocab["bos"]] + [int(i) for i in np.random.default_rng(5).integers(first_piece, hp["vocab"], 3 * hp["window"])]
    ref = forward_reference(w, hp, ids)
    hf = transformers_logits(arch, w, hp, ids)
    err = float(np.abs(ref - hf).max())
    check(err <= HF_TOLERANCE, f"random gemma2: NumPy vs transformers max |diff| {err:.3e} > {HF_TOLERANCE}")
    unwindowed = float(np.abs(forward_reference(w, dict(hp, window=0), ids) - ref).max())
    check(unwindowed > 100 * HF_TOLERANCE, f"random gemma2: the window changes the logits by only {unwindowed:.3e}")
    line = (f"random gemma2 (window {hp['window']}, softcaps {hp['attention_softcap']:g}/{hp['final_softcap']:g}): "
            f"{len(ids)} tokens, NumPy vs transformers Gemma2 max |diff| {err:.2e} (without the window: {unwindowed:.2e})")
    if hasattr(vkattn, "Model"):
        logits = np.asarray(vkattn.Model(str(path)).logits(ids), dtype=np.float64)
        limit = VKATTN_TOLERANCE * float(np.abs(ref).max())
        verr = float(np.abs(logits - ref).max())
        check(verr <= limit, f"random gemma2: vkattn vs NumPy max |diff| {verr:.3e} > {limit:.3e}")
        line += f", vkattn vs NumPy max |diff| {verr:.2e} (limit {limit:.2e})"
    return line


def main() -> int:
    probe, models, work = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    pinned_packages.ensure(__file__, PINS, work.parent / "llama-venv")
    import gguf
    import vkattn
    started = time.time()
    failures, skipped = [], []
    files = sorted(models.glob("tiny_*/*.gguf"))
    if not files:
        raise SystemExit(f"no tiny_*/*.gguf under {models}")
    texts = texts_to_encode()
    texts_path = work / "texts.json"
    texts_path.write_text(json.dumps(texts))

    def check(ok, message):
        if not ok:
            failures.append(message)
        return ok

    def same_tensors(label, theirs, ours):
        check(list(theirs) == list(ours["tensors"]), f"{label}: tensor names/order differ")
        for name, (kind, shape, values, _) in theirs.items():
            if name not in ours["tensors"]:
                continue
            mine = ours["tensors"][name]
            check(ours["tensor_types"][name] == kind, f"{label} {name}: type {ours['tensor_types'][name]} vs {kind}")
            check(mine.shape == shape, f"{label} {name}: shape {mine.shape} vs {shape}")
            if mine.shape == shape:
                differ = int(np.count_nonzero(mine.view(np.uint32) != values.view(np.uint32)))
                check(differ == 0, f"{label} {name}: {differ} dequantized floats differ from gguf-py's")

    def same_metadata(label, theirs, ours):
        mine = {k: (ours["metadata"][k], ours["metadata_types"][k]) for k in ours["metadata"]}
        check(list(theirs) == list(mine), f"{label}: keys {list(theirs)} vs {list(mine)}")
        for key, value in theirs.items():
            check(mine.get(key) == value, f"{label} {key}: vkattn {str(mine.get(key))[:80]} vs gguf-py {str(value)[:80]}")

    by_model = {}
    for path in files:
        by_model.setdefault(path.parent.name, []).append(path)
    for model, paths in by_model.items():
        f32 = next(p for p in paths if p.name.endswith("-f32.gguf"))
        f32_meta, f32_tensors = gguf_py_read(f32)
        arch, hp = hyper_parameters(f32_meta)
        bos = f32_meta["tokenizer.ggml.bos_token_id"][0]
        tok = hf_tokenizer(f32_meta)
        ids = [bos] + tok.encode(PROMPT, add_special_tokens=False).ids

        # 2. tokenizer agreement, on the shipped vocabulary
        for parse_special in (True, False):
            out = work / f"{model}.{parse_special}.json"
            run = subprocess.run([str(probe), *(["--parse-special"] if parse_special else []), str(f32), str(texts_path),
                                  str(out)], capture_output=True, text=True)
            if not check(run.returncode == 0, f"tokenizer_probe {f32.name}: {run.stderr}"):
                continue
            tok.encode_special_tokens = not parse_special
            bad = 0
            for text, got in zip(texts, json.loads(out.read_text())):
                theirs = tok.encode(text, add_special_tokens=False).ids
                if got["ids"] != theirs or got["decoded"] != tok.decode(theirs, skip_special_tokens=not parse_special):
                    bad += 1
                    if bad <= 3:
                        failures.append(f"{model} tokenizer: {text!r}: vkattn {got['ids']} theirs {theirs}")
            tok.encode_special_tokens = False
            print(f"{model}: tokenizer, control tokens {'parsed' if parse_special else 'as text'}: "
                  f"{len(texts) - bad} of {len(texts)} texts identical")

        for path in paths:
            label = path.name
            meta, tensors = gguf_py_read(path)
            ours = vkattn.read_gguf(str(path))
            # 1. round trip, both directions
            same_metadata(label, meta, ours)
            same_tensors(label, tensors, ours)
            kind = path.stem.rsplit("-", 1)[1].upper()
            expected_meta = {k: v for k, v in f32_meta.items() if k not in ("general.file_type",)}
            got_meta = {k: v for k, v in meta.items() if k not in ("general.file_type", "general.quantization_version")}
            check(got_meta == expected_meta, f"{label}: metadata differs from the F32 file's")
            shapes = expected_shapes(hp)
            worst_k = 0.0
            for name, (ttype, shape, values, raw) in tensors.items():
                check(shapes.get(name) == shape, f"{label} {name}: shape {shape}, llama.cpp expects {shapes.get(name)}")
                source = f32_tensors[name][2]
                if len(shape) == 1 or kind == "F32":
                    check(ttype == "F32" and np.array_equal(values, source), f"{label} {name}: not the F32 values")
                elif kind in ("F16", "Q8_0", "Q4_0"):
                    expected = gguf.quants.quantize(source, gguf.GGMLQuantizationType[kind])
                    check(ttype == kind and np.array_equal(raw.view(np.uint8).reshape(-1),
                                                           expected.view(np.uint8).reshape(-1)),
                          f"{label} {name}: bytes differ from gguf.quants.quantize({kind})")
                else:  # Q4_K_M
                    layer = int(name.split(".")[1]) if name.startswith("blk.") else -1
                    n = hp["layers"]
                    more = layer >= 0 and (layer < n // 8 or layer >= 7 * n // 8 or (layer - n // 8) % 3 == 2)
                    want = "Q6_K" if name == "output.weight" or (
                        more and name.endswith((".attn_v.weight", ".ffn_down.weight"))) else "Q4_K"
                    ratio = float((np.abs(values - source).reshape(-1, 256) / k_quant_bound(source, ttype)).max())
                    worst_k = max(worst_k, ratio)
                    check(ttype == want and ratio <= 1.0,
                          f"{label} {name}: {ttype} (want {want}), worst error {ratio:.3f} x the half-step bound")
            rewritten = work / ("gguf_py_" + path.name)
            writer = gguf.GGUFWriter(rewritten, arch=arch)
            for key, (value, vtype) in meta.items():
                if key == "general.architecture":  # the writer's constructor wrote it first
                    continue
                if vtype.startswith("ARRAY["):
                    writer.add_key_value(key, value, gguf.GGUFValueType.ARRAY, gguf.GGUFValueType[vtype[6:-1]])
                else:
                    writer.add_key_value(key, value, gguf.GGUFValueType[vtype])
            for name, (ttype, shape, values, raw) in tensors.items():
                writer.add_tensor(name, raw, raw_dtype=gguf.GGMLQuantizationType[ttype])
            writer.write_header_to_file()
            writer.write_kv_data_to_file()
            writer.write_tensors_to_file()
            writer.close()
            back = vkattn.read_gguf(str(rewritten))
            same_metadata("gguf-py's " + label, meta, back)
            same_tensors("gguf-py's " + label, tensors, back)

            # 3. the NumPy reference against transformers, on this file's weights
            w = {name: values.astype(np.float64) for name, (_, _, values, _) in tensors.items()}
            ref = forward_reference(w, hp, ids)
            hf = transformers_logits(arch, w, hp, ids)
            err = float(np.abs(ref - hf).max())
            check(err <= HF_TOLERANCE, f"{label}: NumPy vs transformers max |diff| {err:.3e} > {HF_TOLERANCE}")
            line = f"{label}: {len(ids)} tokens, NumPy vs transformers {arch} max |diff| {err:.2e}"
            if worst_k:
                line += f", K-quant worst error {worst_k:.3f} x its bound"

            # 4. vkattn's own forward pass
            if hasattr(vkattn, "Model"):
                model = vkattn.Model(str(path))
                logits = np.asarray(model.logits(ids), dtype=np.float64)
                scale = float(np.abs(ref).max())
                limit = VKATTN_TOLERANCE * scale
                if check(logits.shape == ref.shape, f"{label}: vkattn logits shape {logits.shape} vs {ref.shape}"):
                    verr = float(np.abs(logits - ref).max())
                    check(verr <= limit, f"{label}: vkattn vs NumPy max |diff| {verr:.3e} > {limit:.3e}")
                    check(int(logits[-1].argmax()) == int(ref[-1].argmax()), f"{label}: vkattn's last argmax differs")
                    line += f", vkattn vs NumPy max |diff| {verr:.2e} (limit {limit:.2e})"
                got_ids = list(model.tokenize(PROMPT))
                check(got_ids == ids, f"{label}: vkattn.Model.tokenize gives {got_ids[:8]}..., expected {ids[:8]}...")
                want = greedy_reference(w, hp, ids, GREEDY_STEPS, f32_meta["tokenizer.ggml.eos_token_id"][0])
                got = list(model.generate(PROMPT, max_tokens=GREEDY_STEPS, temperature=0.0).ids)[: len(want)]
                check(got == want, f"{label}: vkattn greedy ids {got}, NumPy's {want}")
                line += f", greedy {len(want)} tokens"
                # The file gguf-py wrote (llama.cpp's writer) runs as the one vkattn wrote.
                again = np.asarray(vkattn.Model(str(rewritten)).logits(ids), dtype=np.float64)
                check(np.array_equal(again, logits), f"{label}: gguf-py's copy gives other logits")
                line += ", gguf-py's copy runs alike"
            else:
                skipped.append(label)
            print(line, flush=True)

    print(random_gemma2_checks(work, check), flush=True)
    if skipped:
        print(f"SKIPPED vkattn.Model logits for {len(skipped)} files: this vkattn module has no Model class yet")
    for f in failures:
        print("FAIL", f)
    print(f"llama_crosscheck: {len(files)} files, transformers {PINS['transformers']}, gguf {PINS['gguf']}, "
          f"{time.time() - started:.0f} s: {'all agree' if not failures else f'{len(failures)} failures'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
