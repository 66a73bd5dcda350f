# mimics crowdcount/engine/train.py: train() builds DataLoaders with num_worker=8 (default) and iterates them
import torch
from torch.utils.data import DataLoader


def train(model, train_set, test_set, num_worker=2, epoch_num=1):
    train_loader = DataLoader(dataset=train_set, batch_size=2, shuffle=True, num_workers=num_worker)
    test_loader = DataLoader(dataset=test_set, batch_size=1, shuffle=False, num_workers=num_worker)
    total = 0.0
    for epoch in range(epoch_num):
        for img, den in train_loader:
            total += float(model(img).sum())
        with torch.no_grad():
            for img, den in iter(test_loader):
                total += float(model(img).sum())
    return total
