# Stand-in for torchvision.transforms (not installed here): Compose and Lambda keep the callables.
class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k
