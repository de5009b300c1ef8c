"""Prompt templates: how a task's prompt becomes the text the model is conditioned on.

- ``plain``: the task prompt as it is, tokenized with the tokenizer's special tokens (a
  BOS token where the tokenizer adds one);
- ``chat``: one user message through the tokenizer's own chat template, with
  ``add_generation_prompt=True`` (the assistant turn opened); its special tokens come from
  the template, so none are added when tokenizing.
"""

from __future__ import annotations

from ..errors import InputError

TEMPLATES = ("plain", "chat")
PLAIN_TEXT = "{prompt}"


def template_text(name: str, tokenizer) -> str:
    """The template itself, for the manifest."""
    if name == "plain":
        return PLAIN_TEXT
    if name == "chat":
        return _chat_template(tokenizer)
    raise InputError(f"--template {name!r}: expected one of {', '.join(TEMPLATES)}")


def _chat_template(tokenizer) -> str:
    template = getattr(tokenizer, "chat_template", None)
    if isinstance(template, dict):  # several named templates: the default one
        template = template.get("default") or next(iter(template.values()), None)
    if not template:
        path = getattr(tokenizer, "name_or_path", "") or "the model"
        raise InputError(
            f"--template chat: the tokenizer of {path} has no chat template "
            "(no chat_template in tokenizer_config.json, no chat_template.jinja); "
            "use --template plain"
        )
    return template


def render(name: str, tokenizer, prompt: str) -> tuple[str, bool]:
    """(text, add_special_tokens): the prompt as the model sees it, and how to tokenize it."""
    if name == "plain":
        return prompt, True
    if name == "chat":
        _chat_template(tokenizer)
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )
        return text, False
    raise InputError(f"--template {name!r}: expected one of {', '.join(TEMPLATES)}")
