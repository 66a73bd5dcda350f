"""Stand-in for sentiment_from_scratch_ven config.py: TOKENIZER = BertTokenizer.from_pretrained(...)
at module level (case heavy); with case lazy the tokenizer is made on demand."""
import os
import sys
import time

CASE = sys.argv[1] if len(sys.argv) > 1 else "heavy"


def _load_tokenizer():
    print("LOAD tokenizer in pid", os.getpid(), flush=True)
    time.sleep(0.2)
    return {"[PAD]": 0, "good": 1, "bad": 2}


TOKENIZER = _load_tokenizer() if CASE == "heavy" else None
MAX_LEN = 8
BATCH_SIZE = 2


def get_tokenizer():
    global TOKENIZER
    if TOKENIZER is None:
        TOKENIZER = _load_tokenizer()
    return TOKENIZER
