"""b_12: `import _init_paths` puts lib/ on sys.path; the dataset class is created with eval('dataset.' + name) and
reaches DataLoader(num_workers=cfg WORKERS) inside main(); spawned workers receive the parent's sys.path, so
they import lib/dataset too (HRNet shape). Case (argv[1]): init_paths (safe)."""
import sys

import _init_paths  # noqa: F401
import dataset  # noqa: F401  (lib/dataset, found through _init_paths)
import torch

cfg = {"DATASET": "coco", "IMAGE_SIZE": [2, 2], "WORKERS": 2}


def main():
    train_dataset = eval("dataset." + cfg["DATASET"])(cfg, True, torch.neg)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=4, shuffle=True, num_workers=cfg["WORKERS"])
    print("sum", sum(b.sum().item() for b in train_loader))


if __name__ == "__main__":
    assert sys.argv[1] == "init_paths"
    main()
