from .mp_utils import get_torch_pool
from .kernels import square


def batch_map(xs):
    return get_torch_pool().starmap(square, [(x,) for x in xs])
