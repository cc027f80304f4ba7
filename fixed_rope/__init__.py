"""Rotary positional embeddings with DeepSeek's YaRN scaling, built on torch only.

The classes follow vLLM 0.33's ``rotary_embedding`` package; see docs/design.md, "fixed_rope".
"""

from .base import RotaryEmbeddingBase
from .deepseek import DeepseekScalingRotaryEmbedding, DeepseekV4ScalingRotaryEmbedding
from .yarn import (
    yarn_find_correction_dim,
    yarn_find_correction_range,
    yarn_get_mscale,
    yarn_linear_ramp_mask,
)

__all__ = [
    "DeepseekScalingRotaryEmbedding",
    "DeepseekV4ScalingRotaryEmbedding",
    "RotaryEmbeddingBase",
    "yarn_find_correction_dim",
    "yarn_find_correction_range",
    "yarn_get_mscale",
    "yarn_linear_ramp_mask",
]
