"""AttnViz engine: attention math, models, training and figures. Never imports streamlit."""

__version__ = "0.1.0"
