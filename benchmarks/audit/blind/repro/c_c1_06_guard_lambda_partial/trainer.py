"""Mimics StoryGAN code/trainer.py: torch.load(..., map_location=lambda storage, loc: storage) in the
parent (trainer.py:62), then iterates the loaders."""
import io

import torch


def load_net():
    buf = io.BytesIO()
    torch.save(torch.nn.Linear(1, 1).state_dict(), buf)
    buf.seek(0)
    return torch.load(buf, map_location=lambda storage, loc: storage)


def train(imageloader, storyloader):
    load_net()
    return sum(float(b.sum()) for b in imageloader) + sum(float(b.sum()) for b in storyloader)
