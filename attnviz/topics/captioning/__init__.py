"""The captioning page's engine: the training run (task.py) and what the page asks of a trained
captioner (inference.py)."""
