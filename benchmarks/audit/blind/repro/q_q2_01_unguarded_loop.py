"""q2 shape 01: unguarded training script whose top-level loop iterates a DataLoader with workers
(Bayesian-Neural-Networks train_*_MNIST.py, outlier-exposure CIFAR/oe_scratch.py, CIFAR/test.py, MNIST/oe_scratch.py).

cases:
  hazard        - loaders built and iterated at module level (num_workers=2), no main guard
  safe          - same code under `if __name__ == "__main__":`
  parent_lambda - guarded; a LambdaLR lambda (parent only) next to the worker loader (oe_scratch.py:145 look-alike)
"""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class TinyMNIST(Dataset):          # stands in for torchvision.datasets.MNIST (importable, picklable)
    def __init__(self, n=16):
        self.x = torch.randn(n, 1, 4, 4)
        self.y = torch.randint(0, 10, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def run_training(parent_lambda=False):
    trainloader = DataLoader(TinyMNIST(), batch_size=4, shuffle=True, num_workers=2)
    net = torch.nn.Linear(16, 10)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = None
    if parent_lambda:
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda step: 1.0 / (1 + step))
    n = 0
    for epoch in range(2):                 # top-level-style epoch loop
        for x, y in trainloader:           # starts the workers
            loss = torch.nn.functional.cross_entropy(net(x.flatten(1)), y)
            opt.zero_grad(); loss.backward(); opt.step()
            if sched:
                sched.step()
            n += 1
    print("OK batches", n)


CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"

if CASE == "hazard":
    # mimic the repository: everything at module level
    trainloader = DataLoader(TinyMNIST(), batch_size=4, shuffle=True, num_workers=2)
    n = 0
    for i in range(2):
        for x, y in trainloader:
            n += 1
    print("OK batches", n)

if __name__ == "__main__":
    if CASE == "safe":
        run_training()
    elif CASE == "parent_lambda":
        run_training(parent_lambda=True)
