"""torchsample.transforms: only ``Compose``, as the library has it."""


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, *inputs):
        for transform in self.transforms:
            inputs = transform(*inputs) if isinstance(inputs, tuple) else transform(inputs)
        return inputs
