"""Transform helpers in their own module, each keeping a lambda somewhere in the object it returns."""
import torch

from tvshim import Compose, Lambda


def to_rgb(x):                          # module-level twin (CLIP's _convert_image_to_rgb)
    return x


class TrainAugmentation:                # pytorch-ssd: lambda inside the Compose kept on self.augment
    def __init__(self, std=1.0):
        self.augment = Compose([to_rgb, lambda img: img / std])

    def __call__(self, x):
        return self.augment(x)


class PaddedSampler:                    # ANIMAL-SPOT: the lambda itself kept on self._sampler
    def __init__(self, random=True):
        self._sampler = (lambda x: int(torch.randint(0, x, (1,)))) if random else (lambda x: x // 2)

    def __call__(self, x):
        return x + 0 * self._sampler(4)


def get_transform(rotation=0):          # parseq: the lambda is appended only for --rotation
    ts = [to_rgb]
    if rotation:
        ts.append(lambda img: img * rotation)
    return Compose(ts)


def get_cifar():                        # MutualNet: Lambda(lambda) in the Compose, workers in a kwargs dict
    transform = Compose([Lambda(lambda x: x * 2), to_rgb])
    kwargs = {"num_workers": 1}
    return transform, kwargs
