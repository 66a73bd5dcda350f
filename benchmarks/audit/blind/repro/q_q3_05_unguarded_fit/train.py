"""q3 shape 05 (Knowledge-Tracing-SAINT train.py): module-level `train_loader, val_loader = get_dataloaders()`
(reads the CSV: WSP103) and a module-level `trainer.fit(...)` that iterates the num_workers=2 loaders (WSP101).
A plain loop stands in for pytorch_lightning's Trainer.fit (not installed).
Cases: as_repo (unguarded, hazard), guarded (safe twin)
"""
import os
import sys
from dataset import get_dataloaders

CASE = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("Q3_CASE", "as_repo")
os.environ["Q3_CASE"] = CASE


def fit(train_dataloader, val_dataloaders):
    n = 0
    for loader in (train_dataloader, val_dataloaders):
        for batch in loader:
            n += 1
    return n


if CASE == "as_repo":
    train_loader, val_loader = get_dataloaders()
    n = fit(train_dataloader=train_loader, val_dataloaders=val_loader)
    print("OK", CASE, n)
elif CASE == "guarded":
    if __name__ == "__main__":
        train_loader, val_loader = get_dataloaders()
        n = fit(train_dataloader=train_loader, val_dataloaders=val_loader)
        print("OK", CASE, n)
