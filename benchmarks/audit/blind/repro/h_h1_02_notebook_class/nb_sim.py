# mimics ayukat1016/gan_sample notebooks (chapter4 ESRGAN, chapter6 recycleGAN, chapter8, chapter9):
# a Dataset class defined in a notebook cell, DataLoader(num_workers=opt.n_cpu=8 / workers=4 / 1).
# A Jupyter kernel's __main__ has no file, so a spawned worker cannot re-import it: we drop
# __main__.__file__ / __spec__ to reproduce that, exactly as a kernel looks to multiprocessing.
import sys, torch
from torch.utils.data import Dataset, DataLoader
import __main__
case = sys.argv[1]

class ImageDataset(Dataset):          # "notebook cell" definition
    def __init__(self, n=8):
        self.n = n
    def __getitem__(self, i):
        return torch.full((3,), float(i))
    def __len__(self):
        return self.n

def run():
    if case == 'hazard':
        ds, w = ImageDataset(), 2
    elif case == 'safe_module_class':
        from nb_helpers import ImageDataset as ModImageDataset
        ds, w = ModImageDataset(), 2
    elif case == 'safe_workers0':
        ds, w = ImageDataset(), 0
    n = 0
    for b in DataLoader(ds, batch_size=4, num_workers=w):
        n += b.shape[0]
    print('OK', case, n)

if __name__ == '__main__':
    # look like a notebook kernel's __main__
    for a in ('__file__',):
        if hasattr(__main__, a):
            delattr(__main__, a)
    __main__.__spec__ = None
    sys.argv[0] = ''
    run()
