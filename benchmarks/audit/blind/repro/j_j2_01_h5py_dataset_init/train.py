# mimics Image-Caption/train.py: guarded script, DataLoader(num_workers=args.workers default 1)
import os, sys, tempfile
import torch
from datasets import CaptionDataset, LazyCaptionDataset, make_file

if __name__ == '__main__':
    case = sys.argv[1] if len(sys.argv) > 1 else 'hazard'
    path = os.path.join(tempfile.mkdtemp(), 'TRAIN_IMAGES.hdf5')
    make_file(path)
    ds = CaptionDataset(path) if case == 'hazard' else LazyCaptionDataset(path)
    loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, num_workers=1)
    for b in loader:
        pass
    print('OK', case)
