"""The training pages' shared Streamlit parts: the page skeleton (page: intro, presets, Reset,
layout, form, values, job, panel), the training form (form), the live panel that runs a job in a
worker and polls it (panel), what it draws of a run (run_view: status, curves, timeline, views)
and what changed since the run (changes)."""
