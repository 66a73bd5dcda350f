# mimics crowdcount/models/resnet101.py: Res101(pretrained=True) loads backbone weights in __init__
import os
import torch
import torch.nn as nn

LOG = os.environ.get("Q4_HEAVY_LOG")


class Res101(nn.Module):
    def __init__(self, pretrained=True):
        super().__init__()
        self.conv = nn.Conv2d(3, 1, 1)
        if pretrained:  # stands in for models.resnet101(pretrained=True): a weight download/load
            if LOG:
                with open(LOG, "a") as f:
                    f.write(f"load-weights pid={os.getpid()}\n")

    def forward(self, x):
        return self.conv(x)
