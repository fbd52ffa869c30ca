"""Generation with attention over time, for causal language models (GPT-2 style) on the
pretrained page.

`generate` runs the prompt once, then feeds each new token alone with the key/value cache
(`use_cache=True`), as generation really runs: at step k the new token is the only query, and
its one attention row per layer and head covers the prompt and every token so far, which is
exactly what the cache holds (its length, read from the cache, is prompt + k). The rows are
gathered into (L, H, N, P + N) maps, 0 beyond each step's own position (the future it cannot
see). Tokens are chosen greedily, or sampled with a seeded generator (`temperature` > 0). The
number of new tokens is bounded (MAX_NEW) and the prompt is cut to MAX_PROMPT tokens, so a step
costs one short forward pass and the whole run stays well under a second on a CPU for GPT-2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.tokenizers import SPACE
from attnviz.topics.pretrained.model import PretrainedModel

MAX_NEW = 32  # new tokens at most
MAX_PROMPT = 128  # prompt tokens at most (the first ones)
END_TOKENS = ("<|im_end|>", "<|eot_id|>", "<|endoftext|>", "<|end|>")  # ends of a turn or text


@dataclass(frozen=True)
class Generation:
    tokens: list[str]  # readable labels of the prompt and the generated tokens (P + N)
    n_prompt: int  # P
    new_ids: list[int]  # the N generated token ids
    rows: np.ndarray  # (L, H, N, P + N): generated token k's attention row; 0 past P + k
    cache_lengths: list[int]  # the KV cache's length once token k is in it: P + k, k = 1..N
    prompt_cut: bool  # the prompt had more than MAX_PROMPT tokens (or than the model's window)
    ended: bool = False  # the last new token is the model's end of text or of its turn

    @property
    def n_new(self) -> int:
        return len(self.new_ids)

    @property
    def text(self) -> str:
        """The generated tokens as text (what the model wrote after the prompt, its end token
        left out)."""
        written = self.tokens[self.n_prompt : len(self.tokens) - self.ended]
        return "".join(written).replace(SPACE, " ")


def cache_length(past) -> int:
    """How many positions a key/value cache holds (a Cache object or the legacy tuples)."""
    if hasattr(past, "get_seq_length"):
        return int(past.get_seq_length())
    return int(past[0][0].shape[-2])


def _chooser(temperature: float, seed: int):
    """logits (V,) -> the next id (1, 1): argmax, or a seeded sample at `temperature`."""
    generator = torch.Generator().manual_seed(seed)

    def choose(logits: torch.Tensor) -> torch.Tensor:
        if temperature <= 0:
            return logits.argmax().view(1, 1)
        probs = torch.softmax(logits.float() / temperature, dim=-1)
        return torch.multinomial(probs, 1, generator=generator).view(1, 1)

    return choose


def prompt_ids(pm: PretrainedModel, text: str, n_new: int) -> tuple[torch.Tensor, bool]:
    """The prompt's ids (1, P), cut so that P ≤ MAX_PROMPT and P + n_new fits the model's window;
    ValueError when the text has no tokens."""
    ids = pm.tokenizer(text, return_tensors="pt")["input_ids"]
    window = getattr(pm.model.config, "max_position_embeddings", None) or MAX_PROMPT + n_new
    keep = max(1, min(MAX_PROMPT, window - n_new))
    if ids.shape[1] == 0:
        raise ValueError("the prompt has no tokens to continue")
    return ids[:, :keep], ids.shape[1] > keep


def generate(
    pm: PretrainedModel, text: str, n_new: int, temperature: float = 0.0, seed: int = 0
) -> Generation:
    """N = n_new (1..MAX_NEW) tokens after `text` with the KV cache, and each one's attention
    over the prompt and the tokens before it (see the module text). ValueError for a model that
    is not a causal language model, a bad N or an empty prompt."""
    if not pm.causal:
        raise ValueError("generation needs a causal language model (GPT-2 style)")
    if not 1 <= n_new <= MAX_NEW:
        raise ValueError(f"the number of new tokens must be 1 to {MAX_NEW}, not {n_new}")
    ids, cut = prompt_ids(pm, text, n_new)
    return generate_ids(pm, ids, n_new, _chooser(temperature, seed), cut)


def end_ids(pm: PretrainedModel) -> frozenset[int]:
    """The ids that end what a model writes: its end of text and, for a chat model, its end
    of turn (SmolLM2's <|im_end|>, Llama 3's <|eot_id|>)."""
    tok = pm.tokenizer
    found = {tok.eos_token_id} if tok.eos_token_id is not None else set()
    vocab = tok.get_vocab()
    return frozenset(found | {vocab[t] for t in END_TOKENS if t in vocab})


def generate_ids(
    pm: PretrainedModel,
    ids: torch.Tensor,
    n_new: int,
    choose: Callable[[torch.Tensor], torch.Tensor],
    cut: bool = False,
    stop_ids: frozenset[int] = frozenset(),
) -> Generation:
    """Up to `n_new` tokens after the prompt `ids` (1, P), each chosen by `choose` (logits (V,)
    -> id (1, 1)), with the KV cache, and each one's attention row (see the module text); it
    stops after a token of `stop_ids` (end_ids: the model's end of text or of its turn)."""
    p, device = ids.shape[1], pm.model.device
    rows = np.zeros((pm.n_layers, pm.n_heads, n_new, p + n_new), dtype=np.float32)
    new_ids, lengths = [], []
    with pm.lock, torch.no_grad():
        out = pm.model(input_ids=ids.to(device), use_cache=True)
        next_id = choose(out.logits[0, -1])
        for step in range(n_new):
            out = pm.model(
                input_ids=next_id.to(device),
                past_key_values=out.past_key_values,
                use_cache=True,
                output_attentions=True,
            )
            new_ids.append(int(next_id))
            lengths.append(cache_length(out.past_key_values))
            for layer, weights in enumerate(out.attentions):  # (1, H, 1, keys)
                seen = weights[0, :, -1].float().cpu().numpy()  # (H, keys)
                end = p + step + 1  # a sliding-window layer sees only its window's last keys
                rows[layer, :, step, end - seen.shape[-1] : end] = seen
            if new_ids[-1] in stop_ids:
                break
            next_id = choose(out.logits[0, -1])
    n = len(new_ids)
    tokens = pm.readable(ids[0].tolist() + new_ids)
    ended = bool(new_ids) and new_ids[-1] in stop_ids
    return Generation(tokens, p, new_ids, rows[:, :, :n, : p + n], lengths, cut, ended)


def step_rows(gen: Generation, layer: int, head: int | None) -> np.ndarray:
    """(N, P + N): one layer's rows, of one head or averaged over the heads (head None)."""
    at_layer = gen.rows[layer]  # (H, N, P + N)
    return at_layer.mean(0) if head is None else at_layer[head]
