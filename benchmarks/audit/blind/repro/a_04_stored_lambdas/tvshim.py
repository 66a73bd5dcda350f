"""Stand-ins with the shape of torchvision.transforms.Compose/Lambda (torchvision is not installable here):
Compose keeps its list in .transforms, Lambda keeps the callable in .lambd, which is what pickling has to ship."""


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
