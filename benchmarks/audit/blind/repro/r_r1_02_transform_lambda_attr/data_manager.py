# mimics data/data_sets.py + data/data_manager.py: FolderDataset keeps transforms; collate_fn=self.pad_seq
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class FolderDataset(Dataset):
    def __init__(self, arr, transforms=None):
        self.arr, self.transforms = arr, transforms

    def __len__(self):
        return len(self.arr)

    def __getitem__(self, i):
        return self.transforms.apply(self.arr[i], i % 3)


class CSVDataManager:
    def __init__(self, loader_params):
        self.loader_params = loader_params
        self.data = [np.random.randn(100 + 10 * i).astype("float32") for i in range(8)]

    def get_loader(self, transfs):
        return DataLoader(FolderDataset(self.data, transfs), **self.loader_params, collate_fn=self.pad_seq)

    def pad_seq(self, batch):
        batch = sorted(batch, key=lambda x: x[0].size(0), reverse=True)
        seqs, srs, labels = zip(*batch)
        return torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True), torch.LongTensor(labels)
