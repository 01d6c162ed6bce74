"""Texts the tokenizer cross-checks encode (tokenizers/tests/tokenizer_crosscheck.py against
HuggingFace and sentencepiece, tests/llama_crosscheck.py against transformers): every class of
character run the tokenizers treat apart, and random texts drawn from all of them."""

# Texts to encode: every class the two algorithms treat apart (spaces, digits, contractions,
# punctuation runs, newlines, characters outside the training text, Unicode whitespace).
TEXTS = [
    "Hello world",
    "The GNU General Public License is a free, copyleft license for software.",
    "  two leading spaces, three   inside and trailing  ",
    " ",
    "   ",
    "I'm sure you'll see they've DON'T it's we'd",
    "numbers 0 12 345 6789 1234567 3.14159 1,000,000",
    "punctuation!!! ... ?!? (parens) [brackets] {braces} \"quotes\" 'single'",
    "line one\nline two\n\nline four\r\nend\n",
    "\ttabs\tand\t\tmore tabs",
    "\n\n\nleading newlines",
    "caf\u00e9 na\u00efve \u00c5ngstr\u00f6m se\u00f1or \u00fcber stra\u00dfe",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8 \u4e2d\u6587 \ud55c\uad6d\uc5b4",
    "emoji \U0001F600\U0001F389 flags \U0001F1EB\U0001F1F7 family \U0001F468\u200D\U0001F469\u200D\U0001F467",
    "\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440 \u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac \u0627\u0644\u0639\u0631\u0628\u064a\u0629",
    "non\u00a0breaking\u00a0spaces and\u3000ideographic space",
    "math \u2211 \u221e \u2248 \u00b1 \u00d7 \u00f7 and symbols \u00a9 \u00ae \u2122",
    "x",
    "Beautiful is better than ugly.\nExplicit is better than implicit.",
    "<s> </s> <unk> <|endoftext|> look like special tokens",
]


def random_texts(count: int) -> list:
    """Seeded mixtures of the character classes above, runs of each, to reach the orders of
    merges and pre-tokenizer splits a fixed list misses."""
    import random
    rng = random.Random(20240611)
    pools = ["abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " ", "  ", "\n", "\r\n", "\t",
             ".,;:!?'\"()-_/*&%$#@", "'s", "'LL", "\u00e9\u00e8\u00fc\u00f1\u00df\u00c5", "\u65e5\u672c\u8a9e\u4e2d\u6587",
             "\U0001F600\U0001F389\u2764\uFE0F", "\u00a0\u3000\u2028", "\u0301\u0308", "\u0416\u03a9\u05d0"]
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 12)):
            pool = rng.choice(pools)
            parts.append("".join(rng.choice(pool) if len(pool) > 2 else pool for _ in range(rng.randint(1, 6))))
        texts.append("".join(parts))
    return texts
