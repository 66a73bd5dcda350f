"""Shape: deepdyn -- lambdas defined at module level in a config module (runs.py) are stored on the
Dataset (self.conf, self.truth_getter); validation loaders use num_workers=3.
Cases: hazard_val_loader (STARE_1_100_1 config, per-image loaders with workers), safe_train_loader
(same config, num_workers=0), hazard_dparm_only (named getters, but the lambda dparm kept in self.conf),
safe_named (config holding module-level named functions, workers)."""
import sys
import runs
from datagen import Generator

if __name__ == "__main__":
    case = sys.argv[1]
    images = ['im0001.ppm', 'im0002.ppm']
    if case == 'hazard_val_loader':
        loaders = Generator.get_loader_per_img(images, runs.STARE_1_100_1, 'validation', None)
    elif case == 'safe_train_loader':
        loaders = [Generator.get_loader(images, runs.STARE_1_100_1, None, 'train')]
    elif case == 'hazard_dparm_only':
        loaders = Generator.get_loader_per_img(images, runs.STARE_DPARM_ONLY, 'validation', None)
    elif case == 'safe_named':
        loaders = Generator.get_loader_per_img(images, runs.STARE_NAMED, 'validation', None)
    n = sum(1 for ld in loaders for _ in ld)
    print('OK', case, 'batches', n)
