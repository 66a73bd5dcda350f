"""a_05: unpicklable resources kept on a Dataset sent to DataLoader workers (num_workers=1).

Cases: h5py_init (a-PyTorch-Tutorial-to-Image-Captioning, FER), lmdb_init (vq-vae-2), queue_logger
(a logger object owning a queue.Queue and a QueueListener thread, ANIMAL-SPOT utils/logging.Logger),
manager_reader (a reader owning an mp.Manager, ANIMAL-SPOT utils/FileIO.AsyncFileReader)."""
import logging.handlers
import multiprocessing as mp
import os
import queue
import sys
import tempfile

import h5py
import lmdb
import numpy as np
from torch.utils.data import DataLoader, Dataset

TMP = os.path.join(tempfile.gettempdir(), "audit_blind_a05")


class QueueLogger:
    def __init__(self):
        self._queue = queue.Queue(10)
        self._listener = logging.handlers.QueueListener(self._queue, logging.StreamHandler())
        self._listener.start()


class Reader:
    def __init__(self):
        self._manager = mp.Manager()
        self._buf = self._manager.dict()


class D(Dataset):
    def __init__(self, case):
        if case == "h5py_init":
            self.h = h5py.File(os.path.join(TMP, "d.h5"), "r")
        elif case == "lmdb_init":
            self.env = lmdb.open(os.path.join(TMP, "d.lmdb"), readonly=True, lock=False)
        elif case == "queue_logger":
            self._logger = QueueLogger()
        elif case == "manager_reader":
            self.file_reader = Reader()

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i


def main(case):
    os.makedirs(TMP, exist_ok=True)
    with h5py.File(os.path.join(TMP, "d.h5"), "w") as f:
        f["x"] = np.arange(4)
    lmdb.open(os.path.join(TMP, "d.lmdb"), map_size=1 << 20).close()
    print("sum", sum(b.sum().item() for b in DataLoader(D(case), batch_size=2, num_workers=1)))


if __name__ == "__main__":
    main(sys.argv[1])
