"""Reads a serving command: which engine, which model, image and port where the command makes them obvious, and
the tensor-parallel size, which is only ever checked against the GPU count the caller gives.

Understood: `vllm serve <model> …` (and `python -m vllm.entrypoints.openai.api_server --model …`),
`python -m sglang.launch_server --model-path …`; anything else is a custom server that needs its image.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import Literal

from controlplane.models.errors import InvalidRequestError
from controlplane.models.serving import GPU_COUNT_QUESTION

Engine = Literal["vllm", "sglang", "custom"]
VLLM_IMAGE = "vllm/vllm-openai:latest"
SGLANG_IMAGE = "lmsysorg/sglang:latest"
DEFAULT_PORTS: dict[Engine, int] = {"vllm": 8000, "sglang": 30000, "custom": 8000}
HEALTH_PATH = "/health"
_TP_FLAGS = ("--tensor-parallel-size", "--tp", "--tp-size", "-tp")
_MODEL_FLAGS: dict[Engine, str] = {"vllm": "--model", "sglang": "--model-path", "custom": "--model"}
_PYTHONS = ("python", "python3")


@dataclass(frozen=True)
class ServingCommand:
    engine: Engine
    argv: tuple[str, ...]
    image: str | None
    port: int
    model: str | None
    tensor_parallel: int | None

    def with_model(self, model: str) -> ServingCommand:
        """The command serving `model` instead of the one it names (or adding it where it names none)."""
        argv = list(self.argv)
        flag = _MODEL_FLAGS[self.engine]
        at = _flag_value_index(argv, flag)
        if at is not None:
            argv[at] = model
        elif self.engine == "vllm" and argv[:2] == ["vllm", "serve"]:
            if len(argv) > 2 and not argv[2].startswith("-"):
                argv[2] = model
            else:
                argv.insert(2, model)
        else:
            argv += [flag, model]
        return replace(self, argv=tuple(argv), model=model)


def parse(command: str, image: str | None = None, port: int | None = None, names_model: bool = True) -> ServingCommand:
    """The command read into its parts; a command that cannot be run is refused with what to change.

    `names_model` False: the model comes from elsewhere (a training job's output), so the command may name none."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise InvalidRequestError(f"The command cannot be split into arguments ({error}); check its quotes.") from None
    if not argv:
        raise InvalidRequestError("The command is empty; give the serving command, e.g. `vllm serve <model>`.")
    engine = _engine(argv)
    if engine == "custom" and image is None:
        raise InvalidRequestError(
            f"`{argv[0]}` is not a vLLM or SGLang command, so the image cannot be inferred; pass `image`.",
            {"image": None},
        )
    model = _model(argv, engine)
    if names_model and engine != "custom" and model is None:
        where = "vllm serve <model>" if engine == "vllm" else "--model-path <model>"
        raise InvalidRequestError(f"The command names no model; add it ({where}) or pass `modelSource`.")
    return ServingCommand(
        engine=engine,
        argv=tuple(argv),
        image=image or {"vllm": VLLM_IMAGE, "sglang": SGLANG_IMAGE}.get(engine),
        port=port or _int_flag(argv, ("--port",)) or DEFAULT_PORTS[engine],
        model=model,
        tensor_parallel=_int_flag(argv, _TP_FLAGS),
    )


def check_gpus(command: ServingCommand, gpus: int) -> None:
    """The tensor-parallel size must fit in the GPUs given; it is never used to choose them."""
    tp = command.tensor_parallel
    if tp is not None and gpus < tp:
        raise InvalidRequestError(
            f"The command asks for tensor-parallel size {tp} but `gpus` is {gpus}: a replica needs at least as many "
            f"GPUs as its tensor-parallel size. {GPU_COUNT_QUESTION}",
            {"gpus": gpus, "tensorParallelSize": tp},
        )


def _engine(argv: list[str]) -> Engine:
    if argv[:2] == ["vllm", "serve"]:
        return "vllm"
    if argv[0] in _PYTHONS and argv[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]:
        return "vllm"
    if argv[0] in _PYTHONS and argv[1:3] == ["-m", "sglang.launch_server"]:
        return "sglang"
    return "custom"


def _model(argv: list[str], engine: Engine) -> str | None:
    at = _flag_value_index(argv, _MODEL_FLAGS[engine])
    if at is not None:
        return argv[at]
    if engine == "vllm" and argv[:2] == ["vllm", "serve"] and len(argv) > 2 and not argv[2].startswith("-"):
        return argv[2]
    return None


def _flag_value_index(argv: list[str], flag: str) -> int | None:
    """Where the value of `flag` is (`--flag value`)."""
    for index, arg in enumerate(argv[:-1]):
        if arg == flag:
            return index + 1
    return None


def _int_flag(argv: list[str], flags: tuple[str, ...]) -> int | None:
    """The integer value of the first of `flags` (`--flag N` or `--flag=N`); a non-integer value is refused."""
    for index, arg in enumerate(argv):
        name, equals, value = arg.partition("=")
        if name not in flags:
            continue
        raw = value if equals else (argv[index + 1] if index + 1 < len(argv) else "")
        try:
            return int(raw)
        except ValueError:
            raise InvalidRequestError(f"{name} needs an integer value, got {raw!r}.") from None
    return None
