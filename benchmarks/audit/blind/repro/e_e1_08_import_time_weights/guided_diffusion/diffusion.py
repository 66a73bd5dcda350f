"""Mimics DDPG guided_diffusion/diffusion.py: a perceptual-loss network with weights is built at
module level (lpips.LPIPS(net='alex')), and ddpg_wrapper() defines seed_worker locally.
E1_CASE=import_time (as the repository) | lazy (built on first use in the parent)."""
import os
import numpy as np
import torch
import torch.utils.data as data

WEIGHTS = os.path.join(os.path.dirname(__file__), "alex.pth")


def _load_lpips():
    print("loading LPIPS weights in pid", os.getpid(), flush=True)
    net = torch.nn.Linear(4, 1)
    if not os.path.isfile(WEIGHTS):
        torch.save(net.state_dict(), WEIGHTS)
    net.load_state_dict(torch.load(WEIGHTS))
    return net


loss_fn_alex = _load_lpips() if os.environ.get("E1_CASE", "import_time") == "import_time" else None


def seed_worker_module(worker_id):
    np.random.seed(1234 + worker_id)


class Diffusion:
    def ddpg_wrapper(self, worker_init="module"):
        global loss_fn_alex
        if loss_fn_alex is None:
            loss_fn_alex = _load_lpips()
        ds = data.TensorDataset(torch.arange(8.0))

        def seed_worker(worker_id):
            np.random.seed(1234 + worker_id)
        loader = data.DataLoader(ds, batch_size=4, shuffle=True, num_workers=2,
                                 worker_init_fn=seed_worker if worker_init == "local" else seed_worker_module)
        return sum(float(x.sum()) for (x,) in loader)
