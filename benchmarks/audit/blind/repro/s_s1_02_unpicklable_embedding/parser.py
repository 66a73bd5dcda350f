"""Mimics deepparse/parser/address_parser.py: retrain()/test() build DataLoaders whose
collate_fn is partial(self.processor.process_for_training, ...) with num_workers default 1;
__call__ (prediction) defaults to num_workers=0."""
from functools import partial
from torch.utils.data import DataLoader
from embeddings import FastTextEmbeddingsModel, BPEmbEmbeddingsModel
from vectorizer import FastTextVectorizer
from processor import DataProcessor


class AddressParser:
    def __init__(self, use_gensim=False, bpemb=False):
        emb = BPEmbEmbeddingsModel() if bpemb else FastTextEmbeddingsModel(use_gensim)
        self.processor = DataProcessor(FastTextVectorizer(emb))

    def retrain(self, data, num_workers=1):
        loader = DataLoader(data, batch_size=2, num_workers=num_workers,
                            collate_fn=partial(self.processor.process_for_training, teacher_forcing=True))
        return sum(b.shape[0] for b in loader)

    def __call__(self, addresses, num_workers=0):
        loader = DataLoader(addresses, batch_size=2, num_workers=num_workers,
                            collate_fn=self.processor.process_for_inference)
        return sum(b.shape[0] for b in loader)
