"""Stands for fewshotlocal helpful_files/training.py: module-level load_transform and the train() loop that
iterates the loader built in the notebook; Network keeps lambdas (parent only)."""
import torch
from torch import nn


def load_transform(x, scale):
    return torch.tensor([float(x) * scale])


def train(train_loader):
    tot = 0.0
    for i, inp in enumerate(train_loader):
        tot += inp.sum().item()
    return tot


class Network(nn.Module):
    def __init__(self, cova):
        super().__init__()
        self.postprocess = lambda x: x * (2 if cova else 1)
    def forward(self, x):
        return self.postprocess(x)
