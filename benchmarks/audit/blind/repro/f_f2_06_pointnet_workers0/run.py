# f_f2_06: pointnet shapes with the DataLoader's default num_workers=0.
# cases: workers0_script (safe: train.py, guarded, DataLoader(dataset=..., batch_size=...) without num_workers),
#        nb_workers0 (safe: notebooks PointNetClass/PointNetSeg, Dataset class defined in a "cell",
#          DataLoader without num_workers),
#        nb_workers2 (hazard twin, not a labelled site: the same notebook class with num_workers=2 -> WSP206 failure).
# Notebook emulation: __main__ has no __file__ and no __spec__ (a Jupyter kernel), so spawned workers cannot
# re-import the cells' definitions.
import sys
import torch
from torch.utils.data import Dataset, DataLoader

case = sys.argv[1]

if case.startswith('nb_'):
    main_mod = sys.modules['__main__']
    main_mod.__spec__ = None
    if hasattr(main_mod, '__file__'):
        del main_mod.__file__

    # --- "cell": class defined in the notebook
    class PointCloudData(Dataset):
        def __init__(self, n):
            self.files = list(range(n))

        def __len__(self):
            return len(self.files)

        def __getitem__(self, idx):
            return {'pointcloud': torch.full((4, 3), float(idx)), 'category': idx % 2}

    # --- "cell": loaders
    train_ds = PointCloudData(6)
    if case == 'nb_workers0':
        train_loader = DataLoader(dataset=train_ds, batch_size=2, shuffle=True)
    else:
        train_loader = DataLoader(dataset=train_ds, batch_size=2, shuffle=True, num_workers=2)
    # --- "cell": training loop
    print('batches', sum(1 for _ in train_loader))
    print('OK')
elif __name__ == '__main__':
    if case == 'workers0_script':
        from source import dataset, utils
        from torchvision_like import Compose
        train_ds = dataset.PointCloudData(6, transform=Compose([utils.PointSampler(8), utils.ToTensor()]))
        train_loader = DataLoader(dataset=train_ds, batch_size=2, shuffle=True)
    else:
        raise SystemExit('unknown case')
    print('batches', sum(1 for _ in train_loader))
    print('OK')
