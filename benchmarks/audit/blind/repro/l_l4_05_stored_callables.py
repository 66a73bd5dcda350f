"""Shape: an augmentation policy object (AutoAugment SubPolicy) kept as the
dataset transform and sent to DataLoader workers (num_workers=2).
Cases: hazard (operations stored as lambdas built in __init__, the pre-fix
version of issue DeepVoltaire/AutoAugment#32), safe (operations stored as
instances of module-level callable classes, as ops.py does now)."""
import random
import sys
import torch
from torch.utils.data import DataLoader, Dataset

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"


class Rotate:
    def __call__(self, x, m):
        return x + m


class Invert:
    def __call__(self, x, m):
        return -x


class SubPolicyLambda:
    def __init__(self, p1, op1, m1):
        func = {"rotate": lambda x, m: x + m, "invert": lambda x, m: -x}
        self.p1, self.operation1, self.magnitude1 = p1, func[op1], m1

    def __call__(self, x):
        return self.operation1(x, self.magnitude1) if random.random() < self.p1 else x


class SubPolicy:
    def __init__(self, p1, op1, m1):
        func = {"rotate": Rotate(), "invert": Invert()}
        self.p1, self.operation1, self.magnitude1 = p1, func[op1], m1

    def __call__(self, x):
        return self.operation1(x, self.magnitude1) if random.random() < self.p1 else x


class DS(Dataset):
    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.transform(torch.ones(2) * i)


def main():
    pol = SubPolicyLambda(0.5, "rotate", 3) if CASE == "hazard" else SubPolicy(0.5, "rotate", 3)
    for xb in DataLoader(DS(pol), batch_size=4, num_workers=2):
        pass
    print("OK")


if __name__ == "__main__":
    main()
