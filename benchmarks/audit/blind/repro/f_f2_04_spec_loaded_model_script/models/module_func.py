# variant: scale_func at module level of the model script (the script is loaded by
# spec_from_file_location as "model_script" and is not in sys.modules)
import random
from isegm.data import ISDataset
from isegm.trainer import ISTrainer


def scale_func(image_shape):
    return random.uniform(0.75, 1.25)


def main(cfg):
    trainset = ISDataset(image_rescale=scale_func)
    print('samples', ISTrainer(cfg, trainset).training(0))
