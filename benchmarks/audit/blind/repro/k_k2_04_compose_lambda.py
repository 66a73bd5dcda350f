"""Ultra-Light-Fast-Generic-Face-Detector-1MB shape (vision/ssd/data_preprocessing.py + train.py) and
poselstm-pytorch shape (data/base_dataset.py get_posenet_transform + unaligned_posenet_dataset.py):
a lambda placed in a Compose (directly, or wrapped in a transforms.Lambda-like class) is kept on the
dataset's transform and the dataset goes to DataLoader(num_workers=4/8) workers.
cases: ssd_augment (lambda inside TrainAugmentation's Compose), transforms_lambda (Lambda(lambda ...)
from a module-level factory), parent_only (PredictionTransform-like: the lambda is applied in the parent
only, the loader gets plain data), safe (module-level callable object instead of the lambda)."""
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class Compose:
    def __init__(self, ts):
        self.ts = ts
    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class Lambda:                      # torchvision.transforms.Lambda stand-in
    def __init__(self, f):
        self.f = f
    def __call__(self, x):
        return self.f(x)


class DivStd:
    def __init__(self, std):
        self.std = std
    def __call__(self, x):
        return x / self.std


class TrainAugmentation:
    def __init__(self, std=2.0, picklable=False):
        self.augment = Compose([DivStd(std) if picklable else (lambda img: img / std)])
    def __call__(self, img):
        return self.augment(img)


def get_posenet_transform(mean_image):
    return Compose([Lambda(lambda img: img - mean_image)])


class FaceDataset(Dataset):
    def __init__(self, transform=None):
        self.transform = transform
        self.x = torch.arange(8.0)
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        v = self.x[i]
        return self.transform(v) if self.transform else v


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "ssd_augment":
        ds = FaceDataset(TrainAugmentation())
    elif case == "transforms_lambda":
        ds = FaceDataset(get_posenet_transform(1.0))
    elif case == "parent_only":
        pred = TrainAugmentation()            # predictor-side transform, used in the parent
        ds = FaceDataset(None)
    elif case == "safe":
        ds = FaceDataset(TrainAugmentation(picklable=True))
    else:
        raise SystemExit("unknown case")
    out = [b.tolist() for b in DataLoader(ds, batch_size=4, num_workers=2)]
    if case == "parent_only":
        out = [pred(torch.tensor(o)).tolist() for o in out]
    print("OK", case, out)
