"""e_e2_02: dataset loading at import time of the training script whose loop is guarded (MST-plus-plus
train_code/train.py:32/34, test_develop_code/test.py:30).  Cases: hazard (module-level TrainDataset(...): each
spawned worker re-imports the script as __mp_main__ and loads the data again; count LOADING), guarded (built inside
main()).  Run from this folder: python train.py CASE"""
import sys
from torch.utils.data import DataLoader
from hsi_dataset import TrainDataset, make_data, ROOT

case = sys.argv[1]
if case == "hazard":
    train_data = TrainDataset(ROOT)


def main():
    global train_data
    if case == "guarded":
        train_data = TrainDataset(ROOT)
    loader = DataLoader(train_data, batch_size=1, shuffle=False, num_workers=2)
    print("RESULT", sum(float(b.sum()) for b in loader))


if __name__ == "__main__":
    make_data()
    main()
