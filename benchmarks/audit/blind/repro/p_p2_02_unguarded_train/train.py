"""Shape of the unguarded training scripts (thedevastator train.py fold loop + example/loadSample.py
next(iter(dl)); pytorch-playground {cifar,mnist,svhn,stl10}/train.py `try:` epoch loop).
Cases: fold_loop (top-level for over folds, fit iterates loader: WSP101), next_iter (top-level
next(iter(dl)): WSP101), try_loop (top-level try: for epoch: for batch in loader: WSP101),
guarded (the same loop under if __name__ == "__main__": safe)."""
import sys
import data

case = sys.argv[1] if len(sys.argv) > 1 else "guarded"
print("module body runs as", __name__)


def fit(loader):
    return sum(float(b.sum()) for b in loader)


if case == "fold_loop":
    for fold in range(2):
        dl, _ = data.get_loaders(4, num_workers=data.CONFIG["NUM_WORKERS"])
        print("fold", fold, fit(dl))
elif case == "next_iter":
    dl, _ = data.get_loaders(4, num_workers=data.CONFIG["NUM_WORKERS"])
    batch = next(iter(dl))
    print("batch", batch)
elif case == "try_loop":
    train_loader, test_loader = data.get_loaders(4, num_workers=1)
    try:
        for epoch in range(2):
            for x in train_loader:
                pass
        print("OK try_loop")
    except Exception as e:
        print("caught", type(e).__name__, e)
        raise

if __name__ == "__main__" and case == "guarded":
    train_loader, _ = data.get_loaders(4, num_workers=2)
    print("OK guarded", fit(train_loader))
