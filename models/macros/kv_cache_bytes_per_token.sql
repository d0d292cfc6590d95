-- returns the KV-cache bytes one token of context holds: keys and values (2) x layers x KV
-- heads x head dimension x bytes per value (GQA/MQA models have fewer KV heads than heads).

create or replace macro kv_cache_bytes_per_token(n_layers, n_kv_heads, head_dim, value_bytes) as
    2 * n_layers * n_kv_heads * head_dim * value_bytes
