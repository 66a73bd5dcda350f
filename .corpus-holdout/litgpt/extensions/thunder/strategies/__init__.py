from .thunder_ddp import ThunderDDPStrategy  # noqa: F401
from .thunder_fsdp import ThunderFSDPStrategy  # noqa: F401
