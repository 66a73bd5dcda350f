"""Mimics Attention_ocr data/dataset.py: transform factories return a Compose of Lambda(...) wrappers that
close over local functions or lambdas; the dataset keeps them; the DataLoader gets num_workers workers."""
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class Lambda:  # stand-in for torchvision.transforms.Lambda (a module-level class keeping a callable)
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)


class Compose:  # stand-in for torchvision.transforms.Compose
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class CNDATA(Dataset):
    def __init__(self, items, img_transforms, label_transforms):
        self.items = items
        self.img_transforms = img_transforms
        self.label_transforms = label_transforms

    def __getitem__(self, i):
        img = np.full((4, 6, 3), float(i))
        label = self.items[i]
        if self.img_transforms:
            img = self.img_transforms(img)
        if self.label_transforms:
            label = self.label_transforms(label)
        return img, label

    def __len__(self):
        return len(self.items)


def cn_transform_local_def(h, w):
    def resize_with_ratio(x):  # local def (Attention_ocr data/dataset.py:68)
        return x[:h, :w]
    return Compose([Lambda(resize_with_ratio)])


def cn_transform_lambda(h, w):
    return Compose([Lambda(lambda x: x.transpose([2, 0, 1]).astype(np.float32))])  # dataset.py:73


def label_transform_local_def(char_index):
    def str_to_index(label):  # dataset.py:54
        return [char_index[c] for c in label]
    return Compose([Lambda(str_to_index), Lambda(torch.tensor)])


# safe twin: module-level functions / callable classes pickle by reference
def _crop(x, h=3, w=5):
    return x[:h, :w]


class StrToIndex:
    def __init__(self, char_index):
        self.char_index = char_index

    def __call__(self, label):
        return torch.tensor([self.char_index[c] for c in label])


def get_dataset(case, num_workers=2):
    chars = {c: i for i, c in enumerate("abc")}
    items = ["ab", "ca", "bb", "cc"]
    if case == "local_def":
        ds = CNDATA(items, cn_transform_local_def(3, 5), StrToIndex(chars))
    elif case == "lambda":
        ds = CNDATA(items, cn_transform_lambda(3, 5), StrToIndex(chars))
    elif case == "label_local_def":
        ds = CNDATA(items, Compose([Lambda(_crop)]), label_transform_local_def(chars))
    elif case == "safe":
        ds = CNDATA(items, Compose([Lambda(_crop)]), StrToIndex(chars))
    elif case == "workers0":
        ds = CNDATA(items, cn_transform_lambda(3, 5), label_transform_local_def(chars))
        num_workers = 0
    else:
        raise SystemExit("unknown case " + case)
    return DataLoader(ds, batch_size=2, num_workers=num_workers)
