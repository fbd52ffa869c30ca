"""What vulture cannot see used in the product (app.py, pages/, attnviz/), one name a line, each
with who uses it: read by tests/engine/test_unused_code.py, which fails on any other unused name
and on an entry here that vulture no longer reports. Vulture's own format (never imported):

    vulture attnviz app.py pages tests/support/vulture_whitelist.py --min-confidence 60

Unused code is deleted, not listed here: a name belongs here only when something vulture does
not read calls it (a protocol, a library, the Python API's users, the tests, the benchmarks)."""

from typing import Any

_: Any = None  # vulture's whitelist marker: `_.name` marks `name` used

# Protocols: Python, Jupyter, a library or a framework calls these by name
_.loss_first_copy  # topics/watch_circuits/induction.py InductionSnapshot: loss_curve's getattr
_.loss_repeated_copy
_.__getattr__  # attnviz/__init__.py, attnviz/api/__init__.py: a module's lazy names (PEP 562)
_.__dir__  # the same modules: dir() lists their public names
_._repr_html_  # api/views.py HeadViewHTML: Jupyter displays it
_.handle_startendtag  # lessons/rich_text.py: html.parser.HTMLParser's callbacks
_.handle_endtag
_.handle_data
_._on_connect  # classroom/schema.py: SQLAlchemy event listeners (@event.listens_for)
_._on_begin
_.isolation_level  # classroom/schema.py: set on sqlite3's connection, read by sqlite3
_.textposition  # figures/pretrained.py: a Plotly trace's property, read by plotly.js
_.get_external_ip  # ui/offline.py: Streamlit's net_util functions, replaced
_.get_internal_ip
_.uses_pages_directory  # ui/serve.py: Streamlit's PagesManager flag, set
_.scan_component_manifests  # ui/serve.py: Streamlit's scan, replaced
_._use_warning_has_been_displayed  # ui/serve.py: Streamlit's flag, set

# The Python API: its users call these (av.* names are looked up in attnviz.api.PUBLIC)
_.encoder_decoder  # av.encoder_decoder (api/cross.py)
_.cross  # av.EncoderDecoderAttention.cross, a field of its result
_.python  # av.scene(...).python(): the README's "From Python"
_.to_str_tokens  # av.language_model().to_str_tokens (api/hooked.py), as TransformerLens has it
_.residual  # av.language_model().patching(...).residual() (api/hooked.py): README, notebook
_.head_logits  # av.language_model().head_logits (api/hooked.py): README, test_hooked_model.py
_.explain_score  # av.language_model().explain_score (api/hooked.py): README, test_qk_parts.py
_.sources  # its result's field: the tokens each part comes from

# Called only by tests (oracles, fixtures, the fields and helpers they check)
_.close_round  # classroom/store.py: tests/engine/test_classroom_store.py
_.padding_mask  # core/attention.py: tests/engine/test_attention_oracles.py
_.dot_product  # core/kernels.py: tests/engine/test_kernels.py (the pages use the log forms)
_.mahalanobis  # core/kernels.py: tests/engine/test_kernels.py
_.detokenize  # core/tokenizers.py: tests/engine/test_text_attention.py
_.val_scenes  # data/captions.py: tests/engine/test_caption_task.py, test_caption_data.py
_.val_formats  # data/dates.py: tests/engine/test_dates.py
_.max_in  # data/dates.py: tests/engine/test_dates.py
_.seen_in_training  # data/tasks.py: tests/engine/test_task_splits.py
_.region_boxes  # models/captioner.py: tests/engine/test_caption_models.py
_.pixel_maps  # topics/captioning/inference.py: tests/engine/test_caption_task.py
_.probe_attention  # topics/captioning/task.py CaptionSnapshot: tests/engine/test_caption_task.py
_.sink_job  # topics/watch_circuits/sinks.py: tests/engine/test_circuits_data.py
_.use_model  # topics/language_model/scene.py: tests/engine/test_llm_scene.py, …patching_scene
_.shown_when  # topics/params.py: tests/app/test_param_tables.py
_.other_value  # topics/params.py: tests/app/test_param_tables.py, tests/engine/test_scenes.py
_.patch_resid  # topics/interventions/patching.py: tests/engine/test_patching_oracles.py
_.bundled_model_ready  # topics/pretrained/model.py: tests/engine/test_cold_start.py
_.warm_in_background  # topics/pretrained/model.py: tests/engine/test_cold_start.py
_.params_module  # topics/registry.py: tests/engine/test_scenes.py, test_try_this_claims.py
_.linear_attention  # topics/attention_at_scale/linear.py: tests/engine/test_scale_*.py
_.scores_computed  # topics/attention_at_scale/masks.py: tests/engine/test_scale_masks.py
_.values_from_query  # topics/scene.py: tests/engine/test_scenes.py
_.patch_index  # topics/vision_patches/analysis.py: tests/engine/test_vision_analysis.py
_.upsample  # topics/vision_patches/analysis.py: tests/engine/test_vision_analysis.py
_.attention_on_ink  # topics/vision_patches/inference.py: tests/engine/test_vision_presets.py
_.ExplodingSpec  # training/testing_tasks.py: tests/engine/test_jobs.py

# Called by tests and benchmarks (the module, then its users, above each name)
# topics/watch_circuits/scene.py: tests/engine/test_circuits_try_this.py, benchmarks/circuits.py
_.preset_jobs
# topics/recurrent/timing.py: tests/engine/test_recurrence_benchmark.py, benchmarks/recurrence.py
_.crossover_text
# topics/attention_since_2017/scene.py: tests/engine/test_since2017_try_this.py,
# benchmarks/attention_variants.py
_.first_token_shares
# training/testing_tasks.py (the worker imports a job's spec by module): tests/engine/test_jobs.py,
# test_ray_backend.py, tests/deploy/test_server_lifecycle.py, benchmarks/training_backends.py
_.SlowSpec

# Called only by benchmarks
_.induction_bump  # topics/watch_circuits/induction.py: benchmarks/circuits.py
_.sink_shares  # topics/watch_circuits/sinks.py: benchmarks/circuits.py

# Called only by scripts and tests
_.lesson_jobs  # lessons/recordings.py: scripts/record_runs.py, tests/engine/test_recordings.py
