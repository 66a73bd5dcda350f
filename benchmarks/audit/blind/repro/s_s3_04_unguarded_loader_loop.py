"""Mimics pointnet.pytorch utils/train_classification.py:100 / train_segmentation.py:80 and
occupancy_networks train.py:118: a script with no main guard that iterates a DataLoader with workers
at module level. Cases: unguarded_for (for epoch: for data in dataloader, 2 workers), unguarded_while
(while True loop, as occupancy_networks; stops after one epoch here), safe_zero_workers (show_cls.py:39 and
occupancy train.py:70 next(iter(vis_loader)) with the default 0 workers), safe_guarded (same loop under the
main guard; also the module-level `blue = lambda` and a model attribute lambda (decoder.py:50 actvn) that
stay in the parent)."""
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ShapeNetDataset(torch.utils.data.Dataset):
    def __init__(self, n=8):
        self.pts = [np.random.rand(32, 3).astype(np.float32) for _ in range(n)]

    def __getitem__(self, i):
        return torch.from_numpy(self.pts[i]), i % 2

    def __len__(self):
        return len(self.pts)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.actvn = lambda x: F.leaky_relu(x, 0.2)

    def forward(self, x):
        return self.actvn(self.fc(x)).mean(1)


blue = lambda x: '\033[94m' + x + '\033[0m'
case = sys.argv[1]
workers = 0 if case == "safe_zero_workers" else 2
dataset = ShapeNetDataset()
dataloader = torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=True, num_workers=workers)
model = Decoder()


def train_one_epoch():
    n = 0
    for points, target in dataloader:
        model(points)
        n += points.shape[0]
    return n


if case == "unguarded_for":
    for epoch in range(1):
        print(blue("OK unguarded_for %d" % train_one_epoch()))
elif case == "unguarded_while":
    epoch_it = 0
    while True:
        epoch_it += 1
        n = 0
        for batch in dataloader:
            n += batch[0].shape[0]
        print("OK unguarded_while", n)
        break
elif case == "safe_zero_workers":
    data_vis = next(iter(dataloader))
    print("OK safe_zero_workers", train_one_epoch())

if __name__ == "__main__" and case == "safe_guarded":
    print(blue("OK safe_guarded %d" % train_one_epoch()))
