"""Data sets and tasks, deterministic given a seed: toy regression/classification, sequence tasks."""
