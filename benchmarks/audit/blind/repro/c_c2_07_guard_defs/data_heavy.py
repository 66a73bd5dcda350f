"""GraphIE data_twitter.py shape: heavy embedding load at import of the data module
(GloVe_vocab = torchtext.vocab.GloVe(...)); read_user is a module-level Pool function."""
import os
import sys

LAZY = os.environ.get("C_C2_07_LAZY") == "1"


def _load_vectors():
    print("LOADING", os.getpid(), flush=True)
    return {"the": [0.1] * 4}


GloVe_vocab = None if LAZY else _load_vectors()


def read_user(line):
    return {"id": line.strip()}


class DataSet:
    def __init__(self, lines):
        from multiprocessing import Pool
        pool = Pool(processes=2)
        self.users = pool.map(read_user, lines)
        pool.close()
        pool.join()
