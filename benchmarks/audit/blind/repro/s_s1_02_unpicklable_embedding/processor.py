import numpy as np
import torch


class DataProcessor:
    def __init__(self, vectorizer):
        self.vectorizer = vectorizer

    def process_for_training(self, batch, teacher_forcing=True):
        vecs = self.vectorizer([a for a, _ in batch])
        return torch.tensor(np.array([np.mean(v, axis=0) for v in vecs]))

    def process_for_inference(self, addresses):
        vecs = self.vectorizer(addresses)
        return torch.tensor(np.array([np.mean(v, axis=0) for v in vecs]))
