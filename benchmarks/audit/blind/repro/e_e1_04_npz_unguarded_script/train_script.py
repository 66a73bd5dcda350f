# Mimics pytorch-wavenet train_script.py/test_script.py: everything at top level, no main guard.
import os
import sys
import tempfile
from audio_data import WavenetDataset
from wavenet_training import WavenetTrainer

case = sys.argv[1]                    # npz | arrays
path = os.path.join(tempfile.gettempdir(), "e_e1_04_dataset.npz")
data = WavenetDataset(path, keep_npz=(case == "npz"))


def generate_and_log_samples(step):
    print("logged", step)


trainer = WavenetTrainer(data, logger=generate_and_log_samples)
trainer.train()
print("OK", case)
