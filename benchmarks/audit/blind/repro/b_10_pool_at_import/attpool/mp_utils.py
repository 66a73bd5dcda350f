"""A package module that creates its process pool at import time (attpool2 mp_utils.py shape); the lazy twin
creates it on first use."""
import multiprocessing as _tmp
import os

PROCESS_NUM = 2
_torch_pool = _tmp.Pool(PROCESS_NUM) if os.environ.get("B10_CASE") == "at_import" else None


def get_torch_pool():
    global _torch_pool
    if _torch_pool is None:
        _torch_pool = _tmp.Pool(PROCESS_NUM)
    return _torch_pool
