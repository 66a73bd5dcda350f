# Safe twin: same as train_script.py under a main guard, arrays copied out of the npz.
import os
import sys
import tempfile
from audio_data import WavenetDataset
from wavenet_training import WavenetTrainer


def generate_and_log_samples(step):
    print("logged", step)


if __name__ == "__main__":
    case = sys.argv[1]                # npz | arrays
    path = os.path.join(tempfile.gettempdir(), "e_e1_04_dataset.npz")
    data = WavenetDataset(path, keep_npz=(case == "npz"))
    WavenetTrainer(data, logger=generate_and_log_samples).train()
    print("OK", case)
