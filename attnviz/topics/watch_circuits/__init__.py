"""Watching circuits form (issue 28): induction heads, grokking and attention sinks, trained live.

scores.py     head-type scores (previous-token, induction, sink, diagonal), the phase change
data.py       repeated random segments, modular addition's split, the embedding's spectrum
induction.py  the attention-only induction job spec (also the sinks experiment's), ablation
grokking.py   modular addition with weight decay: accuracy, weight norm, Fourier spectrum
sinks.py      sink shares per attention variant, with and without BOS; window eviction
"""
