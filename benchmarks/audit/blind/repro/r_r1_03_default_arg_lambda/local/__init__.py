from .cad2task2_dataloader import Compose, RebalanceMusicDataset, augment_channelswap, augment_gain, collation_fn
