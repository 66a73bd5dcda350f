# mimics CFSNet/SPSR train.py (guarded) with the train loader num_workers=n_workers (8/16 in the json).
# cases: lmdb (hazard: dataroot ends with .lmdb) | img (safe: image folder, env None)
import os, sys, tempfile
import lmdb
from torch.utils.data import DataLoader
from dataset import LRGTDataset


def build(tmp):
    lm = os.path.join(tmp, "GT.lmdb")
    env = lmdb.open(lm, map_size=1 << 20)
    with env.begin(write=True) as txn:
        for i in range(4):
            txn.put(f"img{i}".encode(), b"x" * (i + 1))
    env.close()
    folder = os.path.join(tmp, "GT")
    os.makedirs(folder)
    for i in range(4):
        with open(os.path.join(folder, f"img{i}.png"), "wb") as f:
            f.write(b"y" * (i + 1))
    return lm, folder


def main(case):
    with tempfile.TemporaryDirectory() as tmp:
        lm, folder = build(tmp)
        opt = {"data_type": case, "dataroot_GT": lm if case == "lmdb" else folder}
        loader = DataLoader(LRGTDataset(opt), batch_size=2, num_workers=2)
        print("OK batches", sum(1 for _ in loader))


if __name__ == "__main__":
    main(sys.argv[1])
