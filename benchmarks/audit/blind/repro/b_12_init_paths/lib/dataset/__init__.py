from .coco import COCODataset as coco  # noqa: F401
