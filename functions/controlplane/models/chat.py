"""The chat completion contract, one for every way of calling a model: a self-managed model service
(`POST …/services/{name}/chat`) and a managed endpoint (`POST …/endpoints/{name}/chat`) take the same request and
answer the same completion. The fields are OpenAI's, so a client that speaks OpenAI reads and writes them unchanged;
`prompt` is a shorthand for a conversation of one user message.

How a completion reaches the model (service proxy, load balancer, SageMaker Runtime) is each service's job.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from controlplane.models.common import Contract, View

MAX_CONTENT = 100_000


class ChatMessage(Contract):
    role: Literal["system", "user", "assistant"]
    content: str = Field(max_length=MAX_CONTENT)


class ChatCompletionRequest(Contract):
    """An OpenAI chat completion request (the fields the control plane forwards): the conversation as `messages`,
    or `prompt` for one user message."""

    prompt: str | None = Field(
        default=None, min_length=1, max_length=MAX_CONTENT, description="Shorthand for one user message."
    )
    messages: list[ChatMessage] | None = Field(default=None, min_length=1, max_length=100, description="Oldest first.")
    model: Annotated[str, StringConstraints(max_length=256)] | None = Field(
        default=None, description="Absent: the one it serves."
    )
    max_tokens: int | None = Field(default=None, ge=1, le=32768)
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)

    @model_validator(mode="after")
    def _one_input(self) -> ChatCompletionRequest:
        if (self.prompt is None) == (self.messages is None):
            raise ValueError("Give `messages` (the conversation) or `prompt` (one user message), exactly one.")
        return self

    def openai_body(self, served_model: str | None = None) -> dict[str, Any]:
        """The OpenAI request a model server receives: `prompt` as one user message, `served_model` unless the
        request names a model, and the fields the caller left out left to the server's defaults."""
        messages = (
            [message.model_dump() for message in self.messages]
            if self.messages is not None
            else [{"role": "user", "content": self.prompt}]
        )
        options = self.model_dump(include={"max_tokens", "temperature", "top_p"}, exclude_none=True)
        model = self.model or served_model
        return {**({"model": model} if model else {}), "messages": messages, **options}


class ChatAnswer(View):
    role: str = "assistant"
    content: str | None = None


class ChatChoice(View):
    index: int = 0
    message: ChatAnswer
    finish_reason: str | None = None


class ChatCompletion(View):
    """An OpenAI chat completion as the model answered it; the answer is `choices[0].message.content`."""

    id: str | None = None
    object: str = "chat.completion"
    created: int | None = None
    model: str | None = None
    choices: list[ChatChoice] = Field(min_length=1)
    usage: dict[str, Any] | None = None
