# Mimics DEXTR networks/deeplab_resnet.py: resnet101(pretrained=True) torch.loads the Deeplab weights.
import os
import tempfile
import torch

CKPT = os.path.join(tempfile.gettempdir(), "d_d1_06_deeplab.pth")


def resnet101(pretrained=True):
    net = torch.nn.Linear(3, 1)
    if pretrained:
        if not os.path.exists(CKPT):
            torch.save(net.state_dict(), CKPT)
        print("loading pretrained weights in pid", os.getpid(), flush=True)
        net.load_state_dict(torch.load(CKPT, map_location=lambda storage, loc: storage))
    return net
