"""A def's lines, as a content view parses them alone and as a cached result that read its code
depends on them (index/def_lines.py, scan.text_digests)."""

from __future__ import annotations

import pytest

from breaklint.index.def_lines import _LINES, split_lines
from breaklint.index.scan import scan_text


@pytest.mark.parametrize("text", ["", "a", "a\n", "a\nb", "\n\n", "a\n\nb\n", "x\r\ny\rz\n", "\r", "a\r\n\r\n",
                                  "é\u2028b\x0cc\n"])
def test_split_lines_is_pythons_line_ends(text: str) -> None:
    assert split_lines(text) == _LINES.findall(text)
    assert "".join(split_lines(text)) == text


SOURCE = '''\
import torch


class Net:
    def forward(self, x):
        return x  # one


@torch.compile
def step(x):
    return x
'''


def texts(source: str) -> dict[str, str]:
    return {key: value for key, value in scan_text(source, "d", "m", False).parts if key.startswith("text:")}


def test_a_definitions_text_digest_follows_its_own_lines() -> None:
    before = texts(SOURCE)
    assert sorted(before) == ["text:Net", "text:step"]  # top-level definitions only: a method is in its class
    assert texts(SOURCE + "\n\ndef added(y):\n    return y\n").items() >= before.items()
    commented = texts(SOURCE.replace("# one", "# two"))  # the same summary, other text
    assert commented["text:Net"] != before["text:Net"] and commented["text:step"] == before["text:step"]
    decorated = texts(SOURCE.replace("@torch.compile", "@torch.compile()"))
    assert decorated["text:step"] != before["text:step"]  # the decorator is one of its lines
    assert decorated["text:Net"] == before["text:Net"]
