# cases: h5py_init (hazard, WSP301), lazy_open (safe twin; also shows Class.func collate is fine),
#        h5py_init_zero_workers (safe: the same eager h5py dataset with num_workers=0, as protein-localization)
import sys, os, tempfile
from data_util import make_file
from trainer import fit

def main(case):
    path = os.path.join(tempfile.gettempdir(), "l_l1_01.h5")
    make_file(path)
    nw = 0 if case == "h5py_init_zero_workers" else None
    print("OK", fit(path, lazy=(case == "lazy_open"), num_workers=nw))

if __name__ == "__main__":
    main(sys.argv[1])
