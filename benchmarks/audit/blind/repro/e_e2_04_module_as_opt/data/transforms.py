# stand-in for torchvision.transforms (not installed): Lambda keeps the callable, Compose keeps the list
class Lambda:
    def __init__(self, fn):
        self.lambd = fn

    def __call__(self, x):
        return self.lambd(x)


class Compose:
    def __init__(self, ts):
        self.transforms = ts

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x
