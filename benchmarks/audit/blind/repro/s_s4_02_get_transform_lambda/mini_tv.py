"""Tiny stand-ins for torchvision.transforms.Compose / Lambda (torchvision is not installed)."""
class Compose:
    def __init__(self, ts):
        self.ts = ts
    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x

class Lambda:
    def __init__(self, fn):
        self.lambd = fn
    def __call__(self, x):
        return self.lambd(x)

class Scale:
    def __init__(self, f):
        self.f = f
    def __call__(self, x):
        return x * self.f
