"""f_f3_02: module-level transforms read globals that only the main guard assigns
(HandwrittenTextRecognition_MXNet ocr/*.py). Run as a module, as the repository's relative
imports require:  python -m ocr.line_recognition CASE
CASE: guard_global_aug, guard_global_test (hazards), partial_args (safe twin), workers0 (safe twin)."""
import functools
import random
import sys

from .utils import minigluon as gluon

alphabet = {c: i for i, c in enumerate("abc")}   # module-level: fine in workers


def transform(image, label):
    encoded = [alphabet[c] for c in label][:max_seq_len]     # max_seq_len: set under the guard
    return image, encoded


def augment_transform(image, label):
    ty = random.uniform(-random_y_translation, random_y_translation)  # set under the guard
    return transform(image + ty * 0, label)


def transform_p(image, label, max_len):
    return image, [alphabet[c] for c in label][:max_len]


def run_epoch(loader):
    return [b for b in loader]


if __name__ == "__main__":
    case = sys.argv[1]
    max_seq_len = 2
    random_y_translation = 0.03
    ds = gluon.ArrayDataset(range(4), ["ab", "bc", "ca", "abc"])
    if case == "guard_global_aug":      # train loader: augment_transform reads random_y_translation
        train = gluon.DataLoader(ds.transform(augment_transform), 2, num_workers=2)
        test = gluon.DataLoader(ds.transform(transform), 2, num_workers=0)
    elif case == "guard_global_test":   # test loader: transform reads max_seq_len
        train = gluon.DataLoader(ds.transform(transform), 2, num_workers=0)
        test = gluon.DataLoader(ds.transform(transform), 2, num_workers=2)
    elif case == "partial_args":
        train = gluon.DataLoader(ds.transform(functools.partial(transform_p, max_len=max_seq_len)), 2, num_workers=2)
        test = gluon.DataLoader(ds.transform(functools.partial(transform_p, max_len=max_seq_len)), 2, num_workers=2)
    elif case == "workers0":
        train = gluon.DataLoader(ds.transform(augment_transform), 2, num_workers=0)
        test = gluon.DataLoader(ds.transform(transform), 2, num_workers=0)
    print("RESULT", run_epoch(train), run_epoch(test))
