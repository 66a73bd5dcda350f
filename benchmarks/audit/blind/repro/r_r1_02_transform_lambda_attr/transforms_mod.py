# mimics crnn-audio-classification data/transforms.py: AugmentationTransform keeps self.dist = lambda
import numpy as np
import torch


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class ToTensorAudio:
    def __call__(self, a):
        return torch.from_numpy(np.ascontiguousarray(a))


class AugmentationTransform:
    def __init__(self, prob=None, sig=None, dist_type="uniform"):
        self.sig, self.dist_type = sig, dist_type
        self.dist = self._get_dist(sig, dist_type)
        self.prob = prob

    def _get_dist(self, sig, dist_type):
        if dist_type == "normal":
            dist = lambda x: np.random.normal(0, sig, x)
        elif dist_type == "uniform":
            dist = lambda x: np.random.uniform(-sig, sig, x)
        elif dist_type == "half":
            dist = lambda x: np.clip(np.abs(np.random.normal(0, sig, x)), a_min=0.0, a_max=0.8)
        else:
            raise ValueError
        return dist

    def __call__(self, t):
        return self.transform(t) if np.random.rand() <= self.prob else t


class AdditiveNoise(AugmentationTransform):
    def __init__(self, prob, sig, dist_type="normal"):
        super().__init__(prob, sig, dist_type)

    def transform(self, t):
        return t + self.dist(t.shape[0]).astype("float32")


class RandomCropLength(AugmentationTransform):
    def __init__(self, prob, sig, dist_type="half"):
        super().__init__(prob, sig, dist_type)

    def transform(self, t):
        return t


class AudioTransforms:
    def __init__(self, name, args):
        self.transfs = {
            "val": Compose([ToTensorAudio()]),
            "train": Compose([AdditiveNoise(*args["noise"]), RandomCropLength(*args["crop"]), ToTensorAudio()]),
        }[name]

    def apply(self, data, target):
        return self.transfs(data), 16000, target
