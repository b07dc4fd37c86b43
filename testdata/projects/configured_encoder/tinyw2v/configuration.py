"""The model's settings. The defaults build the post-norm encoder with eager attention, no
adapter and unseeded time masks; the other encoder, the block-sparse mask, the adapter and the
seeded masks run only when asked for."""


class TinyW2VConfig:
    def __init__(
        self,
        hidden_size=16,
        num_layers=2,
        do_stable_layer_norm=False,
        attn_implementation="eager",
        add_adapter=False,
        mask_time_prob=0.05,
        mask_seed=None,
        **kwargs,
    ):
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.do_stable_layer_norm = do_stable_layer_norm
        self.attn_implementation = attn_implementation
        self.add_adapter = add_adapter
        self.mask_time_prob = mask_time_prob
        self.mask_seed = mask_seed
        self.layer_norm_eps = kwargs.pop("layer_norm_eps", 1e-5)
