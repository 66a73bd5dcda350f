# mimics clarity recipes/cad2/task2/ConvTasNet/local/cad2task2_dataloader.py
import random
import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, audio):
        for t in self.transforms:
            audio = t(audio)
        return audio


def augment_gain(audio, low=0.25, high=1.25):
    return audio * (low + random.random() * (high - low))


def augment_channelswap(audio):
    return np.flip(audio, 0).copy() if random.random() < 0.5 else audio


def collation_fn(samples):  # module-level collate (as clip2's clip_dataset.collate_fn)
    return torch.stack([torch.as_tensor(s) for s in samples])


class RebalanceMusicDataset(torch.utils.data.Dataset):
    def __init__(self, n=8, split="train", source_augmentations=lambda audio: audio):
        self.n = n
        self.split = split
        self.source_augmentations = source_augmentations

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return self.source_augmentations(np.random.randn(2, 32).astype("float32"))
