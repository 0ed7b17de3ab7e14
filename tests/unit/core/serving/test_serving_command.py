"""Reading a serving command: engine, model, image and port where the command makes them obvious; the GPU count
is the caller's, and the tensor-parallel size is only checked against it."""

from __future__ import annotations

import pytest

from controlplane.core.serving.command import SGLANG_IMAGE, VLLM_IMAGE, check_gpus, parse
from controlplane.models.errors import InvalidRequestError
from controlplane.models.serving import DeployModelRequest


def test_a_vllm_command_infers_the_image_the_default_port_and_the_model() -> None:
    command = parse("vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1")

    assert (command.engine, command.image, command.port) == ("vllm", VLLM_IMAGE, 8000)
    assert (command.model, command.tensor_parallel) == ("Qwen/Qwen3-0.6B", 1)
    assert command.argv[:3] == ("vllm", "serve", "Qwen/Qwen3-0.6B")


def test_an_sglang_command_infers_its_image_and_port_and_reads_tp() -> None:
    command = parse("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --port 31000")

    assert (command.engine, command.image, command.port) == ("sglang", SGLANG_IMAGE, 31000)
    assert (command.model, command.tensor_parallel) == ("Qwen/Qwen3-8B", 2)


@pytest.mark.parametrize("flag", ["--tensor-parallel-size=4", "-tp 4", "--tp-size 4"])
def test_every_spelling_of_the_tensor_parallel_flag_is_read(flag: str) -> None:
    assert parse(f"vllm serve m {flag}").tensor_parallel == 4


def test_a_given_image_and_port_win_over_the_inferred_ones() -> None:
    command = parse("vllm serve m --port 9000", image="my/vllm:1", port=8080)

    assert (command.image, command.port) == ("my/vllm:1", 8080)


def test_a_custom_command_needs_an_image() -> None:
    with pytest.raises(InvalidRequestError, match="pass `image`"):
        parse("text-generation-launcher --model-id m")

    assert parse("text-generation-launcher --model-id m", image="tgi:2").engine == "custom"


def test_a_command_without_a_model_is_refused_unless_the_model_comes_from_elsewhere() -> None:
    with pytest.raises(InvalidRequestError, match="names no model"):
        parse("vllm serve --max-model-len 1280")

    command = parse("vllm serve --max-model-len 1280", names_model=False).with_model("/s3/out")
    assert command.argv == ("vllm", "serve", "/s3/out", "--max-model-len", "1280")


def test_with_model_replaces_the_named_model() -> None:
    assert parse("vllm serve old --tp 1").with_model("/s3/new").argv == ("vllm", "serve", "/s3/new", "--tp", "1")
    sglang = parse("python -m sglang.launch_server --model-path old").with_model("/s3/new")
    assert sglang.argv[-2:] == ("--model-path", "/s3/new")


@pytest.mark.parametrize("command", ["vllm serve 'unclosed", "vllm serve m --tp two"])
def test_commands_that_cannot_run_are_refused_with_what_to_change(command: str) -> None:
    with pytest.raises(InvalidRequestError):
        parse(command)


def test_fewer_gpus_than_the_tensor_parallel_size_is_refused_and_asks_for_the_gpu_count() -> None:
    with pytest.raises(InvalidRequestError, match="How many GPUs") as refused:
        check_gpus(parse("vllm serve m --tensor-parallel-size 4"), 2)

    assert refused.value.details == {"gpus": 2, "tensorParallelSize": 4}


def test_the_gpu_count_is_never_derived_from_the_tensor_parallel_size() -> None:
    check_gpus(parse("vllm serve m --tensor-parallel-size 2"), 8)
    check_gpus(parse("vllm serve m"), 1)

    with pytest.raises(ValueError, match="How many GPUs"):
        DeployModelRequest.model_validate({"name": "m", "command": "vllm serve m --tensor-parallel-size 2"})
