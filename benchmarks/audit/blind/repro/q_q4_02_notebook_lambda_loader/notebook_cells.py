# cells of ML2021Spring_HW3.ipynb (cell 8) / hw13 (cell 9), reduced; CASE in sys.argv[-1]
import os, sys, tempfile
sys.path.insert(0, os.environ["Q4_DIR"])
import torch
from torch.utils.data import DataLoader
from fakevision import DatasetFolder, open_image

root = tempfile.mkdtemp(prefix="q4food_")
for i in range(6):
    with open(os.path.join(root, f"{i % 3}_{i}.jpg"), "wb") as f:
        f.write(bytes([i, i + 1, i + 2, i + 3]))

case = sys.argv[-1]
if case == "lambda_loader":            # cell 8 line 8: loader=lambda x: Image.open(x), num_workers=8
    train_set = DatasetFolder(root, loader=lambda x: open_image(x))
    workers = 2
elif case == "lambda_zero_workers":    # cell 8 line 11: test_set with the lambda, test_loader has 0 workers
    train_set = DatasetFolder(root, loader=lambda x: open_image(x))
    workers = 0
elif case == "nb_def_loader":          # the lambda replaced by a def in a notebook cell (still a notebook definition)
    def nb_loader(x):
        return open_image(x)
    train_set = DatasetFolder(root, loader=nb_loader)
    workers = 2
elif case == "imported_loader":        # the loader imported from a module: the fix
    train_set = DatasetFolder(root, loader=open_image)
    workers = 2
else:
    raise SystemExit("unknown case")

if __name__ == "__main__":
    import multiprocessing as mp
    if os.environ.get("Q4_MODE") == "spawn":
        mp.set_start_method("spawn", force=True)
    else:
        mp.set_start_method("fork", force=True)
    loader = DataLoader(train_set, batch_size=2, shuffle=True, num_workers=workers)
    n = sum(1 for _ in loader)
    print("OK batches", n)
