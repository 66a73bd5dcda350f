"""q2 shape 07: TransformedDataset keeps the transformer callable (BatchBALD src/transformed_dataset.py,
src/dataset_enum.py:119 local apply_noise, transformed_dataset.py:19 default lambda; run_experiment.py sets
num_workers=1 when CUDA is present, here set directly).
cases: local_fn, default_lambda, safe (module-level class as transformer), parent_lambda (ignite-style desc lambda
used in the parent only)."""
import sys
import torch
from torch.utils import data


class TransformedDataset(data.Dataset):
    def __init__(self, dataset, *, transformer=None, vision_transformer=None):
        self.dataset = dataset
        if transformer:
            self.transformer = transformer
        else:
            self.transformer = lambda _, data_label: (vision_transformer(data_label[0]), data_label[1])

    def __getitem__(self, idx):
        return self.transformer(idx, self.dataset[idx])

    def __len__(self):
        return len(self.dataset)


class Scale:
    def __call__(self, x):
        return x * 2


class AddNoise:                        # picklable replacement for the closure
    def __init__(self, noise):
        self.noise = noise

    def __call__(self, idx, sample):
        return sample[0] + self.noise[idx], sample[1]


def get_data_source(kind):
    base = data.TensorDataset(torch.randn(32, 2, 2), torch.randint(0, 10, (32,)))
    if kind == "local_fn":
        def apply_noise(idx, sample):
            d, t = sample
            return d + dataset_noise[idx], t
        dataset_noise = torch.empty((32, 2, 2)).normal_(0.0, 0.1)
        return TransformedDataset(base, transformer=apply_noise)
    if kind == "default_lambda":
        return TransformedDataset(base, vision_transformer=Scale())
    return TransformedDataset(base, transformer=AddNoise(torch.zeros(32, 2, 2)))


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else "local_fn"
    ds = get_data_source(case)
    active = data.Subset(ds, list(range(16)))      # ActiveLearningData's active subset
    loader = data.DataLoader(active, batch_size=4, num_workers=1, pin_memory=False)
    def desc(name):
        return lambda engine: "%s: %s" % (name, len(active))
    label = desc("train")(None)
    n = sum(1 for _ in loader)
    print("OK batches", n, label)


if __name__ == "__main__":
    main()
