"""c_c1_06: StoryGAN main_clevr.py shape: under `if __name__ == "__main__":` a Compose holding a library
function (PIL.Image.fromarray, line 63; numpy.ascontiguousarray here) and a lambda (line 67), and
`def video_transform` (line 70) wrapped in functools.partial; the datasets (clevr_data.py) go to
DataLoader(num_workers=cfg.WORKERS: 2 in cfg/clevr.yml, 6 in config.py).  Cases:
  repo      - lambda and def under the guard (the repository's code)
  lambda    - lambda in the Compose, video_transform at module level
  guard_def - no lambda, video_transform defined under the guard
  safe      - everything at module level; the library function stays; trainer's map_location lambda
              is used in the parent
"""
import functools
import sys

import numpy as np
import torch

import clevr_data as data
import trainer

CASE = sys.argv[1]


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


def first_channels(x):
    return x[:3]


def module_video_transform(video, image_transform):
    return torch.stack([image_transform(im) for im in video])


if __name__ == "__main__":
    n_channels = 3
    steps = [np.ascontiguousarray, torch.as_tensor]
    if CASE in ("repo", "lambda"):
        steps.append(lambda x: x[:n_channels, ::])
    else:
        steps.append(first_channels)
    image_transforms = Compose(steps)

    def video_transform(video, image_transform):
        return torch.stack([image_transform(im) for im in video])

    vt = video_transform if CASE in ("repo", "guard_def") else module_video_transform
    video_transforms = functools.partial(vt, image_transform=image_transforms)
    storydataset = data.StoryDataset(video_transforms)
    imagedataset = data.ImageDataset(image_transforms)
    imageloader = torch.utils.data.DataLoader(imagedataset, batch_size=2, num_workers=2)
    storyloader = torch.utils.data.DataLoader(storydataset, batch_size=2, num_workers=2)
    print("sum", trainer.train(imageloader, storyloader))
