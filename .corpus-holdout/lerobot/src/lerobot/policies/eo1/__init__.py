#!/usr/bin/env python

from .configuration_eo1 import EO1Config
from .modeling_eo1 import EO1Policy
from .processor_eo1 import make_eo1_pre_post_processors

__all__ = ["EO1Config", "EO1Policy", "make_eo1_pre_post_processors"]
