"""Mimics RPMNet src/common/misc.py prepare_logger: makes a fresh log folder, installs a FileHandler on the
root logger, writes a file in the folder (RPMNet also runs `git diff` into compareHead.diff)."""
import logging
import os
import tempfile
import uuid


def prepare_logger(root):
    log_path = os.path.join(root, uuid.uuid4().hex[:8])   # RPMNet: datetime-stamped folder
    os.makedirs(log_path, exist_ok=True)
    logger = logging.getLogger()
    handler = logging.FileHandler(os.path.join(log_path, "log.txt"))
    logger.addHandler(handler)
    with open(os.path.join(log_path, "compareHead.diff"), "w") as f:
        f.write("diff\n")
    return logger, log_path
