"""How benchmarks/speed.py judges its rows against the issues' targets (no run, no corpus needed)."""

from __future__ import annotations

import importlib.util
import sys

from testdata import HANG_GUARD_S, ROOT

_SPEC = importlib.util.spec_from_file_location("speed_benchmark", ROOT / "benchmarks" / "speed.py")
assert _SPEC is not None and _SPEC.loader is not None
speed = importlib.util.module_from_spec(_SPEC)
sys.modules["speed_benchmark"] = speed  # dataclasses look their module up while the class is made
_SPEC.loader.exec_module(speed)


def _row(name: str, jobs: str, *walls: float, rss: float = 100.0) -> object:
    return speed.Measurement(name, jobs, 10, list(walls), [rss] * len(walls))


def _targets(*rows: object) -> dict[str, tuple[str, bool | None]]:
    return {label: (value, met) for label, value, met in speed.targets(list(rows), "timm")}


def test_scope_all_is_held_to_the_one_job_floor_by_its_best_run() -> None:
    floor = _row("libcst parse-only", "1", 6.0, 6.4)
    label = f"cold `--scope all`, 1 job ≤ {speed.SCOPE_ALL_TARGET} × libcst parse-only (1 job)"
    slow = _targets(floor, _row(speed.SCOPE_ALL, "1", 12.9, 12.6), _row(speed.SCOPE_ALL, "2", 3.0))
    assert slow[label] == ("2.10 × (round by round 2.15, 1.97; median 2.06 ×)", False)  # 12.6 / 6.0; not the two-job row
    fast = _targets(floor, _row(speed.SCOPE_ALL, "1", 7.4, 7.6))
    assert fast[label] == ("1.23 × (round by round 1.23, 1.19; median 1.21 ×)", True)


def test_without_scope_all_rows_there_is_no_scope_all_target() -> None:
    rows = _targets(_row("libcst parse-only", "1", 6.0), _row("breaklint cold", "1", 5.4), _row("breaklint cold", "2", 3.0))
    assert not [label for label in rows if "--scope all" in label]
    assert rows["cold, 1 job ≤ 1.0 × libcst parse-only (1 job)"] == ("0.90 ×", True)
    assert rows["cold, 2 jobs vs 1 job ≥ 1.8 ×"] == ("1.80 ×", True)


def test_the_one_job_ratio_shows_each_round_against_the_floor_of_the_same_round() -> None:
    """Judged by the minimums, which can pair a fast floor with a slow check; each round's own
    ratio and their median are shown beside it."""
    rows = _targets(_row("libcst parse-only", "1", 8.1, 9.6, 10.2), _row("breaklint cold", "1", 8.85, 8.9, 9.0))
    assert rows["cold, 1 job ≤ 1.0 × libcst parse-only (1 job)"] == (
        "1.09 × (round by round 1.09, 0.93, 0.88; median 0.93 ×)", False)  # 8.85 / 8.1


def test_peak_memory_counts_the_scope_all_runs_too() -> None:
    rows = _targets(_row("breaklint cold", "1", 5.0, rss=150.0), _row(speed.SCOPE_ALL, "1", 12.0, rss=700.0))
    value, met = rows["peak RSS per process, cold ≤ 600 MB"]
    assert (value, met) == ("734 MB", False)  # 700 MiB


def test_compared_rows_run_in_rounds_not_row_after_row() -> None:
    ran: list[str] = []
    rounds: list[int] = []
    results: list[object] = [_row("earlier", "2", 1.0)]

    def run(m: object, command: list[str]) -> None:
        ran.append(command[0])
        m.walls.append(float(len(ran)))  # type: ignore[attr-defined]

    rows = [("libcst parse-only", "1", ["floor"]), ("breaklint cold", "1", ["one"]), ("breaklint cold", "2", ["two"])]
    speed.in_rounds(rows, 3, 10, results, run, lambda: rounds.append(len(ran)))
    assert ran == ["floor", "one", "two"] * 3
    assert rounds == [3, 6, 9]  # the table is written after every round
    assert [m.name for m in results] == ["earlier", "libcst parse-only", "breaklint cold", "breaklint cold"]  # type: ignore[attr-defined]
    assert [m.walls for m in results[1:]] == [[1.0, 4.0, 7.0], [2.0, 5.0, 8.0], [3.0, 6.0, 9.0]]  # type: ignore[attr-defined]


def test_the_two_job_ratio_shows_each_round_beside_the_floors() -> None:
    """Judged by the minimums, shown round by round with libcst's own ratio in the same rounds."""
    rows = _targets(_row("libcst parse-only", "1", 8.0, 8.8), _row("libcst parse-only", "2", 4.4, 4.6),
                    _row("breaklint cold", "1", 7.3, 6.85), _row("breaklint cold", "2", 3.9, 3.96))
    assert rows["cold, 2 jobs vs 1 job ≥ 1.8 ×"] == (
        "1.76 × (round by round 1.87, 1.73; libcst's floor 1.82–1.91 ×)", False)  # 6.85 / 3.9


def test_the_two_job_ratio_is_shown_beside_the_machines_ceiling() -> None:
    """Two one-job checks at once: 2 × one job / their time is the most two jobs could gain here
    (a reference, not a target: the target stays the minimums against 1.8)."""
    rows = _targets(_row("breaklint cold", "1", 6.0, 5.5), _row("breaklint cold", "2", 3.2, 3.1),
                    _row(speed.CEILING, "1 + 1", 6.5, 6.0))
    assert rows["cold, 2 jobs vs 1 job ≥ 1.8 ×"] == (
        "1.77 × (round by round 1.88, 1.77; the machine's ceiling, two one-job checks at once, 1.85, 1.83 ×)", False)
    label = f"(reference) the machine's ceiling for two jobs: 2 × one job / {speed.CEILING}"
    assert rows[label] == ("1.83 × (two jobs reach 97% of it)", None)  # 2 × 5.5 / 6.0; 1.774 / 1.833


def test_the_helper_starts_the_copies_at_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Each copy waits until both have started (a file each): run one after the other, the first
    would wait alone and exit 3 (after HANG_GUARD_S, a deadlock's way out, not a measurement)."""
    meeting = tmp_path / "meeting"
    meeting.mkdir()
    code = ("import os, sys, time\n"
            f"d = {str(meeting)!r}\n"
            "open(os.path.join(d, str(os.getpid())), 'w').close()\n"
            f"deadline = time.monotonic() + {HANG_GUARD_S}\n"
            "while len(os.listdir(d)) < 2 and time.monotonic() < deadline:\n"
            "    time.sleep(0.01)\n"
            "sys.exit(0 if len(os.listdir(d)) >= 2 else 3)\n")
    speed.measure([sys.executable, "-c", code], tmp_path, (0,), copies=2)  # raises when a copy exits 3
    assert len(list(meeting.iterdir())) == 2
