"""Prime Intellect ``verifiers`` environments, scored by their own parser and rubric.

Two APIs are read:

- **classic** (verifiers 0.1.x to 0.3.x; ``verifiers.legacy`` in 0.3.x, still
  ``import verifiers as vf``): an environment (``vf.SingleTurnEnv(dataset=...,
  parser=..., rubric=..., system_prompt=...)``, usually built by a module's
  ``load_environment(**env_args)``) whose ``vf.Rubric(funcs=[...], weights=[...])`` scores
  a rollout. Each candidate becomes the rollout the environment would have made: its
  prompt (the env's own formatting of the question: system prompt, few-shot, user turn,
  or the dataset row's own ``prompt`` when the task came from the env's dataset), the
  completion as one assistant message (chat) or the plain string (completion envs),
  ``answer`` = the task's reference, ``info`` and ``task`` from the task's metadata. The
  state is made by the environment's own ``init_state`` (0.1.9+; no model client is ever
  called) and the rubric's own ``score_rollout`` gives the weighted sum (``score_group``
  on a group of one when the rubric has group-level functions). Three signatures of
  ``score_rollout`` exist across versions: ``(prompt, completion, answer, state, task,
  info)`` returning the score (<= 0.1.8), ``(state, score_sem)`` (0.1.9) and ``(state)``
  (0.1.10+); all three are called as they are.
- **v1** (``verifiers.v1``, 0.3.x and 0.4.x): a ``Taskset`` whose ``Task`` has
  ``@vf.reward(weight=...)`` methods (or an ``Env`` holding one). The completion is one
  sampled assistant turn of a ``Trace`` after the task's prompt, scored offline by
  ``Task.score(trace)`` -- what ``vf-replay`` does -- and ``trace.reward`` is the weighted
  sum. Rewards that need a runtime (a sandbox) are skipped there, as in a replay; a task
  all of whose rewards need one is an error.

A rubric of two or more reward functions (weight != 0; weight-0 functions are metrics,
which training does not pay) lists each as a part, audited alone as ``name[func]``; a part
is called the way the rubric calls it (``_call_individual_reward_func``, ``call_reward_func``
in old versions; ``invoke`` for v1) and its raw, unweighted score is what is audited.

A rubric catches a reward function's exception and scores it 0.0 (what training pays);
``--verifier-option errors=raise`` makes such a call an error verdict instead. Options:
``env.KEY=VALUE`` is passed to ``load_environment`` (VALUE read as JSON when it parses:
``env.num_examples=50``, ``env.use_think=false``, else as a string);
``message_type=chat|completion`` overrides the env's; ``answer_field=NAME`` is the v1 task
data field the reference goes in (default: the first of answer, reference, solution,
ground_truth, gold, target that the data type has).

Detection imports nothing and calls nothing: an object whose class comes from
``verifiers`` (an environment, a rubric, a v1 taskset or env), anything with a ``rubric``
and a ``parser`` whose rubric has ``score_rollout``, or a function named
``load_environment`` (the verifiers convention). Another function that returns an
environment needs ``--style verifiers``; it is called with the ``env.*`` options, like
``load_environment``, in the worker (and once in the interpreter that lists the parts).

``load_env_tasks`` / ``env_suite`` read an environment's own dataset as a suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import itertools
import json
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import InputError, VerifierLoadError
from ..models import Task
from ._registry import missing_extra

REFERENCE_FIELDS = ("answer", "reference", "solution", "ground_truth", "gold", "target")
_LOADER_NAMES = ("load_environment",)
#: metadata keys a task read from an environment's dataset carries (``load_env_tasks``)
PROMPT_KEY = "vf_prompt"  # the row's formatted prompt (messages or a string)
COLUMNS_KEY = "vf_columns"  # the row's other columns, passed to reward functions as the env would
DATA_KEY = "vf_task_data"  # a v1 task's data, as the taskset built it
_ROW_FIELDS = {"prompt", "question", "answer", "info", "task", "example_id", "id"}


# ---------------------------------------------------------------------------- detection


def _class_paths(obj: Any) -> list[str]:
    cls = obj if isinstance(obj, type) else type(obj)
    return [f"{c.__module__}.{c.__qualname__}" for c in getattr(cls, "__mro__", ())]


def _from_verifiers(obj: Any, *names: str) -> bool:
    return any(p.startswith("verifiers.") and p.rsplit(".", 1)[-1] in names for p in _class_paths(obj))


def _kind(target: Any) -> str | None:
    """What the target is: ``env`` / ``rubric`` (classic), ``taskset`` / ``v1env`` /
    ``taskset_class`` (v1), ``loader`` (a function to call), or None."""
    if isinstance(target, type):
        return "taskset_class" if _from_verifiers(target, "Taskset") else None
    if _from_verifiers(target, "Taskset"):
        return "taskset"
    if _from_verifiers(target, "Env") and hasattr(target, "taskset"):
        return "v1env"
    if _from_verifiers(target, "Environment") or (
        _safe_has(target, "rubric")
        and _safe_has(target, "parser")
        and _safe_has(getattr(target, "rubric", None), "score_rollout")
    ):
        return "env"
    if _from_verifiers(target, "Rubric") and _safe_has(target, "score_rollout"):
        return "rubric"
    if inspect.isfunction(target) or inspect.ismethod(target):
        return "loader"
    return None


def _safe_has(obj: Any, name: str) -> bool:
    try:
        return obj is not None and not isinstance(obj, type) and hasattr(obj, name)
    except Exception:  # noqa: BLE001 - a property that raises is not ours to judge
        return False


def detect(target: Any) -> bool:
    kind = _kind(target)
    if kind == "loader":
        return getattr(target, "__name__", "") in _LOADER_NAMES
    return kind is not None


# ---------------------------------------------------------------------------- loading


def _import_verifiers():
    try:
        import verifiers
    except ImportError as exc:
        raise missing_extra("verifiers", "verifiers", exc) from exc
    return verifiers


def env_args(options: dict[str, str]) -> dict[str, Any]:
    """``{"env.num_examples": "50"}`` -> ``{"num_examples": 50}`` (JSON when it parses)."""
    args = {}
    for key, raw in options.items():
        if not key.startswith("env.") or not key[4:]:
            continue
        try:
            args[key[4:]] = json.loads(raw)
        except ValueError:
            args[key[4:]] = raw
    return args


OPTIONS = {"message_type": ("chat", "completion"), "errors": ("score", "raise"), "answer_field": None}


def check_options(options: dict[str, str]) -> None:
    for key, value in options.items():
        if key.startswith("env.") and key[4:]:
            continue
        if key not in OPTIONS:
            raise VerifierLoadError(
                f"--verifier-option {key}={value}: the verifiers style takes env.KEY=VALUE "
                f"(load_environment's arguments), {', '.join(OPTIONS)}"
            )
        allowed = OPTIONS[key]
        if allowed is not None and value not in allowed:
            raise VerifierLoadError(f"--verifier-option {key}={value}: expected {' or '.join(allowed)}")


def build(target: Any, options: dict[str, str] | None = None) -> tuple[str, Any]:
    """The environment the target names, built: (kind, object) with kind ``classic``
    (an env or a bare rubric) or ``v1`` (a taskset)."""
    options = options or {}
    check_options(options)
    _import_verifiers()
    kind = _kind(target)
    if env_args(options) and kind not in ("loader", None):
        raise VerifierLoadError(
            f"--verifier-option {', '.join('env.' + k for k in env_args(options))}: env.* options "
            f"are load_environment's arguments, and the spec names a built {type(target).__name__}"
        )
    if kind in ("loader", None) and callable(target) and not isinstance(target, type):
        name = getattr(target, "__name__", type(target).__name__)
        try:
            built = target(**env_args(options))
        except TypeError as exc:
            raise VerifierLoadError(
                f"{name}({', '.join(env_args(options))}): {exc}; pass its arguments as --verifier-option env.KEY=VALUE"
            ) from exc
        if inspect.isawaitable(built):
            built = _run(_wait(built))
        target, kind = built, _kind(built)
        if kind == "loader":
            kind = None
    if kind in ("env", "rubric"):
        return "classic", target
    if kind in ("v1env", "taskset", "taskset_class"):
        if kind == "v1env":
            taskset = target.taskset
        else:
            taskset = _instantiate_taskset(target) if kind == "taskset_class" else target
        if not callable(getattr(type(taskset), "task_type", None)):
            raise VerifierLoadError(
                f"verifiers {getattr(_import_verifiers(), '__version__', '?')}: its verifiers.v1 "
                "is a pre-release API; v1 tasksets are read from verifiers 0.3.0 on"
            )
        return "v1", taskset
    raise VerifierLoadError(
        f"{type(target).__name__} {target!r:.60} is not a verifiers environment: expected a vf.Environment "
        "(with .rubric and .parser), a vf.Rubric, a verifiers.v1 Taskset or Env, or a function returning one"
    )


def _instantiate_taskset(cls: type) -> Any:
    from verifiers.v1.configs.taskset import TasksetConfig
    from verifiers.v1.taskset import Taskset
    from verifiers.v1.utils.generic import concrete_type

    config_cls = concrete_type(cls, TasksetConfig, origin=Taskset) or TasksetConfig
    return cls(config_cls())


async def _wait(awaitable):
    return await awaitable


_LOOPS = threading.local()


def _run(coro):
    """Run a coroutine to its end on this thread's own event loop, kept across calls: a
    rubric may hold asyncio objects (a semaphore, a client) bound to the first loop that
    used them, as in training, where one loop serves every rollout. Worker threads (the
    thread-safety probe) get a loop each."""
    loop = getattr(_LOOPS, "loop", None)
    if loop is None or loop.is_closed() or _LOOPS.pid != os.getpid():  # never a loop from before a fork
        loop, _LOOPS.pid = asyncio.new_event_loop(), os.getpid()
        _LOOPS.loop = loop
    return loop.run_until_complete(coro)


@contextlib.contextmanager
def _keep_signal_handlers():
    """A classic environment installs SIGINT/SIGTERM handlers (its teardown) when built;
    the worker's signals belong to the audit's pool, so they are put back."""
    saved = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            saved[sig] = signal.getsignal(sig)
        except (ValueError, OSError):
            pass
    try:
        yield
    finally:
        for sig, handler in saved.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                if handler is not None:
                    signal.signal(sig, handler)


# ---------------------------------------------------------------------------- parts


def _rubric_members(rubric: Any) -> list[tuple[Any, Callable, float]]:
    """(owning rubric, function, weight) for every reward function, RubricGroups flattened."""
    subs = getattr(rubric, "rubrics", None)
    if isinstance(subs, (list, tuple)):
        return [m for sub in subs for m in _rubric_members(sub)]
    funcs = getattr(rubric, "funcs", None)
    weights = getattr(rubric, "weights", None)
    if funcs is None:  # <= 0.1.8
        funcs = getattr(rubric, "reward_funcs", None) or []
        weights = getattr(rubric, "reward_weights", None)
    funcs = list(funcs)
    weights = list(weights) if weights else [1.0] * len(funcs)
    return [(rubric, fn, float(w)) for fn, w in zip(funcs, weights)]


def _func_name(fn: Callable) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _named(members: list[tuple[Any, Callable, float]]) -> dict[str, tuple[Any, Callable, float]]:
    out, seen = {}, {}
    for owner, fn, weight in members:
        base = _func_name(fn)
        seen[base] = seen.get(base, 0) + 1
        out[base if seen[base] == 1 else f"{base}#{seen[base]}"] = (owner, fn, weight)
    return out


def _v1_hooks(taskset: Any) -> dict[str, Callable]:
    """The v1 task type's reward functions, by name (from the class: no task data needed)."""
    task_cls = type(taskset).task_type()
    probe = object.__new__(task_cls)
    probe.config = taskset.config.task
    return {fn.__name__: fn for fn in probe.hooks("reward")}


def parts(target: Any, options: dict[str, str]) -> list[str]:
    with _keep_signal_handlers():
        kind, built = build(target, options)
    if kind == "classic":
        rubric = built if _kind(built) == "rubric" else built.rubric
        names = [n for n, (_, _, w) in _named(_rubric_members(rubric)).items() if w != 0]
    else:
        names = list(_v1_hooks(built))
    return names if len(names) > 1 else []


# ---------------------------------------------------------------------------- callers


def make_caller(target: Any, spec: Any) -> Callable[[str, Task], Any]:
    options = spec.opts
    with _keep_signal_handlers():
        kind, built = build(target, options)
    if kind == "classic":
        return _ClassicCaller(built, options, spec.part)
    return _V1Caller(built, options, spec.part)


class _RewardErrors(logging.Handler):
    """Catches the 'Error calling reward function ...' records a rubric logs when it
    scores a raising function 0 (``errors=raise``)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


class _ClassicCaller:
    def __init__(self, env: Any, options: dict[str, str], part: str | None):
        vf = _import_verifiers()
        if _kind(env) == "rubric":
            self.env, self.rubric = None, env
        else:
            self.env, self.rubric = env, env.rubric
        self.message_type = options.get("message_type") or getattr(self.env, "message_type", None) or "chat"
        self.raise_errors = options.get("errors", "score") == "raise"
        members = _named(_rubric_members(self.rubric))
        self.part = None
        if part is not None:
            if part not in members:
                raise VerifierLoadError(f"no reward function {part!r} in the rubric; there are {', '.join(members)}")
            self.part = members[part]
        self.loggers = [
            r.logger
            for r in {id(o): o for o, _, _ in _rubric_members(self.rubric)}.values()
            if isinstance(getattr(r, "logger", None), logging.Logger)
        ]
        if isinstance(getattr(self.rubric, "logger", None), logging.Logger):
            self.loggers.append(self.rubric.logger)
        score = self.rubric.score_rollout
        self.legacy_call = "prompt" in _params(score)  # <= 0.1.8: score_rollout(prompt, completion, ...)
        self.client = None if self.legacy_call else _no_model_client(vf)
        self.prompts: dict[str, Any] = {}

    # -- the rollout's pieces
    def prompt(self, task: Task) -> Any:
        if task.id not in self.prompts:
            given = task.metadata.get(PROMPT_KEY)
            if given is not None and (isinstance(given, str) or self.message_type == "chat"):
                self.prompts[task.id] = given
            elif self.message_type == "completion":
                self.prompts[task.id] = task.prompt
            else:
                system = getattr(self.env, "system_prompt", None)
                few_shot = getattr(self.env, "few_shot", None)
                fmt = getattr(self.env, "format_prompt", None)
                if callable(fmt) and {"system_prompt", "few_shot"} <= set(_params(fmt)):  # <= 0.1.x
                    self.prompts[task.id] = fmt(task.prompt, system, few_shot)
                else:  # what Environment._ensure_prompt writes into the dataset's prompt column
                    messages = [{"role": "system", "content": system}] if system else []
                    messages += list(few_shot or [])
                    messages.append({"role": "user", "content": task.prompt})
                    self.prompts[task.id] = messages
        return json.loads(json.dumps(self.prompts[task.id]))  # a fresh copy per rollout

    def completion(self, text: str) -> Any:
        return text if self.message_type == "completion" else [{"role": "assistant", "content": text}]

    def rollout_input(self, text: str, task: Task) -> dict[str, Any]:
        row = dict(task.metadata.get(COLUMNS_KEY) or {})
        info = task.metadata.get("info", {})
        if isinstance(info, str):
            with contextlib.suppress(ValueError):
                info = json.loads(info)
        row.update(
            prompt=self.prompt(task),
            answer=task.reference,
            info=info if info is not None else {},
            example_id=task.metadata.get("example_id", 0),
        )
        if "task" in task.metadata:
            row["task"] = task.metadata["task"]
        return row

    # -- scoring
    def __call__(self, text: str, task: Task) -> float:
        handler = _RewardErrors()
        if self.raise_errors:
            for lg in self.loggers:
                lg.addHandler(handler)
        try:
            value = _run(self._score(text, task))
        finally:
            for lg in self.loggers:
                lg.removeHandler(handler)
        if handler.messages:
            raise RuntimeError(handler.messages[0][:400])
        return value

    async def _score(self, text: str, task: Task) -> float:
        row = self.rollout_input(text, task)
        completion = self.completion(text)
        if self.legacy_call:
            return await self._score_legacy(row, completion)
        state = await self._state(row, completion)
        sem = _Unbounded()
        if self.part is not None:
            owner, fn, _ = self.part
            if _is_group_func(owner, fn):
                out = await _call(owner._call_group_reward_func, fn, [state], score_sem=sem)
                return out[0]
            return await _call(owner._call_individual_reward_func, fn, state, score_sem=sem)
        if getattr(self.rubric, "has_group_rewards", False) or _group_funcs(self.rubric):
            await _call(self.rubric.score_group, [state], score_sem=sem)
        else:
            await _call(self.rubric.score_rollout, state, score_sem=sem)
        return state["reward"]

    async def _state(self, row: dict, completion: Any) -> Any:
        """The state the env's rollout would leave: its own ``init_state``, then the
        completion as one turn of the trajectory."""
        if self.env is not None and hasattr(self.env, "init_state"):
            state = await self.env.init_state(row, self.client, "verifier-audit")
        else:  # a bare rubric: the fields init_state sets that scoring reads
            vf = _import_verifiers()
            state = vf.State(input=row) if isinstance(getattr(vf, "State", None), type) else dict(row)
            state.update(trajectory=[], reward=None, metrics=None)
            state.setdefault("prompt", row["prompt"])
            state.setdefault("task", row.get("task", "default"))
        completion = _normalize_messages(completion)
        prompt = state.get("prompt")
        state["completion"] = completion
        state["is_completed"] = True
        if isinstance(state.get("trajectory"), list):
            state["trajectory"].append(
                {
                    "prompt": prompt,
                    "completion": completion,
                    "response": None,
                    "tokens": None,
                    "reward": None,
                    "advantage": None,
                    "is_truncated": False,
                    "trajectory_id": state.get("trajectory_id"),
                    "extras": {},
                }
            )
        return state

    async def _score_legacy(self, row: dict, completion: Any) -> float:
        """<= 0.1.8: the rubric is handed the pieces, and returns the score."""
        state = {
            "prompt": row["prompt"],
            "completion": completion,
            "answer": row["answer"],
            "task": row.get("task", "default"),
            "info": row["info"],
            "responses": [],
            "turn": 1,
            "timing": {"generation_ms": 0.0, "scoring_ms": 0.0, "total_ms": 0.0},
        }
        args = dict(
            prompt=row["prompt"],
            completion=completion,
            answer=row["answer"],
            state=state,
            task=row.get("task", "default"),
            info=row["info"],
        )
        if self.part is not None:
            owner, fn, _ = self.part
            return await owner.call_reward_func(fn, **args)
        out = await self.rubric.score_rollout(**args)
        return out["reward"] if isinstance(out, dict) else out.reward


class _Unbounded:
    """The ``score_sem`` 0.1.9's rubric takes: no bound (one rollout at a time here)."""

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False


def _params(fn: Callable) -> dict:
    try:
        return dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return {}


async def _call(method: Callable, *args, score_sem=None):
    """``method(*args)``, adding ``score_sem`` where the version's signature has it."""
    kwargs = {"score_sem": score_sem} if "score_sem" in _params(method) else {}
    return await method(*args, **kwargs)


def _is_group_func(owner: Any, fn: Callable) -> bool:
    check = getattr(owner, "_is_group_func", None)
    return bool(check(fn)) if callable(check) else False


def _group_funcs(rubric: Any) -> list:
    get = getattr(rubric, "_get_group_reward_funcs", None)
    try:
        return list(get()) if callable(get) else []
    except Exception:  # noqa: BLE001
        return []


def _normalize_messages(messages: Any) -> Any:
    """Messages as a rollout stores them: the framework's pydantic messages (0.1.10+), else as given."""
    if isinstance(messages, str):
        return messages
    try:
        from verifiers.utils.message_utils import normalize_messages
    except ImportError:
        return messages
    return normalize_messages(messages, field_name="completion")


def _no_model_client(vf: Any) -> Any:
    """A model client for ``init_state`` (0.1.10+ resolves it): the audit scores given
    completions, so any use of it is an error."""
    try:
        from verifiers.clients import Client
    except ImportError:
        return None
    if not isinstance(Client, type) or not inspect.isabstract(Client):
        return None

    def refuse(*args, **kwargs):
        raise RuntimeError("verifier-audit scores given completions: the environment's model client is not available")

    async def arefuse(*args, **kwargs):
        refuse()

    body = {
        name: (arefuse if inspect.iscoroutinefunction(getattr(Client, name)) else refuse)
        for name in getattr(Client, "__abstractmethods__", ())
    }
    no_model = type("NoModelClient", (Client,), body)
    try:
        return no_model(None)
    except Exception:  # noqa: BLE001 - a client constructor of another version: init_state may still take None
        return None


def _first_system_prompt(taskset: Any) -> str | None:
    """The system prompt the taskset's first task carries (a task of another suite gets the
    taskset's, as the question of one of its own rows would)."""
    try:
        first = next(iter(taskset), None)
    except Exception:  # noqa: BLE001 - loading the rows is the taskset's business; none then
        return None
    return getattr(getattr(first, "data", None), "system_prompt", None)


class _V1Caller:
    def __init__(self, taskset: Any, options: dict[str, str], part: str | None):
        from verifiers.v1.state import state_cls

        self.taskset = taskset
        self.task_cls = type(taskset).task_type()
        self.data_cls = self.task_cls.data_type()
        self.config = taskset.config.task
        self.state_cls = state_cls(self.task_cls)
        fields = set(getattr(self.data_cls, "model_fields", {}))
        wanted = options.get("answer_field")
        if wanted is not None and wanted not in fields:
            raise VerifierLoadError(
                f"--verifier-option answer_field={wanted}: {self.data_cls.__name__} has no such "
                f"field; it has {', '.join(sorted(fields))}"
            )
        self.answer_field = wanted or next((f for f in REFERENCE_FIELDS if f in fields), None)
        self.fields = fields
        self.part = None
        if part is not None:
            hooks = _v1_hooks(taskset)
            if part not in hooks:
                raise VerifierLoadError(f"no reward {part!r} on {self.task_cls.__name__}; there are {', '.join(hooks)}")
            self.part = part
        self.system_prompt = getattr(taskset, "system_prompt", None) or _first_system_prompt(taskset)

    def task(self, task: Task) -> Any:
        given = task.metadata.get(DATA_KEY)
        if given is not None:
            data = self.data_cls.model_validate(given)
        else:
            values = {k: v for k, v in task.metadata.items() if k in self.fields}
            values["prompt"] = task.prompt
            if self.answer_field is not None:
                values[self.answer_field] = task.reference
            if self.system_prompt is not None:
                values["system_prompt"] = self.system_prompt
            if "id" in self.fields:
                values.setdefault("id", task.id)
            data = self.data_cls.model_validate(values)
        return self.task_cls(data, self.config)

    def trace(self, text: str, vtask: Any) -> Any:
        import verifiers.v1 as v1
        from verifiers.v1.graph import MessageNode
        from verifiers.v1.trace import Trace, TraceTask

        data = vtask.data
        messages: list = []
        if data.system_prompt:
            messages.append(v1.SystemMessage(content=data.system_prompt))
        if isinstance(data.prompt, str):
            messages.append(v1.UserMessage(content=data.prompt))
        elif data.prompt:
            messages.extend(data.prompt)
        trace = Trace(
            task=TraceTask(type=type(vtask).__name__, data=data, key=vtask.key, hash=vtask.hash),
            state=self.state_cls(),
            agent=v1.AgentInfo(config=v1.AgentConfig(), name="verifier-audit"),
        )
        for i, message in enumerate(messages):
            trace.nodes.append(MessageNode(parent=i - 1 if i else None, message=message))
        trace.nodes.append(
            MessageNode(
                parent=len(messages) - 1 if messages else None, message=v1.AssistantMessage(content=text), sampled=True
            )
        )
        trace.is_completed, trace.ok, trace.stop_condition = True, True, "verifier-audit"
        return trace

    def __call__(self, text: str, task: Task) -> float:
        vtask = self.task(task)
        trace = self.trace(text, vtask)
        if self.part is not None:
            return _run(self._one(vtask, trace))
        _run(vtask.score(trace))
        scored = {k: r for k, r in trace.rewards.items() if r is not None}
        if not scored:
            raise TypeError(
                f"{type(vtask).__name__}: no reward could be computed offline (every reward needs a "
                "runtime, or there is none)"
            )
        return trace.reward

    async def _one(self, vtask: Any, trace: Any) -> float:
        from verifiers.v1.utils.decorators import invoke

        fn = {f.__name__: f for f in vtask.hooks("reward")}[self.part]
        runtime = _params(fn).get("runtime")
        if runtime is not None and runtime.default is inspect.Parameter.empty:
            raise TypeError(f"reward {self.part!r} needs a runtime (a sandbox), which an offline audit does not have")
        out = invoke(fn, {"task": vtask.data, "trace": trace})
        if inspect.isawaitable(out):
            out = await out
        if isinstance(out, dict):
            raise TypeError(f"reward {self.part!r} returns keyed scores ({', '.join(out)}); audit the whole reward")
        return float(out)


# ---------------------------------------------------------------------------- suites


def _target_of(spec_or_env_id: str, options: dict[str, str]) -> Any:
    if ":" in spec_or_env_id:
        from ..loading import load_function

        return load_function(spec_or_env_id)
    vf = _import_verifiers()
    loader = getattr(vf, "load_environment", None)
    try:
        if callable(loader):
            return loader(spec_or_env_id, **env_args(options))
        import verifiers.v1 as v1  # 0.4.x: an installed taskset id

        return v1.load_taskset(v1.TasksetConfig(id=spec_or_env_id))
    except Exception as exc:  # noqa: BLE001 - the environment's import is user code
        raise InputError(
            f"suite verifiers:{spec_or_env_id}: cannot load environment {spec_or_env_id!r} "
            f"({type(exc).__name__}: {exc}); name a file or module: path/to/env.py:load_environment"
        ) from exc


def load_env_tasks(
    spec_or_env_id: str,
    *,
    limit: int | None = None,
    domain: str = "math",
    options: dict[str, str] | None = None,
    dataset: str = "train",
) -> list[Task]:
    """An environment's own dataset as tasks: ``path/env.py:load_environment``,
    ``module:load_environment`` (or any object the style reads), or an installed
    environment id (``vf.load_environment(id)``; a v1 taskset id on 0.4). ``options``
    are the style's (``env.KEY=VALUE`` for ``load_environment``); ``dataset`` is
    ``train`` (falls back to eval) or ``eval``. A row's ``question`` is the prompt (else
    the last user turn of its ``prompt``), its ``answer`` the reference; the row's
    ``info``, ``task``, formatted ``prompt`` and other columns ride in the metadata, so
    the rubric is shown the row as the environment would show it."""
    options = dict(options or {})
    target = _target_of(spec_or_env_id, options)
    try:
        with _keep_signal_handlers():
            kind, built = build(target, options)
    except VerifierLoadError as exc:
        raise InputError(f"suite verifiers:{spec_or_env_id}: {exc}") from exc
    name = _suite_name(spec_or_env_id)
    if kind == "v1":
        tasks = _v1_tasks(built, name, domain, limit)
    else:
        tasks = _classic_tasks(built, name, domain, limit, dataset)
    if not tasks:
        raise InputError(f"suite verifiers:{spec_or_env_id}: the environment's dataset has no rows")
    return tasks


def _suite_name(spec: str) -> str:
    target = spec.rpartition(":")[0]
    return Path(target).stem if target else spec.replace("/", "-")


def _classic_tasks(env: Any, name: str, domain: str, limit: int | None, which: str) -> list[Task]:
    if _kind(env) == "rubric":
        raise InputError("a bare rubric has no dataset: name the environment (its load_environment)")
    data = None
    getters = ("get_dataset", "get_eval_dataset") if which == "train" else ("get_eval_dataset", "get_dataset")
    for getter in getters:
        get = getattr(env, getter, None)
        if get is None:
            continue
        try:
            data = get(n=limit or -1)
        except ValueError:  # "dataset is not set"
            data = None
        if data is not None:
            break
    if data is None:
        data = getattr(env, "dataset", None) or getattr(env, "eval_dataset", None)
    if data is None:
        raise InputError(f"environment {type(env).__name__} has no dataset")
    split = "heldout" if which == "eval" else "train"
    tasks, seen = [], set()
    for index, row in enumerate(_rows(data, limit)):
        row = dict(row)
        if row.get("answer") is None:
            raise InputError(f"environment {name}: row {index} has no 'answer' (the reference an audit needs)")
        ident = f"{name}-{row.get('example_id', row.get('id', index))}"
        if ident in seen:
            ident = f"{name}-{index}"
        seen.add(ident)
        metadata: dict[str, Any] = {"example_id": row.get("example_id", index)}
        info = row.get("info")
        if isinstance(info, str):
            with contextlib.suppress(ValueError):
                info = json.loads(info)
        if info is not None:
            metadata["info"] = _plain(info)
        if row.get("task") is not None:
            metadata["task"] = _plain(row["task"])
        if row.get("prompt") is not None:
            metadata[PROMPT_KEY] = _plain(row["prompt"])
        extra = {k: _plain(v) for k, v in row.items() if k not in _ROW_FIELDS}
        if extra:
            metadata[COLUMNS_KEY] = extra
        tasks.append(
            Task(
                id=ident,
                domain=domain,
                prompt=_question(row),
                reference=str(row["answer"]),
                split=split,
                metadata=metadata,
            )
        )
    return tasks


def _rows(data: Any, limit: int | None) -> Iterable[dict]:
    for index, row in enumerate(data):
        if limit is not None and index >= limit:
            return
        yield row


def _question(row: dict) -> str:
    if isinstance(row.get("question"), str):
        return row["question"]
    prompt = row.get("prompt")
    if isinstance(prompt, str):
        return prompt
    for message in reversed(prompt or []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def _plain(value: Any) -> Any:
    """JSON-able data (a dataset row's values; a message dict's None fields dropped)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump(mode="json", exclude_none=True))
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _v1_tasks(taskset: Any, name: str, domain: str, limit: int | None) -> list[Task]:
    if limit is None and getattr(taskset, "INFINITE", False):
        raise InputError(f"taskset {type(taskset).__name__} is infinite: give a limit")
    tasks, seen = [], set()
    for position, vtask in enumerate(itertools.islice(iter(taskset), limit)):
        data = vtask.data
        index = data.idx if getattr(data, "idx", None) is not None else position
        dumped = data.model_dump(mode="json", exclude_none=True)
        reference = next((dumped[f] for f in REFERENCE_FIELDS if dumped.get(f) is not None), None)
        if reference is None:
            raise InputError(
                f"taskset {name}: task {index} has none of the fields {', '.join(REFERENCE_FIELDS)} "
                "(the reference an audit needs)"
            )
        ident = f"{name}-{data.id if getattr(data, 'id', None) is not None else index}"
        if ident in seen:
            ident = f"{name}-{index}"
        seen.add(ident)
        tasks.append(
            Task(
                id=ident, domain=domain, prompt=data.prompt_text, reference=str(reference), metadata={DATA_KEY: dumped}
            )
        )
    return tasks


# The suite scheme of an environment's own dataset: --suite verifiers:path/env.py:load_environment
PREFIX = "verifiers:"


def env_suite(
    spec_or_env_id: str,
    *,
    limit: int | None = None,
    domain: str = "math",
    options: dict[str, str] | None = None,
    dataset: str = "train",
):
    """``load_env_tasks`` as a ``suites.Suite`` (``--suite verifiers:SPEC``): named
    ``verifiers:SPEC``, its content hash that of the tasks themselves (the dataset an
    environment builds is code, not a file to hash)."""
    from ..domains.base import Suite

    tasks = load_env_tasks(spec_or_env_id, limit=limit, domain=domain, options=options, dataset=dataset)
    digest = hashlib.sha256("\n".join(t.model_dump_json() for t in tasks).encode()).hexdigest()[:16]
    target = spec_or_env_id.rpartition(":")[0]
    path = Path(target) if target else Path(spec_or_env_id)
    return Suite(name=f"verifiers:{spec_or_env_id}", path=path, tasks=tasks, content_hash=digest)


def scheme_suite(spec: str, *, fields: list[str] | None = None, fmt: str | None = "jsonl", domain: str | None = None):
    """``--suite verifiers:SPEC`` (registered in ``_registry.SUITE_SCHEMES``): the
    environment's own dataset, in the math domain unless ``--domain`` says otherwise."""
    return env_suite(spec[len(PREFIX) :], domain=domain or "math")
