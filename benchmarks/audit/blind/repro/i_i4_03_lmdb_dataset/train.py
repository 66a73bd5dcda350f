"""Usage: train.py CASE (env | txn | txn_only | lazy)."""
import sys
from torch.utils.data import DataLoader
from dataset import make_db, EnvDataset, TxnDataset, LazyDataset


def main(case):
    root = make_db()
    ds = {"env": lambda: EnvDataset(root), "txn": lambda: TxnDataset(root),
          "txn_only": lambda: TxnDataset(root, close_env_keep_txn=True), "lazy": lambda: LazyDataset(root)}[case]()
    out = [b for b in DataLoader(ds, batch_size=2, num_workers=2)]
    print("OK", case, out)


if __name__ == "__main__":
    main(sys.argv[1])
