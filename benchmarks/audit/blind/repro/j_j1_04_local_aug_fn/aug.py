"""Mimics DeblurGANv2 aug.py: factories return a local `process` closure."""


def get_corrupt_function(scale):
    def process(x):
        return x * scale

    return process


class Corrupt:  # module-level callable twin
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return x * self.scale
