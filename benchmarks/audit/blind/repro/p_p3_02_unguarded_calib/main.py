"""p3 shape 02 (brocolli examples/*.py, speed qat/*.py, static_quantization/*.py): a
calibration script whose top-level statements load weights (torch.load at import, WSP103)
and call quantizer.calibrate(calibrate_func) -> DataLoader(num_workers=8) iterated at
import time (WSP101). Cases: hazard (unguarded top level), safe (same under main guard).
Each process prints LOAD when it loads the weights."""
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader

from dataset import ImageNetDatasetCHINA
from quantizer import PytorchQuantizer

CASE = os.environ.get("P3_CASE") or (sys.argv[1] if len(sys.argv) > 1 else "hazard")
os.environ["P3_CASE"] = CASE
CKPT = os.path.join(tempfile.gettempdir(), "p_p3_02_ckpt.pt")


def calibrate_func(model):
    loader = DataLoader(ImageNetDatasetCHINA("data", None, True), batch_size=4, num_workers=2)
    n = 0
    with torch.no_grad():
        for x, _ in loader:
            model(x)
            n += 1
    print("OK batches", n)


def main():
    model = torch.nn.Linear(4, 2)
    if not os.path.exists(CKPT):
        torch.save(model.state_dict(), CKPT)
    print("LOAD pid", os.getpid(), flush=True)
    model.load_state_dict(torch.load(CKPT))          # WSP103 when at top level
    q = PytorchQuantizer(model)
    q.calibrate(calibrate_func)                      # WSP101 when at top level


if CASE == "hazard":
    model = torch.nn.Linear(4, 2)
    if not os.path.exists(CKPT):
        torch.save(model.state_dict(), CKPT)
    print("LOAD pid", os.getpid(), flush=True)
    model.load_state_dict(torch.load(CKPT))
    pytorch_quantizer = PytorchQuantizer(model)
    pytorch_quantizer.calibrate(calibrate_func)

if __name__ == "__main__" and CASE == "safe":
    main()
