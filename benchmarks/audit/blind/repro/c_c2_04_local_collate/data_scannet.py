"""ScanNet data.py shape: a module-level loop over a worker DataLoader whose collate_fn is an inline lambda."""
import torch.utils.data

train = []
for x in torch.utils.data.DataLoader(["t0", "t1", "t2"], collate_fn=lambda x: x[0], num_workers=2):
    train.append(x)
