"""r05: unpicklable state on Dataset objects sent to DataLoader workers (WSP301/WSP302) and the
safe look-alikes (lazy open, with-block closed in __init__, __getstate__, PIL Image attribute).

Cases: open_file, thread_lock, lmdb_env, h5py_file, generator: the resource is created in
__init__ and kept on self; library_lmdb: a library-style class (LSUN shape) opens lmdb in
__init__ and the script hands the instance to the loader; getstate: open file plus __getstate__
dropping it; lazy: handle set to None in __init__, opened in __getitem__; closed: file opened in a
with-block in __init__ and closed; memmap: np.load(mmap_mode="r") kept on self; pil_image: a PIL.Image.open(...) result kept on self.
All use DataLoader(num_workers=2).
"""
import os
import sys
import tempfile
import threading

from torch.utils.data import DataLoader, Dataset

TMP = tempfile.gettempdir()
TXT = os.path.join(TMP, "audit11_r05.txt")
LMDB_DIR = os.path.join(TMP, "audit11_r05.lmdb")
H5 = os.path.join(TMP, "audit11_r05.h5")
PNG = os.path.join(TMP, "audit11_r05.png")
NPY = os.path.join(TMP, "audit11_r05.npy")


def make_files():
    with open(TXT, "w") as fh:
        fh.write("".join(f"{i}\n" for i in range(8)))
    import lmdb
    env = lmdb.open(LMDB_DIR, map_size=1 << 20)
    with env.begin(write=True) as txn:
        for i in range(8):
            txn.put(str(i).encode(), str(i).encode())
    env.close()
    import h5py
    import numpy as np
    with h5py.File(H5, "w") as f:
        f["x"] = np.arange(8)
    from PIL import Image
    Image.new("RGB", (4, 4)).save(PNG)
    np.save(NPY, np.arange(8))


class Resource(Dataset):
    def __init__(self, kind):
        self.kind = kind
        self.handle = None
        if kind in ("open_file", "getstate"):
            self.handle = open(TXT)
        elif kind == "thread_lock":
            self.handle = threading.Lock()
        elif kind == "lmdb_env":
            import lmdb
            self.handle = lmdb.open(LMDB_DIR, readonly=True, lock=False)
        elif kind == "h5py_file":
            import h5py
            self.handle = h5py.File(H5, "r")
        elif kind == "generator":
            self.handle = (i for i in range(8))
        elif kind == "closed":
            with open(TXT) as fh:
                self.lines = fh.read().split()
        elif kind == "memmap":
            import numpy as np
            self.handle = np.load(NPY, mmap_mode="r")
        elif kind == "pil_image":
            from PIL import Image
            self.handle = Image.open(PNG)

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if self.kind == "lazy" and self.handle is None:
            self.handle = open(TXT)
        return i


class ResourceWithGetstate(Resource):
    def __getstate__(self):
        state = dict(self.__dict__)
        state["handle"] = None
        return state


class LibraryLMDB(Dataset):
    """Shape of torchvision's LSUNClass: the environment is opened in __init__, no __getstate__."""

    def __init__(self, root):
        import lmdb
        self.env = lmdb.open(root, readonly=True, lock=False)

    def __len__(self):
        return 8

    def __getitem__(self, i):
        with self.env.begin() as txn:
            return int(txn.get(str(i).encode()))


def main(case):
    if case == "library_lmdb":
        dataset = LibraryLMDB(LMDB_DIR)
    elif case == "getstate":
        dataset = ResourceWithGetstate(case)
    else:
        dataset = Resource(case)
    loader = DataLoader(dataset, batch_size=4, num_workers=2)
    print("sum", sum(b.sum().item() for b in loader))


if __name__ == "__main__":
    make_files()
    main(sys.argv[1])
