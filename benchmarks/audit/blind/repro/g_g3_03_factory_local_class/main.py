"""g3 shape 03 (2 modules): main.py picks a dataset class by --dataset name from nbdt.data;
the *IncludeLabels classes are made by a factory that defines the class inside a function.
cases (the --dataset value):
  CIFAR10IncludeLabels             local class from the factory -> DataLoader(num_workers=2)  (hazard, WSP203)
  CIFAR10                          module-level dataset (the default)                         (safe)
  CIFAR10ModuleLevelIncludeLabels  same wrapper defined at module level                       (safe)
"""
import sys
import torch
from nbdt import data

def main():
    name = sys.argv[1]
    dataset_train = getattr(data, name)
    trainset = dataset_train(root="./data", train=True, download=True, transform=None)
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=2, shuffle=True, num_workers=2)
    n = sum(x.shape[0] for x, y in trainloader)
    print("OK", name, n)

if __name__ == "__main__":
    main()
