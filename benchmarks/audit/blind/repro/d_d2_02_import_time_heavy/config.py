"""BERT-CRF config.py: TOKENIZER built at import time."""
import heavy

MAX_LEN = 4
TOKENIZER = heavy.load("config.TOKENIZER")
