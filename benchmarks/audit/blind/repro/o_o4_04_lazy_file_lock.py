"""o4 shape 04 (sentiment-discovery data_utils/lazy_loader.py:82 with --lazy, via pretrain.py):
lazy_array_loader.__init__ keeps open(datapath, 'rb') and a threading.Lock on self; the dataset
reaches a ShardLoader's sampler, whose bound method is the target of multiprocessing.Process
(4 workers). Cases: lazy (hazard: pickling the file / lock fails under spawn), eager (safe twin:
strings kept in a list)."""
import multiprocessing
import os
import sys
import tempfile
from threading import Lock


class lazy_array_loader:
    def __init__(self, datapath, lens):
        self._file = open(datapath, "rb")
        self.file = self._file
        self.ends = [sum(lens[: i + 1]) for i in range(len(lens))]
        self.read_lock = Lock()

    def __getitem__(self, i):
        start = 0 if i == 0 else self.ends[i - 1]
        with self.read_lock:
            self.file.seek(start)
            return self.file.read(self.ends[i] - start).decode()

    def __len__(self):
        return len(self.ends)


class Sampler:
    def __init__(self, data_source):
        self.data_source = data_source

    def manage_queues_multiproc(self, idx, q):
        q.put([self.data_source[i] for i in idx])


def make_dataset(lazy, tmpdir):
    texts = ["great movie", "bad plot", "fine", "superb acting"]
    if not lazy:
        return texts
    path = os.path.join(tmpdir, "data")
    with open(path, "wb") as f:
        f.write("".join(texts).encode())
    return lazy_array_loader(path, [len(t) for t in texts])


def main(case):
    with tempfile.TemporaryDirectory() as d:
        ds = make_dataset(case == "lazy", d)
        sampler = Sampler(ds)
        ctx = multiprocessing.get_context()
        out = []
        for w in range(4):
            q = ctx.Queue()
            p = ctx.Process(target=sampler.manage_queues_multiproc, args=([w], q), daemon=True)
            p.start()
            out += q.get(timeout=30)
            p.join()
        print("OK", case, out)


if __name__ == "__main__":
    main(sys.argv[1])
