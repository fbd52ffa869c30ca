"""Streamlit-only helpers shared by the pages: sidebar, figures, layout, downloads, URL state."""
