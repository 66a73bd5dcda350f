# Mimics NGCF main.py: `from utility.batch_test import *` at the top, training under the main guard
import os, sys, tempfile
if __name__ == "__main__":
    os.environ["R3_CASE"] = sys.argv[1]
    os.environ["R3_BUILD_LOG"] = os.path.join(tempfile.mkdtemp(), "builds.txt")
from utility.batch_test import *


if __name__ == "__main__":
    case = sys.argv[1]
    hits = test(list(range(40)))
    n = len(open(os.environ["R3_BUILD_LOG"]).read().splitlines())
    print("case", case, "hits", hits, "data builds:", n)
    if case == "hazard" and n > 1:
        print("REPEATED: the dataset was rebuilt at import in each worker")
