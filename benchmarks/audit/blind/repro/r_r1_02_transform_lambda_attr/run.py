# mimics run.py train_main / eval_main (config.json: num_workers 4, noise [0.3, 0.001], crop [0.4, 0.25])
import sys
from transforms_mod import AudioTransforms
from data_manager import CSVDataManager


def normal_noise(n):
    import numpy as np
    return np.random.normal(0, 0.001, n)


def main(case):
    args = {"noise": [0.3, 0.001], "crop": [0.4, 0.25]}
    dm = CSVDataManager({"batch_size": 4, "num_workers": 2, "shuffle": True})
    name = {"train": "train", "crop_after_noise_fixed": "train", "val_bound_collate": "val"}[case]
    t = AudioTransforms(name, args)
    if case == "crop_after_noise_fixed":
        t.transfs.ts[0].dist = normal_noise  # line 106 fixed; RandomCropLength's 'half' lambda remains
    for b in dm.get_loader(t):
        pass
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
