"""The environment that code under audit is given, and the secrets masked in what it says.

Why an allow-list: a training job's environment holds its keys (``OPENAI_API_KEY``,
``WANDB_API_KEY``, ``HF_TOKEN``, cloud credentials). Workers used to get a copy of the
audit's whole environment, so a verifier could read any of them and send it back in its
score's error message, which the results file and the report's ``error_messages`` then
kept. Now what runs the verifier -- its workers (``engine/clean_server.CleanStart``, or
``worker_main`` for one forked from the caller) and the interpreter that reads its
signature (``loading._inspect_elsewhere``) -- gets ``ALLOWED`` only: what an interpreter
and a training job need to start and to find their libraries and devices, none of which
is a secret. What a verifier needs beyond that is passed by name: ``--pass-env NAME``
(``pass_env`` in ``[tool.verifier_audit]``), and the variables a remote style's options
name (``api_key_env``, ``header_env.*``: ``frameworks/_client.env_names``) pass by
themselves. The code sandbox's runs get less still (``PATH`` and ``LANG``:
``domains/code/sandbox/server._scrub_environment``).

Why masking too: a passed key is in the worker, and a verifier can print it into an
error; so the values of the passed variables, and of every variable of the audit's own
environment whose name says it is a secret (``SECRET_NAME``), are replaced by ``MASK``
wherever a verifier's error or finding is stored or shown (``engine/pool``: every outcome
and setup error; ``loading``: the inspection's errors). Masking compares text: a verifier
that encodes a key (base64, reversed) is not caught by it, which is why the allow-list,
not the mask, is the defence; the mask only keeps an honest mistake out of the files.

This module is below everything (layer 0): the loader (layer 2) and the engine (layer 3)
both use it, and the list lives once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

#: Passed to every worker as they are in the audit's environment (when set there).
ALLOWED = frozenset(
    {
        # the interpreter, its paths and its text encoding
        "PATH",
        "PYTHONPATH",
        "PYTHONHASHSEED",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONWARNINGS",
        "PYTHONNOUSERSITE",
        "LD_LIBRARY_PATH",
        # the locale and the clock
        "LANG",
        "LANGUAGE",
        "TZ",
        # who and where (a home's caches: pip, Hugging Face, torch)
        "HOME",
        "USER",
        "LOGNAME",
        # the environment the verifier's packages live in
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "CONDA_DEFAULT_ENV",
        # devices and thread counts, as the training job sets them
        "CUDA_VISIBLE_DEVICES",
        "CUDA_HOME",
        "NVIDIA_VISIBLE_DEVICES",
        "HIP_VISIBLE_DEVICES",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "RAYON_NUM_THREADS",
        "TOKENIZERS_PARALLELISM",
        # offline switches and cache places of the libraries verifiers load
        "HF_HOME",
        "HF_HUB_OFFLINE",
        "HF_DATASETS_OFFLINE",
        "TRANSFORMERS_OFFLINE",
        "TRANSFORMERS_CACHE",
        "TORCH_HOME",
        "XDG_CACHE_HOME",
        # TLS roots (a remote style's client checks certificates)
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
    }
)
#: Names with these prefixes pass too (the locale's categories).
ALLOWED_PREFIXES = ("LC_",)
#: A remote style's own client (the HTTP and judge styles) reaches its server through the
#: user's proxy: these pass to the workers of a remote verifier only (a proxy URL may
#: carry a password: they are masked like secrets there).
PROXY = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy")

#: A variable whose name says it holds a secret: its value is masked in what a verifier says.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION", re.IGNORECASE)
MASK = "***"
#: Values shorter than this are not masked: "1" or "true" would be replaced in every
#: message (a passed ``OMP_NUM_THREADS=4``), and a key is never that short.
MIN_SECRET = 6


def is_allowed(name: str) -> bool:
    return name in ALLOWED or name.startswith(ALLOWED_PREFIXES)


def worker_environment(environ: Mapping[str, str], passed: Iterable[str] = ()) -> dict[str, str]:
    """What of ``environ`` a worker gets: the allowed variables and the ``passed`` ones."""
    passed = set(passed)
    return {k: v for k, v in environ.items() if is_allowed(k) or k in passed}


def secret_values(environ: Mapping[str, str], passed: Iterable[str] = ()) -> list[str]:
    """The values to mask: those of the ``passed`` variables and of every variable whose
    name looks like a secret's, longest first (so a key that contains another is masked
    whole). A passed variable whose value is the absolute path of an existing file is
    not masked unless its name looks like a secret's: a path says where something is
    (a database, a data directory), and a finding that names it must stay readable."""
    passed = set(passed) | set(PROXY)
    found = {
        v
        for k, v in environ.items()
        if len(v) >= MIN_SECRET
        and not is_allowed(k)
        and (SECRET_NAME.search(k) or (k in passed and not (os.path.isabs(v) and os.path.exists(v))))
    }
    return sorted(found, key=len, reverse=True)


def mask(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each of ``secrets`` replaced by ``MASK``, until
    none is left (a secret made of ``*`` could otherwise be put back together by the
    masks around it; a secret longer than the mask shrinks the text each round)."""
    if not text:
        return text
    for secret in secrets:
        if not secret:
            continue
        while secret in text:
            text = text.replace(secret, MASK)
            if len(secret) <= len(MASK):
                break
    return text
