"""Shape of MIL-nature-medicine-2019 MIL_train.py/MIL_test.py/RNN_*.py: a Dataset opens one
OpenSlide handle per slide in __init__ (kept in self.slides); DataLoader(num_workers=args.workers, default 4).
openslide is mimicked by a class holding a ctypes pointer, as openslide.OpenSlide does (its _osr handle):
pickling it raises "ValueError: ctypes objects containing pointers cannot be pickled".
Cases: hazard (handles opened in __init__), lazy (safe twin: names kept, handles opened in __getitem__)."""
import ctypes
import sys

import torch
import torch.utils.data as data


class FakeSlide:
    def __init__(self, name):
        self.name = name
        self._osr = ctypes.c_void_p(id(self))  # native handle, like openslide's

    def read_region(self, coord, level, size):
        return torch.full((3, 4, 4), float(coord[0]))


class MILdataset(data.Dataset):
    def __init__(self, names, grid, lazy=False):
        slides = []
        if not lazy:
            for name in names:
                slides.append(FakeSlide(name))   # hazard: handle created in __init__
        self.slidenames = names
        self.slides = slides
        self.grid = grid
        self.lazy = lazy

    def __getitem__(self, index):
        sid, coord = self.grid[index]
        if self.lazy:
            if not self.slides:                  # opened in the worker, on first use
                self.slides = [FakeSlide(n) for n in self.slidenames]
        return self.slides[sid].read_region(coord, 0, (4, 4))

    def __len__(self):
        return len(self.grid)


def main(case):
    names = ["a.svs", "b.svs"]
    grid = [(i % 2, (i, i)) for i in range(8)]
    dset = MILdataset(names, grid, lazy=(case == "lazy"))
    loader = torch.utils.data.DataLoader(dset, batch_size=4, shuffle=False, num_workers=2)
    n = sum(x.shape[0] for x in loader)
    print("OK", case, n)


if __name__ == "__main__":
    main(sys.argv[1])
