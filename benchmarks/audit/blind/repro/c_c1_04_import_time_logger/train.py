"""c_c1_04: RPMNet train.py shape: `_logger, _log_path = prepare_logger(_args)` at module level
(train.py:33), main() under the guard iterates DataLoader(num_workers=_args.num_workers, default 4).
Cases (LOGROOT is argv[2]):
  hazard  - prepare_logger at module level: every spawned worker re-imports the script and makes its
            own log folder
  guarded - prepare_logger under the guard (RPMNet eval.py:308)
  The Dataset keeps a logging.Logger in both cases (datasets.py:153): it pickles by name (Python >= 3.7).
"""
import os
import sys

import torch

from datasets import ModelNetHdf
from misc import prepare_logger

CASE, LOGROOT = sys.argv[1], sys.argv[2]

if CASE == "hazard":
    _logger, _log_path = prepare_logger(LOGROOT)


def main():
    loader = torch.utils.data.DataLoader(ModelNetHdf(8), batch_size=2, num_workers=2)
    print("sum", sum(float(b.sum()) for b in loader))


if __name__ == "__main__":
    if CASE == "guarded":
        _logger, _log_path = prepare_logger(LOGROOT)
    main()
    print("log folders", len(os.listdir(LOGROOT)))
