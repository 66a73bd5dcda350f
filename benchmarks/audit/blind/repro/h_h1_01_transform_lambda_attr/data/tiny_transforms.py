# stand-in for torchvision.transforms (not installed here): same pickling behaviour
class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd
    def __call__(self, x):
        return self.lambd(x)

class Scale:
    def __init__(self, f):
        self.f = f
    def __call__(self, x):
        return x * self.f

class Compose:
    def __init__(self, ts):
        self.transforms = ts
    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x
