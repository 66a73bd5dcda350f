"""Shape: a re-ID training/eval script with no main guard whose top-level statement
(a call such as train_model(...), a top-level `for epoch` loop, or `with torch.no_grad(): extract_feature(...)`)
iterates a DataLoader with num_workers>0 (University1652-Baseline train.py/test_train.py/test_ImageNet.py,
Cross-Modal-Re-ID-baseline train.py/test.py/train_ext.py).
Cases:
  hazard        unguarded top-level call that iterates a 2-worker loader
  loop          unguarded top-level `for epoch` loop that builds and iterates the loader
  safe          the same under `if __name__ == "__main__":`
  parent_lambda a lambda used only in the parent (filter over params / torch.load map_location), guarded
  getitem_local a local def inside Dataset.__getitem__ (runs in the worker, never pickled), guarded
"""
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class Imgs(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.full((3, 4, 4), float(i)), i


class LocalInGetitem(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        def img_load(i):
            return torch.full((2,), float(i))
        return img_load(index), index


case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
dataloaders = {x: DataLoader(Imgs(), batch_size=4, shuffle=False, num_workers=2) for x in ["satellite", "street"]}


def train_model(loaders):
    n = 0
    for a, b in zip(loaders["satellite"], loaders["street"]):
        n += a[0].shape[0]
    return n


if case == "hazard":
    print("seen", train_model(dataloaders))
elif case == "loop":
    for epoch in range(0, 2):
        trainloader = DataLoader(Imgs(), batch_size=4, num_workers=2, drop_last=True)
        for x, y in trainloader:
            pass
    print("loop done")

if __name__ == "__main__":
    if case == "safe":
        print("seen", train_model(dataloaders))
    elif case == "parent_lambda":
        net = torch.nn.Linear(2, 2)
        ignored = [id(net.bias)]
        base = list(filter(lambda p: id(p) not in ignored, net.parameters()))
        torch.save(net.state_dict(), "/tmp/q_q1_01.pt")
        sd = torch.load("/tmp/q_q1_01.pt", map_location=lambda storage, loc: storage)
        print("parent-only lambdas fine", len(base), train_model(dataloaders))
    elif case == "getitem_local":
        print("seen", sum(x.shape[0] for x, _ in DataLoader(LocalInGetitem(), batch_size=2, num_workers=2)))
