"""Data sets and tasks, deterministic given a seed: toy regression/classification, sequence tasks,
and image sets (digits, MNIST, shape scenes)."""
