# mimics PAE debugger.py: module-level loop over a loader with workers (no main guard).
# cases: unguarded (hazard, WSP101; dataset is the lazy, picklable one so only the guard matters)
#        guarded (safe twin)
import sys, os, tempfile
from data_util import make_file, construct_loader
case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
path = os.path.join(tempfile.gettempdir(), "l_l1_01.h5")

def run():
    make_file(path)
    loader = construct_loader(path, lazy=True)
    for ind, x in enumerate(loader):
        pass
    print("OK", ind)

if case == "guarded":
    if __name__ == "__main__":
        run()
else:
    make_file(path)
    loader = construct_loader(path, lazy=True)
    for ind, x in enumerate(loader):
        pass
    print("OK", ind)
