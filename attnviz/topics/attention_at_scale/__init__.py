"""The Attention at scale page (issue 30): masks for long inputs, linear attention, the cost of
one attention layer measured as T grows, and (attnviz.topics.attention_at_scale.flash / kv_cache)
the tiles of FlashAttention and the KV cache."""
