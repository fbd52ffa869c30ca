"""Page furniture shared by every page: sidebar, widgets drawn from a page's table, layout,
figures, downloads, the scene cache, the head view component and the error boundary."""
