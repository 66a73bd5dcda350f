import os
import torch
from audio_dataset import AudiosetDataset
from traintest import train

MARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "heavy_count.txt")


def build_model():
    with open(MARK, "a") as f:
        f.write(f"{os.getpid()} {__name__}\n")
    return torch.nn.Linear(4, 4)


if __name__ == "__main__":
    train_loader = torch.utils.data.DataLoader(AudiosetDataset(), batch_size=4, num_workers=2)
    audio_model = build_model()
    train(audio_model, train_loader, None)
    print("OK guarded")
