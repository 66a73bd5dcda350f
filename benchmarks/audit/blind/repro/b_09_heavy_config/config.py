"""Project config module that loads a tokenizer at import time (bert-sentiment config.TOKENIZER shape)."""
import os
import sys

MAX_LEN = 8


class Tokenizer:
    def __init__(self, vocab):
        self.vocab = vocab

    def encode(self, text):
        return [self.vocab.get(w, 0) for w in text.split()][:MAX_LEN]


def from_pretrained():
    print("LOADING tokenizer", flush=True)
    return Tokenizer({w: i + 1 for i, w in enumerate("a b c d e f g h".split())})


TOKENIZER = None if os.environ.get("B09_CASE") == "lazy" else from_pretrained()


def get_tokenizer():
    global TOKENIZER
    if TOKENIZER is None:
        TOKENIZER = from_pretrained()
    return TOKENIZER
