import torch
from torch.utils.data import Dataset


class GPReviewDataset(Dataset):
    def __init__(self, reviews, tokenizer):
        self.reviews, self.tokenizer = reviews, tokenizer

    def __len__(self):
        return len(self.reviews)

    def __getitem__(self, i):
        return torch.tensor([self.tokenizer.get(w, 0) for w in self.reviews[i].split()][:1])
