import torch
from torch.utils.data import Dataset

class ItemDataset(Dataset):
    def __init__(self, n=8): self.n = n
    def __len__(self): return self.n
    def __getitem__(self, i): return {"ids": torch.tensor([i, i + 1]), "id": i}

def get_collate_fn(cache: bool):          # hazard: returns a local function
    def collate_fn(batch):
        return torch.stack([b["ids"] for b in batch]), [b["id"] for b in batch]
    return collate_fn

class Collate:                            # safe twin: module-level callable class
    def __init__(self, cache: bool): self.cache = cache
    def __call__(self, batch):
        return torch.stack([b["ids"] for b in batch]), [b["id"] for b in batch]
