"""AttnViz engine: attention math, models, training and figures. Never imports streamlit.

From Python, `import attnviz as av` gives the notebook API (attnviz.api), loaded on first use so
that importing attnviz stays light (no torch, no plotly until a scene runs):

    av.pages()                              # every page with a scene, by url
    s = av.scene(av.pages()[0])             # a page at its defaults (settings as keywords)
    s.views()                               # {view name: plotly Figure}
    av.generate("The capital of France is") # the bundled language model writes on

(The README's "From Python" section has worked examples per page.)
"""

__version__ = "0.1.0"

_API = ("scene", "pages", "page_link", "model_view", "head_view", "SceneView")
_GENERATE = ("generate", "Generated")
_CROSS = ("encoder_decoder", "EncoderDecoderAttention")
__all__ = ["__version__", *_API, *_GENERATE, *_CROSS]


def __getattr__(name: str):
    if name in _API:
        from attnviz import api

        return getattr(api, name)
    if name in _GENERATE:
        from attnviz import api_generate

        return getattr(api_generate, name)
    if name in _CROSS:
        from attnviz import api_cross

        return getattr(api_cross, name)
    raise AttributeError(f"module 'attnviz' has no attribute {name!r}")
