from __future__ import annotations

from pathlib import Path

BAD = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum().item(){comment}\n"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.py"
    path.write_text(text, encoding="utf-8")
    return path


def codes(result) -> list[tuple[int, str]]:
    return [(f.span.start_line, f.code) for f in result.findings]


def test_unsuppressed_finding(tmp_path, check) -> None:
    assert codes(check([write(tmp_path, BAD.format(comment=""))], root=tmp_path)) == [(5, "BL101")]


def test_trailing_ignore_by_code_prefix_and_name(tmp_path, check) -> None:
    for selector in ("BL101", "BL1", "tensor-to-scalar", "bl101"):
        text = BAD.format(comment=f"  # breaklint: ignore[{selector}] measured: fine")
        assert codes(check([write(tmp_path, text)], root=tmp_path)) == [], selector


def test_bare_ignore_silences_everything_on_the_line(tmp_path, check) -> None:
    text = BAD.format(comment="  # breaklint: ignore")
    assert codes(check([write(tmp_path, text)], root=tmp_path)) == []


def test_ignore_on_the_line_above(tmp_path, check) -> None:
    text = "import torch\n\n@torch.compile\ndef f(x):\n    # breaklint: ignore[BL101] logged once\n    return x.sum().item()\n"
    assert codes(check([write(tmp_path, text)], root=tmp_path)) == []


def test_noqa_with_code(tmp_path, check) -> None:
    text = BAD.format(comment="  # noqa: BL101")
    assert codes(check([write(tmp_path, text)], root=tmp_path)) == []


def test_bare_noqa_is_not_ours(tmp_path, check) -> None:
    text = BAD.format(comment="  # noqa")
    assert codes(check([write(tmp_path, text)], root=tmp_path)) == [(5, "BL101")]


def test_file_ignore(tmp_path, check) -> None:
    text = "# breaklint: file-ignore[BL101]\n" + BAD.format(comment="")
    assert codes(check([write(tmp_path, text)], root=tmp_path)) == []


def test_wrong_code_leaves_finding_and_reports_unused(tmp_path, check) -> None:
    text = BAD.format(comment="  # breaklint: ignore[BL102]")
    result = check([write(tmp_path, text)], root=tmp_path)
    assert codes(result) == [(5, "BL101"), (5, "BL004")]
    unused = [f for f in result.findings if f.code == "BL004"][0]
    assert "BL102" in unused.message


def test_unused_suppression_on_clean_line(tmp_path, check) -> None:
    text = "import torch\n\n@torch.compile\ndef f(x):\n    return x + 1  # breaklint: ignore[BL101]\n"
    assert codes(check([write(tmp_path, text)], root=tmp_path)) == [(5, "BL004")]


def test_unused_not_reported_for_disabled_rule(tmp_path, check) -> None:
    text = "import torch\n\n@torch.compile\ndef f(x):\n    return x + 1  # breaklint: ignore[BL101]\n"
    assert codes(check([write(tmp_path, text)], root=tmp_path, ignore=("BL101",))) == []


def test_comment_text_inside_string_is_not_a_suppression(tmp_path, check) -> None:
    text = BAD.format(comment=' + len("# breaklint: ignore[BL101]")')
    assert codes(check([write(tmp_path, text)], root=tmp_path)) == [(5, "BL101")]


def test_noqa_lists_as_flake8_and_ruff_write_them(tmp_path, check) -> None:
    """The whole list is read, whatever comes first and however it is separated."""
    for comment in ("# noqa: E501, BL101", "# noqa:E501,BL101", "# noqa: E501 BL101", "# NOQA: e501,bl101",
                    "# noqa : BL101, E731", "# noqa: F401,E501  BL101 because"):
        text = BAD.format(comment="  " + comment)
        assert codes(check([write(tmp_path, text)], root=tmp_path)) == [], comment


def test_noqa_for_other_linters_only(tmp_path, check) -> None:
    """`# noqa: E501` is another linter's: the finding stays and no BL004 is reported."""
    for comment in ("# noqa: E501", "# noqa: E501, F401", "# noqa: E501 see BL101"):
        text = BAD.format(comment="  " + comment)
        assert codes(check([write(tmp_path, text)], root=tmp_path)) == [(5, "BL101")], comment


def test_noqa_list_with_an_unused_code_of_ours(tmp_path, check) -> None:
    text = BAD.format(comment="  # noqa: E501, BL101, BL102")
    result = check([write(tmp_path, text)], root=tmp_path)
    assert codes(result) == [(5, "BL004")]
    assert "BL102" in result.findings[0].message and "E501" not in result.findings[0].message


def test_the_cheap_prefilter_agrees_with_the_case_blind_pattern() -> None:
    """may_hold_suppressions lowers ASCII text instead of matching case-blind: the same verdict."""
    from breaklint.index.suppress import _MAYBE_SUPPRESSION, may_hold_suppressions

    texts = ["x = 1  # BreakLint: ignore[BL101]\n", "# NOQA: bl101\n", "# noqa:E501 ,Bl2\n", "# noqa\n",
             "# noqa: E501\nbl1 = 2\n", "breaklint = 1\n", "# breaKlint: ignore\n", "# breaklİnt: ignore\n",
             "# nOqA : x BL9\n", "", "# breaklint:\n"]
    texts += [p.read_text(encoding="utf-8") for p in sorted(Path(__file__).parent.parent.glob("testdata/rules/*/*.py"))]
    verdicts = [(may_hold_suppressions(t), _MAYBE_SUPPRESSION.search(t) is not None) for t in texts]
    assert all(ours == theirs for ours, theirs in verdicts)
    assert sum(theirs for _, theirs in verdicts) >= 8 and not all(theirs for _, theirs in verdicts)
