"""Mimics data/base_dataset.py get_transform(): lambdas wrapped in transforms.Lambda."""
import torch
from torch.utils.data import Dataset
import mini_tv as transforms


class BaseDataset(Dataset):
    def __init__(self, opt):
        self.opt = opt


def __scale_width(img, w):
    return img * (w / 4.0)


def __make_power_2(img, base):
    return img


def __crop(img, pos, size):
    return img[..., :size]


def get_transform(opt, params=None):
    tl = []
    if 'resize' in opt.preprocess:
        tl.append(transforms.Scale(1.0))
    elif 'scale_width' in opt.preprocess:
        tl.append(transforms.Lambda(lambda img: __scale_width(img, opt.load_size)))
    if 'crop' in opt.preprocess and params is not None:
        tl.append(transforms.Lambda(lambda img: __crop(img, params['crop_pos'], 2)))
    if opt.preprocess == 'none':
        tl.append(transforms.Lambda(lambda img: __make_power_2(img, base=4)))
    return transforms.Compose(tl)
