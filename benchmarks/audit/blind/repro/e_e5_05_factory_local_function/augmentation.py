"""Mimics DeepHistReg augmentation.py: affine_augmentation() returns a function defined inside it."""
import functools
import random
import numpy as np


def affine_augmentation(params, augment_both=True):
    def augmentation(source, target):
        s = params["scale"] * (1 + random.random() * 0.01)
        return source * s, target, np.eye(3)
    return augmentation


def _augment(source, target, params, augment_both=True):     # safe twin: module-level function + partial
    return source * params["scale"], target, np.eye(3)


def affine_augmentation_picklable(params, augment_both=True):
    return functools.partial(_augment, params=params, augment_both=augment_both)
