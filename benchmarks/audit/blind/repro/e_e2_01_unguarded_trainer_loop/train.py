"""e_e2_01: unguarded top-level statement that iterates a loader built in another module (through a Trainer).
Mimics C-3-Framework train.py:63, EverybodyDanceNow transfer.py:29 and pix2pixHD/PoseEstimation scripts, DG-Net
train.py:95.  Cases: hazard (no main guard, 2 workers), guarded (same under the guard), zero_workers (no guard,
num_workers=0, as face_enhancer/prepare.py).  Run from this folder: python train.py CASE"""
import sys
from loading_data import loading_data
from trainer import Trainer

case = sys.argv[1]
print("TOP-LEVEL RUN", case)

if case == "hazard":
    cc_trainer = Trainer(loading_data, 2)
    print("RESULT", cc_trainer.forward())
elif case == "zero_workers":
    print("RESULT", Trainer(loading_data, 0).forward())


def main():
    cc_trainer = Trainer(loading_data, 2)
    print("RESULT", cc_trainer.forward())


if __name__ == "__main__" and case == "guarded":
    main()
