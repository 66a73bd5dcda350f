"""Mimics sharpDARTS cnn/autoaugment.py (DeepVoltaire style): SubPolicy keeps lambdas from a
dict built in __init__ as attributes; CIFAR10Policy holds SubPolicy objects."""
import random
from PIL import Image, ImageOps


class CIFAR10Policy(object):
    def __init__(self):
        self.policies = [SubPolicy(0.5, "invert", 0.5, "rotate"),
                         SubPolicy(0.5, "autocontrast", 0.5, "rotate")]

    def __call__(self, img):
        return random.choice(self.policies)(img)


class SubPolicy(object):
    def __init__(self, p1, operation1, p2, operation2):
        def rotate_with_fill(img, magnitude):
            rot = img.convert("RGBA").rotate(magnitude)
            return Image.composite(rot, Image.new("RGBA", rot.size, (128,) * 4), rot).convert(img.mode)

        func = {
            "rotate": lambda img, magnitude: rotate_with_fill(img, magnitude),
            "autocontrast": lambda img, magnitude: ImageOps.autocontrast(img),
            "invert": lambda img, magnitude: ImageOps.invert(img),
        }
        self.p1, self.operation1 = p1, func[operation1]
        self.p2, self.operation2 = p2, func[operation2]

    def __call__(self, img):
        if random.random() < self.p1:
            img = self.operation1(img, 10)
        if random.random() < self.p2:
            img = self.operation2(img, 10)
        return img
