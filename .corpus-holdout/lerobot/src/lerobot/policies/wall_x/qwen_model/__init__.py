#!/usr/bin/env python

# Copyright 2025 HuggingFace Inc. team. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from .configuration_qwen2_5_vl import (
    Qwen2_5_VLConfig,
    Qwen2_5_VLTextConfig,
    Qwen2_5_VLVisionConfig,
)
from .qwen2_5_vl_moe import (
    BlockSparseMLP,
    Qwen2_5_VLACausalLMOutputWithPast,
    Qwen2_5_VLDecoderLayer_with_MoE,
    Qwen2_5_VLMoEModel,
    SparseMoeBlock,
)
from .vision_attention import (
    WallXVisionAttention,
    configure_wall_x_vision_attention,
)

__all__ = [
    "BlockSparseMLP",
    "Qwen2_5_VLACausalLMOutputWithPast",
    "Qwen2_5_VLConfig",
    "Qwen2_5_VLDecoderLayer_with_MoE",
    "Qwen2_5_VLMoEModel",
    "Qwen2_5_VLTextConfig",
    "Qwen2_5_VLVisionConfig",
    "SparseMoeBlock",
    "WallXVisionAttention",
    "configure_wall_x_vision_attention",
]
