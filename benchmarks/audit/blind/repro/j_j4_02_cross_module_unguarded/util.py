import torch
from torch.utils.data import DataLoader, Dataset

class Tiny(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i): return torch.tensor([float(i)])

def test(model, use_cuda=True):  # like Deep-Compression util.test: builds a loader with workers and iterates it
    kwargs = {"num_workers": 2} if use_cuda else {}
    loader = DataLoader(Tiny(), batch_size=4, **kwargs)
    return sum(float(model(b).sum()) for b in loader)
