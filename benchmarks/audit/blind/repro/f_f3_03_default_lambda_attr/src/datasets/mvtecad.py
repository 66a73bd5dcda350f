from ..common.dataset import AnomalyDetectionDataset


def good_is_zero(class_name):
    return 0 if class_name == "good" else 1


class MVTecAD(AnomalyDetectionDataset):
    def __init__(self, train=True, transform=None,
                 target_transform=lambda class_name: 0 if class_name == "good" else 1):
        super().__init__(train=train, transform=transform, target_transform=target_transform)
        self.samples = [(float(i), "good" if i % 2 else "crack") for i in range(6)]


class MVTecADFixed(MVTecAD):
    """safe twin: the default is a module-level function"""
    def __init__(self, train=True, transform=None, target_transform=good_is_zero):
        super().__init__(train=train, transform=transform, target_transform=target_transform)
