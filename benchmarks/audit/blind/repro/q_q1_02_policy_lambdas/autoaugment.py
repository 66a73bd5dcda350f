import random
from PIL import Image, ImageOps


class ImageNetPolicy(object):
    def __init__(self):
        self.policies = [SubPolicy(0.4, "posterize", 8, 0.6, "rotate", 9)]

    def __call__(self, img):
        return random.choice(self.policies)(img)


class SubPolicy(object):
    def __init__(self, p1, operation1, magnitude_idx1, p2, operation2, magnitude_idx2):
        ranges = {"posterize": [4] * 10, "rotate": [30] * 10}

        def rotate_with_fill(img, magnitude):
            return img.rotate(magnitude)

        func = {
            "posterize": lambda img, magnitude: ImageOps.posterize(img, magnitude),
            "rotate": lambda img, magnitude: rotate_with_fill(img, magnitude),
        }
        self.p1 = p1
        self.operation1 = func[operation1]
        self.magnitude1 = ranges[operation1][magnitude_idx1]
        self.p2 = p2
        self.operation2 = func[operation2]
        self.magnitude2 = ranges[operation2][magnitude_idx2]

    def __call__(self, img):
        if random.random() < self.p1:
            img = self.operation1(img, self.magnitude1)
        if random.random() < self.p2:
            img = self.operation2(img, self.magnitude2)
        return img
