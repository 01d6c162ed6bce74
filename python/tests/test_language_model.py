"""vkattn.Model and `vkattn generate` on the shipped tiny GGUF models: the generated tokens are the
greedy argmax of the model's own full-sequence logits, seeded sampling repeats, attention rows are
causal probability rows, K/V formats stay close to f32, and bad arguments are named."""
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import vkattn

MODELS = Path(__file__).resolve().parents[2] / "assets" / "models"
LLAMA = MODELS / "tiny_llama" / "tiny-llama-f32.gguf"
LLAMA_Q4_K_M = MODELS / "tiny_llama" / "tiny-llama-q4_k_m.gguf"
QWEN2 = MODELS / "tiny_qwen2" / "tiny-qwen2-q8_0.gguf"
PROMPT = "And God said, Let there be"
CLI = os.environ.get("VKATTN_CLI")
pytestmark = pytest.mark.skipif(not hasattr(vkattn, "Model"), reason="built without the GGUF tokenizers (PCRE2)")


@pytest.fixture(scope="module")
def llama():
    return vkattn.Model(str(LLAMA))


def test_config_and_tokenizer_round_trip(llama):
    c = llama.config
    assert (c["architecture"], c["layers"], c["num_heads"], c["num_kv_heads"]) == ("llama", 2, 8, 2)
    ids = llama.tokenize(PROMPT)
    assert ids[0] == 0  # <|endoftext|> opens every document, as in training
    assert llama.detokenize(ids) == PROMPT


@pytest.mark.parametrize("path", [LLAMA, pytest.param(LLAMA_Q4_K_M, marks=pytest.mark.ci), pytest.param(QWEN2, marks=pytest.mark.ci)],
                         ids=lambda p: p.name)
def test_greedy_tokens_are_the_argmax_of_full_forward_logits(path):
    model = vkattn.Model(str(path))
    g = model.generate(PROMPT, max_tokens=12, logits=True)
    assert len(g.ids) == 12 and g.logits.shape == (12, model.config["vocab_size"])
    full = model.logits(g.prompt_ids + g.ids[:-1])
    rows = full[len(g.prompt_ids) - 1:]
    scale = np.abs(rows).max()
    np.testing.assert_allclose(g.logits, rows, atol=1e-4 * scale, rtol=0)  # cache steps = full passes
    assert g.ids == [int(i) for i in np.argmax(rows, axis=1)]
    assert g.text == model.detokenize(g.ids)
    assert g.tokens == [model.detokenize([i], render_special=True) for i in g.ids]


def test_seeded_sampling_repeats(llama):
    a = llama.generate(PROMPT, max_tokens=16, temperature=1.2, top_k=40, top_p=0.9, seed=7)
    b = llama.generate(PROMPT, max_tokens=16, temperature=1.2, top_k=40, top_p=0.9, seed=7)
    c = llama.generate(PROMPT, max_tokens=16, temperature=1.2, top_k=40, top_p=0.9, seed=8)
    assert a.ids == b.ids and a.text == b.text
    assert a.ids != c.ids
    assert (a.seed, c.seed) == (7, 8)


def test_sampling_without_a_seed_draws_a_fresh_one_and_says_which(llama):
    runs = [llama.generate(PROMPT, max_tokens=16, temperature=1.2) for _ in range(3)]
    assert len({g.seed for g in runs}) == 3, [g.seed for g in runs]
    assert len({tuple(g.ids) for g in runs}) > 1  # 16 tokens at temperature 1.2: three equal runs is chance 0
    again = llama.generate(PROMPT, max_tokens=16, temperature=1.2, seed=runs[0].seed)
    assert again.ids == runs[0].ids


@pytest.mark.skipif(not CLI, reason="VKATTN_CLI (path to the vkattn binary) is not set")
def test_cli_sampling_prints_the_seed_that_repeats_it():
    sampled = [CLI, "generate", str(LLAMA), PROMPT, "--max-tokens", "12", "--temperature", "1.0"]
    first = subprocess.run(sampled, capture_output=True, text=True, timeout=300, check=True)
    seed = re.search(r"^seed: +(\d+) \(--seed \1 repeats this run\)$", first.stderr, re.M)
    assert seed, first.stderr
    again = subprocess.run(sampled + ["--seed", seed.group(1)], capture_output=True, text=True, timeout=300,
                           check=True)
    assert again.stdout == first.stdout
    greedy = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--max-tokens", "4"], capture_output=True,
                            text=True, timeout=300, check=True)
    assert "seed:" not in greedy.stderr


def test_attention_rows_are_causal_probabilities(llama):
    g = llama.generate(PROMPT, max_tokens=5, attention=True)
    t = len(g.prompt_ids) + len(g.ids) - 1
    assert len(g.attention) == 2
    for layer in g.attention:
        assert layer.shape == (8, t, t)
        np.testing.assert_allclose(layer.sum(-1), 1.0, atol=1e-5)
        assert np.all(np.triu(layer, 1) == 0)
        assert np.all(layer >= 0)


@pytest.mark.parametrize("kv_dtype,atol", [("bf16", 0.02), ("q8_0", 0.05)])
def test_kv_formats_stay_close_to_f32(llama, kv_dtype, atol):
    ids = llama.tokenize(PROMPT * 3)
    quantized = vkattn.Model(str(LLAMA), kv_dtype=kv_dtype)
    np.testing.assert_allclose(quantized.logits(ids), llama.logits(ids), atol=atol * np.abs(llama.logits(ids)).max())


def test_bad_arguments_are_named(llama, tmp_path):
    # By their Python names, as ValueError or TypeError, never the binding's own TypeError.
    with pytest.raises(ValueError, match="'max_tokens'"):
        llama.generate(PROMPT, max_tokens=-1)
    with pytest.raises(ValueError, match="'top_p'"):
        llama.generate(PROMPT, temperature=1.0, top_p=0.0)
    with pytest.raises(ValueError, match="'top_k'"):
        llama.generate(PROMPT, top_k=-2)
    with pytest.raises(ValueError, match="'temperature'"):
        llama.generate(PROMPT, temperature=-1.0)
    with pytest.raises(ValueError, match="'seed'"):
        llama.generate(PROMPT, seed=-1)
    with pytest.raises(TypeError, match="'seed'"):
        llama.generate(PROMPT, seed=1.5)
    with pytest.raises(TypeError, match="'path'"):
        vkattn.Model(42)
    with pytest.raises(ValueError, match="'context_length'.*at most"):
        vkattn.Model(str(LLAMA), context_length=2**31 - 1)
    with pytest.raises(ValueError, match="ids"):
        llama.logits([0, 100000])
    with pytest.raises(ValueError, match="kv_dtype"):
        vkattn.Model(str(LLAMA), kv_dtype="int3")
    bad = tmp_path / "not.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 8)
    with pytest.raises(ValueError, match="not.gguf"):
        vkattn.Model(str(bad))




@pytest.mark.skipif(not CLI, reason="VKATTN_CLI (path to the vkattn binary) is not set")
def test_cli_generate_streams_the_models_greedy_text(llama):
    result = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--max-tokens", "10"], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout == PROMPT + llama.generate(PROMPT, max_tokens=10).text + "\n"
    assert "tokens/s" in result.stderr
    bad = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--top-p", "2"], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode != 0 and "--top-p" in bad.stderr
    helped = subprocess.run([CLI, "generate", "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "generate MODEL.gguf" in helped.stdout
    full = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--context", "20", "--max-tokens", "300"],
                          capture_output=True, text=True, timeout=300)
    assert full.returncode == 0 and "the context of 20 positions is full" in full.stderr
    huge = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--context", "100000000"], capture_output=True,
                          text=True, timeout=300)
    assert huge.returncode != 0 and "'--context'" in huge.stderr and "at most" in huge.stderr
    prefill = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--max-tokens", "0"], capture_output=True,
                             text=True, timeout=300)
    assert prefill.returncode == 0 and prefill.stdout == PROMPT + "\n" and "generation: 0 tokens" in prefill.stderr
    timed = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--max-tokens", "10", "--warmup", "--ignore-eos"],
                           capture_output=True, text=True, timeout=300)
    assert timed.returncode == 0 and timed.stdout == result.stdout, "the warm-up leaves the output alone"
    assert "generation: 10 tokens" in timed.stderr


def test_perplexity_scores_the_second_half_of_each_chunk(llama):
    text = ("And God said, Let there be light: and there was light. And God saw the light, that it was good. "
            * 12)
    p = llama.perplexity(text, context=32)
    ids = llama.tokenize(text)
    chunks = len(ids) // 32
    nll, scored = 0.0, 0
    for c in range(chunks):  # the same chunking, on the model's own logits, in NumPy
        chunk = ids[c * 32:(c + 1) * 32]
        chunk[0] = ids[0]  # bos opens every chunk
        logits = llama.logits(chunk).astype(np.float64)
        for j in range(16, 31):
            row = logits[j]
            nll += np.log(np.exp(row - row.max()).sum()) + row.max() - row[ids[c * 32 + j + 1]]
            scored += 1
    assert (p["chunks"], p["tokens"], p["context"]) == (chunks, scored, 32)
    assert abs(p["mean_nll"] - nll / scored) < 1e-4 and abs(p["perplexity"] - np.exp(nll / scored)) < 1e-3
    with pytest.raises(ValueError, match="'text'"):
        llama.perplexity("And God", context=32)
    with pytest.raises(ValueError, match="'context'"):
        llama.perplexity(text, context=100000)


@pytest.mark.skipif(not CLI, reason="VKATTN_CLI (path to the vkattn binary) is not set")
def test_cli_perplexity_agrees_with_python(llama, tmp_path):
    text = "In the beginning God created the heaven and the earth. And the earth was without form. " * 10
    (tmp_path / "t.txt").write_text(text, encoding="utf-8")
    r = subprocess.run([CLI, "perplexity", str(LLAMA), str(tmp_path / "t.txt"), "--context", "32"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    printed = float(r.stdout.split("perplexity: ")[1].split()[0])
    assert abs(printed - llama.perplexity(text, context=32)["perplexity"]) < 1e-3
    short = subprocess.run([CLI, "perplexity", str(LLAMA), str(tmp_path / "t.txt"), "--context", "10000"],
                           capture_output=True, text=True, timeout=300)
    assert short.returncode != 0 and "'--context'" in short.stderr


def test_a_path_object_names_the_model():
    assert vkattn.Model(LLAMA).config["architecture"] == "llama"


@pytest.mark.parametrize("max_tokens", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("prompt", ["日本語の", "Ελληνικά", "And God said"])
def test_text_never_raises_and_keeps_the_exact_bytes(prompt, max_tokens):
    # Byte-level vocabularies write a character over several tokens: a generation may stop inside
    # one. text replaces what is not UTF-8; bytes and token_bytes keep everything.
    model = vkattn.Model(str(QWEN2))
    for seed in range(4):
        g = model.generate(prompt, max_tokens=max_tokens, temperature=3.0, seed=seed)
        assert isinstance(g.text, str) and isinstance(g.bytes, bytes)
        assert g.text == g.bytes.decode("utf-8", errors="replace")
        if not g.end_of_sequence:  # control tokens are rendered in token_bytes, left out of text
            assert b"".join(g.token_bytes) == g.bytes
        assert g.tokens == [b.decode("utf-8", errors="replace") for b in g.token_bytes]


def test_a_character_split_over_tokens_is_joined_not_replaced():
    model = vkattn.Model(str(QWEN2))
    ids = model.tokenize("日本", add_special=False)
    assert len(ids) > 2  # the byte-level vocabulary spells each character in pieces
    g_text = model.detokenize(ids)
    assert g_text == "日本" and "\ufffd" not in g_text


def test_generation_ends_with_a_reason(llama):
    three = llama.generate(PROMPT, max_tokens=3)
    assert three.end_reason == "max_tokens"
    # Of the decoding steps' time, the part spent waiting for the device.
    assert 0 < three.generate_wait_seconds <= three.generate_seconds
    small = vkattn.Model(str(LLAMA), context_length=12)
    g = small.generate(PROMPT, max_tokens=100)
    assert g.end_reason == "context_full"
    assert len(g.prompt_ids) + len(g.ids) - 1 == 12  # every position used, the last token sampled
    prefill = llama.generate(PROMPT, max_tokens=0, attention=True, logits=True)
    assert prefill.end_reason == "max_tokens" and prefill.ids == []
    t = len(prefill.prompt_ids)  # the prompt alone ran: its maps and its last row's logits
    assert prefill.attention[0].shape[-1] == t == len(prefill.labels) and prefill.logits.shape[0] == 1


def test_ignore_eos_samples_past_the_end_of_sequence(llama, tmp_path):
    # The tiny model never writes its end-of-sequence token; a copy whose eos is the token the
    # model writes first ends after one token, unless told to ignore it.
    greedy = llama.generate(PROMPT, max_tokens=6).ids
    data = vkattn.read_gguf(str(LLAMA))
    metadata = {}
    for key, value in data["metadata"].items():
        kind = data["metadata_types"][key]
        metadata[key] = (value, kind[6:-1]) if kind.startswith("ARRAY[") else (value, kind)
    metadata["tokenizer.ggml.eos_token_id"] = (greedy[0], data["metadata_types"]["tokenizer.ggml.eos_token_id"])
    copy = tmp_path / "eos.gguf"
    vkattn.write_gguf(str(copy), metadata, [(name, t, "F32") for name, t in data["tensors"].items()])
    model = vkattn.Model(copy)
    ended = model.generate(PROMPT, max_tokens=6)
    assert ended.ids == greedy[:1] and ended.end_reason == "end_of_sequence" and ended.end_of_sequence
    ignored = model.generate(PROMPT, max_tokens=6, ignore_eos=True)
    assert ignored.ids == greedy and ignored.end_reason == "max_tokens" and not ignored.end_of_sequence


def test_a_context_beyond_the_trained_one_warns():
    trained = vkattn.Model(str(LLAMA)).config["context_length"]
    with pytest.warns(UserWarning, match=f"trained on: text past position {trained}"):
        vkattn.Model(str(LLAMA), context_length=trained + 1)


def test_labels_match_the_maps_and_any_token_draws(llama, tmp_path):
    g = llama.generate("In the beginning\nGod", max_tokens=6, attention=True)
    assert len(g.labels) == g.attention[0].shape[-1] == len(g.prompt_ids) + len(g.ids) - 1
    assert g.labels[:len(g.prompt_tokens)] == g.prompt_tokens
    assert any("\n" in t for t in g.labels)  # a line-break token, drawn as a visible mark
    folder = vkattn.save_attention(tmp_path / "maps", g.attention[1], g.labels)
    lines = (Path(folder) / "row_tokens.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(g.labels) and any("\u21b5" in line for line in lines)
    with pytest.raises(ValueError, match="'layer'"):
        g.view(layer=5)
    with pytest.raises(ValueError, match="attention=True"):
        llama.generate(PROMPT, max_tokens=2).view()


@pytest.mark.skipif(not CLI, reason="VKATTN_CLI (path to the vkattn binary) is not set")
def test_cli_prompt_rule(llama):
    """One rule with Python and the viewer: an empty prompt is the start token alone; a prompt past
    the context is refused before anything is printed, naming the context."""
    empty = subprocess.run([CLI, "generate", str(LLAMA), "", "--max-tokens", "1"], capture_output=True, text=True,
                           timeout=300)
    assert empty.returncode == 0, empty.stderr
    assert empty.stdout == llama.generate("", max_tokens=1).text + "\n"
    assert "generation: 1 token," in empty.stderr
    long_prompt = PROMPT * 200
    assert len(llama.tokenize(long_prompt, add_special=True)) > 64
    too_long = subprocess.run([CLI, "generate", str(LLAMA), long_prompt, "--context", "64"], capture_output=True,
                              text=True, timeout=300)
    assert too_long.returncode != 0 and too_long.stdout == ""
    assert "exceed the context of 64 positions (--context sets it)" in too_long.stderr, too_long.stderr
    with pytest.raises(ValueError, match="'prompt'.*exceed the context length 64"):
        vkattn.Model(LLAMA, context_length=64).generate(long_prompt)
    two = subprocess.run([CLI, "generate", str(LLAMA), "And", "God"], capture_output=True, text=True, timeout=300)
    assert two.returncode != 0 and "2 prompts given; quote the prompt" in two.stderr, two.stderr


def test_model_and_generation_say_what_they_are(llama):
    assert repr(llama).startswith(f"vkattn.Model({str(LLAMA)!r}, architecture='llama', layers=")
    g = llama.generate(PROMPT, max_tokens=3, seed=5)
    assert repr(g) == (f"vkattn.Generation(text={g.text!r}, prompt_tokens={len(g.prompt_ids)}, tokens=3, "
                       "end_reason='max_tokens', seed=5)")


def test_labels_and_the_figure_show_tokens_as_the_viewer_does(tmp_path):
    """A byte token reads as the viewer labels it ('\\xc3'), in Generation.labels and in the figure
    view() draws, whose title names the layer and whose masked cells are drawn as masked."""
    import json
    model = vkattn.Model(MODELS / "tiny_llama" / "tiny-llama-f32.gguf")
    g = model.generate("É café", max_tokens=2, attention=True, seed=1)
    assert "\\xc3" in g.labels and "\ufffd" not in "".join(g.labels), g.labels
    assert "\ufffd" in "".join(g.prompt_tokens)  # the token texts stay text, with U+FFFD
    if not os.environ.get("VKATTN_VIEWER"):
        pytest.skip("VKATTN_VIEWER (path to vkattn-viewer) is not set")
    layout = tmp_path / "layout.json"
    g.view(layer=1, head=0, out=tmp_path / "map.png", layout=layout)
    drawn = json.loads(layout.read_text())
    assert drawn["causalMask"] is True
    assert drawn["rowTokens"] == g.labels and drawn["colTokens"] == g.labels
    assert "layer 1" in drawn["view"] or "layer 1" in drawn["map"]["title"], (drawn["view"], drawn["map"]["title"])


@pytest.mark.skipif(not CLI, reason="VKATTN_CLI (path to the vkattn binary) is not set")
def test_cli_help_and_a_short_text_say_what_to_do(tmp_path):
    helped = subprocess.run([CLI, "--help"], capture_output=True, text=True, timeout=60)
    for flag in ("--list", "--verbose", "--seed S (default: a fresh one", "capped at 4096"):
        assert flag in helped.stdout, flag
    short = tmp_path / "short.txt"
    short.write_text("And God said, Let there be light.")
    result = subprocess.run([CLI, "perplexity", str(LLAMA), str(short)], capture_output=True, text=True, timeout=300)
    assert result.returncode != 0 and "a smaller --context scores a shorter text" in result.stderr, result.stderr
