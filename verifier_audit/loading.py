"""Load the verifier under audit and adapt its call style to one form: (text, task) -> score.

A verifier is named ``package.module:function`` or ``path/to/file.py:function``. Its call
style is read from its signature (or forced): see ``STYLES`` and README "Call styles".
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from .errors import VerifierLoadError
from .frameworks import STYLES, get_style
from .frameworks._binding import read as read_signature
from .frameworks._binding import valid_reads
from .models import Task
from .report.text import article

# Re-exported: callers of a verifier have long found the score's reading here.
from .scores import (  # noqa: F401
    DISGUISED,
    OUT_OF_RANGE,
    Score,
    ScoreError,
    ScoreOutOfRange,
    non_finite,
    read_score,
    to_score,
)


@dataclass(frozen=True)
class VerifierSpec:
    spec: str  # "module:function", "path/file.py:function", a URL (remote styles), "reasoning-gym"
    name: str  # short display name (the function's name unless given)
    style: str
    #: the function itself when given as an object (Python API); workers inherit it by fork
    function: Callable | None = field(default=None, compare=False, repr=False)
    #: the style's settings (``--verifier-option KEY=VALUE``): sorted (key, value) pairs
    options: tuple[tuple[str, str], ...] = ()
    #: one member of a composite reward (a TRL reward function, a rubric's function) audited
    #: alone; None: the whole reward as training combines it
    part: str | None = None
    #: the members a composite reward has (each audited alone beside the whole; see ``with_parts``)
    parts: tuple[str, ...] = ()
    #: the environment variables passed to its workers beyond the allow-list (``--pass-env``)
    pass_env: tuple[str, ...] = ()
    #: the signatures of the functions its style calls, as the inspection read them
    #: (``frameworks/_binding.read``), for the call-boundary check; () where not checked
    calls: tuple[dict, ...] = field(default=(), compare=False, repr=False)
    #: how its style was picked ("given with --style ...", "picked by its parameter name ...")
    picked: str = field(default="", compare=False, repr=False)

    @property
    def env_names(self) -> tuple[str, ...]:
        """What its workers get of the audit's environment beyond the allow-list
        (environment.py): the ``--pass-env`` names, those its style's options name (a
        judge's ``api_key_env``), and, for a remote style, the proxy variables."""
        from .environment import PROXY
        from .frameworks._client import env_names

        return tuple(dict.fromkeys([*self.pass_env, *env_names(self.opts), *(PROXY if self.remote else ())]))

    @property
    def opts(self) -> dict[str, str]:
        return dict(self.options)

    @property
    def remote(self) -> bool:
        return get_style(self.style).remote if self.style in STYLES else False

    @property
    def judged(self) -> bool:
        """Whether its style says a model may give its verdicts (``Style.judged``)."""
        return get_style(self.style).judged if self.style in STYLES else False

    def load(self) -> Any:
        """What the spec names, imported in this process (None for remote and built-in styles)."""
        if self.function is not None:
            return self.function
        if self.remote or ":" not in self.spec:
            return None
        return load_function(self.spec)


def _import_target(spec: str) -> tuple[Any, str]:
    if ":" not in spec:
        raise VerifierLoadError(
            f"verifier {spec!r}: expected 'package.module:function' or 'path/to/file.py:function' "
            "(the part after ':' names the function)"
        )
    target, _, attr = spec.rpartition(":")
    if not target or not attr:
        raise VerifierLoadError(f"verifier {spec!r}: both the module and the function name are needed")
    if target.endswith(".py") or os.sep in target or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise VerifierLoadError(f"verifier {spec!r}: no file at {path} (cwd: {os.getcwd()})")
        mod_name = _file_module_name(path)
        if mod_name in sys.modules:
            return sys.modules[mod_name], attr
        file_spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(file_spec)
        # The user's file may import its neighbours, as it would when run as a script.
        sys.path.insert(0, str(path.resolve().parent))
        sys.modules[mod_name] = module
        try:
            file_spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[mod_name]
            raise VerifierLoadError(f"verifier {spec!r}: importing {path} failed: {type(exc).__name__}: {exc}") from exc
        return module, attr
    try:
        module = importlib.import_module(target)
    except Exception as exc:
        raise VerifierLoadError(
            f"verifier {spec!r}: cannot import module {target!r}: {type(exc).__name__}: {exc}. "
            "For a file, write its path: path/to/file.py:function"
        ) from exc
    return module, attr


def _file_module_name(path: Path) -> str:
    """The name a verifier's file is imported under: its stem, as ``import rewards`` next to
    a training script would give it (a name that names the audit is one more sign that it
    is audited, engine/neutral.py), unless that name is another module's -- one loaded,
    the standard library's, or one the import path would find -- then the stem made unique
    by the path's hash."""
    stem, where = path.stem, path.resolve()
    loaded = sys.modules.get(stem)
    if loaded is not None:
        return (
            stem
            if getattr(loaded, "__file__", None) and Path(loaded.__file__).resolve() == where
            else _unique(stem, where)
        )
    if not stem.isidentifier() or stem in sys.stdlib_module_names:
        return _unique(stem, where)
    try:
        found = importlib.util.find_spec(stem)
    except (ImportError, ValueError):
        return _unique(stem, where)
    return stem if found is None or (found.origin and Path(found.origin).resolve() == where) else _unique(stem, where)


def _unique(stem: str, where: Path) -> str:
    return f"{stem}_{abs(hash(str(where)))}"


def load_function(spec: str) -> Any:
    """What ``spec`` names: a function, or an object a framework style reads (a list of TRL
    reward functions, a ``verifiers`` environment, a GRPO config)."""
    module, attr = _import_target(spec)
    fn = module
    for part in attr.split("."):
        if not hasattr(fn, part):
            found = sorted(
                name
                for name, obj in vars(module).items()
                if callable(obj) and not name.startswith("_") and not inspect.ismodule(obj)
            )
            hint = f"callables defined there: {', '.join(found)}" if found else "it defines no public callable"
            raise VerifierLoadError(
                f"verifier {spec!r}: {module.__name__ if not hasattr(module, '__file__') else module.__file__} has no {attr!r}; {hint}"
            )
        fn = getattr(fn, part)
    if inspect.ismodule(fn) or isinstance(fn, (str, bytes, int, float)) or fn is None:
        raise VerifierLoadError(f"verifier {spec!r}: {attr!r} is {article(type(fn).__name__)}, not a function")
    return fn


def detect_style(fn: Any) -> str:
    """Guess the call style: a framework's objects by what they are, functions by their
    parameter names; raise when the guess would be a coin flip."""
    from .frameworks._registry import detecting

    for style in detecting():
        if style.detect(fn):
            return style.name
    if not callable(fn):
        raise VerifierLoadError(
            f"{type(fn).__name__} {fn!r:.60} is not a function, and no framework style reads it: "
            f"pass --style ({', '.join(STYLES)})"
        )
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError) as exc:
        raise VerifierLoadError(f"cannot read the signature of {fn!r}; pass --style ({', '.join(STYLES)})") from exc
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 2:
        second = positional[1]
        if second.name == "task" or second.annotation is Task or second.annotation == "Task":
            return "native"
        return "pair"
    raise VerifierLoadError(
        f"cannot tell the call style of {getattr(fn, '__name__', fn)}{inspect.signature(fn)}: "
        f"pass --style, one of {', '.join(STYLES)} (see README, 'Call styles')"
    )


def parse_options(pairs: list[str] | dict | None) -> tuple[tuple[str, str], ...]:
    """``["weights=1,0.5", "timeout=5"]`` (or a config table) -> sorted (key, value) pairs."""
    if not pairs:
        return ()
    if isinstance(pairs, dict):
        items = [
            (str(k), v if isinstance(v, str) else ",".join(map(str, v)) if isinstance(v, list) else str(v))
            for k, v in pairs.items()
        ]
    else:
        items = []
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise VerifierLoadError(f"--verifier-option {pair!r}: expected KEY=VALUE, e.g. weights=1,0.5")
            items.append((key.strip(), value))
    return tuple(sorted(items))


def prepare_options(style: str, options: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """The options as the style checks and completes them here, in the parent: a typo is a
    load error before the audit, and a file they name (a judge's template) is read here,
    where the user's paths resolve, and travels to the workers as text."""
    prepare = getattr(get_style(style).implementation(), "prepare_options", None)
    return parse_options(prepare(dict(options))) if prepare is not None else options


def with_parts(spec: VerifierSpec) -> list[VerifierSpec]:
    """The whole reward, then each member of a composite one audited alone (``name[part]``)."""
    return [spec] + [replace(spec, name=f"{spec.name}[{p}]", part=p, parts=()) for p in spec.parts]


def resolve(
    spec: str,
    style: str | None = None,
    options: list[str] | dict | None = None,
    *,
    inspect: Inspector | None = None,
    pass_env: tuple[str, ...] = (),
) -> VerifierSpec:
    """Check ``spec`` and fix its style -- without importing the verifier in this process.

    The verifier under audit is not trusted, and import-time code runs with the power of
    the importing process: imported here, it could patch the audit itself (its report, its
    gate); imported in a plain child process, it ran as the audit's user (root, every
    capability, the host's network and processes) and could leave a daemon behind. So the
    signature is read by ``inspect``, which imports the verifier behind the walls of a
    verifier call (``engine/inspection.py``: a worker of the engine's pool, at the audit's
    isolation level); the workers import it again, each for itself. Remote styles (a
    reward server, a judge) import nothing: the spec is the URL."""
    return resolve_many([(spec, style, options)], inspect=inspect, pass_env=pass_env)[0]


#: (groups of requests, one group per module) -> per group, the raw answers (one dict per
#: request, as ``_inspect_one`` makes them) or one error message for the whole group.
Inspector = Callable[[list[list[dict]]], list["list[dict] | str"]]
_INSPECTOR: list[Inspector] = []


def set_inspector(inspect: Inspector) -> None:
    """Name the inspector ``resolve`` uses when none is passed. The package root names the
    engine's confined one (``engine/inspection.py``) on import: this layer may not import
    the engine, and no spec is ever read by anything less confined."""
    _INSPECTOR[:] = [inspect]


def resolve_many(
    requests: list[tuple[str, str | None, list[str] | dict | None]],
    *,
    inspect: Inspector | None = None,
    pass_env: tuple[str, ...] = (),
) -> list[VerifierSpec]:
    """``resolve`` for several (spec, style, options) at once, in order; raises the first
    load error. Specs of one module (or file) are read by one interpreter, which imports it
    once (the default math audit's four reference verifiers: one import of ~1 s instead of
    four); different modules get interpreters of their own, run side by side, so a
    module's import-time code never sees another's. ``pass_env``: the variables their
    workers get beyond the allow-list (``VerifierSpec.pass_env``); the inspecting
    interpreter gets them too (environment.py)."""
    planned = [_plan(*request) for request in requests]
    wanted = {p.key: p for p in planned if isinstance(p, _Planned) and p.key not in _RESOLVED}
    if inspect is None and wanted:
        if not _INSPECTOR:
            raise RuntimeError("no inspector: import verifier_audit (its root names the confined one)")
        inspect = _INSPECTOR[0]
    failed = _inspect_in_groups(list(wanted.values()), inspect, tuple(pass_env))
    out = []
    for p in planned:
        if isinstance(p, VerifierSpec):
            out.append(replace(p, pass_env=tuple(pass_env)))
            continue
        if p.key in failed:
            raise failed[p.key]
        found_style, parts, calls, picked = _RESOLVED[p.key]
        out.append(
            VerifierSpec(
                spec=p.spec,
                name=p.name,
                style=found_style,
                options=p.options,
                parts=tuple(parts),
                pass_env=tuple(pass_env),
                calls=calls,
                picked=picked,
            )
        )
    return out


class _Planned(NamedTuple):
    """A spec to inspect elsewhere; ``key`` is its entry in ``_RESOLVED``."""

    spec: str
    name: str
    style: str | None
    options: tuple[tuple[str, str], ...]
    key: tuple


def _plan(spec: str, style: str | None, options: list[str] | dict | None) -> VerifierSpec | _Planned:
    """A built-in spec resolved at once, or what to inspect elsewhere."""
    if style is not None and style != "auto" and style not in STYLES:
        raise VerifierLoadError(f"--style {style!r}: expected one of {', '.join(STYLES)}")
    opts = parse_options(options)
    builtin = _builtin_spec(spec, style)
    if builtin is not None:
        return VerifierSpec(spec=spec, name=builtin[0], style=builtin[1], options=prepare_options(builtin[1], opts))
    if ":" not in spec:
        _import_target(spec)  # raises the message that says what a spec looks like
    target, _, name = spec.rpartition(":")
    if target.endswith(".py") or "/" in target or os.sep in target:
        if not Path(target).is_file():
            raise VerifierLoadError(f"verifier {spec!r}: no file at {target} (cwd: {os.getcwd()})")
        # Workers run in private directories: a relative path must not depend on the cwd.
        spec = f"{Path(target).resolve()}:{name}"
    key = (spec, style, opts, os.getcwd(), source_hash(VerifierSpec(spec=spec, name=name, style="")))
    return _Planned(spec, name, style, opts, key)


def _builtin_spec(spec: str, style: str | None) -> tuple[str, str] | None:
    """(name, style) for specs that name no Python object: a URL, ``reasoning-gym``."""
    if spec.startswith(("http://", "https://")):
        if style in (None, "auto"):
            raise VerifierLoadError(
                f"verifier {spec!r}: a URL needs --style http (a reward server) or --style judge "
                "(an LLM judge behind an OpenAI-compatible endpoint)"
            )
        if not get_style(style).remote:
            raise VerifierLoadError(
                f"verifier {spec!r}: --style {style} calls Python functions; a URL takes --style http or --style judge"
            )
        from urllib.parse import urlsplit

        parts = urlsplit(spec)
        return f"{style}:{parts.netloc}{parts.path.rstrip('/')}", style
    if style in STYLES and get_style(style).remote:
        raise VerifierLoadError(
            f"verifier {spec!r}: --style {style} takes the server's URL, e.g. http://127.0.0.1:8000/reward"
        )
    if spec == "reasoning-gym":
        if style not in (None, "auto", "reasoning-gym"):
            raise VerifierLoadError("verifier 'reasoning-gym' is scored by its own style; leave --style out")
        return "reasoning-gym", "reasoning-gym"
    return None


_RESOLVED: dict[tuple, tuple[str, list[str], tuple[dict, ...], str]] = {}


def _inspect_in_groups(
    planned: list[_Planned], inspect: Inspector, pass_env: tuple[str, ...] = ()
) -> dict[tuple, VerifierLoadError]:
    """Inspect ``planned`` (from ``_plan``) through ``inspect``, one group per module (a
    module's specs share one import; different modules never share one); fills
    ``_RESOLVED``, returns the load errors by key. Each request names the environment
    variables its inspecting worker gets beyond the allow-list (``env_names``: ``pass_env``
    and what its options name), as its workers will (environment.py)."""
    from .frameworks._client import env_names

    groups: dict[str, list[_Planned]] = {}
    for p in planned:
        groups.setdefault(p.spec.rpartition(":")[0], []).append(p)
    if not groups:
        return {}
    failed: dict[tuple, VerifierLoadError] = {}
    requests = [
        [
            {
                "spec": p.spec,
                "style": p.style,
                "options": list(p.options),
                "env_names": list(dict.fromkeys([*pass_env, *env_names(dict(p.options))])),
            }
            for p in group
        ]
        for group in groups.values()
    ]
    for group, asked, raw in zip(groups.values(), requests, inspect(requests)):
        for p, answer in zip(group, _answers(asked, raw)):
            if isinstance(answer, VerifierLoadError):
                failed[p.key] = answer
            else:
                _RESOLVED[p.key] = answer
    return failed


def _answers(requests: list[dict], raw: list[dict] | str) -> list:
    """The (style, parts, calls, picked) of each request, or its load error, from what the inspecting
    process sent back (checked: it ran the verifier's code) or the group's error message."""
    first = requests[0]["spec"]
    if isinstance(raw, str):
        return [VerifierLoadError(f"verifier {first!r}: {raw}")] * len(requests)
    if (
        not isinstance(raw, list)
        or len(raw) != len(requests)
        or not all(
            isinstance(a, dict)
            and isinstance(a.get("style", ""), str)
            and isinstance(a.get("parts", []), list)
            and all(isinstance(x, str) for x in a.get("parts", []))
            for a in raw
        )
    ):
        error = VerifierLoadError(f"verifier {first!r}: the process that imports it sent no answer per spec")
        return [error] * len(requests)
    return [
        (a["style"], a.get("parts", []), valid_reads(a.get("calls")), str(a.get("picked") or ""))
        if a.get("ok") is True
        else VerifierLoadError(str(a.get("error") or f"verifier {r['spec']!r}: could not be loaded"))
        for r, a in zip(requests, raw)
    ]


def inspect_group(requests: list[dict]) -> list[dict]:
    """In the inspecting process: the answer to each request of one module's group
    ({"spec", "style", "options"}), in order; the module is imported once, by the first."""
    return [_inspect_one(request) for request in requests]


def _inspect_one(request: dict) -> dict:
    try:
        fn = load_function(request["spec"])
        given = request["style"] not in (None, "auto")
        style = request["style"] if given else detect_style(fn)
        options = dict(map(tuple, request["options"]))
        return {
            "ok": True,
            "style": style,
            "parts": style_parts(fn, style, options),
            "calls": style_calls(fn, style, options),
            "picked": picked_by(fn, style, given),
        }
    except VerifierLoadError as exc:
        return {"ok": False, "error": str(exc)}
    except BaseException as exc:  # noqa: BLE001 - anything the import does is the verifier's error
        return {"ok": False, "error": f"verifier {request['spec']!r}: {type(exc).__name__}: {exc}"}


def style_parts(target: Any, style: str, options: dict[str, str]) -> list[str]:
    """The members of a composite reward, as its style reads them ([] for a plain function)."""
    parts = getattr(get_style(style).implementation(), "parts", None)
    return list(parts(target, options)) if parts is not None else []


def style_calls(target: Any, style: str, options: dict[str, str]) -> list[dict]:
    """The signatures of the functions ``style`` calls in ``target`` (the target itself,
    or a style's ``functions``: TRL's reward functions), for the call-boundary check
    (frameworks/_binding.py); [] for a style that declares no ``call_of``."""
    implementation = get_style(style).implementation()
    if getattr(implementation, "call_of", None) is None:
        return []
    functions = getattr(implementation, "functions", None)
    return [r for r in map(read_signature, functions(target, options) if functions else [target]) if r is not None]


def picked_by(target: Any, style: str, given: bool) -> str:
    """How the style was picked, in words, for the messages that name it."""
    if given:
        return "given with --style (or the config's style)"
    reason = getattr(get_style(style).implementation(), "detect_reason", None)
    if reason is not None:
        return reason(target)
    if style == "native":
        return "picked by its signature (its second parameter is task)"
    return "picked by its signature (two positional parameters: completion and reference)"


def source_hash(spec: VerifierSpec) -> str:
    """A hash of the verifier's own source file (not of what it imports), so a results file
    is never resumed across an edit of the verifier. "?" when there is no file to read."""
    import hashlib

    path = None
    target = spec.spec.rpartition(":")[0]
    if spec.function is not None:
        path = inspect.getsourcefile(spec.function) if inspect.isfunction(spec.function) else None
    elif target.endswith(".py") or "/" in target or os.sep in target:
        path = target
    else:
        try:
            found = importlib.util.find_spec(target)
            path = found.origin if found is not None else None
        except (ImportError, ValueError):
            path = None
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()[:16]
    except (OSError, TypeError):
        return "?"


def from_callable(fn: Any, style: str | None = None, options: list[str] | dict | None = None) -> VerifierSpec:
    """A verifier given as a Python object rather than a spec string."""
    given = style not in (None, "auto")
    if not given:
        style = detect_style(fn)
    elif style not in STYLES:
        raise VerifierLoadError(f"style {style!r}: expected one of {', '.join(STYLES)}")
    if not callable(fn) and get_style(style).module == "function":
        raise VerifierLoadError(f"{fn!r} is not callable")
    opts = parse_options(options)
    name = getattr(fn, "__name__", type(fn).__name__)
    return VerifierSpec(
        spec=f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', name)}",
        name=name,
        style=style,
        function=fn,
        options=opts,
        parts=tuple(style_parts(fn, style, dict(opts))),
        calls=tuple(style_calls(fn, style, dict(opts))),
        picked=picked_by(fn, style, given),
    )


def make_caller(target: Any, style: str | VerifierSpec) -> Callable[[str, Task], Any]:
    """One call form for every style; the result still needs ``to_score``."""
    spec = style if isinstance(style, VerifierSpec) else VerifierSpec(spec="?", name="?", style=style)
    return get_style(spec.style).implementation().make_caller(target, spec)
