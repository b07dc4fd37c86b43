"""Index bookkeeping for global attention, shared by the attention layers."""


def global_attention_indices(global_attention_mask):
    """The most global tokens any sequence of the batch has, and each sequence's count."""
    num_global_attn_indices = global_attention_mask.long().sum(dim=-1)
    max_num_global_attn_indices = num_global_attn_indices.max()
    return max_num_global_attn_indices, num_global_attn_indices


def padded_lengths(attention_mask):
    """The longest unpadded sequence of the batch, and each sequence's length."""
    lengths = attention_mask.long().sum(dim=-1)
    return lengths.max(), lengths


def local_window(hidden_states, one_sided_window=2):
    """Where the local window starts and how wide it is: Python ints from the shape."""
    return hidden_states.shape[1] // 4, 2 * one_sided_window + 1
