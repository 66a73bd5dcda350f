from .configuration_xvla import XVLAConfig
from .modeling_xvla import XVLAPolicy
from .processor_xvla import (
    XVLAAddDomainIdProcessorStep,
    XVLAImageNetNormalizeProcessorStep,
    XVLAImageToFloatProcessorStep,
)

__all__ = [
    "XVLAConfig",
    "XVLAPolicy",
    "XVLAAddDomainIdProcessorStep",
    "XVLAImageNetNormalizeProcessorStep",
    "XVLAImageToFloatProcessorStep",
]
