# create_model loads a checkpoint with torch.load (Pose-Transfer: load_network in test mode,
# or vgg19(pretrained=True) in the perceptual loss for training); each load is logged to a marker file
import os
import tempfile
import torch

CKPT = os.path.join(tempfile.gettempdir(), 'f_f2_03_netG.pth')
MARK = os.path.join(tempfile.gettempdir(), 'f_f2_03_loads.txt')


def create_model(opt):
    if not os.path.exists(CKPT):
        torch.save({'w': torch.zeros(4)}, CKPT)
    state = torch.load(CKPT)
    with open(MARK, 'a') as f:
        f.write('%d\n' % os.getpid())
    net = torch.nn.Linear(4, 1, bias=False)
    net.weight.data[:] = state['w']
    return net
