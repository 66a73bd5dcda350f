"""Usage: train.py CASE  (local_def | lambda | label_local_def | safe | workers0).  Guarded main; the loader is
built in data.py and iterated here."""
import sys
from data import get_dataset


def main(case):
    loader = get_dataset(case)
    n = 0
    for imgs, labels in loader:
        n += 1
    print("OK", case, "batches", n)


if __name__ == "__main__":
    main(sys.argv[1])
