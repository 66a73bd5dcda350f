# mimics CFSNet/SPSR data/util.py: get_image_paths opens lmdb for data_type 'lmdb'
import os
import lmdb


def _get_paths_from_lmdb(dataroot):
    env = lmdb.open(dataroot, readonly=True, lock=False, readahead=False, meminit=False)
    with env.begin(write=False) as txn:
        keys = [k.decode("ascii") for k, _ in txn.cursor()]
    return env, sorted(keys)


def get_image_paths(data_type, dataroot):
    if data_type == "lmdb":
        return _get_paths_from_lmdb(dataroot)
    return None, sorted(os.listdir(dataroot))


def read_img(env, path, root):
    if env is None:
        with open(os.path.join(root, path), "rb") as f:
            return f.read()
    with env.begin(write=False) as txn:
        return txn.get(path.encode("ascii"))
