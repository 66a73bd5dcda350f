# mimics train.py main(): train_set gets Compose([...]); val_set keeps the default lambda; num_workers 4 (2 here)
import sys
from torch.utils.data import DataLoader
from local import Compose, RebalanceMusicDataset, augment_channelswap, augment_gain, collation_fn


def local_pipeline_dataset():
    # mimics the speechbrain recipes (cpc1 train_asr.py): local pipeline functions, 0 workers by default
    def audio_pipeline(x):
        return x
    return RebalanceMusicDataset(source_augmentations=audio_pipeline)


def main(case):
    if case == "val_default_lambda":
        ds, nw = RebalanceMusicDataset(split="valid"), 2
    elif case == "train_compose":
        ds, nw = RebalanceMusicDataset(source_augmentations=Compose([augment_gain, augment_channelswap])), 2
    elif case == "local_pipeline_0workers":
        ds, nw = local_pipeline_dataset(), 0
    else:
        raise SystemExit("unknown case")
    for b in DataLoader(ds, batch_size=4, num_workers=nw, collate_fn=collation_fn):
        pass
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
