"""The gate against a hostile upstream and hostile clients, over real HTTP: no text that did
not verify reaches a client (any 2xx status, several choices, tool calls, refusals, reasoning
fields, streaming under every policy), and no reply, client or dead worker takes the service
down (bounded replies, total timeouts, deadlines that end a check's work, workers replaced)."""

from __future__ import annotations

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from peirce.server.app import ServerSettings
from tests.helpers.hostile import Hostile, Reply, completion, sse
from tests.helpers.serving import PREMISES, WRONG, serving

RIGHT = "Gwen is tall and calm, so Gwen is kind. So Gwen is happy.\nANSWER: True"
OPEN = "Gwen is tall. Gwen is rich. Gwen is kind, so Gwen is happy.\nANSWER: True"
REFUTED_WORDS = "not kind"
GATE = {"context": PREMISES, "question": "Gwen is happy."}
ASK = {"model": "m", "messages": [{"role": "user", "content": "Is Gwen happy?"}], "peirce": GATE}


@contextmanager
def _gate_over(tmp_path: Path, *replies: Reply, **settings: Any) -> Iterator[str]:
    """The gate's URL, proxying to a hostile upstream that answers ``replies`` in order."""
    with Hostile(*replies) as up:
        options = {"data_dir": tmp_path, "upstream": up.base_url, **settings}
        with serving(ServerSettings(**options)) as url:
            yield url


def _json(obj: object) -> bytes:
    return json.dumps(obj).encode()


def _post(url: str, body: dict[str, object], **kw: object) -> httpx.Response:
    return httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60, **kw)  # type: ignore[arg-type]


# -- unverified text ---------------------------------------------------------------------------
@pytest.mark.parametrize("status", [201, 203, 206])
def test_a_2xx_other_than_200_is_verified_like_200(tmp_path: Path, status: int) -> None:
    with _gate_over(tmp_path, Reply(status, _json(completion(WRONG)))) as url:
        r = _post(url, ASK)
    assert r.status_code == 200
    assert r.headers["x-peirce-action"] == "block"
    assert REFUTED_WORDS not in r.text.split('"peirce"')[0]
    assert r.json()["choices"][0]["finish_reason"] == "content_filter"


@pytest.mark.parametrize("status", [400, 429, 500, 302])
def test_an_upstream_error_passes_on_no_text_of_the_upstream(tmp_path: Path, status: int) -> None:
    body = _json({"error": {"message": WRONG}})
    headers = {"Content-Type": "application/json", "Retry-After": "3", "Location": "/x"}
    with _gate_over(tmp_path, Reply(status, body, headers)) as url:
        r = _post(url, ASK)
    assert r.status_code == (status if 400 <= status < 500 else 502)
    assert REFUTED_WORDS not in r.text and "Gwen" not in r.text
    assert r.json()["error"]["message"].startswith("the upstream model")
    if status == 429:
        assert r.headers["retry-after"] == "3"


def test_every_choice_is_verified_and_unverified_fields_are_removed(tmp_path: Path) -> None:
    extra = {
        "tool_calls": [{"id": "t", "type": "function",
                        "function": {"name": "say", "arguments": json.dumps({"t": WRONG})}}],
        "refusal": WRONG,
        "reasoning_content": WRONG,
        "audio": {"transcript": WRONG},
    }  # fmt: skip
    reply = completion(RIGHT, WRONG, **extra)
    reply["choices"][0]["logprobs"] = {"content": [{"token": REFUTED_WORDS}]}  # type: ignore[index]
    reply["prompt_filter_results"] = [{"text": WRONG}]
    reply["usage"] = {"prompt_tokens": -25, "completion_tokens": 10, "total_tokens": "x"}
    with _gate_over(tmp_path, Reply(200, _json(reply))) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="m", messages=ASK["messages"], n=2, extra_body={"peirce": GATE}
        )
        out = raw.parse()
        too_many = _post(url, {**ASK, "n": 50})
    assert raw.headers["x-peirce-action"] == "block"  # the most restrictive of the choices
    assert raw.headers["x-peirce-verified"] == "false"
    first, second = out.choices
    assert first.message.content == RIGHT and first.model_extra["peirce"]["action"] == "pass"
    assert second.finish_reason == "content_filter"
    assert second.message.content.startswith("[blocked by peirce: step 2")
    shown = json.loads(raw.text)
    for choice in shown["choices"]:
        assert set(choice["message"]) == {"role", "content"}
        assert "logprobs" not in choice
    assert "prompt_filter_results" not in shown
    assert shown["usage"] == {"completion_tokens": 10}
    outside = {k: v for k, v in shown.items() if k not in ("peirce", "choices")}
    assert REFUTED_WORDS not in json.dumps([outside, [c["message"] for c in shown["choices"]]])
    assert too_many.status_code == 422


def _events(url: str, body: dict[str, object]) -> tuple[str, list[dict[str, object]], bool]:
    """The text a streaming client shows, the events, and whether ``[DONE]`` closed it."""
    events = []
    done = False
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=60) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if line == "data: [DONE]":
                done = True
            elif line.startswith("data: "):
                events.append(json.loads(line[6:]))
    text = "".join(e["choices"][0]["delta"].get("content") or "" for e in events)  # type: ignore[index]
    return text, events, done


POLICIES = {
    "default": {},
    "annotate": {"block": []},
    "repair": {"repair": True, "answer_from_proof": True},
}


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("reply", [RIGHT, WRONG, OPEN])
def test_a_stream_shows_what_the_reply_without_streaming_shows(
    tmp_path: Path, policy: str, reply: str
) -> None:
    gate = {**GATE, "policy": POLICIES[policy]}
    streamed = Reply(200, sse(reply), {"Content-Type": "text/event-stream"})
    with _gate_over(tmp_path, Reply(200, _json(completion(reply))), streamed) as url:
        whole = _post(url, {**ASK, "peirce": gate}).json()
        text, events, done = _events(url, {**ASK, "peirce": gate, "stream": True})
    assert done
    decided = whole["choices"][0]
    last = events[-1]
    if decided["finish_reason"] == "content_filter":
        assert last["choices"][0]["finish_reason"] == "content_filter"  # type: ignore[index]
        assert REFUTED_WORDS not in text.split("[stopped by peirce")[0]
    else:
        assert text == decided["message"]["content"]
        assert last["peirce"]["action"] == decided["peirce"]["action"]  # type: ignore[index]
    if policy == "repair" and reply == WRONG:  # the repair is shown, streamed or not
        assert decided["peirce"]["action"] == "repair" and "True" in text


# -- bounds -------------------------------------------------------------------------------------
def test_a_huge_reply_is_cut_and_the_service_goes_on(tmp_path: Path) -> None:
    long = completion("Gwen is tall. " * 120_000)  # about 1.7 MB: longer than the gate checks

    def endless() -> Iterator[bytes]:
        yield b'{"choices": [{"message": {"content": "'
        while True:
            yield b"Gwen is tall. " * 4096

    replies = [Reply(200, _json(long)), Reply(200, endless)]
    with Hostile(*replies) as up:
        settings = ServerSettings(data_dir=tmp_path, upstream=up.base_url, workers=1)
        with serving(settings) as url:
            big = _post(url, ASK)
            assert big.status_code == 200 and big.headers["x-peirce-action"] == "block"
            assert "longer than" in big.json()["choices"][0]["message"]["content"]
            huge = _post(url, ASK)
            assert huge.status_code == 502 and "larger than" in huge.json()["error"]["message"]
            small = httpx.post(f"{url}/v1/verify", json={**GATE, "reasoning": RIGHT}, timeout=60)
            assert small.status_code == 200 and small.json()["action"] == "pass"


def _dripping() -> Iterator[bytes]:
    while True:
        yield b" "


def test_every_upstream_timeout_is_a_total_bound(tmp_path: Path) -> None:
    keepalive = Reply(200, lambda: iter(lambda: b": keep-alive\n\n", None),
                      {"Content-Type": "text/event-stream"}, delay=0.05)  # fmt: skip
    sentences = Reply(200, lambda: (sse("Gwen is tall. ", 100)[:-14] for _ in iter(int, 1)),
                      {"Content-Type": "text/event-stream"}, delay=0.1)  # fmt: skip
    with Hostile(Reply(200, _dripping, delay=0.05), keepalive, sentences) as up:
        settings = ServerSettings(data_dir=tmp_path, upstream=up.base_url, upstream_timeout=1.0)
        with serving(settings) as url:
            t0 = time.monotonic()
            r = _post(url, ASK)
            assert r.status_code == 504 and time.monotonic() - t0 < 2.0
            for _ in range(2):
                t0 = time.monotonic()
                text, _, done = _events(url, {**ASK, "stream": True})
                assert done and time.monotonic() - t0 < 2.0 + 1.0  # the checks' time is theirs
                assert "did not answer in time" in text


def _healthy_within(url: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if httpx.get(f"{url}/healthz").status_code == 200:
            return True
        time.sleep(0.05)
    return False


def test_a_check_past_its_deadline_is_ended_and_its_worker_replaced(tmp_path: Path) -> None:
    # about a second of work for the gate (4x the deadline): the most it checks
    slow = " ".join(f"Gwen is tall and calm, so Gwen is kind number{i}." for i in range(1900))
    settings = ServerSettings(data_dir=tmp_path, workers=1, request_timeout=0.3)
    with serving(settings) as url:
        t0 = time.monotonic()
        r = httpx.post(
            f"{url}/v1/verify", json={"context": PREMISES, "reasoning": slow}, timeout=60
        )
        assert r.status_code == 504 and time.monotonic() - t0 < 3
        assert r.json()["error"]["code"] == "timeout"
        assert _healthy_within(url, 10)  # the one worker was replaced, not left busy
        # the new worker serves (its first checks may themselves pass 0.3 s on a loaded machine:
        # each of those is ended and its worker replaced the same way)
        for _ in range(5):
            ok = httpx.post(f"{url}/v1/verify", json={**GATE, "reasoning": RIGHT}, timeout=60)
            if ok.status_code != 504:
                break
            assert _healthy_within(url, 10)
        assert ok.status_code == 200
        assert httpx.get(f"{url}/healthz").json()["replaced"] >= 1
    streamed = Reply(200, sse(slow + "\n" + RIGHT, 400), {"Content-Type": "text/event-stream"})
    with Hostile(streamed) as up:
        settings = ServerSettings(data_dir=tmp_path, workers=1, request_timeout=0.6,
                                  upstream=up.base_url, stream_chunk=20_000)  # fmt: skip
        with serving(settings) as url:
            t0 = time.monotonic()
            text, events, done = _events(
                url, {**ASK, "peirce": {"context": PREMISES}, "stream": True}
            )
            assert time.monotonic() - t0 < 10
    assert done and events[-1]["choices"][0]["finish_reason"] == "content_filter"  # type: ignore[index]
    assert "within the request timeout" in text


def _workers() -> list[int]:
    """This process's worker processes (children started by spawn)."""
    pids = []
    for f in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        for pid in Path(f).read_text().split():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"multiprocessing" in cmd and b"spawn_main" in cmd:
                pids.append(int(pid))
    return pids


def test_a_killed_worker_is_replaced_under_load(tmp_path: Path) -> None:
    settings = ServerSettings(data_dir=tmp_path, workers=2, worker_requests=1000)
    body = {**GATE, "reasoning": RIGHT}
    statuses: list[tuple[float, int]] = []
    stop = threading.Event()

    def load(url: str) -> None:
        with httpx.Client(timeout=60) as client:
            while not stop.is_set():
                statuses.append(
                    (time.monotonic(), client.post(f"{url}/v1/verify", json=body).status_code)
                )

    with serving(settings) as url:
        thread = threading.Thread(target=load, args=(url,))
        thread.start()
        time.sleep(1.0)
        before = _workers()
        assert len(before) == 2
        os.kill(before[0], signal.SIGKILL)
        killed = time.monotonic()
        degraded = False
        while time.monotonic() - killed < 20:
            health = httpx.get(f"{url}/healthz")
            degraded |= health.status_code == 503
            if degraded and health.status_code == 200:
                break
            time.sleep(0.05)
        time.sleep(max(0.0, killed + 6.5 - time.monotonic()))
        stop.set()
        thread.join()
        assert degraded and health.status_code == 200
        assert len(_workers()) == 2
    after = [s for t, s in statuses if t > killed + 5]
    assert after and all(s == 200 for s in after)


def test_workers_are_recycled_after_their_requests(tmp_path: Path) -> None:
    settings = ServerSettings(data_dir=tmp_path, workers=1, worker_requests=3)
    with serving(settings) as url:
        for _ in range(7):
            r = httpx.post(f"{url}/v1/verify", json={**GATE, "reasoning": RIGHT}, timeout=60)
            assert r.status_code == 200
        assert httpx.get(f"{url}/healthz").json()["replaced"] >= 2


# -- hostile clients ----------------------------------------------------------------------------
def test_no_other_site_can_drive_the_api(tmp_path: Path) -> None:
    body = json.dumps({**GATE, "reasoning": RIGHT})
    with serving(ServerSettings(data_dir=tmp_path, cors_origins=("http://ok.example",))) as url:
        port = url.rsplit(":", 1)[1]
        plain = httpx.post(f"{url}/v1/verify", content=body, headers={"Content-Type": "text/plain"})
        assert plain.status_code == 415
        form = httpx.post(f"{url}/v1/verify", data={"reasoning": RIGHT})
        assert form.status_code == 415
        evil = httpx.post(f"{url}/v1/verify", json={**GATE, "reasoning": RIGHT},
                          headers={"Origin": "http://evil.example"})  # fmt: skip
        assert evil.status_code == 403
        for origin in ("http://ok.example", f"http://127.0.0.1:{port}"):
            ok = httpx.post(f"{url}/v1/verify", json={**GATE, "reasoning": RIGHT},
                            headers={"Origin": origin})  # fmt: skip
            assert ok.status_code == 200
        rebound = httpx.get(f"{url}/v1/kbs", headers={"Host": f"evil.example:{port}"})
        assert rebound.status_code == 403
    with serving(ServerSettings(data_dir=tmp_path, token="s3cret")) as url:
        named = httpx.get(f"{url}/v1/kbs", headers={"Host": "gate.example",
                                                    "Authorization": "Bearer s3cret"})  # fmt: skip
        assert named.status_code == 200


def test_a_server_open_beyond_this_machine_needs_a_token_or_insecure(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "peirce", "serve", "--host", "0.0.0.0", "--port", "0",
           "--data-dir", str(tmp_path)]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "PEIRCE_SERVER_TOKEN"}
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env, check=False)
    assert out.returncode == 2 and "--token" in out.stderr and "--insecure" in out.stderr


def test_text_that_is_not_text_and_deep_replies_are_clear_errors(tmp_path: Path) -> None:
    lone = b'{"context": ["Gwen is tall."], "reasoning": "Gwen \\ud800 is tall."}'
    deep = b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with _gate_over(tmp_path, Reply(200, deep)) as url:
        for route in ("/v1/verify", "/v1/kbs"):
            r = httpx.post(url + route, content=lone, headers={"Content-Type": "application/json"})
            assert r.status_code == 400 and "surrogate" in r.json()["error"]["message"]
        r = _post(url, ASK)
        assert r.status_code == 502 and "not JSON" in r.json()["error"]["message"]


def test_a_client_that_sends_its_headers_slowly_is_cut_off(tmp_path: Path) -> None:
    with serving(ServerSettings(data_dir=tmp_path, header_timeout=0.5)) as url:
        host, port = url.rsplit("/", 1)[1].split(":")
        held = []
        for _ in range(20):
            s = socket.create_connection((host, int(port)))
            s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(s)
        t0 = time.monotonic()
        for s in held:
            s.settimeout(10)
            assert s.recv(100) == b""  # closed by the server
            s.close()
        assert time.monotonic() - t0 < 5
        assert httpx.get(f"{url}/healthz").status_code == 200


def test_the_llm_clients_timeout_bounds_a_dripping_reply() -> None:
    from peirce.errors import LLMError
    from peirce.llm import LLMClient

    def drip() -> Iterator[bytes]:
        yield b'{"id": "x", "object": "chat.completion", "created": 1, "model": "m", '
        while True:
            yield b" "

    with Hostile(Reply(200, drip, delay=0.05)) as up:
        client = LLMClient(base_url=up.base_url, api_key="x", model="m", timeout=1.0,
                           max_retries=0, cache=False)  # fmt: skip
        t0 = time.monotonic()
        with pytest.raises(LLMError, match="no whole reply within 1 s"):
            client.chat([{"role": "user", "content": "hi"}], template="t", template_version="1")
        assert time.monotonic() - t0 < 2.0
        client.close()
