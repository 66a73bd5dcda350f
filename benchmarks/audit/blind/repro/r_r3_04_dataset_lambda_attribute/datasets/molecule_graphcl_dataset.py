# Mimics GraphMVP datasets/molecule_graphcl_dataset.py: augmentations list built in __init__ holds bound
# methods and a lambda; the dataset is handed to a DataLoader with num_workers=8 by pretrain_GraphCL.py
import random
import torch
from torch.utils.data import Dataset


class MoleculeDataset_graphcl(Dataset):
    def __init__(self, n=16):
        self.data = [torch.full((3,), float(i)) for i in range(n)]
        self.aug_mode = "sample"
        self.augmentations = [self.node_drop, self.attr_mask,
                              lambda x: x]          # hazard line

    def node_drop(self, d):
        return d[:-1]

    def attr_mask(self, d):
        return d * 0

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        d = self.data[idx]
        a1, a2 = random.randrange(3), random.randrange(3)
        return d, self.augmentations[a1](d).sum(), self.augmentations[a2](d).sum()


class MoleculeDataset_graphcl_safe(MoleculeDataset_graphcl):
    def __init__(self, n=16):
        super().__init__(n)
        self.augmentations = [self.node_drop, self.attr_mask, self.identity]

    def identity(self, d):
        return d
