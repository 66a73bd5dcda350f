# f_f2_07: hoi-forecast shape (traineval.py guarded; loaders built in datasets/, iterated in netscripts/).
# cases: lambda_loader (hazard WSP204: transform_feat/transform_video lambdas kept by FeaturesHOLoader inside
#          PipeLoaders inside the dataset's .loader; DataLoader(num_workers=--workers, default 16)),
#        lmdbdict_env (safe: the same loader with module-level transforms; the lmdbdict env opened in __init__
#          is dropped by its __getstate__ and reopened in the worker)
import os
import sys
import tempfile
import types
from lmdbdict import lmdbdict
from datasets.holoaders import get_dataloaders
from netscripts.epoch_feat import epoch_pass


def make_lmdb(path):
    if not os.path.exists(os.path.join(path, 'data.lmdb')):
        os.makedirs(path, exist_ok=True)
        db = lmdbdict(os.path.join(path, 'data.lmdb'), 'w')
        for i in range(4):
            db['f%d' % i] = [float(i)] * 3
        db.flush()
        del db


def main(args):
    dls = get_dataloaders(args)
    print('samples', epoch_pass(dls['validation']))
    print('OK')


if __name__ == '__main__':
    case = sys.argv[1]
    path = os.path.join(tempfile.gettempdir(), 'f_f2_07_feats')
    make_lmdb(path)
    args = types.SimpleNamespace(feature_path=path, num_workers=2,
                                 module_level_transforms=(case == 'lmdbdict_env'))
    main(args)
