# mimics openunreid/data/transformers/__init__.py + data/builder.py
import torch
from torch.utils.data import DataLoader, Dataset
from auto_augment import ImageNetPolicy


class Compose(object):
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class Preprocessor(Dataset):
    def __init__(self, n, transform):
        self.n, self.transform = n, transform

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.transform(torch.tensor([float(i)]))


def build_train_dataloader(is_autoaug=True, safe=False, workers_per_gpu=2):
    res = []
    if is_autoaug:
        res.append(ImageNetPolicy(safe=safe))
    return DataLoader(Preprocessor(8, Compose(res)), batch_size=2, num_workers=workers_per_gpu)
