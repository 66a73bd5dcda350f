# Mimics MobileNetV3-SSD vision/ssd/data_preprocessing.py: TrainAugmentation/TestTransform
# keep a custom Compose whose list holds a lambda; VOCDataset keeps the transform;
# train_ssd.py builds DataLoader(num_workers=args.num_workers, default 4) under the guard.
# cases: hazard (lambda in the Compose list), safe (a module-level callable class)
import sys
import numpy as np
import torch
import torch.utils.data


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img, boxes=None, labels=None):
        for t in self.transforms:
            img, boxes, labels = t(img, boxes, labels)
        return img, boxes, labels


class SubtractMeans:
    def __init__(self, mean):
        self.mean = mean

    def __call__(self, img, boxes=None, labels=None):
        return img - self.mean, boxes, labels


class DivideStd:
    def __init__(self, std):
        self.std = std

    def __call__(self, img, boxes=None, labels=None):
        return img / self.std, boxes, labels


class TrainAugmentation:
    def __init__(self, size, mean=0, std=1.0, safe=False):
        self.augment = Compose([
            SubtractMeans(mean),
            DivideStd(std) if safe else (lambda img, boxes=None, labels=None: (img / std, boxes, labels)),
        ])

    def __call__(self, img, boxes, labels):
        return self.augment(img, boxes, labels)


class VOCDataset(torch.utils.data.Dataset):
    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return 4

    def __getitem__(self, i):
        img, boxes, labels = self.transform(np.full((2, 2), float(i)), None, None)
        return torch.from_numpy(img)


if __name__ == "__main__":
    case = sys.argv[1]
    ds = VOCDataset(TrainAugmentation(300, 127, 128.0, safe=(case == "safe")))
    loader = torch.utils.data.DataLoader(ds, batch_size=2, num_workers=2)
    print("OK", len(list(loader)))
