"""Writes b08_cases.ipynb: the shapes of the labelled notebook sites, one code path per CASE."""
import os

import nbformat as nbf

cells = [
    nbf.v4.new_markdown_cell("# b08: notebook definitions reaching pickling workers (CASE is set by nbrun.py)"),
    nbf.v4.new_code_cell("import os, sys, tempfile, multiprocessing\nimport h5py, numpy as np, torch\n"
                         "from torch import nn\nfrom torch.utils.data import Dataset, DataLoader, TensorDataset"),
    nbf.v4.new_code_cell("sys.path.insert(0, HELPER_DIR)  # like sys.path.insert(0, '..') before `from helper_data import ...`\n"
                         "import b08_helpers as helpers"),
    nbf.v4.new_code_cell(
        "class NbDataset(Dataset):\n"
        "    def __init__(self, n=8, preprocessing=None):\n"
        "        self.n, self.preprocessing = n, preprocessing\n"
        "    def __len__(self):\n"
        "        return self.n\n"
        "    def __getitem__(self, i):\n"
        "        x = torch.full((2,), float(i))\n"
        "        return self.preprocessing(x) if self.preprocessing else x"),
    nbf.v4.new_code_cell(
        "def nb_to_tensor(x, **kwargs):\n"
        "    return x * 2\n\n"
        "def nb_collate(batch):\n"
        "    return torch.stack([x for x, _ in batch])"),
    nbf.v4.new_code_cell(
        "class NbH5Dataset(Dataset):\n"
        "    def __init__(self, path):\n"
        "        self.h5f = h5py.File(path, 'r')\n"
        "        self.num_entries = self.h5f['features'].shape[0]\n"
        "    def __len__(self):\n"
        "        return self.num_entries\n"
        "    def __getitem__(self, i):\n"
        "        return torch.tensor(self.h5f['features'][i])"),
    nbf.v4.new_code_cell(
        "class NbPoolDataset(Dataset):\n"
        "    def __init__(self, items):\n"
        "        pool = multiprocessing.Pool(2)\n"
        "        self.out = pool.map(self._mp_worker, items)\n"
        "    def _mp_worker(self, item):\n"
        "        return item * item\n"
        "    def __len__(self):\n"
        "        return len(self.out)\n"
        "    def __getitem__(self, i):\n"
        "        return torch.tensor(float(self.out[i]))"),
    nbf.v4.new_code_cell(
        "def load_data_local_class(batch_size, num_workers=2):\n"
        "    class PTBDataset(Dataset):\n"
        "        def __len__(self):\n"
        "            return 8\n"
        "        def __getitem__(self, i):\n"
        "            return torch.tensor(float(i))\n"
        "    return DataLoader(PTBDataset(), batch_size, shuffle=True, num_workers=num_workers)\n\n"
        "def get_dataloaders_lambda(batch_size, num_workers=0):\n"
        "    get_smile = lambda attr: attr[1]\n"
        "    ds = helpers.LibraryDataset(8, transform=helpers.negate, target_transform=get_smile)\n"
        "    return DataLoader(ds, batch_size=batch_size, num_workers=num_workers)"),
    nbf.v4.new_code_cell(
        "class NbModel(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(2, 1)\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)"),
    nbf.v4.new_code_cell(
        "def total(loader):\n"
        "    s = 0.0\n"
        "    for b in loader:\n"
        "        b = b[0] if isinstance(b, (list, tuple)) else b\n"
        "        s += float(b.sum())\n"
        "    return s\n\n"
        "if CASE == 'class_dataset':\n"
        "    loader = DataLoader(NbDataset(8), batch_size=4, shuffle=True, num_workers=2)\n"
        "elif CASE == 'notebook_fn_in_transform':\n"
        "    loader = DataLoader(helpers.LibraryDataset(8, transform=helpers.Lambda(nb_to_tensor)), batch_size=4, num_workers=2)\n"
        "elif CASE == 'collate_def':\n"
        "    loader = DataLoader(helpers.LibraryDataset(8), batch_size=4, collate_fn=nb_collate, num_workers=2)\n"
        "elif CASE == 'local_class':\n"
        "    loader = load_data_local_class(4)\n"
        "elif CASE == 'local_lambda_target':\n"
        "    loader = get_dataloaders_lambda(4, num_workers=2)\n"
        "elif CASE == 'h5py_class':\n"
        "    path = os.path.join(tempfile.gettempdir(), 'b08_iris.h5')\n"
        "    with h5py.File(path, 'w') as f:\n"
        "        f['features'] = np.arange(16, dtype='float32').reshape(8, 2)\n"
        "    loader = DataLoader(NbH5Dataset(path), batch_size=4, shuffle=True, num_workers=2)\n"
        "elif CASE == 'pool_bound_method':\n"
        "    loader = DataLoader(NbPoolDataset(list(range(8))), batch_size=4)\n"
        "elif CASE == 'library_dataset':\n"
        "    loader = DataLoader(helpers.LibraryDataset(8, transform=helpers.negate), batch_size=4, num_workers=2)\n"
        "elif CASE == 'workers0':\n"
        "    loader = DataLoader(NbDataset(8), batch_size=4, num_workers=0)\n"
        "elif CASE == 'notebook_model_not_sent':\n"
        "    model = NbModel()\n"
        "    loader = DataLoader(helpers.LibraryDataset(8), batch_size=4, num_workers=2)\n"
        "    for x, y in loader:\n"
        "        model(x)\n"
        "print('sum', total(loader))"),
]
nb = nbf.v4.new_notebook()
nb.cells = cells
nbf.write(nb, os.path.join(os.path.dirname(os.path.abspath(__file__)), "b08_cases.ipynb"))
