# mimics hezhangsprinter/DID-MDN test.py / train_rain_class.py (and anilsathyan7/pytorch-image-classification
# train.py/eval.py): loader built by misc.getLoader (workers default 1), iterated at module level, no main guard.
# cases: hazard (top-level loop), safe (same loop under the main guard), safe_workers0 (top level, workers=0)
import sys
from misc import getLoader
from datasets.pix2pix_val import pix2pix_val

case = sys.argv[1]

def loop(workers):
    loader = getLoader(pix2pix_val(), 4, workers)
    n = 0
    for epoch in range(1):
        for i, data in enumerate(loader, 0):
            n += data.shape[0]
    print('OK', case, n)

if case == 'hazard':
    valDataloader = getLoader(pix2pix_val(), 4, 1)
    n = 0
    for epoch in range(1):
        for i, data in enumerate(valDataloader, 0):   # starts workers at import time
            n += data.shape[0]
    print('OK', case, n)
elif case == 'safe_workers0':
    loop(0)

if __name__ == '__main__' and case == 'safe':
    loop(1)
