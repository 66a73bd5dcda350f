# stand-ins for torchvision.transforms.Compose / Lambda (torchvision is not installed)
class Compose:
    def __init__(self, ts):
        self.transforms = ts

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


def to_float(x):
    return x.float()


def scale(x):
    return 2. * x / 255. - 1.
