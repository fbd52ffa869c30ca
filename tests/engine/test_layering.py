"""Architecture rules: the engine never imports streamlit, and imports between the engine's rooms
only run downward (api > ui > classroom > lessons > topics > figures > models > training > data >
io > core): the Python API and the `attnviz` command stand on everything and nothing imports them,
a topic's scene builds its page's figures, and figures take arrays, never engine types."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from tests.support.pages import ROOT

# high to low
ROOMS = (
    "api",
    "ui",
    "classroom",
    "lessons",
    "topics",
    "figures",
    "models",
    "training",
    "data",
    "io",
    "core",
)
PACKAGE = ROOT / "attnviz"
# the front door: the package's own module (its names come from attnviz.api, loaded on first use)
FRONT = {"__init__.py"}


def test_importing_the_engine_does_not_import_streamlit():
    code = (
        "import importlib, pathlib, sys\n"
        "files = [p for p in pathlib.Path('attnviz').rglob('*.py') if p.parts[1] != 'ui']\n"
        "mods = ['.'.join(p.with_suffix('').parts).removesuffix('.__init__') for p in files]\n"
        "[importlib.import_module(m) for m in mods]\n"
        "assert len(mods) > 5, mods\n"
        "bad = [m for m in sys.modules if m == 'streamlit' or m.startswith('streamlit.')]\n"
        "print(len(mods), 'modules;', 'streamlit loaded' if bad else 'clean')\n"
        "sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "clean" in done.stdout


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-level imports included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def room_of(module_path: Path) -> str:
    parts = module_path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else ""


def engine_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_engine_module_lives_in_a_room():
    loose = [p.name for p in engine_files() if room_of(p) not in ROOMS and p.name not in FRONT]
    assert loose == [], f"modules outside the rooms {ROOMS}: {loose}"


def test_imports_between_rooms_only_run_downward():
    bad = []
    for path in engine_files():
        room = room_of(path)
        if room not in ROOMS:
            continue
        for module in imported_modules(path):
            parts = module.split(".")
            if parts[0] != "attnviz" or len(parts) < 2 or parts[1] not in ROOMS:
                continue
            if ROOMS.index(parts[1]) < ROOMS.index(room):
                bad.append(f"{path.relative_to(ROOT)} ({room}) imports {module}")
    assert bad == [], "\n".join(bad)


# The only crossings allowed between topics, each named: (importing topic, module it imports).
# The vision page's real-ViT box validates a typed folder with the pretrained page's rules.
TOPIC_CROSSINGS = {
    ("vision_patches", "attnviz.topics.pretrained.model"),
    (
        "attention_at_scale",
        "attnviz.topics.text.attention",
    ),  # the maps under each mask: the text page's layer
    # the language-model page wraps its LLM as the pretrained page wraps causal LMs (one model
    # class, one generation with the KV cache, one masked-future blanking) and scores heads with
    # the circuits page's scores (issue 40: "reuse the circuits page's head scores")
    ("language_model", "attnviz.topics.pretrained.model"),
    ("language_model", "attnviz.topics.pretrained.generation"),
    ("language_model", "attnviz.topics.pretrained.analysis"),
    ("language_model", "attnviz.topics.watch_circuits.scores"),
    # the interventions page runs the language-model page's model (its provider, its prompt
    # encoding, its memo of readouts) and wraps it as that page does (issue 41)
    ("interventions", "attnviz.topics.language_model.scene"),
    # the own-model box (issue 56): one help text for both language-model pages; a folder is
    # read under the pretrained page's rules
    ("interventions", "attnviz.topics.language_model.params"),
    ("language_model", "attnviz.topics.pretrained.sources"),
    ("interventions", "attnviz.topics.language_model.forward"),
    ("interventions", "attnviz.topics.language_model.readouts"),
    # where a causal LM's parts live, Llama's layout or GPT-2's (issue 56: GPT-2 patched too)
    ("interventions", "attnviz.topics.language_model.layout"),
    ("interventions", "attnviz.topics.pretrained.model"),
    # the real-block page runs the language-model page's model (its provider, its prompt
    # encoding, its decoder blocks) and wraps it as that page does (issue 58)
    ("real_block", "attnviz.topics.language_model.scene"),
    ("real_block", "attnviz.topics.language_model.forward"),
    ("real_block", "attnviz.topics.pretrained.model"),
    # the captioning page reads a person's photo with the vision page's bounded reader
    ("captioning", "attnviz.topics.vision_patches.uploads"),
    # the vision page's real-ViT box reads a typed folder with the pretrained page's rules
    ("vision_patches", "attnviz.topics.pretrained.sources"),
}


# what every topic shares, at the top of topics/: the scene shape, the registry, parameter tables
SHARED = {p.stem for p in (PACKAGE / "topics").glob("*.py")}


def test_topics_do_not_import_each_other():
    bad = []
    for path in (PACKAGE / "topics").rglob("*.py"):
        own = path.relative_to(PACKAGE / "topics").parts[0]
        if len(path.relative_to(PACKAGE / "topics").parts) == 1:
            continue  # a shared module (the registry names every topic's scene, as text)
        for module in imported_modules(path):
            parts = module.split(".")
            if (own, module) in TOPIC_CROSSINGS or parts[2:3] and parts[2] in SHARED:
                continue
            if parts[:2] == ["attnviz", "topics"] and len(parts) > 2 and parts[2] != own:
                bad.append(f"{path.relative_to(ROOT)} imports {module}")
    assert bad == [], "\n".join(bad)


def test_figures_and_training_rooms_keep_their_promises():
    """figures/ builds Plotly figures from arrays (no torch, no engine types); training/ knows
    nothing of models or pages."""
    bad = []
    engine = ("attnviz.topics", "attnviz.models", "attnviz.training", "attnviz.data")
    for path in (PACKAGE / "figures").rglob("*.py"):
        bad += [f"{path.name} imports torch" for m in imported_modules(path) if m == "torch"]
        bad += [f"{path.name} imports {m}" for m in imported_modules(path) if m.startswith(engine)]
    for path in (PACKAGE / "training").rglob("*.py"):
        for module in imported_modules(path):
            if module.startswith(("attnviz.models", "attnviz.topics", "attnviz.ui")):
                bad.append(f"training/{path.name} imports {module}")
    assert bad == [], bad


def test_figures_load_without_torch():
    """Figures are Plotly builders over NumPy: importing them (and what they import) loads no
    torch."""
    mods = [f"attnviz.figures.{p.stem}" for p in (PACKAGE / "figures").glob("*.py")]
    code = (
        "import importlib, sys\n"
        f"[importlib.import_module(m) for m in {mods!r}]\n"
        "print('torch loaded' if 'torch' in sys.modules else 'clean')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "clean", done.stdout + done.stderr


def test_no_module_imports_transformers_when_it_is_imported():
    """transformers imports its submodules lazily; two threads at it at once (a page importing
    its engine while the server's warm-up loads a model) got "cannot import name 'DynamicCache'
    from 'transformers'": a page then showed an error. Its names are imported inside the function
    that needs them, under attnviz.core.hf_import.HF_LOCK (TYPE_CHECKING imports are not run)."""
    bad = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:  # module level only
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            bad += [
                f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] == "transformers"
            ]
    assert bad == []


# torch's hook registrars: register_forward_hook, register_forward_pre_hook,
# register_full_backward_hook, register_full_backward_pre_hook, register_backward_hook, the global
# register_module_*_hook, a tensor's register_hook and the state-dict ones
TORCH_HOOK = re.compile(r"^register_\w*hook$")
HOOKS_HOME = PACKAGE / "core" / "hooks.py"


def torch_hook_uses(path: Path) -> list[str]:
    """Each use of a torch hook registrar in a file: a method (`m.register_forward_hook(...)`), a
    bare name, a name imported, or a string (`getattr(m, "register_forward_hook")`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = [getattr(node, "attr", None), getattr(node, "id", None)]
        names += [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.append(node.value)
        hits = [n for n in names if isinstance(n, str) and TORCH_HOOK.match(n)]
        found += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in hits]
    return found


def test_torch_hooks_are_registered_only_in_core_hooks():
    """One hook mechanism (issue 52): our models have HookPoints, and the modules of models we
    load (Hugging Face's) are hooked through core.hooks' module_hooks / module_cache."""
    assert torch_hook_uses(HOOKS_HOME)  # the scan finds the registrations where they belong
    bad = [hit for path in engine_files() if path != HOOKS_HOME for hit in torch_hook_uses(path)]
    assert bad == [], "torch hooks registered outside attnviz/core/hooks.py:\n" + "\n".join(bad)


UI_FILES = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(PACKAGE / "ui").rglob("*.py")]


def topic_modules_reached(path: Path) -> set[str]:
    """The modules of a topic (attnviz.topics.<topic>.<module>) a file imports, at any depth,
    written either way (`from attnviz.topics.t.m import x`, `from attnviz.topics.t import m`)."""
    names = imported_modules(path)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    topics = PACKAGE / "topics"
    reached = set()
    for name in names:
        parts = name.split(".")
        in_topics = parts[:2] == ["attnviz", "topics"] and len(parts) >= 4
        if in_topics and (topics / parts[2] / f"{parts[3]}.py").exists():  # a module, not a name
            reached.add(".".join(parts[:4]))
    return reached


def test_the_ui_reaches_a_topic_only_through_its_scene():
    """app.py, pages/ and attnviz/ui/ import a topic's `scene` module and nothing else of it:
    what a page needs of a topic (its settings' limits, the calls it makes: generate, ablate,
    save, load, measure, upload) the scene gives (its names, `SCENE.ops`), so a notebook has it
    too."""
    bad = sorted(
        f"{path.relative_to(ROOT)} imports {module}"
        for path in UI_FILES
        for module in topic_modules_reached(path)
        if not module.endswith(".scene")
    )
    assert len(UI_FILES) > 30
    assert bad == [], "\n".join(bad)
