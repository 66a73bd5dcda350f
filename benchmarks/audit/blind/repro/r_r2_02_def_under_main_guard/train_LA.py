# mimics UA-MT code/train_LA*.py: the whole training body, including `def worker_init_fn`, sits under the main guard
import random
import sys
import tempfile

from torch.utils.data import DataLoader

from la_heart import LAHeart, make_data

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
seed = 1337

if CASE == "safe":
    def worker_init_fn(worker_id):      # module level: importable from __mp_main__
        random.seed(seed + worker_id)

if __name__ == "__main__":
    d = tempfile.mkdtemp()
    make_data(d)
    db_train = LAHeart(d)
    if CASE == "hazard":
        def worker_init_fn(worker_id):  # <- defined under the guard: missing in the re-imported __mp_main__
            random.seed(seed + worker_id)
    trainloader = DataLoader(db_train, batch_size=2, shuffle=True, num_workers=2, worker_init_fn=worker_init_fn)
    n = 0
    for b in trainloader:
        n += b["image"].shape[0]
    print("OK", CASE, "samples", n)
