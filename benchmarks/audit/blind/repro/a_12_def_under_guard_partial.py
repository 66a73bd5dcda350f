"""a_12: a transform function defined inside the main guard, wrapped in functools.partial and kept by a
Dataset sent to DataLoader workers (VLCStoryGan train_vlcgan.py: def video_transform under
`if __name__ == "__main__":`, partial(video_transform, image_transform=...), num_workers=cfg.WORKERS).

Cases: under_guard (the def sits in the guard), module_fn (the same def at module level)."""
import functools
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class StoryDataset(Dataset):
    def __init__(self, transform):
        self.transforms = transform

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.transforms([torch.tensor(float(i))] * 2)


def video_transform_module(video, image_transform):
    return torch.stack([image_transform(im) for im in video])


if __name__ == "__main__":
    if sys.argv[1] == "under_guard":
        def video_transform(video, image_transform):
            return torch.stack([image_transform(im) for im in video])
    else:
        video_transform = video_transform_module
    video_transforms = functools.partial(video_transform, image_transform=torch.neg)
    loader = DataLoader(StoryDataset(video_transforms), batch_size=2, num_workers=2)
    print("sum", sum(b.sum().item() for b in loader))
