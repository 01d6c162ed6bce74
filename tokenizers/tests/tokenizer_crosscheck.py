#!/usr/bin/env python3
"""vkattn's GGUF tokenizers against HuggingFace `tokenizers` and `sentencepiece`.

Both libraries train a small vocabulary here on Debian's license texts (/usr/share/common-licenses)
and the Zen of Python:
1. a byte-level BPE (`tokenizers`: BPE model, ByteLevel pre-tokenizer with GPT-2's expression), and
2. a SentencePiece BPE with byte fallback (`sentencepiece`, set up as LLaMA's tokenizer.model is:
   identity normalization, no removal of extra whitespace, a dummy prefix, split digits).
Each vocabulary is written to a GGUF file with gguf-py under the standard tokenizer.ggml.* keys
(as llama.cpp's converter writes them), vkattn encodes a list of texts from it
(tokenizers/tests/tokenizer_probe.cpp), and the ids must equal the library's, and decoding must give the
library's text back. The byte-level vocabulary is checked twice: with control tokens parsed from
the text (what `tokenizers` does by default, and llama.cpp with parse_special) and without
(`tokenizers` with encode_special_tokens; llama.cpp's default). The byte-level vocabulary is
checked under four pre-tokenizers: "gpt-2" (llama.cpp's name for GPT-2's) as trained, and "llama-bpe", "qwen2" and "smollm" against the same vocabulary behind the
pre-tokenizer (and ignore_merges) each model's tokenizer.json declares.

usage: tokenizer_crosscheck.py PROBE WORKDIR
The packages (the versions pinned below; raise them on purpose) are installed from PyPI into
tokenizer-venv beside WORKDIR, a venv that sees the system's numpy, unless the running
interpreter already has them. Exits 77 (ctest's skip) when PyPI cannot be reached, except under
CI=true, where that is a failure.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))  # pinned_packages, tokenizer_texts
import pinned_packages  # noqa: E402
from tokenizer_texts import TEXTS, random_texts  # noqa: E402

PINS = {"gguf": pinned_packages.GGUF_VERSION, "tokenizers": "0.22.1", "sentencepiece": "0.2.1"}


def ensure_packages(work: Path) -> None:
    """Re-runs this script in a venv with the pinned packages when the running interpreter lacks them."""
    pinned_packages.ensure(__file__, PINS, work.parent / "tokenizer-venv")


def corpus() -> list:
    """Public-domain and license texts every Debian system carries, one line per sentence."""
    import codecs
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        import this  # its text is this.s, rot13-encoded; importing it prints it
    lines = codecs.decode(this.s, "rot13").splitlines()
    for path in sorted(Path("/usr/share/common-licenses").iterdir()):
        if path.is_file():
            lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
    return [line for line in lines if line.strip()]


def main() -> int:
    probe, work = Path(sys.argv[1]), Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    ensure_packages(work)
    import gguf
    import sentencepiece as spm
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    lines = corpus()
    texts = TEXTS + lines[::97][:40] + random_texts(300)  # and some lines of the training text
    texts_path = work / "texts.json"
    texts_path.write_text(json.dumps(texts))
    failures = []

    def vkattn_encode(gguf_path, parse_special=False):
        out = work / (gguf_path.stem + (".special" if parse_special else "") + ".vkattn.json")
        flags = ["--parse-special"] if parse_special else []
        result = subprocess.run([str(probe), *flags, gguf_path, texts_path, out], capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"tokenizer_probe {gguf_path} failed:\n{result.stderr}")
        return json.loads(out.read_text())

    def compare(name, ours, expected_ids, expected_text):
        bad = 0
        for text, got, ids, decoded in zip(texts, ours, expected_ids, expected_text):
            if got["ids"] != ids or got["decoded"] != decoded:
                bad += 1
                if bad <= 5:
                    failures.append(f"{name}: {text!r}\n  vkattn {got['ids']} -> {got['decoded']!r}\n"
                                    f"  theirs {ids} -> {decoded!r}")
        if bad > 5:
            failures.append(f"{name}: {bad - 5} more texts differ")
        print(f"{name}: {len(texts) - bad} of {len(texts)} texts give the same ids and text")

    # --- 1. byte-level BPE (tokenizers) under four pre-tokenizers -----------------------------
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    hf.decoder = decoders.ByteLevel()
    hf.train_from_iterator(lines, trainers.BpeTrainer(
        vocab_size=1200, special_tokens=["<|endoftext|>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    spec = json.loads(hf.to_str())
    vocab = hf.get_vocab(with_added_tokens=True)
    tokens = [None] * len(vocab)
    for text, i in vocab.items():
        tokens[i] = text
    special = {t["content"] for t in spec["added_tokens"] if t["special"]}
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]

    # Each pre-tokenizer as its model's tokenizer.json declares it; llama.cpp's names.
    llama3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
              r"|\s*[\r\n]+|\s+(?!\S)|\s+")
    qwen2 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
             r"|\s*[\r\n]+|\s+(?!\S)|\s+")
    bytes_only = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    variants = {
        "gpt-2": (None, False),
        "llama-bpe": (pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(llama3), "isolated"), bytes_only]), True),
        "qwen2": (pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(qwen2), "isolated"), bytes_only]), False),
        "smollm": (pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]), False),
    }
    for pre, (pre_tokenizer, ignore_merges) in variants.items():
        variant_spec = json.loads(hf.to_str())
        variant_spec["model"]["ignore_merges"] = ignore_merges
        theirs = Tokenizer.from_str(json.dumps(variant_spec))
        if pre_tokenizer is not None:
            theirs.pre_tokenizer = pre_tokenizer
        path = work / f"byte_level_{pre}.gguf"
        writer = gguf.GGUFWriter(path, arch="llama")
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre(pre)
        writer.add_token_list(tokens)
        writer.add_token_types([gguf.TokenType.CONTROL if t in special else gguf.TokenType.NORMAL for t in tokens])
        writer.add_token_merges(merges)
        writer.add_bos_token_id(vocab["<|endoftext|>"])
        writer.add_eos_token_id(vocab["<|endoftext|>"])
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        for parse_special in (True, False):
            theirs.encode_special_tokens = not parse_special
            encodings = [theirs.encode(t, add_special_tokens=False).ids for t in texts]
            compare(f"byte-level BPE, {pre}, special tokens {'parsed' if parse_special else 'as text'}",
                    vkattn_encode(path, parse_special), encodings,
                    [theirs.decode(ids, skip_special_tokens=not parse_special) for ids in encodings])

    # --- 2. SentencePiece BPE with byte fallback (sentencepiece) -------------------------------
    prefix = work / "sentencepiece"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=1000, model_type="bpe",
        byte_fallback=True, character_coverage=1.0, normalization_rule_name="identity",
        remove_extra_whitespaces=False, add_dummy_prefix=True, split_digits=True,
        allow_whitespace_only_pieces=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=str(prefix) + ".model")
    n = sp.get_piece_size()

    def token_type(i):
        if sp.is_unknown(i):
            return gguf.TokenType.UNKNOWN
        if sp.is_control(i):
            return gguf.TokenType.CONTROL
        if sp.is_unused(i):
            return gguf.TokenType.UNUSED
        if sp.is_byte(i):
            return gguf.TokenType.BYTE
        return gguf.TokenType.NORMAL

    path = work / "sentencepiece_bpe.gguf"
    writer = gguf.GGUFWriter(path, arch="llama")
    writer.add_tokenizer_model("llama")
    writer.add_tokenizer_pre("default")
    writer.add_token_list([sp.id_to_piece(i) for i in range(n)])
    writer.add_token_scores([sp.get_score(i) for i in range(n)])
    writer.add_token_types([token_type(i) for i in range(n)])
    writer.add_bos_token_id(sp.bos_id())
    writer.add_eos_token_id(sp.eos_id())
    writer.add_unk_token_id(sp.unk_id())
    writer.add_add_bos_token(True)
    writer.add_add_space_prefix(True)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    encodings = [sp.encode(t) for t in texts]
    compare("SentencePiece BPE", vkattn_encode(path), encodings, [sp.decode(ids) for ids in encodings])

    for f in failures:
        print("FAIL", f)
    print(f"tokenizer_crosscheck: tokenizers {PINS['tokenizers']}, sentencepiece {PINS['sentencepiece']}, "
          f"{len(texts)} texts x 9 ways: {'all identical' if not failures else f'{len(failures)} failures'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
