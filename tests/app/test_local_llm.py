"""The bundled GGUF through llama.cpp's server and ChatOpenAI: the offline default's wiring."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from app.llm.factory import ModelFactory
from app.llm.local import LocalLlamaServer, LocalModelError, bundled_model_path
from app.settings import Settings
from core.llm.chat import complete, complete_structured
from core.recommendations import RecommendationBlock, to_recommendations
from prompts import render

pytestmark = pytest.mark.local_model


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def test_server_chat_and_structured_output(tmp_path: Path) -> None:
    with LocalLlamaServer(bundled_model_path(), log_path=tmp_path / "llama.log") as server:
        assert _port_open(server.port)
        models = ModelFactory(Settings(data_dir=tmp_path), local_base_url=server.base_url)
        handle = models.chat("extractor")
        assert handle.name == "local:smollm2"
        text = await complete(handle, [("user", "Say hello.")], role="extractor")  # type: ignore[list-item]
        assert text
        prompt = render(
            "shared/extract_recommendations",
            report="1-day: LONG, conviction 75%. 1-week: LONG 72%. 1-month: SHORT 70%.",
        )
        out = await complete_structured(
            handle, RecommendationBlock, prompt.messages(), validate=to_recommendations, retries=2
        )
        assert out.ok, out.error  # grammar-constrained: valid enum and bounds
        assert out.value is not None and [r.horizon.value for r in out.value] == ["1d", "1w", "1m"]
    assert not _port_open(server.port)  # stopped on exit


async def test_streamed_answers_parse_and_count_like_unstreamed(tmp_path: Path) -> None:
    """The web page streams: llama-cpp-python repeats the tool name in every delta and sends
    no usage in streams; LlamaCppChat repairs both (else the merged name was 'PickPick...')."""
    with LocalLlamaServer(bundled_model_path(), log_path=tmp_path / "llama.log") as server:
        models = ModelFactory(Settings(data_dir=tmp_path), local_base_url=server.base_url)
        model = models.chat("extractor").model
        bound = model.bind_tools([RecommendationBlock], tool_choice="RecommendationBlock")
        prompt = render("shared/extract_recommendations", report="1-day: LONG, conviction 75%.")
        chunks = [c async for c in bound.astream(prompt.messages())]
        assert len(chunks) > 3  # really streamed
        total: Any = chunks[0]
        for c in chunks[1:]:
            total = total + c
        assert [c["name"] for c in total.tool_calls] == ["RecommendationBlock"]
        assert total.usage_metadata["output_tokens"] > 3
        assert total.usage_metadata["input_tokens"] > 50  # the prompt and the tool schema
        text_chunks = [c async for c in model.astream("Say hello.")]
        usage = [c.usage_metadata for c in text_chunks if c.usage_metadata]
        assert len(usage) == 1 and usage[0]["output_tokens"] > 0


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LocalModelError, match="not found"):
        LocalLlamaServer(tmp_path / "nope.gguf")


def test_broken_model_file_fails_fast(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf")
    with pytest.raises(LocalModelError, match="exited"):
        LocalLlamaServer(bad, startup_timeout=60).start()


def test_model_server_dies_with_its_parent(tmp_path: Path) -> None:
    """SIGKILL the process that started the llama.cpp server: the server goes too."""
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import sys, time\n"
        "from app.llm.local import LocalLlamaServer, bundled_model_path\n"
        "srv = LocalLlamaServer(bundled_model_path()); srv.start()\n"
        "print(srv.port, srv._proc.pid, flush=True); time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    port, child = (int(x) for x in parent.stdout.readline().split())
    assert _port_open(port)
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and _port_open(port):
        time.sleep(0.2)
    assert not _port_open(port)
    status = Path(f"/proc/{child}/status")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and status.exists() and "(zombie)" not in status.read_text():
        time.sleep(0.2)
    assert not status.exists() or "(zombie)" in status.read_text()


def test_flash_attention_is_a_setting_off_by_default(tmp_path: Path) -> None:
    """Flash attention is one setting away (measured: no faster over a full run on 2 cores)."""
    from app.settings import Settings

    model = tmp_path / "m.gguf"
    model.write_bytes(b"x")
    assert Settings().local_flash_attn is False
    cmd = LocalLlamaServer(model, flash_attn=True).command()
    assert cmd[cmd.index("--flash_attn") + 1] == "true"
    assert "--flash_attn" not in LocalLlamaServer(model, flash_attn=False).command()


async def test_the_server_holds_the_model_to_the_calls_figures(tmp_path: Path) -> None:
    """Grounded decoding end to end: asked to repeat figures the call never stated, the bundled
    model does so without the grammar and cannot with it (llama.cpp honours the field)."""
    import httpx

    from core.grounding import check_numbers
    from core.llm.decoding import figure_grammar

    call = "Revenue rose 13% to $1.5 billion in 2019, and we opened 150 stores."
    ask = (
        "Repeat this sentence exactly: Revenue rose 17% to $2.4 billion in 2021, EPS was "
        "$3.85, and we opened 260 stores."
    )
    with LocalLlamaServer(bundled_model_path(), log_path=tmp_path / "llama.log") as server:
        texts = []
        for grammar in (None, figure_grammar([call])):
            body: dict[str, Any] = {
                "model": "smollm2", "temperature": 0, "seed": 1, "max_tokens": 80,
                "messages": [{"role": "user", "content": ask}],
            }  # fmt: skip
            if grammar:
                body["grammar"] = grammar
            resp = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=120)
            resp.raise_for_status()
            texts.append(resp.json()["choices"][0]["message"]["content"])
    free, held = (check_numbers(t, [call]) for t in texts)
    assert any(not c.grounded for c in free), texts[0]  # the model does repeat them
    assert held and all(c.grounded for c in held), texts[1]  # figures, all the call's own
