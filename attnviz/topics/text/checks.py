"""What a lesson step's settings of the text page must satisfy together (one parameter alone
cannot say): heads that divide d_model, a head and a query token that exist."""

from __future__ import annotations

from attnviz.core.tokenizers import tokenize
from attnviz.topics.scene import Values
from attnviz.topics.text.attention import valid_heads


def _word_count(state: Values) -> int | None:
    """How many tokens the page's tokenizer makes of its text (None for BPE: not checked)."""
    if state["ta_tok"] == "bpe":
        return None
    return len(tokenize(state["ta_text"], state["ta_tok"]).tokens)


def problems(state: Values) -> list[tuple[str, str]]:
    """(parameter key, reason) for each value that does not fit the others."""
    found = []
    heads = state["ta_heads"]
    if heads not in valid_heads(state["ta_d"]):
        found.append(("ta_heads", f"{heads} heads do not divide d_model = {state['ta_d']}"))
    if state["ta_head"] >= heads:
        found.append(("ta_head", f"head {state['ta_head']} does not exist with {heads} heads"))
    count = _word_count(state)
    if count is not None and state["ta_query"] >= count:
        found.append(("ta_query", f"query token {state['ta_query']} of {count} tokens"))
    return found
