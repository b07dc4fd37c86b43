"""The model's settings. The defaults build the post-norm encoder with eager attention and no
adapter; the other encoder, the block-sparse mask and the adapter run only when asked for."""


class TinyW2VConfig:
    def __init__(
        self,
        hidden_size=16,
        num_layers=2,
        do_stable_layer_norm=False,
        attn_implementation="eager",
        add_adapter=False,
        **kwargs,
    ):
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.do_stable_layer_norm = do_stable_layer_norm
        self.attn_implementation = attn_implementation
        self.add_adapter = add_adapter
        self.layer_norm_eps = kwargs.pop("layer_norm_eps", 1e-5)
