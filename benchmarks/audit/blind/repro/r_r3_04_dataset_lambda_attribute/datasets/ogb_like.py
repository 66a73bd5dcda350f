# Mimics GraphCL_Automated semisupervised_OGB_LP/code/dataset_graphcl.py (and semisupervised_OGB/code/dataset_aug.py):
# the dataset keeps self.trans = transforms.Compose([augment_edge, lambda data: ...]) built in __init__,
# and the script hands dataset[split_idx["train"]] (a shallow copy, as PyG's InMemoryDataset indexing) to a
# DataLoader(num_workers=16 / 24 by default; 0 in semisupervised_OGB/code).
import copy
import torch
from torch.utils.data import Dataset


class Compose:                       # stands in for torchvision.transforms.Compose (not installed)
    def __init__(self, fs):
        self.fs = fs

    def __call__(self, x):
        for f in self.fs:
            x = f(x)
        return x


def augment_edge(d):
    return d + 1


def encode_y_to_arr(d, vocab2idx, max_seq_len):
    return d[:max_seq_len] * len(vocab2idx)


class PygGraphPropPredDataset(Dataset):
    def __init__(self, n=16):
        self.data = [torch.full((6,), float(i)) for i in range(n)]
        vocab2idx, max_seq_len = {"a": 0, "b": 1}, 5
        self.trans = Compose([augment_edge, lambda data: encode_y_to_arr(data, vocab2idx, max_seq_len)])

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        if isinstance(idx, list):            # dataset[split_idx["train"]] -> shallow copy with a subset
            c = copy.copy(self)
            c.data = [self.data[i] for i in idx]
            return c
        return self.trans(self.data[idx])


def collate(data_list):
    return torch.stack(data_list)
