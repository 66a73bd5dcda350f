import sys
import data


def train(case):
    if case == "local":
        loader = data.get_loader_local()
    elif case == "partial":
        loader = data.get_loader_partial()
    else:
        raise SystemExit("case: local | partial")
    total = 0.0
    for batch in loader:
        total += float(batch.sum())
    print("OK", case, total)


if __name__ == "__main__":
    train(sys.argv[1])
