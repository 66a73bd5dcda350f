"""q3 shape 01 (CodeBERT/CodeReviewer): a collate_fn defined inside get_loaders() handed to
DataLoader(num_workers=cpu_count) -- plus safe look-alikes from the same repository:
  local_fn        : def fn(features) inside get_loaders -> DataLoader(collate_fn=fn, num_workers=2)  (hazard, WSP202)
  module_fn       : the same with a module-level collate function                                   (safe twin)
  bound_pool      : Pool.map(self.tokenize, ...) inside Dataset.__init__ (module-level class, pool made under the guard) (safe)
  global_parsers  : Pool/DataLoader worker reads a module-level dict built at import time (GraphCodeBERT `parsers`) (safe)
Usage: python q_q3_01_local_collate.py CASE
"""
import sys
import multiprocessing
import torch
from torch.utils.data import Dataset, DataLoader

# built at import time, like GraphCodeBERT/LongCoder `parsers={}` + loop
PARSERS = {}
for lang in ["python", "java"]:
    PARSERS[lang] = lang.upper()


class TextDataset(Dataset):
    def __init__(self, tokenizer, pool, n=8):
        self.tokenizer = tokenizer
        items = [f"x{i}" for i in range(n)]
        if pool is not None:
            self.feats = pool.map(self.tokenize, items)   # bound method of a module-level class
        else:
            self.feats = [self.tokenize(s) for s in items]

    def tokenize(self, item):
        return [len(item), self.tokenizer]

    def __len__(self):
        return len(self.feats)

    def __getitem__(self, i):
        return self.feats[i]


class ParserDataset(Dataset):
    def __init__(self, lang):
        self.lang = lang

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return PARSERS[self.lang] + str(i)


def convert(item):
    return PARSERS[item] + "!"


def module_fn(features):
    return features


def get_loaders(tokenizer, pool, local):
    def fn(features):
        return features
    dataset = TextDataset(tokenizer, pool)
    return DataLoader(dataset, batch_size=2, num_workers=2, collate_fn=fn if local else module_fn)


def main(case):
    if case in ("local_fn", "module_fn"):
        dl = get_loaders(7, None, local=(case == "local_fn"))
        out = [b for b in dl]
    elif case == "bound_pool":
        with multiprocessing.Pool(2) as pool:
            ds = TextDataset(7, pool)
        out = list(DataLoader(ds, batch_size=2, num_workers=2, collate_fn=module_fn))
    elif case == "global_parsers":
        with multiprocessing.Pool(2) as pool:
            r = pool.map(convert, ["python", "java"])
        out = [r, list(DataLoader(ParserDataset("java"), batch_size=2, num_workers=2, collate_fn=module_fn))]
    else:
        raise SystemExit("unknown case " + case)
    print("OK", case, len(out))


if __name__ == "__main__":
    main(sys.argv[1])
