"""Shape d_d1_06 (DEXTR-PyTorch train_pascal.py): a script with no main guard builds a pretrained network at
module level, then iterates DataLoader(num_workers=2) in a module-level training loop and again in a
module-level test loop.  cases: unguarded (hazard: each spawned worker re-runs the script, reloads the weights
and tries to start workers while bootstrapping), guarded (same code under the guard: safe twin)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from torch.utils.data import DataLoader, TensorDataset
import networks.deeplab_resnet as resnet

CASE = sys.argv[1]
resume_epoch, nEpochs = 0, 1


def run():
    net = resnet.resnet101(pretrained=True)
    if resume_epoch != nEpochs:
        db_train = TensorDataset(torch.randn(6, 3))
        trainloader = DataLoader(db_train, batch_size=2, shuffle=True, num_workers=2)
        for epoch in range(resume_epoch, nEpochs):
            for ii, (x,) in enumerate(trainloader):
                net(x)
    testloader = DataLoader(TensorDataset(torch.randn(4, 3)), batch_size=1, num_workers=1)
    with torch.no_grad():
        for ii, (x,) in enumerate(testloader):
            net(x)
    print("OK trained and tested")


if CASE == "unguarded":
    # the real script has these statements at module level; calling run() at module level is equivalent
    net = resnet.resnet101(pretrained=True)
    if resume_epoch != nEpochs:
        db_train = TensorDataset(torch.randn(6, 3))
        trainloader = DataLoader(db_train, batch_size=2, shuffle=True, num_workers=2)
        for epoch in range(resume_epoch, nEpochs):
            for ii, (x,) in enumerate(trainloader):
                net(x)
    testloader = DataLoader(TensorDataset(torch.randn(4, 3)), batch_size=1, num_workers=1)
    with torch.no_grad():
        for ii, (x,) in enumerate(testloader):
            net(x)
    print("OK trained and tested")
elif CASE != "guarded":
    raise SystemExit("unknown case " + CASE)

if __name__ == "__main__" and CASE == "guarded":
    run()
