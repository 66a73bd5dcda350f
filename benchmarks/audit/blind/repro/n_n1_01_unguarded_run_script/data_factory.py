import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class Dataset_ETT_hour(Dataset):
    def __init__(self, n=64, seq_len=8):
        self.data = np.random.rand(n, 3).astype("float32")
        self.seq_len = seq_len

    def __len__(self):
        return len(self.data) - self.seq_len

    def __getitem__(self, i):
        return torch.from_numpy(self.data[i:i + self.seq_len])


def data_provider(args, flag):
    ds = Dataset_ETT_hour()
    return ds, DataLoader(ds, batch_size=8, shuffle=flag == "train", num_workers=args.num_workers)
