"""Mimics MonoRec data_loader/kitti_odometry_dataset.py."""
import torch
from torch.utils.data import Dataset
import fakekitti


def map_fn(x, f):
    return [f(v) for v in x]


class ColorJitterMulti:
    """Like MonoRec's ColorJitterMulti: the lambda-bearing transform is made by fix_transform(),
    which runs in __getitem__ (in the worker), not in __init__."""
    def __init__(self, brightness):
        self.brightness = brightness

    def fix_transform(self):
        b = self.brightness
        self.transform = lambda t: t * (1 + b)

    def __call__(self, x):
        return map_fn(x, self.transform)


class KittiOdometryDataset(Dataset):
    def __init__(self, mode, sequences=("00", "01")):
        self.mode = mode
        if mode == "hazard":
            self._datasets = [fakekitti.odometry("root", s) for s in sequences]   # kept -> pickled
            self._sizes = [len(d.cam2_files) for d in self._datasets]
        else:
            # safe twin: keep plain data only; calibration as plain lists
            ds = [fakekitti.odometry("root", s) for s in sequences]
            self._files = [d.cam2_files for d in ds]
            self._calib = [dict(d.calib._asdict()) for d in ds]
            self._sizes = [len(f) for f in self._files]
        self.color_transform = ColorJitterMulti(0.2)

    def __len__(self):
        return sum(self._sizes)

    def __getitem__(self, i):
        self.color_transform.fix_transform()       # lambda made here, in the worker
        return torch.stack(self.color_transform([torch.ones(2) * i]))[0]
