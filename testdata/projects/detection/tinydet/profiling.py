"""Timing helpers a model author sprinkles into forward while tuning it."""
import time


class Stopwatch:
    def __init__(self):
        self.totals = {}

    def start(self):
        return time.perf_counter()  # expect: BL107

    def stop(self, name, started):
        # The linter reads the dict update as guarded Python state (BL201); Dynamo breaks at the
        # clock call, and the rest of the line, with no tensor in it, never becomes a graph.
        self.totals[name] = self.totals.get(name, 0.0) + time.perf_counter() - started  # expect: BL107  # false-alarm: BL201 (after the break the update runs eagerly: no graph, no guard)
