# mimics clipscore.py: CLIPImageDataset.__init__ stores self.preprocess = self._transform_test(224), a Compose
# holding `lambda image: image.convert("RGB")`; extract_all_images uses DataLoader(num_workers=8) (guarded main).
# cases: image_dataset (hazard), caption_dataset (safe: CLIPCapDataset keeps only data + prefix)
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class Compose(object):
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class CLIPImageDataset(Dataset):
    def __init__(self, data):
        self.data = data
        self.preprocess = self._transform_test(4)

    def _transform_test(self, n_px):
        return Compose([lambda image: image.float(), lambda image: image[:n_px]])

    def __getitem__(self, idx):
        return {'image': self.preprocess(self.data[idx])}

    def __len__(self):
        return len(self.data)


class CLIPCapDataset(Dataset):
    def __init__(self, data, prefix='A photo depicts'):
        self.data, self.prefix = data, prefix + ' '

    def __getitem__(self, idx):
        return {'caption': torch.tensor([len(self.prefix + self.data[idx])])}

    def __len__(self):
        return len(self.data)


def main(case):
    if case == 'image_dataset':
        ds = CLIPImageDataset([torch.arange(6) for _ in range(4)])
    else:
        ds = CLIPCapDataset(['a dog', 'a cat', 'a car', 'a bus'])
    for b in DataLoader(ds, batch_size=2, num_workers=2, shuffle=False):
        pass
    print('OK', case)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'image_dataset')
