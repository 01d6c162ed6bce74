"""The vkattn CLI's `run` command on .npy files, against NumPy."""
import os
import subprocess

import numpy as np
import pytest

CLI = os.environ.get("VKATTN_CLI")
pytestmark = pytest.mark.skipif(not CLI, reason="VKATTN_CLI (path to the vkattn binary) is not set")


def run(*args):
    return subprocess.run([CLI, "run", *map(str, args)], capture_output=True, text=True, timeout=120)


def test_run_layer_norm_on_npy(tmp_path, rng):
    x = rng.standard_normal((5, 24)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 24).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w.astype(np.float64))  # float64 files are read as float32
    result = run("layer_norm", "--x", tmp_path / "x.npy", "--weight", tmp_path / "w.npy", "--out", tmp_path / "y.npy")
    assert result.returncode == 0, result.stderr
    xd = x.astype(np.float64)
    expected = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5) * w
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), expected, atol=1e-5, rtol=1e-5)


def test_run_reports_corrupt_files_by_name(tmp_path):
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00garbage")
    result = run("softmax", "--x", tmp_path / "bad.npy", "--out", tmp_path / "y.npy")
    assert result.returncode == 1
    assert "bad.npy" in result.stderr


def test_run_rejects_unknown_options(tmp_path):
    result = run("softmax", "--x", tmp_path / "x.npy", "--out", tmp_path / "y.npy", "--colour", "red")
    assert result.returncode == 1
    assert "--colour" in result.stderr


def test_bench_verifies_then_reports_a_ratio(tmp_path):
    import json

    out = tmp_path / "bench.json"
    result = subprocess.run([CLI, "bench", "attention", "--heads", "2", "--len", "64", "--dim", "32", "--causal",
                             "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["unit"] == "GFLOP/s" and report["baseline"] == "naive"
    assert report["max_abs_error"] <= report["tolerance"]
    assert report["rate"] > 0 and report["ratio"] > 0
    bad = subprocess.run([CLI, "bench", "softmax", "--rows", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "--rows" in bad.stderr


def test_run_attention_on_npy(tmp_path, rng):
    q = rng.standard_normal((1, 4, 9, 32)).astype(np.float32)
    k = rng.standard_normal((1, 2, 11, 32)).astype(np.float32)
    v = rng.standard_normal((1, 2, 11, 16)).astype(np.float32)
    for name, a in (("q", q), ("k", k), ("v", v)):
        np.save(tmp_path / f"{name}.npy", a)
    result = run("attention", "--q", tmp_path / "q.npy", "--k", tmp_path / "k.npy", "--v", tmp_path / "v.npy",
                 "--causal", "--out", tmp_path / "o.npy")
    assert result.returncode == 0, result.stderr
    kk, vv = np.repeat(k, 2, axis=1).astype(np.float64), np.repeat(v, 2, axis=1).astype(np.float64)
    s = q.astype(np.float64) @ kk.swapaxes(-1, -2) / np.sqrt(32)
    s = np.where(np.tril(np.ones((9, 11), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(np.load(tmp_path / "o.npy"), (p / p.sum(-1, keepdims=True)) @ vv, atol=2e-5, rtol=1e-4)
