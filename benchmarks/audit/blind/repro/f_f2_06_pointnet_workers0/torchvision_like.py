class Compose:                       # stand-in for torchvision.transforms.Compose (not installed)
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x
