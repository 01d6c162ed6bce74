"""vkattn.Model and `vkattn generate` on the shipped tiny GGUF models: the generated tokens are the
greedy argmax of the model's own full-sequence logits, seeded sampling repeats, attention rows are
causal probability rows, K/V formats stay close to f32, and bad arguments are named."""
import os
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


@pytest.mark.parametrize("path", [LLAMA, LLAMA_Q4_K_M, QWEN2], ids=lambda p: p.name)
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
    with pytest.raises(ValueError, match="maxTokens"):
        llama.generate(PROMPT, max_tokens=-1)
    with pytest.raises(ValueError, match="topP"):
        llama.generate(PROMPT, temperature=1.0, top_p=0.0)
    with pytest.raises(ValueError, match="ids"):
        llama.logits([0, 100000])
    with pytest.raises(ValueError, match="kv_dtype"):
        vkattn.Model(str(LLAMA), kv_dtype="int3")
    bad = tmp_path / "not.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 8)
    with pytest.raises(ValueError, match="not.gguf"):
        vkattn.Model(str(bad))


CLI = os.environ.get("VKATTN_CLI")


@pytest.mark.skipif(not CLI, reason="VKATTN_CLI (path to the vkattn binary) is not set")
def test_cli_generate_streams_the_models_greedy_text(llama):
    result = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--max-tokens", "10"], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout == PROMPT + llama.generate(PROMPT, max_tokens=10).text + "\n"
    assert "tokens/s" in result.stderr
    bad = subprocess.run([CLI, "generate", str(LLAMA), PROMPT, "--top-p", "2"], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode != 0 and "topP" in bad.stderr
