"""Safe-twin dataset module: imports config_lazy (nothing heavy); __getitem__ uses config.TOKENIZER (or a tokenizer it was given)."""
import torch

import config_lazy as config


class EntityDataset:
    def __init__(self, n=8, tokenizer=None):
        self.n = n
        self.tokenizer = tokenizer

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        tok = self.tokenizer if self.tokenizer is not None else config.TOKENIZER
        return torch.tensor([float(tok["vocab"][i % 10])])
