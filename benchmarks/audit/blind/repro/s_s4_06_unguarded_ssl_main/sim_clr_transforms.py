"""Mimics sim_clr_transforms.SimCLR: a two-crop wrapper class at module level that keeps only
plain numbers and builds its pipeline inside __call__ (in the worker): picklable."""
import torch


def SamplePairing(imgs):   # local-function factory that is never sent to workers
    def f(img1, v):
        return img1 * v
    return f


class SimCLR:
    def __init__(self, power_list):
        self.power_list = power_list

    def __call__(self, image, label):
        p = self.power_list[label]
        self.transform = lambda x: x * p   # built in the worker, after unpickling
        return [self.transform(image), self.transform(image.flip(-1))]
