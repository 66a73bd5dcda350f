"""Shape: a training/pruning script whose top level (no main guard) calls a
function that iterates a DataLoader with num_workers>0 (overhaul-distillation
CIFAR-100/train_with_distillation.py test(t_net); rethinking-network-pruning
main.py `for epoch ...: train(); test()` and prune.py `acc = test()`).
Cases: hazard (unguarded), safe (same code under the main guard)."""
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
X = torch.randn(16, 3)
Y = torch.randint(0, 2, (16,))
testset = TensorDataset(X, Y)
kwargs = {"num_workers": 2}
testloader = DataLoader(testset, batch_size=4, shuffle=False, **kwargs)


def test(loader):
    n = 0
    for xb, yb in loader:
        n += xb.shape[0]
    return n


def run():
    for epoch in range(2):
        print("epoch", epoch, "seen", test(testloader))
    print("OK")


if CASE == "hazard":
    # top-level call, as in the repositories
    print("teacher", test(testloader))
    run()
elif CASE == "safe":
    if __name__ == "__main__":
        run()
