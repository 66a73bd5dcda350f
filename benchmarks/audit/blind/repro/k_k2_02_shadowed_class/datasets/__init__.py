from .dataset_builder import build_data_loader
from .dataset import THUMOSDataset, FINEACTIONDataset
