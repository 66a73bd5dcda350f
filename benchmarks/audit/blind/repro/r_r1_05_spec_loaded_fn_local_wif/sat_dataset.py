# mimics stable_audio_tools/data/dataset.py (SampleDataset, WebDatasetDataLoader, create_dataloader_from_config)
import importlib.util
import torch


def collation_fn(samples):
    return torch.stack([s[0] for s in samples]), [s[1] for s in samples]


class LocalDatasetConfig:
    def __init__(self, id, path, custom_metadata_fn=None):
        self.id, self.path, self.custom_metadata_fn = id, path, custom_metadata_fn


class SampleDataset(torch.utils.data.Dataset):
    def __init__(self, configs):
        self.custom_metadata_fns = {}
        for c in configs:
            if c.custom_metadata_fn is not None:
                self.custom_metadata_fns[c.path] = c.custom_metadata_fn

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = {}
        for fn in self.custom_metadata_fns.values():
            info.update(fn(info, None))
        return torch.zeros(4), info


class IterDS(torch.utils.data.IterableDataset):
    def __iter__(self):
        for i in range(8):
            yield torch.zeros(4), {}


class WebDatasetDataLoader:
    def __init__(self, num_workers=8):
        self.dataset = IterDS()

        def worker_init_fn(worker_id):  # local function handed to the loader
            torch.multiprocessing.set_sharing_strategy("file_system")

        self.data_loader = torch.utils.data.DataLoader(self.dataset, batch_size=4, num_workers=num_workers,
                                                       worker_init_fn=worker_init_fn, collate_fn=collation_fn)


def create_dataloader_from_config(dataset_config, num_workers=4):
    if dataset_config["dataset_type"] == "audio_dir":
        configs = []
        for c in dataset_config["datasets"]:
            fn = None
            p = c.get("custom_metadata_module")
            if p is not None:
                if dataset_config.get("register_module"):  # safe twin: import it by a name the worker can import
                    import sys, os
                    sys.path.insert(0, os.path.dirname(os.path.abspath(p)))
                    fn = importlib.import_module(os.path.splitext(os.path.basename(p))[0]).get_custom_metadata
                else:
                    spec = importlib.util.spec_from_file_location("metadata_module", p)
                    m = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(m)
                    fn = m.get_custom_metadata
            configs.append(LocalDatasetConfig(c["id"], c["path"], fn))
        return torch.utils.data.DataLoader(SampleDataset(configs), 4, num_workers=num_workers, collate_fn=collation_fn)
    elif dataset_config["dataset_type"] == "wds":
        return WebDatasetDataLoader(num_workers=num_workers).data_loader
