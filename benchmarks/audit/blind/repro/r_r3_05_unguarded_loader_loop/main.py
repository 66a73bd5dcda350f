# Mimics guoyang9/NCF main.py (and MolTrans train.py for the zero-worker case): no main guard.
# case: hazard (4 workers in NCF, 2 here), zero (num_workers=0, MolTrans default), guarded (safe twin)
import os, sys, tempfile
import torch.utils.data as data
import data_utils

CASE = sys.argv[1]
if __name__ == "__main__":
    os.environ["R3_LOAD_LOG"] = os.path.join(tempfile.mkdtemp(), "loads.txt")


def run():
    train_data, user_num, item_num, train_mat = data_utils.load_all()
    ds = data_utils.NCFData(train_data, item_num, train_mat)
    loader = data.DataLoader(ds, batch_size=64, shuffle=True, num_workers=0 if CASE == "zero" else 2)
    n = 0
    for epoch in range(2):
        for user, item, label in loader:
            n += 1
    return n


if CASE in ("hazard", "zero"):
    n = run()                         # top-level: load_all() at import + the loop that starts workers
    print("OK", CASE, n, "batches; loads:", len(open(os.environ["R3_LOAD_LOG"]).read().splitlines()))
elif __name__ == "__main__":
    n = run()
    print("OK", CASE, n, "batches; loads:", len(open(os.environ["R3_LOAD_LOG"]).read().splitlines()))
