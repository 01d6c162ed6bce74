#!/usr/bin/env python3
"""Prompt and decode tokens/s of vkattn beside llama.cpp on one driver: Mesa 26's lavapipe in the
Debian sid root (tools/drivers/mesa26_root.sh), where vkattn's CLI (`vkattn generate --ignore-eos`) and
llama.cpp's Vulkan backend (`llama-bench -dev Vulkan0 -ngl 99`) run on the same Vulkan device, and
llama.cpp's CPU backend (`-dev none -ngl 0`) beside them. Run by tools/peers/llama_cpp_speed.sh.

Models: the shipped tiny LLaMA (F32 and Q4_K_M) and tiny Qwen2 (F32 and Q8_0), and a
random-weight model of SmolLM-135M's shape (width 576, 9 heads sharing 3 key/value heads of 64,
feed-forward 1536, vocabulary 49152; 4 of its 30 layers, untied output) written with gguf-py in
F32 and Q4_0. For each: a prompt of the King
James text (its token count as vkattn's tokenizer makes it, P; cut to whole words where the
model's context would not hold it and 64 more), then 64 greedy tokens. vkattn runs
the prompt as one batch and each token as one step; llama-bench measures prompt processing of P
tokens from an empty context and 64 generated tokens after P (`-d P`), 3 repetitions after a
warm-up; vkattn, likewise, runs the prompt and 4 tokens once before its timed run (`--warmup`).
A first vkattn run writes its logits, which are checked against the float64 reference
(tests/llama_crosscheck.py's forward_reference on the file's dequantized weights, max |difference|
<= 1e-3 * max |logit| at the prompt's last position) before anything is timed. Prints a Markdown
table.

usage: llama_cpp_speed.py SID_ROOT BUILD_DIR
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import pinned_packages  # noqa: E402

NEW_TOKENS = 64
REPETITIONS = 3
LOGIT_TOLERANCE = 1e-3
SMOLLM = dict(dim=576, ffn=1536, heads=9, kv_heads=3, head_dim=64, layers=4, base=10000.0)
SMOLLM_VOCAB = 49152
PROMPT = ("In the beginning God created the heaven and the earth. And the earth was without form, and void; "
          "and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters. "
          "And God said, Let there be light: and there was light. And God saw the light, that it was good: and "
          "God divided the light from the darkness. And God called the light Day, and the darkness he called "
          "Night. And the evening and the morning were the first day.")


def in_root(build: Path, *command, env=()) -> subprocess.CompletedProcess:
    """A command inside the sid root (tools/drivers/run_on_mesa26.sh: /proc, /sys, /dev and the repository
    bind-mounted), validation off: this measures speed."""
    out = subprocess.run([str(REPO / "tools/drivers/run_on_mesa26.sh"), str(build), "/usr/bin/env", *env, *map(str, command)],
                         capture_output=True, text=True, env=dict(os.environ, VKATTN_VALIDATION="0"), timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({out.returncode}): {out.stderr[-1500:]}")
    return out


def prompt_for(model: Path) -> str:
    """The longest opening of PROMPT, in whole words, that leaves the model's context room for
    NEW_TOKENS more (the tiny Qwen2 was trained on 128 positions)."""
    import vkattn
    m = vkattn.Model(str(model))
    room = m.config["context_length"] - NEW_TOKENS - 1
    words = PROMPT.split(" ")
    while len(m.tokenize(" ".join(words))) > room:
        words.pop()
    return " ".join(words)


def vkattn_generate(build: Path, model: Path, prompt: str, logits: Path = None) -> tuple:
    """(prompt tokens, prompt tokens/s, decode tokens/s) from `vkattn generate`'s report."""
    extra = ["--logits", logits] if logits else []
    out = in_root(build, build / "vkattn", "generate", model, prompt, "--max-tokens", NEW_TOKENS, "--ignore-eos",
                  "--warmup", *extra)
    prompt = re.search(r"prompt:\s+(\d+) tokens, ([\d.]+) tokens/s", out.stderr)
    decode = re.search(r"generation:\s+(\d+) tokens, ([\d.]+) tokens/s", out.stderr)
    if not prompt or not decode or int(decode.group(1)) != NEW_TOKENS:
        raise RuntimeError(f"vkattn generate printed no rates for {NEW_TOKENS} tokens: {out.stderr[-800:]}")
    return int(prompt.group(1)), float(prompt.group(2)), float(decode.group(2))


def llama_bench(build: Path, model: Path, prompt_tokens: int, vulkan: bool) -> tuple:
    """(prompt tokens/s, decode tokens/s) from llama-bench's JSON, each the mean of its repetitions."""
    device = ["-dev", "Vulkan0", "-ngl", "99"] if vulkan else ["-dev", "none", "-ngl", "0"]
    # llama.cpp's Vulkan backend passes over CPU devices (lavapipe) unless they are named.
    out = in_root(build, "llama-bench", "-m", model, "-p", prompt_tokens, "-n", NEW_TOKENS,
                  "-d", f"0,{prompt_tokens}", "-r", REPETITIONS, "-t", "2", "-o", "json", *device,
                  env=["GGML_VK_VISIBLE_DEVICES=0"])
    runs = json.loads(out.stdout)
    prompt = next(r["avg_ts"] for r in runs if r["n_prompt"] == prompt_tokens and r["n_gen"] == 0 and r["n_depth"] == 0)
    decode = next(r["avg_ts"] for r in runs if r["n_gen"] == NEW_TOKENS and r["n_depth"] == prompt_tokens)
    return prompt, decode


def check_logits(path: Path, prompt: str, logits_file: Path) -> float:
    """vkattn's logits at the prompt's last position against the float64 reference; the worst
    difference as a fraction of the largest |logit|."""
    import vkattn
    from llama_crosscheck import forward_reference, gguf_py_read, hyper_parameters
    meta, tensors = gguf_py_read(path)
    _, hp = hyper_parameters(meta)
    w = {name: values.astype(np.float64) for name, (_, _, values, _) in tensors.items()}
    ids = list(vkattn.Model(str(path)).tokenize(prompt))
    want = forward_reference(w, hp, ids)[-1]
    got = np.load(logits_file)[0].astype(np.float64)
    error = float(np.abs(got - want).max() / np.abs(want).max())
    if error > LOGIT_TOLERANCE:
        raise RuntimeError(f"{path.name}: vkattn's logits differ from the float64 reference by {error:.2e}")
    return error


def smollm_shaped(gguf, work: Path) -> list:
    """The random-weight SmolLM-shaped model in F32 and Q4_0 (llama_cpp_crosscheck's writer, its
    SentencePiece vocabulary padded with word pieces to SmolLM's 49152)."""
    import llama_cpp_crosscheck as lc
    vocab = lc.sentencepiece_vocabulary(False, PROMPT + " " + " ".join(lc.TEXTS))
    known = set(vocab["tokens"])
    pad = [f"\u2581w{i}" for i in range(SMOLLM_VOCAB) if f"\u2581w{i}" not in known][: SMOLLM_VOCAB - len(vocab["tokens"])]
    vocab["tokens"] = vocab["tokens"] + pad
    vocab["scores"] = vocab["scores"] + [-1e4] * len(pad)
    vocab["kinds"] = vocab["kinds"] + [1] * len(pad)
    paths = []
    for kind in ("F32", "Q4_0"):
        path = work / f"smollm-shape-{kind.lower()}.gguf"
        if not path.exists():
            lc.write_model(gguf, path, "llama", SMOLLM, vocab, kind, seed=7)
        paths.append((f"SmolLM-135M shape, {SMOLLM['layers']} layers, random", kind, path))
    return paths


def main() -> int:
    root, build = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    work = build / "llama-cpp-speed"  # inside the repository, which the root sees at the same path
    work.mkdir(parents=True, exist_ok=True)
    pinned_packages.ensure(__file__, {"gguf": pinned_packages.GGUF_VERSION}, build / "gguf-venv")
    import gguf

    tiny = REPO / "assets/models/tiny_llama"
    qwen2 = REPO / "assets/models/tiny_qwen2"
    models = [("tiny LLaMA (shipped)", "F32", tiny / "tiny-llama-f32.gguf"),
              ("tiny LLaMA (shipped)", "Q4_K_M", tiny / "tiny-llama-q4_k_m.gguf"),
              ("tiny Qwen2 (shipped)", "F32", qwen2 / "tiny-qwen2-f32.gguf"),
              ("tiny Qwen2 (shipped)", "Q8_0", qwen2 / "tiny-qwen2-q8_0.gguf")] + smollm_shaped(gguf, work)
    device = in_root(build, build / "vkattn", "devices").stdout.splitlines()
    print(f"device: {next((line.strip() for line in device if 'llvmpipe' in line), 'lavapipe')} (Mesa 26, sid root)")
    print(f"prompt: the King James text below, then {NEW_TOKENS} greedy tokens; llama-bench: {REPETITIONS} "
          "repetitions, 2 threads\n")
    print("| model | weights | prompt tokens | vkattn prompt | llama.cpp Vulkan prompt | llama.cpp CPU prompt "
          "| vkattn decode | llama.cpp Vulkan decode | llama.cpp CPU decode | vkattn / llama.cpp Vulkan (prompt, decode) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, kind, path in models:
        logits = work / (path.stem + "-logits.npy")
        prompt = prompt_for(path)
        vkattn_generate(build, path, prompt, logits)  # compiles the kernels; writes the logits checked below
        error = check_logits(path, prompt, logits)
        prompt_tokens, ours_prompt, ours_decode = vkattn_generate(build, path, prompt)
        vk_prompt, vk_decode = llama_bench(build, path, prompt_tokens, vulkan=True)
        cpu_prompt, cpu_decode = llama_bench(build, path, prompt_tokens, vulkan=False)
        print(f"| {name} | {kind} | {prompt_tokens} | {ours_prompt:.0f} | {vk_prompt:.0f} | {cpu_prompt:.0f} "
              f"| {ours_decode:.0f} | {vk_decode:.0f} | {cpu_decode:.0f} "
              f"| {ours_prompt / vk_prompt:.2f}×, {ours_decode / vk_decode:.2f}× |", flush=True)
        print(f"<!-- {path.name}: vkattn logits within {error:.1e} of the float64 reference -->", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
