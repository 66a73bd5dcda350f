import torch

def _to_tensor255(x):
    return torch.as_tensor(x, dtype=torch.float32) * 255

class ToTensor(object):
    # as pytorch-resnet3d utils/gtransforms.py:90
    def __init__(self, use_lambda=True):
        self.worker = (lambda x: torch.as_tensor(x, dtype=torch.float32) * 255) if use_lambda else _to_tensor255
    def __call__(self, img_group):
        return torch.stack([self.worker(img) for img in img_group], 0)

class Compose(object):
    def __init__(self, ts):
        self.ts = ts
    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x
