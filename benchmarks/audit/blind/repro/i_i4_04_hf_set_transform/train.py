"""Usage: train.py CASE [spawn] (local_transform | class_transform | map_local_only); the optional word spawn
also sets the start method of the `multiprocess` package (dill) that datasets.map(num_proc) uses."""
import sys
from torch.utils.data import DataLoader
from dataset_utils import gen_dataset, collate_fn


def main(case):
    import multiprocess
    multiprocess.set_start_method("spawn" if "spawn" in sys.argv else multiprocess.get_start_method(), force=True)
    print("multiprocess start method", multiprocess.get_start_method())
    ds = gen_dataset(case, num_workers=2)
    out = [b.tolist() for b in DataLoader(ds, batch_size=2, num_workers=2, collate_fn=collate_fn)]
    print("OK", case, out)


if __name__ == "__main__":
    main(sys.argv[1])
