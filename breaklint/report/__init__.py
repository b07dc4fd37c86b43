"""Reporters: translate findings into a format. Nothing else happens here."""

from __future__ import annotations

from typing import Callable

from ..finding import CheckResult
from .github import render_github
from .json import render_json
from .lsp_format import render_lsp
from .sarif import render_sarif
from .text import render_concise, render_text

Renderer = Callable[[CheckResult, bool], str]

RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "concise": render_concise,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
    "lsp": render_lsp,
}
