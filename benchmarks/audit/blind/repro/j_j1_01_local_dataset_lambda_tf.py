"""Shape j_j1_01 (DefectDiffu train.py, autoencoder.py; pix2pixHD data/base_dataset.py).

main() builds Compose([... Lambda(lambda t: t*2-1)]) and defines `class Dataset_self(Dataset)`
inside main(), then iterates DataLoader(num_workers=2).  Under spawn the dataset is pickled:
a local class (WSP203) or a lambda kept on the dataset via the transform (WSP204) fails.
Cases:
  local_class      local Dataset class, named transforms      -> hazard (WSP203)
  compose_lambda   module-level Dataset, Lambda(lambda) kept  -> hazard (WSP204)
  both             as DefectDiffu train.py (local class + lambdas)
  safe             module-level Dataset + module-level function transform
  zero_workers     local class + lambda, but num_workers=0 (DefectDiffu autoencoder.py train())
  lambda_in_getitem  transform with lambdas built inside __getitem__ (pix2pixHD get_transform): safe
  parent_lambda    filter(lambda p: p.requires_grad, ...) for the optimizer, used only in the parent
                   (partial-conv train.py); the workers get a picklable dataset: safe
Usage: python j_j1_01_local_dataset_lambda_tf.py CASE
"""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class Lambda:  # mimics torchvision.transforms.Lambda (keeps the callable in .lambd)
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


class Compose:  # mimics torchvision.transforms.Compose
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


def scale(t):
    return t * 2 - 1


class TopDataset(Dataset):
    def __init__(self, n, preprocess):
        self.n = n
        self.img_process = preprocess

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return self.img_process[0](torch.full((2,), float(idx)))


def get_transform(k):
    # built per item in the worker, as pix2pixHD AlignedDataset.__getitem__ -> get_transform
    return Compose([Lambda(lambda img: img + k), Lambda(lambda img: img * 1.0)])


class GetitemDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, idx):
        return get_transform(idx)(torch.zeros(2))


def main(case):
    workers = 0 if case == "zero_workers" else 2
    if case in ("compose_lambda", "both", "zero_workers"):
        transform = Compose([Lambda(lambda t: (t * 2) - 1)])
    else:
        transform = Compose([scale])

    class Dataset_self(Dataset):
        def __init__(self, n, preprocess):
            self.n = n
            self.img_process = preprocess

        def __len__(self):
            return self.n

        def __getitem__(self, idx):
            return self.img_process[0](torch.full((2,), float(idx)))

    if case in ("local_class", "both", "zero_workers"):
        ds = Dataset_self(4, [transform])
    elif case == "lambda_in_getitem":
        ds = GetitemDataset()
    else:
        ds = TopDataset(4, [transform])
    if case == "parent_lambda":
        model = torch.nn.Linear(2, 2)
        opt = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-3)
    loader = DataLoader(ds, batch_size=2, num_workers=workers)
    total = 0.0
    for x in loader:
        total += float(x.sum())
    print("OK", case, total)


if __name__ == "__main__":
    main(sys.argv[1])
