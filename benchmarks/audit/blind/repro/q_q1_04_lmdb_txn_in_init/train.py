"""Shape: FaceX-Zoo DMUE train.py (guarded) -> datasets.make_dataloader -> bases.ImageDataset keeps an lmdb
transaction opened in __init__ -> DataLoader(num_workers=config.num_workers=4) pickles it for the spawned workers.
Cases: hazard (txn in __init__), lazy (opened in __getitem__: safe), list (local file handle not kept: safe)."""
import sys
import lmdb
from config import config as cfg
from datasets import make_dataloader


def build():
    env = lmdb.open(cfg.lmdb_f, map_size=1 << 20)
    with env.begin(write=True) as t:
        for k, _ in cfg.train_dataset:
            t.put(k.encode(), b"\x01\x02\x03")
    env.close()
    with open(cfg.list_file, "w") as f:
        f.write("a/1.jpg 0\nb/2.jpg 1\nc/3.jpg 1\n")


def train(case):
    build()
    loader = make_dataloader(cfg, case)
    print("batches", sum(1 for _ in loader))


if __name__ == "__main__":
    train(sys.argv[1] if len(sys.argv) > 1 else "hazard")
