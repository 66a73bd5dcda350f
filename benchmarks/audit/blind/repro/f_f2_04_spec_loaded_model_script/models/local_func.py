# models/sbd/r34_dh128.py shape: scale_func defined inside train()
import random
from isegm.data import ISDataset
from isegm.trainer import ISTrainer


def train(cfg):
    def scale_func(image_shape):
        return random.uniform(0.75, 1.25)
    trainset = ISDataset(image_rescale=scale_func)
    print('samples', ISTrainer(cfg, trainset).training(0))


def main(cfg):
    train(cfg)
