"""Mimics train/base.py DataCore.webdataset_preprocessors / setup_data."""
from torch.utils.data import DataLoader
from mini_wds import WebDataset, MultiGetter


def keep_all(x):
    return True


def decode_caption(x):
    return x.decode("utf-8") if isinstance(x, bytes) else x


def image_identity(x):
    return x


class ToDict:
    def __init__(self, names):
        self.names = names
    def __call__(self, x):
        return {n: x[i] for i, n in enumerate(self.names)}


def collate_identity(x):
    return x


class DataCore:
    def __init__(self, config):
        self.config = config

    def webdataset_preprocessors(self):
        def identity(x):
            if isinstance(x, bytes):
                x = x.decode('utf-8')
            return x

        # built but never returned: does not reach the workers (safe look-alike)
        captions_getter = MultiGetter(rules={('old_caption', 'caption'): lambda oc, c: identity(c)})

        if self.config.get("fixed") or self.config.get("fixed_pre"):
            return [('jpg', image_identity, 'images'), ('txt', decode_caption, 'captions')]
        return [('jpg', image_identity, 'images'), ('txt', identity, 'captions')]

    def setup_data(self):
        preprocessors = self.webdataset_preprocessors()
        fixed = self.config.get("fixed")
        dataset = WebDataset(4).select(
            keep_all if self.config.get("dataset_filters") is not None else lambda _: True
        ).map_tuple(*[p[1] for p in preprocessors])
        if fixed:
            dataset = dataset.map(ToDict([p[2] for p in preprocessors]))
        else:
            dataset = dataset.map(lambda x: {p[2]: x[i] for i, p in enumerate(preprocessors)})

        def identity(x):
            return x

        dataloader = DataLoader(dataset, batch_size=2, num_workers=2,  # original: num_workers=8
                                collate_fn=(identity if not self.config.get("fixed_collate") else collate_identity)
                                if self.config.get("multi_aspect_ratio") is not None else None)
        return dataloader
