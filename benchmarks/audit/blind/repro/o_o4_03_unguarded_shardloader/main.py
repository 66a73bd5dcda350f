"""o4 shape 03 (sentiment-discovery main.py:150/380; DWAC text/datasets/subjectivity_test.py:11;
aita-classification src/transformers-model-train.py:78; FineTuneBERT/QANet/DWAC guarded scripts).
Cases: unguarded (hazard: top-level data build + top-level training loop over a ShardLoader with 4
Process workers, no main guard), guarded (safe twin), built_not_iterated (safe: loader with workers
made at top level but never iterated), unguarded_workers0 (safe: top-level loop, 0 workers)."""
import sys

import configure_data

case = sys.argv[1]


def train(loader):
    return sum(1 for _ in loader)


if case == "unguarded":
    train_data, tok = configure_data.apply(num_workers=4)      # main.py:150 (WSP103)
    try:                                                         # main.py:380 (WSP101)
        print("OK", case, train(train_data), "items")
    except KeyboardInterrupt:
        pass
elif case == "built_not_iterated":
    loader = configure_data.ShardLoader([1, 2, 3], num_workers=1)
    print("OK", case, "loader built, not iterated")
elif case == "unguarded_workers0":
    train_data, tok = configure_data.apply(num_workers=0)
    print("OK", case, train(train_data), "items")

if __name__ == "__main__" and case == "guarded":
    train_data, tok = configure_data.apply(num_workers=4)
    print("OK", case, train(train_data), "items")
