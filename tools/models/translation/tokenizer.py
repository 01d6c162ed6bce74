"""Word tokenizer and vocabularies of the vkattn translation model (contract).

Rules (the C++ runtime implements the same on UTF-8 bytes):
  * split on ASCII whitespace;
  * peel trailing characters from ``.,?!;:`` off each chunk as one-character
    tokens, kept in their original order;
  * if the rest holds an ASCII apostrophe that is not its last character, split
    right after the first apostrophe ("L'accord" -> "L'", "accord");
  * case is kept; unknown words map to ``<unk>``.
Detokenize: join with single spaces, drop the space before each token in
``.,?!;:`` and the space after each token that ends with an apostrophe.
"""

PUNCT = ".,?!;:"
ASCII_WS = " \t\n\r\x0b\x0c"
SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3


def _split_ascii_ws(text):
    chunks, cur = [], []
    for ch in text:
        if ch in ASCII_WS:
            if cur:
                chunks.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        chunks.append("".join(cur))
    return chunks


def tokenize(text):
    tokens = []
    for chunk in _split_ascii_ws(text):
        end = len(chunk)
        while end > 0 and chunk[end - 1] in PUNCT:
            end -= 1
        word, trail = chunk[:end], chunk[end:]
        if word:
            pos = word.find("'")
            if 0 <= pos < len(word) - 1:
                tokens.append(word[:pos + 1])
                tokens.append(word[pos + 1:])
            else:
                tokens.append(word)
        tokens.extend(trail)
    return tokens


def detokenize(tokens):
    out = ""
    for i, tok in enumerate(tokens):
        if i == 0:
            out = tok
        elif tok in PUNCT or tokens[i - 1].endswith("'"):
            out += tok
        else:
            out += " " + tok
    return out


class Vocab:
    def __init__(self, tokens):
        assert list(tokens[:4]) == SPECIALS
        self.itos = list(tokens)
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        assert len(self.stoi) == len(self.itos), "duplicate token in vocab"

    def __len__(self):
        return len(self.itos)

    def encode(self, tokens):
        return [self.stoi.get(t, UNK_ID) for t in tokens]

    def decode(self, ids):
        return [self.itos[i] for i in ids]

    @classmethod
    def build(cls, sentences):
        seen = {}
        for s in sentences:
            for t in tokenize(s):
                seen.setdefault(t, None)
        return cls(SPECIALS + sorted(seen))

    def save(self, path):
        for t in self.itos:
            assert "\n" not in t and "\r" not in t
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(self.itos) + "\n")

    @classmethod
    def load(cls, path):
        with open(path, "r", encoding="utf-8", newline="\n") as f:
            data = f.read()
        lines = data.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return cls(lines)
