"""Mimics simpletransformers classification_utils.build_classification_dataset (Pool(process_count)
.imap(preprocess_data_multiprocessing, chunks) with the tokenizer inside each chunk tuple) and
question_answering_utils (Pool(initializer=squad_convert_example_to_features_init,
initargs=(tokenizer,)) setting a module global in each worker)."""
import os
from multiprocessing import Pool


class Tokenizer:                        # picklable, like HF tokenizers
    def __call__(self, text):
        return [len(w) for w in text.split()]


def preprocess_data_multiprocessing(chunk):
    texts, tok = chunk
    return [tok(t) for t in texts]


class ClassificationModel:
    def __init__(self, name):
        print(f"[pid {os.getpid()}] from_pretrained({name})", flush=True)   # heavy in the real code
        self.tokenizer = Tokenizer()
        self.process_count = 2

    def train_model(self, texts):
        chunks = [(texts[i:i + 2], self.tokenizer) for i in range(0, len(texts), 2)]
        with Pool(self.process_count) as p:
            return sum(len(x) for x in p.imap(preprocess_data_multiprocessing, chunks))


tokenizer = None


def squad_init(tok):
    global tokenizer
    tokenizer = tok


def squad_feature(text):
    return tokenizer(text)


def squad_convert(texts, tok, threads=2):
    with Pool(threads, initializer=squad_init, initargs=(tok,)) as p:
        return list(p.imap(squad_feature, texts))
