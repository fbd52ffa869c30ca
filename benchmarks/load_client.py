"""One simulated browser tab speaking Streamlit's own websocket protocol (no browser).

What the frontend does, and so what `StreamlitSession` does:

1. HTTP GET the page (keeping any cookie, e.g. the reverse proxy's affinity cookie, so the
   websocket and every later request reach the same replica);
2. open the websocket `/_stcore/stream` with the subprotocol "streamlit" (the second and third
   entries of that header would carry an XSRF token and a session to resume; neither is needed);
3. send a `BackMsg.rerun_script` whose `ClientState` names the page (`page_name` is the url path
   on the first run, then the `page_script_hash` that the `navigation` message gave), the query
   string, and the widget states: a slider's value is `double_array_value` (one or two numbers),
   a select slider's `string_array_value`, a selectbox's and a radio's `string_value` (the
   formatted option), a button's `trigger_value`. A widget drawn inside an `st.fragment` (its
   delta carries `fragment_id`) is rerun with that `fragment_id`, as the frontend does;
4. read `ForwardMsg`s until `script_finished`: `new_session` starts a full run, `delta`s draw
   elements (widgets with their ids; `exception` is an error shown to the user), `auto_rerun`
   asks the client to rerun a fragment every `interval` seconds (the live training panels).

    async with StreamlitSession("http://127.0.0.1:8501", "soft-select") as tab:
        first = await tab.run()           # RunResult: seconds, status, exceptions
        widget = tab.pick_widget(rng)     # a slider / selectbox / radio in the main area
        result = await tab.change(widget, rng)
"""

from __future__ import annotations

import asyncio
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

FINISHED = {
    ForwardMsg.FINISHED_SUCCESSFULLY: "ok",
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "ok",
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile error",
}
CHANGEABLE = ("slider", "selectbox", "radio")
MAIN = 0  # RootContainer.MAIN (1 is the sidebar)


@dataclass
class Widget:
    id: str
    kind: str  # the Element field: slider, selectbox, radio, button, ...
    proto: Any
    fragment_id: str
    in_main: bool


@dataclass
class RunResult:
    seconds: float
    status: str  # "ok", "timeout", "closed", "compile error"
    exceptions: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and not self.exceptions


class StreamlitSession:
    """A websocket session on one page of a Streamlit app (see the module docstring)."""

    def __init__(
        self, base_url: str, page: str, query: str = "", timeout: float = 60, tag: str = ""
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.page, self.query, self.timeout = page, query, timeout
        self.tag = tag  # sent as ?tab=<tag> on the page GET and the websocket (proxy logs)
        self.cookies = CookieJar()
        self.page_hash = ""
        self.widgets: dict[str, Widget] = {}
        self.states: dict[str, WidgetState] = {}
        self.texts: list[str] = []  # markdown/text bodies of the current run
        self.outputs: list[bytes] = []  # every non-widget element of the current run
        self.exceptions: list[str] = []
        self.closed = False
        self.close_reason = ""
        self._ws: Any = None
        self._reader: asyncio.Task | None = None
        self._auto: dict[str, asyncio.Task] = {}
        self._finished: asyncio.Queue[str] = asyncio.Queue()
        self._trigger: WidgetState | None = None  # a button press for the next rerun
        self.session_id = ""  # the server's id of this session (new_session.initialize)
        self._file_urls: asyncio.Queue[Any] = asyncio.Queue()

    async def __aenter__(self) -> StreamlitSession:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _get(self, path: str) -> tuple[int, dict[str, str]]:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        with opener.open(f"{self.base_url}/{path.lstrip('/')}", timeout=self.timeout) as resp:
            resp.read()
            return resp.status, dict(resp.headers)

    async def get(self, path: str) -> tuple[int, dict[str, str]]:
        """HTTP GET through this tab's cookie jar (so through its replica behind a proxy)."""
        return await asyncio.get_running_loop().run_in_executor(None, self._get, path)

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.cookies)

    async def connect(self) -> None:
        marker = f"tab={self.tag}" if self.tag else ""
        query = "&".join(q for q in (self.query, marker) if q)
        await self.get(f"/{self.page}?{query}" if query else f"/{self.page}")
        ws_url = self.base_url.replace("http", "ws", 1) + "/_stcore/stream"
        ws_url += f"?{marker}" if marker else ""
        headers = {"Cookie": self.cookie_header()} if len(self.cookies) else None
        self._ws = await websockets.connect(
            ws_url,
            subprotocols=["streamlit"],
            additional_headers=headers,
            max_size=None,  # a page may send several MB (large matrices, images)
            ping_interval=None,  # as a browser: no keepalive pings that time out under load
            open_timeout=self.timeout,
        )
        self._reader = asyncio.create_task(self._read())

    async def close(self) -> None:
        for task in self._auto.values():
            task.cancel()
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
        self.closed = True

    async def _read(self) -> None:
        try:
            async for data in self._ws:
                msg = ForwardMsg()
                msg.ParseFromString(data)
                self._handle(msg)
        except websockets.ConnectionClosed as exc:
            self.close_reason = str(exc)
        finally:
            self.closed = True
            self._finished.put_nowait("closed")

    def _handle(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.widgets, self.texts, self.outputs = {}, [], []
            self.session_id = msg.new_session.initialize.session_id or self.session_id
        elif kind == "file_urls_response":
            self._file_urls.put_nowait(msg.file_urls_response)
        elif kind == "navigation":
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self._element(msg)
        elif kind == "auto_rerun":
            self._schedule(msg.auto_rerun.fragment_id, msg.auto_rerun.interval)
        elif kind == "script_finished" and msg.script_finished in FINISHED:
            self._finished.put_nowait(FINISHED[msg.script_finished])

    def _element(self, msg: ForwardMsg) -> None:
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        if kind is not None and not getattr(getattr(element, kind), "id", ""):
            self.outputs.append(element.SerializeToString())
        if kind == "exception":
            self.exceptions.append(f"{element.exception.type}: {element.exception.message}")
        elif kind in ("markdown", "text", "alert"):
            proto = getattr(element, kind)
            self.texts = [*self.texts[-200:], getattr(proto, "body", "")]  # live panels: bounded
        elif kind is not None:
            proto = getattr(element, kind)
            widget_id = getattr(proto, "id", "")
            if widget_id and hasattr(proto, "disabled") and not proto.disabled:
                in_main = bool(msg.metadata.delta_path) and msg.metadata.delta_path[0] == MAIN
                self.widgets[widget_id] = Widget(
                    widget_id, kind, proto, msg.delta.fragment_id, in_main
                )

    def _schedule(self, fragment_id: str, interval: float) -> None:
        old = self._auto.pop(fragment_id, None)
        if old is not None:
            old.cancel()
        if interval > 0:
            self._auto[fragment_id] = asyncio.create_task(self._auto_rerun(fragment_id, interval))

    async def _auto_rerun(self, fragment_id: str, interval: float) -> None:
        while not self.closed:
            await asyncio.sleep(interval)
            try:
                await self.send_rerun(fragment_id=fragment_id, auto=True)
            except websockets.ConnectionClosed:  # the server went away: the reader says so
                return

    async def send_rerun(self, fragment_id: str = "", auto: bool = False) -> None:
        back = BackMsg()
        state = back.rerun_script
        state.query_string = self.query
        state.page_script_hash = self.page_hash
        state.page_name = "" if self.page_hash else self.page
        state.fragment_id = fragment_id
        state.is_auto_rerun = auto
        live = [s for wid, s in self.states.items() if wid in self.widgets]
        if not auto and self._trigger is not None:  # a click goes with one rerun only
            live.append(self._trigger)
            self._trigger = None
        state.widget_states.widgets.extend(live)
        await self._ws.send(back.SerializeToString())

    async def run(self, fragment_id: str = "") -> RunResult:
        """Rerun (the whole page, or one fragment) and wait for script_finished."""
        if self.closed:
            return RunResult(0.0, "closed")
        while not self._finished.empty():  # an auto rerun's end must not end this one
            self._finished.get_nowait()
        self.exceptions = []
        start = time.perf_counter()
        await self.send_rerun(fragment_id)
        try:
            status = await asyncio.wait_for(self._finished.get(), self.timeout)
        except TimeoutError:
            status = "timeout"
        if status == "closed":
            status = f"closed: {self.close_reason}"
        return RunResult(time.perf_counter() - start, status, list(self.exceptions))

    async def upload(self, name: str, data: bytes, content_type: str) -> tuple[int, Any]:
        """Upload a file as the frontend does: ask for its URLs (file_urls_request), then PUT it
        with the XSRF token of the `_streamlit_xsrf` cookie (set by /_stcore/health) in the
        X-Xsrftoken header. Returns the PUT's status and the FileURLs (for a file_uploader's
        widget state). A replica that does not hold this session answers 400."""
        if not any(c.name == "_streamlit_xsrf" for c in self.cookies):
            await self.get("/_stcore/health")
        back = BackMsg()
        back.file_urls_request.request_id = f"upload-{name}"
        back.file_urls_request.file_names.append(name)
        back.file_urls_request.session_id = self.session_id
        await self._ws.send(back.SerializeToString())
        urls = (await asyncio.wait_for(self._file_urls.get(), self.timeout)).file_urls[0]
        xsrf = next((c.value for c in self.cookies if c.name == "_streamlit_xsrf"), "")
        boundary = "attnvizloadboundary"
        body = (
            (
                f"--{boundary}\r\n"
                f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: {content_type}\r\n\r\n"
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": xsrf}
        request = urllib.request.Request(
            self.base_url + urls.upload_url, data=body, headers=headers, method="PUT"
        )
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

        def put() -> int:
            try:
                with opener.open(request, timeout=self.timeout) as resp:
                    return resp.status
            except urllib.error.HTTPError as err:
                return err.code

        return await asyncio.get_running_loop().run_in_executor(None, put), urls

    def main_widgets(self, kinds: tuple[str, ...] = CHANGEABLE) -> list[Widget]:
        return [w for w in self.widgets.values() if w.in_main and w.kind in kinds]

    def pick_widget(self, rng: random.Random) -> Widget | None:
        """A changeable widget of the main area with more than one value, or None."""
        widgets = [w for w in self.main_widgets() if new_state(w, rng) is not None]
        return rng.choice(widgets) if widgets else None

    async def change(self, widget: Widget, rng: random.Random) -> RunResult:
        """Give `widget` another valid value and rerun as the frontend would."""
        state = new_state(widget, rng)
        if state is None:
            raise ValueError(f"{widget.kind} {widget.id} has no other value")
        self.states[widget.id] = state
        return await self.run(widget.fragment_id)

    async def click(self, widget: Widget) -> RunResult:
        """Press a button (a trigger that is true for this one run)."""
        self._trigger = WidgetState(id=widget.id, trigger_value=True)
        return await self.run(widget.fragment_id)

    def buttons(self, label: str) -> list[Widget]:
        return [w for w in self.widgets.values() if w.kind == "button" and w.proto.label == label]


def new_state(widget: Widget, rng: random.Random) -> WidgetState | None:
    """A WidgetState giving `widget` a value other than its current one, or None."""
    proto = widget.proto
    if widget.kind in ("selectbox", "radio"):
        options = list(proto.options)
        current = proto.raw_value if proto.set_value else None
        if current is None and options and proto.HasField("default"):
            current = options[proto.default]
        others = [o for o in options if o != current]
        return WidgetState(id=widget.id, string_value=rng.choice(others)) if others else None
    if widget.kind == "slider":
        return _slider_state(widget, rng)
    return None


def _slider_state(widget: Widget, rng: random.Random) -> WidgetState | None:
    proto = widget.proto
    current = list(proto.value if proto.set_value else proto.default)
    if proto.options:  # a select slider: values are the formatted options
        options = list(proto.options)
        if len(options) < 2:
            return None
        picked = sorted(rng.sample(range(len(options)), len(current)))
        if [float(i) for i in picked] == current:
            picked = [(i + 1) % len(options) for i in picked]
        state = WidgetState(id=widget.id)
        state.string_array_value.data.extend(options[i] for i in sorted(picked))
        return state
    if proto.data_type not in (0, 1) or proto.step <= 0:  # INT, FLOAT (not dates and times)
        return None
    steps = round((proto.max - proto.min) / proto.step)
    if steps < 1:
        return None
    for _ in range(20):
        values = sorted(round(proto.min + rng.randint(0, steps) * proto.step, 9) for _ in current)
        if any(abs(v - c) > proto.step / 2 for v, c in zip(values, current, strict=True)):
            state = WidgetState(id=widget.id)
            state.double_array_value.data.extend(values)
            return state
    return None
