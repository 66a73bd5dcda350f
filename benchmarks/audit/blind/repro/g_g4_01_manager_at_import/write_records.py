# Mimics CRNN_Tensorflow tools/write_tfrecords.py (guarded script importing the project module).
# Cases: manager_at_import (WSP101 in imported module), handle_arg (WSP302), path_arg (safe, as
# wikiextractor's reduce_process), lazy_manager (safe twin of manager_at_import).
import os
import sys
import tempfile

if __name__ == "__main__" and len(sys.argv) > 1:
    os.environ["G4_CASE"] = sys.argv[1]   # inherited by spawned children

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkg import writer_tools  # noqa: E402

if __name__ == "__main__":
    case = sys.argv[1]
    out = tempfile.mkdtemp()
    mode = {"manager_at_import": "queue", "handle_arg": "handle", "path_arg": "path",
            "lazy_manager": "queue"}[case]
    writer_tools.FeatureWriter(out, 2).run(mode)
    print("OK", case)
