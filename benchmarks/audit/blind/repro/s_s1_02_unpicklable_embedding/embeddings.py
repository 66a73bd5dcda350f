"""Mimics deepparse/embeddings_models: the fastText model object returned by
fasttext.load_model wraps a pybind11 handle that cannot be pickled. A threading.Lock stands
in for that handle (same failure class: TypeError: cannot pickle ... object)."""
import threading
import numpy as np


class _PybindFastText:                       # stand-in for fasttext.FastText._FastText
    def __init__(self):
        self.f = threading.Lock()            # unpicklable native handle

    def __getitem__(self, word):
        return np.full(3, float(len(word)), dtype=np.float32)


class _GensimVectors:                        # stand-in for gensim KeyedVectors (picklable)
    def __getitem__(self, word):
        return np.full(3, float(len(word)), dtype=np.float32)


class FastTextEmbeddingsModel:
    def __init__(self, use_gensim=False):
        self.model = _GensimVectors() if use_gensim else _PybindFastText()

    def __call__(self, word):
        return self.model[word]


class _BPEmbLike:
    """Stand-in for bpemb.BPEmb: holds an unpicklable SentencePiece handle but defines
    __getstate__/__setstate__ that drop and reload it (bpemb 0.3.5)."""
    def __init__(self):
        self.spm = threading.Lock()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["spm"] = None
        return state

    def __setstate__(self, state):
        state["spm"] = threading.Lock()
        self.__dict__ = state

    def __getitem__(self, word):
        return np.full(3, float(len(word)), dtype=np.float32)


class BPEmbEmbeddingsModel(FastTextEmbeddingsModel):
    def __init__(self):
        self.model = _BPEmbLike()
