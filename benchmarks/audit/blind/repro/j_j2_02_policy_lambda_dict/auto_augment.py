# mimics OpenUnReID/openunreid/data/transformers/auto_augment.py: SubPolicy.__init__ builds a dict of
# lambdas and stores two of them as attributes (self.operation1/2)
import random


class SubPolicy(object):
    def __init__(self, p1, operation1, p2, operation2):
        func = {
            "shift": lambda x, m: x + m,
            "scale": lambda x, m: x * m,
        }
        self.p1, self.operation1 = p1, func[operation1]
        self.p2, self.operation2 = p2, func[operation2]

    def __call__(self, x):
        if random.random() < self.p1:
            x = self.operation1(x, 1.0)
        if random.random() < self.p2:
            x = self.operation2(x, 2.0)
        return x


def _shift(x, m):
    return x + m


def _scale(x, m):
    return x * m


_FUNCS = {"shift": _shift, "scale": _scale}


class SafeSubPolicy(object):
    def __init__(self, p1, operation1, p2, operation2):
        self.p1, self.op1 = p1, operation1
        self.p2, self.op2 = p2, operation2

    def __call__(self, x):
        if random.random() < self.p1:
            x = _FUNCS[self.op1](x, 1.0)
        if random.random() < self.p2:
            x = _FUNCS[self.op2](x, 2.0)
        return x


class ImageNetPolicy(object):
    def __init__(self, safe=False):
        cls = SafeSubPolicy if safe else SubPolicy
        self.policies = [cls(0.5, "shift", 0.5, "scale"), cls(0.4, "scale", 0.6, "shift")]

    def __call__(self, x):
        return random.choice(self.policies)(x)
