"""Settings for every page (the sidebar): device, global seed, lecture mode, high contrast,
figures as tables too (a text alternative for every figure), figure format."""

from attnviz.topics.params import PageParams, Param

TABLE = PageParams(
    prefix="sidebar",
    params=(
        Param(
            "device",
            "Device",
            "selectbox",
            "cpu",
            choices=("cpu", "cuda", "mps"),  # narrowed to what this machine has
            help="Where models train. CUDA and MPS appear only when this machine has them.",
        ),
        Param(
            "seed",
            "Global seed",
            "number_input",
            0,
            low=0,
            high=10_000,
            step=1,
            help="Seeds every random weight and data set, so a shared link shows the same numbers.",
        ),
        Param(
            "lecture",
            "Lecture mode",
            "toggle",
            False,
            help="Large fonts and figures, no chrome, sidebar folded: for a projector.",
        ),
        Param(
            "contrast",
            "High contrast",
            "toggle",
            False,
            help="Black text, thick borders and stronger colour scales in every figure.",
        ),
        Param(
            "tables",
            "Figures as tables too",
            "toggle",
            False,
            help="Under every figure, its one-line summary and its data as a table: for a screen "
            "reader, or to read exact values.",
        ),
        Param(
            "export",
            "Figure download format",
            "radio",
            "png",
            choices=("png", "svg"),
            help="The camera button in each figure's toolbar saves in this format.",
        ),
    ),
)
