# mimics hoi-forecast datasets/holoaders.py: FeaturesHOLoader keeps an lmdbdict (whose __getstate__ drops
# the lmdb env and whose __setstate__ reopens it) and the transforms it is given
import os
import numpy as np
from lmdbdict import lmdbdict
from torch.utils.data import DataLoader, Dataset
from datasets.input_loaders import get_features_loader


class FeaturesHOLoader(object):
    def __init__(self, sampler, feature_base_path, input_name='rgb', transform_feat=None, transform_video=None):
        self.lmdb_path = os.path.join(feature_base_path, "data.lmdb")
        self.env = lmdbdict(self.lmdb_path, 'r')
        self.transform_feat = transform_feat
        self.transform_video = transform_video
        self.sampler = sampler

    def __call__(self, action):
        times, frames_idxs = self.sampler(action)
        feats = [self.transform_feat(np.asarray(self.env['f%d' % (i % 4)], dtype=np.float32)) for i in frames_idxs]
        return {'feat': self.transform_video(feats)}


class EpicHODataset(Dataset):
    def __init__(self, loader):
        self.loader = loader
        self.actions = list(range(6))

    def __len__(self):
        return len(self.actions)

    def __getitem__(self, idx):
        return self.loader(self.actions[idx])['feat']


def get_dataloaders(args):
    ds = EpicHODataset(get_features_loader(args, FeaturesHOLoader))
    return {'validation': DataLoader(ds, batch_size=2, shuffle=False, num_workers=args.num_workers)}
