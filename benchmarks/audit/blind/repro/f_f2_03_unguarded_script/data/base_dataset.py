# torchvision is not installed here: tiny stand-ins for transforms.Compose / Lambda / Normalize


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class Lambda:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean[0], std[0]

    def __call__(self, x):
        return (x - self.mean) / self.std


def get_transform(opt):
    transform_list = []
    if opt.resize_or_crop == 'scale_width':       # not reached with the README's --resize_or_crop no
        transform_list.append(Lambda(lambda img: img * 1.0))
    transform_list += [Normalize((0.5,), (0.5,))]
    return Compose(transform_list)
