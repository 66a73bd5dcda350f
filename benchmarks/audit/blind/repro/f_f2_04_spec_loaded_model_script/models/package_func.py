# safe twin: the rescale function comes from an importable package module; input_transform is a Compose
from isegm.data import ISDataset, Compose, Scale, uniform_scale
from isegm.trainer import ISTrainer


def main(cfg):
    input_transform = Compose([Scale(2.0)])
    trainset = ISDataset(image_rescale=uniform_scale, input_transform=input_transform)
    print('samples', ISTrainer(cfg, trainset).training(0))
