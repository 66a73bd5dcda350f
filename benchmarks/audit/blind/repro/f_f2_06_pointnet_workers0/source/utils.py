# mimics pointnet source/utils.py: transform classes at module level (a lambda used inside a method
# runs in the worker and is never pickled)
import random
import numpy as np
import torch


class PointSampler(object):
    def __init__(self, output_size):
        self.output_size = output_size

    def sample_point(self, pt1, pt2, pt3):
        s, t = sorted([random.random(), random.random()])
        f = lambda i: s * pt1[i] + (t - s) * pt2[i] + (1 - t) * pt3[i]
        return (f(0), f(1), f(2))

    def __call__(self, mesh):
        verts = np.array(mesh)
        return np.array([self.sample_point(verts[0], verts[1], verts[2]) for _ in range(self.output_size)])


class ToTensor(object):
    def __call__(self, pointcloud):
        return torch.from_numpy(pointcloud)
