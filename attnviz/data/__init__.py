"""Data sets and tasks, deterministic given a seed: toy regression/classification, sequence tasks,
image sets (digits, MNIST, shape scenes), and human dates to ISO for the recurrence page."""
