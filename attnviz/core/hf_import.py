"""One lock for importing and loading with Hugging Face transformers from several threads.

transformers imports its submodules lazily, on first attribute access. Two threads doing that at
once (the server's warm-up loading MiniLM while a session loads the language model) failed with
"cannot import name 'AutoModelForCausalLM' from 'transformers'": a half-made lazy module. Every
loader in the engine imports and loads under `HF_LOCK`; inference needs no lock of its own here
(each model has one).
"""

from __future__ import annotations

import threading

HF_LOCK = threading.RLock()
