from .data_loader import create_dataloader
