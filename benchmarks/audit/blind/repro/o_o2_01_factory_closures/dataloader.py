"""Mimics BayesNAS search/dataloader.py: transform factories that return local closures,
composed into the transform a CIFAR-like dataset keeps, then wrapped by random_split Subsets."""
import numpy as np
import torch
import torch.utils.data


class Compose:  # stands in for torchvision.transforms.Compose (module-level, picklable)
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


# --- hazard shape: factories returning local functions ---------------------------------
def to_tensor():
    def _to_tensor(image):
        return torch.from_numpy(image.transpose(2, 0, 1).astype(np.float32))
    return _to_tensor


def normalize(mean, std):
    mean = np.array(mean)
    std = np.array(std)

    def _normalize(image):
        image = np.asarray(image).astype(np.float32) / 255.
        return (image - mean) / std
    return _normalize


def cutout(mask_size, p):
    def _cutout(image):
        image = np.asarray(image).copy()
        if np.random.random() > p:
            return image
        image[:mask_size, :mask_size] = 0
        return image
    return _cutout


# --- safe twin: module-level callable classes ---------------------------------------------
class ToTensor:
    def __call__(self, image):
        return torch.from_numpy(image.transpose(2, 0, 1).astype(np.float32))


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = np.array(mean), np.array(std)

    def __call__(self, image):
        image = np.asarray(image).astype(np.float32) / 255.
        return (image - self.mean) / self.std


class Cutout:
    def __init__(self, mask_size, p):
        self.mask_size, self.p = mask_size, p

    def __call__(self, image):
        image = np.asarray(image).copy()
        if np.random.random() <= self.p:
            image[:self.mask_size, :self.mask_size] = 0
        return image


class TinyCIFAR(torch.utils.data.Dataset):
    def __init__(self, transform, n=16):
        rng = np.random.RandomState(0)
        self.data = rng.randint(0, 255, size=(n, 8, 8, 3)).astype(np.uint8)
        self.targets = list(range(n))
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.transform(self.data[i]), self.targets[i]


def get_loader(train_batch_size, val_batch_size, num_workers, safe=False):
    mean, std = [0.49, 0.48, 0.44], [0.24, 0.24, 0.26]
    if safe:
        tf = Compose([Normalize(mean, std), Cutout(4, 1), ToTensor()])
    else:
        tf = Compose([normalize(mean, std), cutout(4, 1), to_tensor()])
    ds = TinyCIFAR(tf)
    normal, _ = torch.utils.data.random_split(ds, [4, len(ds) - 4])
    return torch.utils.data.DataLoader(normal, batch_size=train_batch_size, shuffle=True,
                                       num_workers=num_workers, drop_last=True)
