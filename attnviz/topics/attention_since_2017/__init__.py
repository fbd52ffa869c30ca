"""The Attention since 2017 page (issue 44): the attention variants of 2024–26 trained side by
side (task.py), the KV cache of real models (configs.py), the page's parameters and scene."""
