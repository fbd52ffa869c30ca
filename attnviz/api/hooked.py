"""av.language_model: the bundled language model (SmolLM2-135M), or a Llama-style causal model you
hand in, held the way a TransformerLens user holds a HookedTransformer:

    lm = av.language_model()
    logits, cache = lm.run_with_cache("When Mary and John went to the store, John gave a drink to")
    cache["pattern", 18]          # (heads, T, T): layer 18's attention weights
    av.head_view(cache["pattern", 18], cache.tokens)

Every activation is read in one forward pass through the engine's one hook mechanism
(attnviz.core.hooks.module_cache), as NumPy arrays on the CPU, named as TransformerLens names them
(attnviz.api.cache: `NAMES`, each with its shape, every number of a block; `names=` keeps fewer).
Queries and keys are those before rotary positions (TransformerLens's `q` and `k`; its `rot_q`
and `rot_k`, and the scores, are in the scene of "Inside one block of a real model")."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from attnviz.api.cache import ActivationCache
from attnviz.topics.scene import SceneInputError


class LanguageModel:
    """A causal language model with a researcher's handle (see the module text)."""

    def __init__(self, wrapped: Any):
        self.wrapped = wrapped  # attnviz.topics.pretrained.model.PretrainedModel
        self.n_layers, self.n_heads = wrapped.n_layers, wrapped.n_heads
        self.n_kv_heads, self.d_head = wrapped.n_kv_heads, wrapped.head_dim
        self.name = wrapped.name

    def __repr__(self) -> str:
        return (
            f"LanguageModel({self.name!r}: {self.n_layers} layers, {self.n_heads} heads, "
            f"{self.n_kv_heads} key/value heads of {self.d_head})"
        )

    def to_tokens(self, prompt: str) -> list[int]:
        """The prompt's token ids, as the language-model page reads it (no BOS)."""
        from attnviz.topics.language_model.forward import encode

        if not isinstance(prompt, str) or not prompt.strip():
            raise SceneInputError("give the prompt as text: run_with_cache('The cat sat')")
        return encode(self.wrapped, prompt)[0]

    def to_str_tokens(self, prompt: str) -> list[str]:
        return self.wrapped.readable(self.to_tokens(prompt))

    def run_with_cache(
        self, prompt: str, names: Iterable[str] | None = None
    ) -> tuple[np.ndarray, ActivationCache]:
        """(logits (T, V) at every position, the activations of every layer) for `prompt`;
        `names`: keep only these (attnviz.api.cache.NAMES and FINAL; all when None)."""
        from attnviz.api.cache import named, on_cpu, taps, wanted
        from attnviz.api.inputs import eager_attention
        from attnviz.core.hooks import module_cache

        keep = wanted(names)
        ids = self.to_tokens(prompt)
        model = self.wrapped.model
        outputs, inputs = taps(model, list(self.wrapped.blocks), keep)
        tapped = module_cache(outputs=outputs, inputs=inputs, keep=on_cpu)
        with self.wrapped.lock, torch.no_grad(), eager_attention(model), tapped as kept:
            out = model(
                input_ids=torch.tensor([ids], device=model.device),
                output_attentions="pattern" in keep,
                use_cache=False,
            )
        layers, final = named(kept, out.attentions if "pattern" in keep else None, keep, self)
        return out.logits[0].float().cpu().numpy(), ActivationCache(
            self.wrapped.readable(ids), tuple(ids), layers, final
        )

    def _vectors(self, cache: ActivationCache, layer: int) -> np.ndarray:
        """(H, T, D): each source's value through each head's part of W_O at `layer`."""
        from attnviz.topics.language_model.flows import head_vectors
        from attnviz.topics.language_model.layout import out_weight

        values = cache["v", layer]  # (T, G, d); refuses a layer out of range by name
        w_o = out_weight(self.wrapped.blocks[layer]).numpy()  # (D, H·d)
        return head_vectors(values, w_o, self.n_heads)

    def value_weighted(self, cache: ActivationCache, layer: int) -> np.ndarray:
        """(H, T, T): what flows rather than where each head looks, ‖α_ij W_O^h v_j‖ normalised
        per row (Kobayashi et al., 2020; attnviz.topics.language_model.flows)."""
        from attnviz.topics.language_model.flows import value_weighted

        return value_weighted(cache["pattern", layer], self._vectors(cache, layer))

    def head_output(self, cache: ActivationCache, layer: int, head: int, query: int) -> HeadOutput:
        """What each source adds to head `head`'s output at `query` (T, D): α_qj W_O^h v_j; its
        rows sum to the head's part of the attention output there."""
        from attnviz.api.inputs import check_index
        from attnviz.topics.language_model.flows import contributions

        check_index(head, self.n_heads, "head")
        check_index(query, len(cache.ids), "query token")
        parts = contributions(cache["pattern", layer], self._vectors(cache, layer), query)
        what = f"layer {layer} head {head}'s output at {cache.tokens[query]}, by source"
        return HeadOutput(parts[head], list(cache.tokens), what)

    def head_logits(self, cache: ActivationCache, layer: int, head: int, query: int) -> HeadLogits:
        """What head `head` of `layer` writes at `query`, read directly as next-token logits:
        its output through the final norm (its division frozen at this run's, at `query`) and
        the unembedding, split by source (flows.logit_effect). It says which tokens the head
        promotes and suppresses there, not what the model finally predicts."""
        from attnviz.topics.language_model.flows import logit_effect
        from attnviz.topics.language_model.layout import frozen_final_norm

        refuse_direct(self.wrapped)

        out = self.head_output(cache, layer, head, query)  # parts (T, D)
        final = cache["resid_post", self.n_layers - 1][query]  # (D,)
        norm = frozen_final_norm(self.wrapped, final)
        unembed = self.wrapped.model.lm_head.weight.detach().float().cpu().numpy()  # (V, D)
        by_source = logit_effect(norm.centre(out.parts), norm.gain, 1.0, unembed)  # (T, V)
        what = f"layer {layer} head {head}'s direct effect on the logits at {cache.tokens[query]}"
        return HeadLogits(by_source, list(cache.tokens), self.wrapped.readable, what)

    def explain_score(
        self, cache: ActivationCache, layer: int, head: int, query: int, key: int, versus=None
    ) -> Any:
        """Why head `head` of `layer` looks from `query` to `key`: the pre-softmax score taken
        apart by what built the query (rows) and the key (columns): embedding, earlier heads,
        earlier MLPs (qk_parts.ScoreParts: `.parts`, `.score`, `.top(n)`, `.side(key=True)`);
        with `versus` (a second key), the difference of the two scores."""
        from attnviz.api.inputs import check_index
        from attnviz.topics.language_model.qk_parts import components, score_parts

        check_index(layer, self.n_layers, "layer")
        check_index(head, self.n_heads, "head")
        for position in (query, key, *([] if versus is None else [versus])):
            check_index(position, len(cache.ids), "token")
        if max(key, query if versus is None else versus) > query:
            raise SceneInputError(f"a key after the query ({query}) is hidden by the causal mask")
        at = tuple(sorted({query, key, *([] if versus is None else [versus])}))
        try:
            found = components(self.wrapped, list(cache.ids), layer, at)
            return score_parts(self.wrapped, found, layer, head, (query, key), versus)
        except ValueError as err:  # a model whose scores do not split (q_norm)
            raise SceneInputError(str(err)) from None

    def patching(self, clean: str, corrupted: str, right: str = "", wrong: str = "") -> Any:
        """The interventions page's engine on a pair of prompts of as many tokens (Patching:
        `.residual()`, `.heads()`, `.attribute()`, `.dla()`, each a labelled array)."""
        return Patching(self, clean, corrupted, right, wrong)


@dataclass(frozen=True)
class HeadOutput:
    """What each source token adds to one head's output at one query: `parts[j]` (D,)."""

    parts: np.ndarray  # (T, D): α_qj W_O^h v_j
    sources: list[str]  # the prompt's tokens
    what: str

    @property
    def norms(self) -> np.ndarray:
        """(T,): how much each source moves the output, ‖α_qj W_O^h v_j‖."""
        return np.linalg.norm(self.parts, axis=-1)


@dataclass(frozen=True)
class HeadLogits:
    """One head's direct effect on the next-token logits at one query (LanguageModel.head_logits):
    `by_source[j]` is what source j's part of the head's output adds to each logit."""

    by_source: np.ndarray  # (T, V)
    sources: list[str]  # the prompt's tokens
    readable: Any  # token ids -> the tokens as text
    what: str

    @property
    def effect(self) -> np.ndarray:
        """(V,): the head's whole output's effect on each logit."""
        return self.by_source.sum(0)

    def promoted(self, k: int = 10) -> list[tuple[str, float]]:
        """The k tokens whose logits the head raises most, with how much."""
        ids = np.argsort(-self.effect)[:k]
        return list(zip(self.readable(ids.tolist()), self.effect[ids].tolist(), strict=True))

    def suppressed(self, k: int = 10) -> list[tuple[str, float]]:
        """The k tokens whose logits the head lowers most, with how much (negative)."""
        ids = np.argsort(self.effect)[:k]
        return list(zip(self.readable(ids.tolist()), self.effect[ids].tolist(), strict=True))


@dataclass(frozen=True)
class Patched:
    """A patching or attribution result with its labels: `values[row, column]`."""

    values: np.ndarray  # (L, T) per layer and position, or (L, H) per layer and head
    rows: list[str]  # "layer 0", …
    columns: list[str]  # the clean prompt's tokens, or "head 0", …
    what: str  # what a value is
    clean: float  # the clean run's logit difference (right − wrong)
    corrupted: float  # the corrupted run's


class Patching:
    """The interventions page's engine on a prompt pair (`LanguageModel.patching`): the answers
    are the model's own top tokens after each prompt unless `right` and `wrong` are given."""

    def __init__(self, lm: LanguageModel, clean: str, corrupted: str, right="", wrong=""):
        from attnviz.topics.interventions.pairs import PairError, make_pair

        self.lm = lm.wrapped
        try:
            self.pair = make_pair(self.lm, clean, corrupted, right, wrong)
        except PairError as err:
            raise SceneInputError(str(err)) from None
        self.tokens = self.lm.readable(list(self.pair.clean))
        self.right, self.wrong = self.lm.readable([self.pair.right, self.pair.wrong])

    def _labelled(self, values: np.ndarray, what: str, by_head: bool = False) -> Patched:
        from attnviz.topics.interventions.readouts import diffs

        rows = [f"layer {layer}" for layer in range(values.shape[0])]
        columns = [f"head {h}" for h in range(values.shape[1])] if by_head else self.tokens
        return Patched(np.asarray(values), rows, columns, what, *diffs(self.lm, self.pair))

    def residual(self) -> Patched:
        """The clean residual stream patched into the corrupted run at each (layer, position)."""
        from attnviz.topics.interventions.readouts import resid_sweep

        diff = resid_sweep(self.lm, self.pair).diff  # (L, T)
        return self._labelled(diff, "the logit difference after the patch")

    def heads(self) -> Patched:
        """Each head's clean output patched into the corrupted run (every position)."""
        from attnviz.topics.interventions.readouts import head_sweep

        diff = head_sweep(self.lm, self.pair).diff  # (L, H)
        return self._labelled(diff, "the logit difference after the patch", by_head=True)

    def attribute(self) -> tuple[Patched, Patched]:
        """Attribution patching's estimates (one backward pass): per (layer, position), per
        (layer, head); each the estimated change of the logit difference."""
        from attnviz.topics.interventions.readouts import estimate

        found, what = estimate(self.lm, self.pair), "estimated change of the logit difference"
        return self._labelled(found.resid, what), self._labelled(found.heads, what, True)

    def dla(self) -> Patched:
        """Direct logit attribution on the clean run: each head's part of the logit difference
        (the MLPs', the embedding's and the whole: `readouts.dla`)."""
        from attnviz.topics.interventions.readouts import dla

        refuse_direct(self.lm)
        heads = dla(self.lm, self.pair).heads  # (L, H)
        return self._labelled(heads, "its part of the logit difference", by_head=True)


def refuse_direct(wrapped: Any) -> None:
    """SceneInputError when a head's direct part of the logits cannot be read off the model
    (Gemma 2 and 3: `forward.direct_problem`)."""
    from attnviz.topics.language_model.forward import direct_problem

    if (problem := direct_problem(wrapped)) is not None:
        raise SceneInputError(f"not for this model: {problem}")


def language_model(model: Any = None) -> LanguageModel:
    """The bundled SmolLM2 (None; the first load converts its file once, 10–30 s), your own
    causal LM (a folder inside ATTNVIZ_MODEL_DIRS or a Hub name in the local cache, as a str
    or Path: Llama, Mistral, Qwen2/3, Gemma 2/3, Phi-3, SmolLM, GPT-2;
    `topics.language_model.own`), or a model you hand in as
    attnviz.topics.pretrained.model.PretrainedModel of a Llama-style causal model
    (`model.model.layers`, each with `self_attn.q_proj … o_proj` and `mlp`) or of GPT-2's.

    >>> lm = language_model()  # doctest: +SKIP
    >>> logits, cache = lm.run_with_cache("The capital of France is")  # doctest: +SKIP
    >>> cache["pattern", 18].shape  # doctest: +SKIP
    (9, 5, 5)
    """
    if model is None or isinstance(model, str | os.PathLike):
        from attnviz.topics.language_model.scene import model as page_model

        model = page_model("cpu", "" if model is None else os.fspath(model))
    inner = getattr(model, "model", None)
    if not hasattr(inner, "model") and not hasattr(getattr(inner, "transformer", None), "h"):
        raise SceneInputError(
            "language_model() takes None (the bundled model), a model folder, or a "
            "PretrainedModel of a Llama-style or GPT-2 causal model"
        )
    return LanguageModel(model)
