"""q3 shape 02 (Hierarchical-Sentiment han.py / nscupa.py): a lambda stored as a field mapping on the
FMTL object that FMTL_iterator hands to DataLoader(num_workers=3).
Cases: lambda_mapping (hazard, WSP204: --max-words/--max-sents > 0), dict_mapping (default flags, safe),
       prebuild (--prebuild: rebuilt FMTL without mappings, safe), parent_lambda (iter_func lambda used only in the parent, safe)
"""
import sys
import torch
from torch.utils.data import DataLoader
from fmtl import FMTL


def tuple_batch(l):
    return [len(x[1]) for x in l]


def load(case):
    data = [(i % 2, [["a", "b"], ["c"]]) for i in range(12)]
    data_tl = FMTL(data, rows=("rating", "review"))
    wdict = data_tl.get_field_dict("review", iter_func=(lambda x: (w for s in x for w in s)))  # parent only
    max_words, max_sents = 5, 5
    if case in ("lambda_mapping", "prebuild"):
        data_tl.set_mapping("review", (lambda f: [[wdict.get(w[:max_words], 1) for w in s[:max_sents]] for s in f]))
    elif case in ("dict_mapping", "parent_lambda"):
        data_tl.set_mapping("review", wdict)
    if case == "prebuild":
        data_tl = FMTL(list(x for x in data_tl), ("rating", "review"))
    return data_tl


def main(case):
    data_tl = load(case)
    dl = DataLoader(data_tl.indexed_iter(list(range(12))), batch_size=4, shuffle=True, num_workers=3, collate_fn=tuple_batch)
    out = [b for b in dl]
    print("OK", case, len(out))


if __name__ == "__main__":
    main(sys.argv[1])
