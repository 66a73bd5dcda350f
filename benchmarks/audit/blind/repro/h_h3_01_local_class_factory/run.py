"""Cases: local_class (hazard, WSP203), module_class (safe twin)."""
import sys
from torch.utils.data import DataLoader
from dataset.dataset import DatasetFactory


def run(local):
    ds = DatasetFactory(local).get_train_dataset()
    loader = DataLoader(dataset=ds, batch_size=4, shuffle=True, num_workers=1)
    n = sum(1 for _ in loader)
    print("OK batches", n)


if __name__ == "__main__":
    case = sys.argv[1]
    run(local={"local_class": True, "module_class": False}[case])
