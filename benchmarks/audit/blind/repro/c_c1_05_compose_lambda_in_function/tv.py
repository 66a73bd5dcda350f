"""Stand-ins for torchvision.transforms.Lambda and torchsample Compose (not installed here)."""


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class RandomFlip:
    def __call__(self, x):
        return x.flip(0)
