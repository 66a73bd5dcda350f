import torch.utils.data as data

class Registry(dict):
    def register(self, name):
        def register_fn(cls):
            self[name] = cls
            return cls
        return register_fn

DATA_LAYERS = Registry()

def build_data_loader(cfg, mode):
    data_layer = DATA_LAYERS[cfg["data_name"]]
    return data.DataLoader(dataset=data_layer(cfg, mode), batch_size=2,
                           num_workers=cfg["num_workers"])
