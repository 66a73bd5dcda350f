import torch

import config


class BERTDataset:
    def __init__(self, review):
        self.review = review
        self.tokenizer = config.get_tokenizer()
        self.max_len = config.MAX_LEN

    def __len__(self):
        return len(self.review)

    def __getitem__(self, item):
        ids = self.tokenizer.encode(self.review[item])
        return torch.tensor(ids + [0] * (self.max_len - len(ids)))
