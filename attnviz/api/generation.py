"""Generation from Python with the bundled language model (SmolLM2-135M, offline): the text it
writes after a prompt, every new token's attention row in every layer and head, and the page's
figure of one head's rows over time (the "Inside a language model" page's generation view).

    >>> import attnviz as av
    >>> g = av.generate("The capital of France is", new_tokens=3)
    >>> g.text                      # greedy: ' Paris.\\n'
    >>> g.rows.shape                # (30 layers, 9 heads, 3 new tokens, prompt + 3)
    >>> g.figure                    # layer 18, head 6 unless layer= / head= say otherwise
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.api.inputs import check_index
from attnviz.topics.scene import SceneInputError

MAX_NEW = 20  # the page's most new tokens


@dataclass(frozen=True)
class Generated:
    """What the model wrote: `text`, every token's label (`tokens`: prompt, then new), the new
    tokens' attention rows `rows` (L, H, N, P + N; 0 past each token's own position) and the
    chosen head's figure."""

    text: str
    tokens: list[str]
    n_prompt: int
    rows: np.ndarray
    figure: go.Figure


def generate(
    prompt: str,
    new_tokens: int = 12,
    *,
    layer: int = 18,
    head: int = 6,
    sample: bool = False,
    temperature: float = 0.8,
    seed: int = 0,
) -> Generated:
    """Continue `prompt` with the bundled language model (greedy, or sampled at `temperature`
    with `seed`), up to MAX_NEW tokens, stopping after the model's end of its turn
    (<|im_end|>); the figure shows `layer`, `head`. A layer, head or count
    outside the model's ranges is an error that names them."""
    from attnviz.api.scenes import scene
    from attnviz.topics.language_model import readouts
    from attnviz.topics.language_model.bundled import bundled_llm
    from attnviz.topics.language_model.scene import GENERATION, SCENE, decoding

    if isinstance(new_tokens, bool) or not isinstance(new_tokens, int):
        raise SceneInputError("new_tokens is a whole number")
    if not 1 <= new_tokens <= MAX_NEW:
        raise SceneInputError(f"new_tokens {new_tokens} is out of range (1 to {MAX_NEW})")
    lm = bundled_llm()
    check_index(layer, lm.n_layers, "layer")
    check_index(head, lm.n_heads, "head")
    values = dict(lm_text=prompt, lm_new=new_tokens, lm_layer=layer, lm_head=head)
    values |= dict(lm_sample=sample, lm_temp=temperature, lm_seed=seed, lm_open_gen=True)
    s = scene(SCENE.url, **values)  # the page's url is its scene's to write
    made = readouts.generation(lm, s.result.fwd.ids, new_tokens, decoding(s.values))
    figure = s.views([GENERATION.name])[GENERATION.name]
    return Generated(made.text, list(made.tokens), made.n_prompt, made.rows, figure)
