"""Per-page parameter tables (one module per page) and the widgets derived from them."""

from __future__ import annotations

import importlib

from attnviz.ui.params.table import PageParams

# page url (attnviz.ui.navigation) -> the module holding its TABLE
TABLE_MODULES = {
    "soft-select": "attnviz.ui.params.soft_select",
    "self-attention": "attnviz.ui.params.self_attention",
    "kernel-smoother": "attnviz.ui.params.kernel",
    "text": "attnviz.ui.params.text",
    "train-transformer": "attnviz.ui.params.transformer",
    "pretrained": "attnviz.ui.params.pretrained",
    "recurrent": "attnviz.ui.params.recurrent",
    "vision-patches": "attnviz.ui.params.vision",
    "captioning": "attnviz.ui.params.captioning",
}


def page_tables() -> dict[str, PageParams]:
    """Every page's parameter table, by the page's url path."""
    return {url: importlib.import_module(module).TABLE for url, module in TABLE_MODULES.items()}
