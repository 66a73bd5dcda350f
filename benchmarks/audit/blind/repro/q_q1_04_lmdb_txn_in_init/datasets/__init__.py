from .make_dataloader import make_dataloader
