"""e_e2_03: a Dataset in another module keeps an open h5py handle (pytorch-vdsr dataset.py:8 via main_vdsr.py,
--threads default 1).  Cases: hazard (DatasetFromHdf5), lazy (opened in __getitem__), numpy (read and closed in
__init__).  Run from this folder: python main_vdsr.py CASE"""
import sys
from torch.utils.data import DataLoader
import dataset


def main():
    case = sys.argv[1]
    dataset.make_data()
    cls = {"hazard": dataset.DatasetFromHdf5, "lazy": dataset.LazyHdf5, "numpy": dataset.ReadIntoNumpy}[case]
    train_set = cls(dataset.PATH)
    loader = DataLoader(dataset=train_set, num_workers=1, batch_size=2, shuffle=True)
    print("RESULT", sum(float(x.sum()) for x, y in loader))


if __name__ == "__main__":
    main()
