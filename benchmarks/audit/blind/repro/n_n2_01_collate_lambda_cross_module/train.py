# mimics sqlova train.py / NL2SQL-RULE train.py: guarded script, get_data() -> loaders, train() iterates
# cases: lambda (hazard WSP201), module_fn (safe twin), built_not_iterated (safe: output_entity.py shape)
import sys
from utils_wikisql import get_loader_wikisql


def get_data(use_lambda):
    train_data = [{"q": "select %d" % i} for i in range(8)]
    dev_data = [{"q": "dev %d" % i} for i in range(4)]
    return get_loader_wikisql(train_data, dev_data, 2, use_lambda=use_lambda)


def train(loader):
    n = 0
    for t in loader:
        n += len(t)
    return n


if __name__ == '__main__':
    case = sys.argv[1]
    if case == "lambda":
        tl, dl = get_data(True)
        print("OK trained on", train(tl))
    elif case == "module_fn":
        tl, dl = get_data(False)
        print("OK trained on", train(tl))
    elif case == "built_not_iterated":
        tl, dl = get_data(True)
        # like output_entity.py: loaders are built but only the raw lists are walked
        print("OK built loaders, iterated none", tl.num_workers)
