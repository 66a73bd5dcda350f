"""cases: default_lambda (epic_dataset.py:81 reached through systems.py DataLoader, 2 workers),
safe_given_transform (module-level sample_transform given), safe_parent_lambda
(test.py:91 torch.load(map_location=lambda ...) used in the parent only; loaders use the safe dataset)."""
import io
import sys
import torch
from systems import DataModule


def main(case):
    if case == "default_lambda":
        dm = DataModule(worker_count=2)
    elif case in ("safe_given_transform", "safe_parent_lambda"):
        dm = DataModule(worker_count=2, give_transform=True)
    else:
        raise SystemExit("unknown case")
    if case == "safe_parent_lambda":
        buf = io.BytesIO()
        torch.save({"w": torch.zeros(2)}, buf)
        buf.seek(0)
        ckpt = torch.load(buf, map_location=lambda storage, loc: storage)
        assert "w" in ckpt
    n = sum(x.shape[0] for x, _ in dm.train_dataloader())
    print("OK", case, n)


if __name__ == "__main__":
    main(sys.argv[1])
