"""The translation model run by `vkattn translate` (Vulkan kernels) against the PyTorch forward of
the same weights (tools/models/translation/model.py): same greedy tokens, logits within 1e-3 absolute
(f32 on both sides; worst measured difference is printed)."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

CLI = os.environ.get("VKATTN_CLI")
ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL_DIR = ROOT / "assets" / "models"
pytestmark = pytest.mark.skipif(not CLI, reason="VKATTN_CLI (path to the vkattn binary) is not set")

SENTENCES = [
    "The agreement on the European Economic Area was signed in August 1992.",
] + [line.split("\t")[0] for line in (MODEL_DIR / "en_fr.heldout.tsv").read_text(encoding="utf-8").splitlines()[:4]]


@pytest.fixture(scope="module")
def torch_model():
    pytest.importorskip("torch")
    sys.path.insert(0, str(ROOT / "tools" / "models" / "translation"))
    import model as translation_model  # noqa: E402  (the training script's own module)
    return translation_model, translation_model.load_model(MODEL_DIR)


def vulkan_translate(tmp_path, sentence, *extra):
    logits = tmp_path / "logits.npy"
    result = subprocess.run([CLI, "translate", "--logits", str(logits), *extra, sentence],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip(), np.load(logits)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_logits_match_pytorch(tmp_path, torch_model, sentence):
    module, (model, src_vocab, tgt_vocab) = torch_model
    expected = module.greedy_translate(model, src_vocab, tgt_vocab, sentence)
    text, logits = vulkan_translate(tmp_path, sentence)
    assert text == expected["text"]
    reference = np.asarray(expected["logits"], dtype=np.float64)
    assert logits.shape == reference.shape
    worst = np.abs(logits - reference).max()
    print(f"{sentence!r}: worst |logit difference| {worst:.2e}")
    assert worst <= 1e-3


def test_attention_dump(tmp_path):
    dump = tmp_path / "maps"
    text, _ = vulkan_translate(tmp_path, SENTENCES[0], "--dump-attention", str(dump))
    source = (dump / "source_tokens.txt").read_text(encoding="utf-8").split("\n")[:-1]
    target = (dump / "target_tokens.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert source[-1] == "<eos>" and target[-1] == "<eos>"
    cross = np.load(dump / "cross_layer0.npy")
    assert cross.shape[1:] == (len(target), len(source))
    np.testing.assert_allclose(cross.sum(-1), 1.0, atol=1e-5)
    decoder = np.load(dump / "decoder_self_layer0.npy")
    assert np.all(np.triu(decoder, k=1) == 0)


def test_bad_model_directory_is_named(tmp_path):
    result = subprocess.run([CLI, "translate", "--model", str(tmp_path), "Hello."], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1
    assert "vocabulary" in result.stderr


def test_first_run_says_kernels_compile(tmp_path):
    """With no pipeline cache for the device, translate says on stderr that kernels compile now
    (and that `vkattn warmup` does it ahead); the run after, with the cache it wrote, says nothing."""
    env = dict(os.environ, VKATTN_PIPELINE_CACHE=str(tmp_path / "pipelines.bin"))
    runs = [subprocess.run([CLI, "translate", "Good morning."], capture_output=True, text=True, timeout=300, env=env)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    assert "compiling its kernels" in runs[0].stderr and "vkattn warmup" in runs[0].stderr
    assert "compiling" not in runs[1].stderr
    assert runs[0].stdout == runs[1].stdout


@pytest.mark.ci
def test_warmup_fills_the_pipeline_cache(tmp_path):
    """`vkattn warmup` runs its two lanes of kernels, reports the pipelines it made and the cache
    file; a translation afterwards finds the cache and gives the same text as without it."""
    env = dict(os.environ, VKATTN_PIPELINE_CACHE=str(tmp_path / "pipelines.bin"))
    warmup = subprocess.run([CLI, "warmup"], capture_output=True, text=True, timeout=600, env=env)
    assert warmup.returncode == 0, warmup.stderr
    assert "7/7 done" in warmup.stderr
    created = int(warmup.stdout.split(" pipelines created")[0])
    assert created >= 10, warmup.stdout
    assert str(tmp_path / "pipelines.bin") in warmup.stdout and (tmp_path / "pipelines.bin").is_file()
    after = subprocess.run([CLI, "translate", "Good morning."], capture_output=True, text=True, timeout=300, env=env)
    plain = subprocess.run([CLI, "translate", "Good morning."], capture_output=True, text=True, timeout=300)
    assert after.returncode == 0 and "compiling" not in after.stderr, after.stderr
    assert after.stdout == plain.stdout
