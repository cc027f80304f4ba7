import torch

from .yarn import DeepseekScalingRotaryEmbedding


class DeepseekV4ScalingRotaryEmbedding(DeepseekScalingRotaryEmbedding):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        cache_fp32 = self._compute_cos_sin_cache()
        self.register_buffer("cos_sin_cache", cache_fp32, persistent=False)

    def _compute_cos_sin_cache(self) -> torch.Tensor:
        inv_freq = self._compute_inv_freq(self.base) / self.scaling_factor
        t = torch.arange(
            self.max_position_embeddings * self.scaling_factor,
            device=inv_freq.device,
            dtype=torch.float32,
        )
        freqs = torch.outer(t, inv_freq)
        return torch.cat((freqs.cos() * self.mscale, freqs.sin() * self.mscale), dim=-1)
