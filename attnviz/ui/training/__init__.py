"""The training pages' shared Streamlit parts: the page header (header), the training form
(form), the live panel that runs a job in a worker and polls its snapshots (panel), and what
changed since the run (changes)."""
