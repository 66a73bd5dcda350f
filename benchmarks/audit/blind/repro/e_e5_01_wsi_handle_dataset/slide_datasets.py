"""Mimics CLAM dataset_modules/dataset_h5.py + wsi_dataset.py: a Dataset keeps a whole-slide handle it is given."""
import ctypes
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


class FakeSlide:
    """Stand-in for openslide.OpenSlide: owns a ctypes pointer to a C handle (openslide keeps _osr, a ctypes
    c_void_p subclass), so pickling it fails: 'ctypes objects containing pointers cannot be pickled'."""
    def __init__(self, path):
        self.path = path
        self._osr = ctypes.c_void_p(12345)

    def read_region(self, coord, level, size):
        return np.full((3, size[0], size[1]), float(coord[0] % 7), dtype=np.float32)


class BagFP(Dataset):          # like Whole_Slide_Bag_FP: self.wsi = wsi (handle passed in)
    def __init__(self, file_path, wsi):
        self.wsi = wsi
        self.file_path = file_path
        with h5py.File(file_path, "r") as f:
            self.length = len(f["coords"])
        self.summary()

    def summary(self):           # like CLAM summary(): opens h5py.File, keeps it only in a local
        hdf5_file = h5py.File(self.file_path, "r")
        for name, value in hdf5_file["coords"].attrs.items():
            print(name, value)

    def __len__(self):
        return self.length

    def __getitem__(self, idx):
        with h5py.File(self.file_path, "r") as f:   # lazy: opened in the worker
            coord = f["coords"][idx]
        return torch.from_numpy(self.wsi.read_region(coord, 0, (4, 4))), coord


class LazyBagFP(BagFP):        # safe twin: keeps the slide path, opens the slide in the worker
    def __init__(self, file_path, slide_path):
        self.slide_path = slide_path
        self._wsi = None
        self.file_path = file_path
        with h5py.File(file_path, "r") as f:
            self.length = len(f["coords"])
        self.summary()

    @property
    def wsi(self):
        if self._wsi is None:
            self._wsi = FakeSlide(self.slide_path)
        return self._wsi


class Region(Dataset):         # like Wsi_Region: self.wsi = wsi_object.wsi
    def __init__(self, wsi_object, coords):
        self.wsi = wsi_object.wsi
        self.coords = coords

    def __len__(self):
        return len(self.coords)

    def __getitem__(self, idx):
        return torch.from_numpy(self.wsi.read_region(self.coords[idx], 0, (4, 4)))


class WholeSlideImage:         # like wsi_core/WholeSlideImage.py: self.wsi = openslide.open_slide(path)
    def __init__(self, path):
        self.wsi = FakeSlide(path)

    @staticmethod
    def process_coord_candidate(coord, check_fn):
        return coord if check_fn(coord) else None


class IsInContour:             # like util_classes.isInContourV3_Hard: module-level callable class
    def __init__(self, limit):
        self.limit = limit

    def __call__(self, pt):
        return int(pt[0] < self.limit)


class FakeRaster(FakeSlide):
    """Stand-in for a rasterio DatasetReader (Cython object whose __reduce_cython__ raises
    'self._hds cannot be converted to a Python object for pickling'); supports `with`."""
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def read(self, idx):
        return np.full((3, 4, 4), float(idx), dtype=np.float32)


class SlicedDataset(Dataset):  # like FLAIR-1 zone_detect/dataset.py: self.big_image = rasterio.open(img_path)
    def __init__(self, n, img_path):
        self.n = n
        self.img_path = img_path
        self.big_image = FakeRaster(img_path)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.from_numpy(self.big_image.read(i))


class FitDataset(SlicedDataset):  # like FLAIR-1 flair/data_loader.py: `with rasterio.open(f) as src:` per item
    def __init__(self, n, img_path):
        self.n = n
        self.img_path = img_path

    def __getitem__(self, i):
        with FakeRaster(self.img_path) as src:
            return torch.from_numpy(src.read(i))
