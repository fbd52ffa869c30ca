"""The Python API (attnviz/api/), the standalone HTML export (attnviz.io.html_export) and the
`attnviz` command's error cases: a scene from Python equals the page's scene, the "Copy as Python"
code reproduces the page's figures in a fresh interpreter, user text stays text in the HTML."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

import attnviz as av
from attnviz.api import cli, page_link
from attnviz.io.html_export import figures_html, head_view_block
from attnviz.topics.registry import scene as registry_scene
from attnviz.topics.registry import scene_urls
from attnviz.topics.scene import SceneInputError
from attnviz.topics.scene_export import python_code
from tests.support.pages import ROOT

PLOTLY_JS_MARK = "* plotly.js v"  # the banner at the top of the embedded library


def figure_json(figures: dict) -> dict:
    """Each figure's data and layout, less the template (the test session sets its own)."""
    found = {name: json.loads(fig.to_json()) for name, fig in figures.items()}
    return {name: without_template(fig) for name, fig in found.items()}


def without_template(fig: dict) -> dict:
    return fig | {"layout": {k: v for k, v in fig["layout"].items() if k != "template"}}


def test_importing_attnviz_loads_no_torch_or_plotly():
    code = "import sys, attnviz; print('torch' in sys.modules, 'plotly' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_the_public_names_are_listed_and_each_loads_from_its_module():
    code = (
        "import sys, attnviz as av\n"
        "listed = set(av.__all__) <= set(dir(av))\n"
        "found = all(getattr(av, n) is getattr(av.api, n) for n in av.__all__ if n[0] != '_')\n"
        "print(listed, found, sorted(set(av.__all__) - {'__version__'}) == sorted(av.api.PUBLIC))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.split() == ["True", "True", "True"], done.stderr
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        av.nope  # noqa: B018


def test_pages_are_the_registry_in_order():
    assert av.pages() == list(scene_urls())


def test_scene_values_views_and_answers_are_the_page_scenes():
    s = av.scene("soft-select", ss_temp=0.05, ss_score="dot")
    page = registry_scene("soft-select")
    values = page.values(ss_temp=0.05, ss_score="dot")
    result, views = page.compute(values)
    assert s.values == values
    assert figure_json(s.views()) == figure_json(views)
    assert s.answers() == page.answers(result, values)
    assert set(s.views(only={"weights"})) == {"weights"}


def test_unknown_page_setting_or_value_is_a_clear_error():
    with pytest.raises(SceneInputError, match="no page 'nope'.*soft-select"):
        av.scene("nope")
    with pytest.raises(SceneInputError, match="no setting 'zz'"):
        av.scene("text", zz=1)
    with pytest.raises(SceneInputError, match="not a valid value for 'ta_heads'"):
        page_link("text?ta_heads=abc")
    with pytest.raises(SceneInputError, match="has no setting 'zz'"):
        page_link("/text?zz=1")


def test_a_link_gives_the_values_the_page_reads():
    s = page_link("http://localhost:8501/text?ta_text=Hi+there&ta_heads=2&lesson=x&step=2")
    assert s.url == "text"
    assert s.changed() == {"ta_text": "Hi there", "ta_heads": 2}


def test_copy_as_python_reproduces_the_page_figures_in_a_fresh_interpreter(tmp_path):
    s = av.scene("soft-select", ss_temp=0.2, ss_score="additive", seed=3)
    code = (
        s.python() + "import json, sys\njson.dump({n: json.loads(f.to_json()) for n, f in "
        "figures.items()}, open(sys.argv[1], 'w'))\n"
    )
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "-c", code, str(out)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    page = registry_scene("soft-select")
    _, expected = page.compute(page.values(ss_temp=0.2, ss_score="additive", seed=3))
    got = {name: without_template(fig) for name, fig in json.loads(out.read_text()).items()}
    assert got == figure_json(expected)


def test_python_code_names_only_changed_values_and_quotes_text():
    text = 'it\'s "quoted"\n<b>'
    code = python_code("text", {"ta_text": text, "ta_heads": 2})
    (call,) = [
        n
        for n in ast.walk(ast.parse(code))
        if isinstance(n, ast.Call) and ast.unparse(n.func) == "av.scene"
    ]
    assert [ast.literal_eval(a) for a in call.args] == ["text"]
    assert {k.arg: ast.literal_eval(k.value) for k in call.keywords} == {
        "ta_text": text,
        "ta_heads": 2,
    }


def test_html_export_escapes_user_text_and_embeds_plotly_js_once():
    s = av.scene("text", ta_text="<script>alert(1)</script> the cat", ta_heads=2)
    doc = s.html()
    assert doc.count(PLOTLY_JS_MARK) == 1
    assert "<script>alert(1)</script>" not in doc
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in doc  # the caption, as text
    assert doc.count('class="plotly-graph-div"') == len(s.views())
    assert "drawHeadView" in doc  # the text page's head view, inlined


def test_figures_html_caption_and_note_are_text():
    doc = figures_html("<T>", {}, {"k": "<i>x</i>"}, note="a & b")
    assert "<title>&lt;T&gt;</title>" in doc and "k = &#x27;&lt;i&gt;x&lt;/i&gt;&#x27;" in doc
    assert "a &amp; b" in doc and PLOTLY_JS_MARK not in doc


def test_head_view_data_cannot_close_its_script():
    block = head_view_block({"tokens": ["</script><b>"]}, "export default function (c) {}", "")
    assert "</script><b>" not in block and "\\u003c/script>\\u003cb>" in block
    with pytest.raises(ValueError, match="export default"):
        head_view_block({}, "function f() {}", "")


def test_training_page_export_says_it_shows_the_untrained_model():
    s = av.scene("kernel-smoother")
    assert "untrained model" in s.html()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "nope?x=1", "out.html"], "no page 'nope'"),
        (["export", "text?ta_heads=99", "out.html"], "'99' is not a valid value for 'ta_heads'"),
        (["export", "text?ta_hedas=2", "out.html"], "no setting 'ta_hedas'"),
        (["handout", "99_none", "out.html"], "no lesson file or bundled lesson '99_none'"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out.html").exists()


def test_cli_bad_lesson_file_exits_2(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("title = 3\n")
    with pytest.raises(SystemExit) as stop:
        cli.main(["handout", str(bad), str(tmp_path / "out.html")])
    assert stop.value.code == 2
    assert "no handout" in capsys.readouterr().err


def test_cli_export_writes_the_page_view(capsys, tmp_path):
    out = tmp_path / "view.html"
    cli.main(["export", "soft-select?ss_temp=0.05", str(out)])
    doc = out.read_text()
    assert doc.count(PLOTLY_JS_MARK) == 1 and "ss_temp = 0.05" in doc
    figures = len(registry_scene("soft-select").compute()[1])
    assert doc.count('class="plotly-graph-div"') == figures
    assert f"{figures} figures" in capsys.readouterr().out


def test_cli_serve_passes_the_app_settings_and_finds_app_py():
    folder = cli.app_dir()
    assert (folder / "app.py").is_file()
    flags = cli.config_flags(folder)
    assert "--server.headless=true" in flags and "--browser.gatherUsageStats=false" in flags
