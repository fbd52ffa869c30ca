"""Models, one per file, each with its own @dataclass config."""
