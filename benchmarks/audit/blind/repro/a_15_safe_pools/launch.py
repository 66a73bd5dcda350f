"""vq-vae-2 distributed/launch.py shape: torch.multiprocessing.spawn of a module-level worker that calls
the script's fn passed in args."""
import torch.multiprocessing as mp


def distributed_worker(local_rank, fn, args):
    fn(local_rank, *args)


def launch(fn, n_procs, args=()):
    if n_procs > 1:
        mp.spawn(distributed_worker, nprocs=n_procs, args=(fn, args), join=True)
    else:
        fn(0, *args)
