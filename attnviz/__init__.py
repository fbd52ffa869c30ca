"""AttnViz engine: attention math, models, training and figures. Never imports streamlit.

From Python, `import attnviz as av` gives the Python API (attnviz/api/), loaded on first use so
that importing attnviz stays light (no torch, no plotly until a scene runs):

    av.pages()                              # every page with a scene, by url
    s = av.scene(av.pages()[0])             # a page at its defaults (settings as keywords)
    s.views()                               # {view name: plotly Figure}
    av.generate("The capital of France is") # the bundled language model writes on

(The README's "From Python" section has worked examples per page.)
"""

from attnviz.api import __all__ as _API  # the names only: attnviz/api/__init__.py loads nothing
from attnviz.core.threads import apply_thread_policy

apply_thread_policy()  # before torch loads (OpenMP reads its wait policy once)

__version__ = "0.1.0"
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        from attnviz import api

        return getattr(api, name)
    raise AttributeError(f"module 'attnviz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
