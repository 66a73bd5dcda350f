"""Mimics sharpDARTS cnn/train_search.py (guarded main). Cases:
autoaugment (hazard: SubPolicy lambdas), devanagari (hazard: local loader),
eraser (safe: module-level random_eraser in the transform list)."""
import sys
import utils
import dataset


def main(case):
    train_t, valid_t = utils.get_data_transforms(autoaug=(case == 'autoaugment'), eraser=(case == 'eraser'))
    name = 'devanagari' if case == 'devanagari' else 'cifar10'
    q = dataset.get_training_queues(name, train_t, valid_t, num_workers=2)
    n = sum(x.shape[0] for x, _ in q)
    print('OK', case, n)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'autoaugment')
