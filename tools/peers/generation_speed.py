#!/usr/bin/env python3
"""Tokens per second of vkattn.Model on GGUF files, beside the float64 NumPy reference forward pass
(tests/llama_crosscheck.py's forward_reference) on the same weights, in one process.

For each file: a prompt of --prompt-tokens tokens (the King James text below, cut to length), then
--new-tokens greedy tokens. vkattn runs the prompt as one batch and each new token as one step with
its key/value cache on the device; the NumPy reference has no cache, so its decode rate is one full
forward pass over the sequence so far per token (timed over a few tokens). Before timing, each
model's output is checked: vkattn's prompt logits against the reference's (max |difference| <=
1e-3 * max |logit|), so a fast wrong answer is never reported. A warm-up generation first compiles
the kernels. Prints a Markdown table.

usage: PYTHONPATH=build/python /usr/bin/python3 tools/peers/generation_speed.py FILE.gguf ... [--prompt-tokens N]
       [--new-tokens N] [--device NAME]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from llama_crosscheck import forward_reference  # noqa: E402

import vkattn  # noqa: E402

TEXT = ("In the beginning God created the heaven and the earth. And the earth was without form, and void; "
        "and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters. "
        "And God said, Let there be light: and there was light. And God saw the light, that it was good: and "
        "God divided the light from the darkness. And God called the light Day, and the darkness he called "
        "Night. And the evening and the morning were the first day.")


def reference_weights(path):
    data = vkattn.read_gguf(str(path))
    meta, tensors = data["metadata"], data["tensors"]
    arch = meta["general.architecture"]
    get = lambda key: meta[f"{arch}.{key}"]  # noqa: E731
    hp = dict(heads=get("attention.head_count"), kv_heads=get("attention.head_count_kv"), layers=get("block_count"),
              eps=get("attention.layer_norm_rms_epsilon"), base=get("rope.freq_base"), neox=arch == "qwen2")
    return {name: np.asarray(t, dtype=np.float64) for name, t in tensors.items()}, hp, data["tensor_types"]


def weight_type(types):
    matrices = sorted({t for name, t in types.items() if name.endswith(".weight") and "norm" not in name})
    return "+".join(matrices)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--prompt-tokens", type=int, default=64)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--reference-steps", type=int, default=4)
    parser.add_argument("--device")
    args = parser.parse_args()
    if args.device:
        vkattn.use_device(args.device)
    print(f"device: {vkattn.current_device()}")
    print(f"prompt {args.prompt_tokens} tokens, then {args.new_tokens} greedy tokens\n")
    print("| file | weights | vkattn prompt tok/s | vkattn decode tok/s | NumPy prompt tok/s | NumPy decode tok/s "
          "| decode vkattn / NumPy |")
    print("|---|---|---|---|---|---|---|")
    for path in args.files:
        model = vkattn.Model(str(path))
        ids = model.tokenize(TEXT * 8)[: args.prompt_tokens]
        w, hp, types = reference_weights(path)

        start = time.perf_counter()
        ref = forward_reference(w, hp, ids)
        numpy_prompt = len(ids) / (time.perf_counter() - start)
        got = model.logits(ids)
        limit = 1e-3 * np.abs(ref).max()
        worst = np.abs(got - ref).max()
        if not worst <= limit:
            sys.exit(f"{path}: vkattn's logits differ from the reference by {worst:.3g} (limit {limit:.3g})")

        model.generate(ids, max_tokens=4)  # warm-up: compiles what the pipeline cache lacks
        g = model.generate(ids, max_tokens=args.new_tokens)
        vk_prompt = len(ids) / g.prompt_seconds
        vk_decode = (len(g.ids) - 1) / g.generate_seconds

        fed = list(ids)
        start = time.perf_counter()
        for step in range(args.reference_steps):
            fed.append(int(np.argmax(forward_reference(w, hp, fed)[-1])))
        numpy_decode = args.reference_steps / (time.perf_counter() - start)
        print(f"| {Path(path).name} | {weight_type(types)} | {vk_prompt:.0f} | {vk_decode:.1f} | {numpy_prompt:.0f} "
              f"| {numpy_decode:.1f} | {vk_decode / numpy_decode:.1f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
