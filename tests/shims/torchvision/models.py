"""Model-zoo builders that take torchvision's `pretrained=` / `weights=`: given weights, they say "LOADING" where the
real ones read (the first time download) the weights file; the model is a tiny linear layer."""
import torch


def resnet18(pretrained=False, weights=None, **kwargs):
    if pretrained or weights is not None:
        print("LOADING")
    return torch.nn.Linear(4, 2)


# (torchmetrics, which Lightning imports, imports these when it finds a torchvision: its image metrics build them)
def resnet50(pretrained=False, weights=None, **kwargs):
    return resnet18(pretrained, weights, **kwargs)


def vgg16(pretrained=False, weights=None, **kwargs):
    return resnet18(pretrained, weights, **kwargs)


class VGG16_Weights:
    IMAGENET1K_V1 = DEFAULT = "IMAGENET1K_V1"
