"""Mimics GNT utils.py:16: lpips.LPIPS(net='alex') built at import time (here: a model is
built and its weights loaded with torch.load from a local file); every importer pays it."""
import os
import torch

_marker = os.environ.get("HEAVY_MARKER")


def _build():
    if _marker:
        with open(_marker, "a") as f:
            f.write("load pid=%d\n" % os.getpid())
    net = torch.nn.Linear(8, 8)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_w.pt")
    if not os.path.exists(path):
        torch.save(net.state_dict(), path)
    net.load_state_dict(torch.load(path))
    return net


if os.environ.get("LAZY") == "1":
    lpips_alex = None

    def get_lpips():
        global lpips_alex
        if lpips_alex is None:
            lpips_alex = _build()
        return lpips_alex
else:
    lpips_alex = _build()  # import-time heavy work (hazard)

    def get_lpips():
        return lpips_alex
