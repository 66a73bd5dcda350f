"""Shape of DeepLearningForSelfDrivingCars self_driving_car.py: a whole training script at
module level (DataLoader num_workers=4 iterated in an unguarded `for epoch` loop, WSP101),
with a lambda kept on the dataset via Compose([Lambda(lambda ...)]) (WSP204).
Cases: unguarded (hazard, named transform), lambda_transform (hazard, guarded loop),
guarded_named (safe twin)."""
import sys

import torch
from torch.utils import data


class Lambda:  # like torchvision.transforms.Lambda
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)


def normalize(x):
    return x / 255.0 - 0.5


class Dataset(data.Dataset):
    def __init__(self, samples, transform):
        self.samples = samples
        self.transform = transform

    def __getitem__(self, i):
        return self.transform(torch.tensor(float(self.samples[i])))

    def __len__(self):
        return len(self.samples)


case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
transformations = Lambda(lambda x: (x / 255.0) - 0.5) if case == "lambda_transform" else Lambda(normalize)
training_set = Dataset(list(range(8)), transformations)
training_generator = data.DataLoader(training_set, batch_size=4, num_workers=2)


def train():
    n = 0
    for epoch in range(1):
        for batch in training_generator:
            n += batch.shape[0]
    print("items", n)
    print("OK")


if case == "unguarded":
    train()  # module-level loop, as in the script

if __name__ == "__main__" and case != "unguarded":
    train()
