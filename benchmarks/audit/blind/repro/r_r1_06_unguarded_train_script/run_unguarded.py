# mimics ast src/run.py / get_norm_stats.py / egs/audioset/ensemble.py: everything at module level
import os, sys, time
import torch
from audio_dataset import AudiosetDataset
from traintest import train

MARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "heavy_count.txt")
train_loader = torch.utils.data.DataLoader(AudiosetDataset(), batch_size=4, num_workers=2)


def build_model():  # stands for models.ASTModel(imagenet_pretrain=True): timm weights loaded
    with open(MARK, "a") as f:
        f.write(f"{os.getpid()} {__name__}\n")
    return torch.nn.Linear(4, 4)


audio_model = build_model()
train(audio_model, train_loader, None)
print("OK unguarded")
