"""Mimics train/train_c.py (guarded) + core __call__ -> setup_data. Cases:
  default              dataset_filters None, captions_getter None           -> spawn: pickling error (select lambda / local identity / map lambda)
  filters_given        dataset_filters set: select is module-level, map lambda remains -> spawn: pickling error
  multi_aspect_collate pipeline fixed, multi_aspect_ratio set -> collate_fn = local identity -> spawn: pickling error
  map_lambda_only      filters and preprocessors module-level; only the .map(lambda ...) stage remains -> spawn: pickling error
  fixed                all stages module-level; the unused captions_getter lambda stays -> ok
"""
import sys
from base import DataCore


class WurstCore(DataCore):
    pass


if __name__ == '__main__':
    case = sys.argv[1]
    cfg = {}
    if case == "filters_given":
        cfg = {"dataset_filters": [("x", "keep")]}
    elif case == "multi_aspect_collate":
        cfg = {"fixed": True, "dataset_filters": [1], "multi_aspect_ratio": ["1/1"]}
    elif case == "map_lambda_only":
        cfg = {"fixed_pre": True, "dataset_filters": [1]}
    elif case == "fixed":
        cfg = {"fixed": True, "dataset_filters": [1]}
    loader = WurstCore(cfg).setup_data()
    for batch in loader:  # workers start here (original: iter(dataloader) inside setup_data)
        pass
    print("OK", case, type(batch).__name__)
