"""A process pool over files that keeps the input order (and runs inline for one job).

Workers are forked where fork is safe (Linux, from the main thread): they inherit the index built
so far instead of receiving it pickled. Elsewhere they are spawned and get the state through the
initializer.

A worker that dies (a native crash in libcst, the OOM killer) breaks the whole pool, and every
item not yet returned with it. Workers mark in shared memory each item they start and finish,
so the items in flight when it died are known: each of those runs again alone in a process of
its own (the one that dies there is the culprit, and `on_crash` says what to report for it),
and the items never started run again in a new pool. Every round settles at least the items in
flight, so the run ends, and no item is lost.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext

from .lifeline import die_with

T = TypeVar("T")
R = TypeVar("R")

_STARTED, _FINISHED = 1, 2
# The shared marks of the pool this worker process serves (set by its initializer; process-local).
_MARKS: list[Any] = []


def available_cores() -> int:
    """The cores this process may run on (a container's CPU set), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class WorkerPool:
    def __init__(self, jobs: int, initializer: Callable[[Any], None], state: Any) -> None:
        self.jobs = jobs
        self._initializer = initializer
        self._state = state
        self._executor: ProcessPoolExecutor | None = None

    @property
    def _context(self) -> BaseContext:
        """multiprocessing and concurrent.futures are imported only for a process to start (12 ms
        a run that starts none: a warm check, one job)."""
        import multiprocessing

        return multiprocessing.get_context("fork" if self.forks() else "spawn")

    @staticmethod
    def forks() -> bool:
        """Whether a pool made here forks its workers (else it spawns them). Only from the main
        thread: a fork from another (the language server checks on a worker thread) can copy a
        lock some other thread holds, and the child waits forever."""
        return sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread()

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self._shut_down()

    def map(self, function: Callable[[T], R], items: Iterable[T], chunksize: int = 1,
            on_crash: Callable[[T, str], R] | None = None, meanwhile: Callable[[], object] | None = None) -> list[R]:
        """`function` over `items`, results in the order of `items`. `on_crash(item, why)`:
        the result for an item whose process died checking it alone (None: raise
        BrokenProcessPool, as the pool would). `meanwhile()`: run here once the workers have
        their work (not with one job: nothing else works then)."""
        items = list(items)
        if self.jobs <= 1:
            return [function(item) for item in items]
        results: dict[int, R] = {}
        todo = list(range(len(items)))
        while todo:
            in_flight = self._round(function, items, todo, max(1, chunksize), results, meanwhile)
            meanwhile = None
            todo = [i for i in todo if i not in results]
            if not todo:
                break
            if not in_flight:  # it died before starting anything (in its initializer): no one to blame
                in_flight = todo
            for position in in_flight:
                results[position] = self.apart(function, items[position], on_crash)
            todo = [i for i in todo if i not in results]
        return [results[i] for i in range(len(items))]

    def _round(self, function: Callable[[T], R], items: Sequence[T], todo: list[int], chunksize: int,
               results: dict[int, R], meanwhile: Callable[[], object] | None = None) -> list[int]:
        """One pool over `todo`; fills `results`. Returns the items in flight if a worker died."""
        from concurrent.futures import ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        context = self._context
        marks = context.Array("b", len(items), lock=False)
        self._executor = ProcessPoolExecutor(
            max_workers=self.jobs, mp_context=context,
            initializer=_install, initargs=(os.getpid(), self._initializer, self._state, marks),
        )
        try:
            chunks = [todo[i:i + chunksize] for i in range(0, len(todo), chunksize)]
            futures: list[tuple[list[int], Future[list[R]]]] = []
            broken = False
            for chunk in chunks:
                try:
                    futures.append((chunk, self._executor.submit(_run_chunk, function, [(p, items[p]) for p in chunk])))
                except BrokenProcessPool:  # a worker died already: the chunks left go to the next round
                    broken = True
                    break
            if meanwhile is not None:
                meanwhile()
            wait([future for _, future in futures])
            for chunk, future in futures:
                error = future.exception()
                if error is None:
                    results.update(zip(chunk, future.result()))
                elif isinstance(error, BrokenProcessPool):
                    broken = True
                else:
                    raise error  # the function's own exception, as the pool would raise it
        finally:
            self._shut_down()
        if not broken:
            return []
        return [p for p in todo if p not in results and marks[p] == _STARTED]

    def apart(self, function: Callable[[T], R], item: T, on_crash: Callable[[T, str], R] | None = None,
              meanwhile: Callable[[], object] | None = None) -> R:
        """`function(item)` in a process of its own (through the pool's initializer), whatever
        `jobs` is: what it allocates ends with it. `on_crash` as for `map`. `meanwhile()` runs
        here while the process works (this process would only wait); the child is waited for
        even if it raises."""
        from concurrent.futures.process import BrokenProcessPool

        context = self._context
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_quietly,
                                  args=(_run_alone, os.getpid(), self._initializer, self._state, function, item, sender))
        process.start()
        sender.close()  # ours: end of input once the child's copy closes
        try:
            if meanwhile is not None:
                meanwhile()
            ok, value = receiver.recv()
        except EOFError:
            ok, value = None, None
        finally:
            receiver.close()
            process.join()
        if ok is None:
            why = _death(process.exitcode)
            if on_crash is None:
                raise BrokenProcessPool(f"a worker process died: {why}")
            return on_crash(item, why)
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    def _shut_down(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


class ReadyWorker:
    """One worker forked now, which readies itself (`ready()`: what every task of it would do
    first, such as importing libcst, 0.18 s) while this process goes on working out what there
    is to do; then it runs the few items that turn out to need it. It inherits this process as
    it is at the fork; `adopt(news)` gives it what was worked out since. Only where pools fork."""

    def __init__(self, initializer: Callable[[Any], None], state: Any, ready: Callable[[], object]) -> None:
        self._conn, self._process = _forked(_serve_ready, initializer, state, ready)

    def map(self, function: Callable[[T], R], items: Sequence[T], adopt: Callable[[Any], None],
            news: Any, meanwhile: Callable[[], object] | None = None) -> list[R] | None:
        """`function` over `items` in the worker, after `adopt(news)` there; None when the worker
        died (a crash in its `ready()` or on an item): the caller runs the items another way,
        where a crash is pinned on its item. `meanwhile()` runs here while the worker works.
        The worker ends with the call."""
        try:
            self._conn.send((adopt, news, function, list(items)))
            if meanwhile is not None:
                meanwhile()
            ok, value = self._conn.recv()
        except Exception:  # it died (EOFError, OSError), or what it needs does not pickle
            return None
        finally:
            self.close()
        if not ok:
            raise value  # the function's own exception, as the pool would raise it
        return value  # type: ignore[no-any-return]

    def close(self) -> None:
        """End the worker (at once, if it was never needed)."""
        self._conn.close()
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()


class HeadStart:
    """One worker forked before the work it will share is known: it works ahead (`ahead(stop)`,
    until `stop()` says that news waits: such as parsing what it expects to be given) while
    this process works out what there is to do, then takes its share of the items with other
    head starts and workers forked afterwards (`share`), preferring those its work ahead served.
    It inherits this process as it is at the fork; `settle(adopt, news)` gives it what was
    worked out since. Only where pools fork."""

    def __init__(self, initializer: Callable[[Any], None], state: Any,
                 ahead: Callable[[Callable[[], bool]], object]) -> None:
        self._conn, self._process = _forked(_serve_ahead, initializer, state, ahead)

    def settle(self, adopt: Callable[[Any], Any], news: Any) -> Any:
        """`adopt(news)` in the worker, which stops working ahead; its answer (None when the
        worker died: then it takes no share)."""
        try:
            self._conn.send((adopt, news))
            ok, value = self._conn.recv()
        except Exception:  # it died (EOFError, OSError), or what it needs does not pickle
            self.close()
            return None
        if not ok:
            self.close()
            raise value
        return value

    def close(self) -> None:
        """End the worker (at once, if it is not needed)."""
        try:
            self._conn.send(None)
        except Exception:
            pass
        self._conn.close()
        self._process.join(timeout=1)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join()


def share(function: Callable[[T], R], items: Sequence[T], heads: Sequence[tuple[HeadStart, Iterable[int]]],
          pool: WorkerPool, on_crash: Callable[[T, str], R] | None = None) -> list[R]:
    """`function` over `items`, results in their order, in the settled `heads` and the workers
    forked now that make them `pool.jobs` processes, each given the next item when it is done
    with one: a head start the items it prefers (positions) first, then the others', every
    process the items no head prefers first. Once none is left to start, a process that is done
    takes again an item another still works on, and the first answer counts: a process the
    machine starves (a head start is niced while it works ahead, and stays so) does not hold the
    end; those still working then are ended. An item whose every process died runs again alone
    (`pool.apart`, `on_crash` as for map); the items left when every process died go to
    `pool.map`. The head starts end with the call."""
    from multiprocessing.connection import wait

    queues: dict[Any, list[int]] = {}  # what each head start prefers, the next one last
    for head, preferred in heads:
        queues[head._conn] = list(reversed(list(preferred)))
    taken = {position for queue in queues.values() for position in queue}
    rest = [position for position in reversed(range(len(items))) if position not in taken]
    results: dict[int, R] = {}
    workers: dict[Any, Any] = {head._conn: head._process for head, _ in heads}
    forked: list[tuple[Any, Any]] = []
    in_flight: dict[Any, int] = {}  # by process, the item it works on, the one given first first
    twice: set[int] = set()  # items given to a second process
    try:
        for _ in range(pool.jobs - len(heads)):
            forked.append(_forked(_serve_items, pool._initializer, pool._state))
            workers[forked[-1][0]] = forked[-1][1]

        def give(conn: Any) -> None:
            for queue in (queues.get(conn), rest, *queues.values()):
                if queue:
                    position = queue.pop()
                    break
            else:
                waiting = [p for p in in_flight.values() if p not in twice]
                if not waiting:
                    return
                position, queue = waiting[0], None
                twice.add(position)
            try:
                conn.send((function, items[position]))
            except Exception:  # it died: the item waits for another
                if queue is not None:
                    queue.append(position)
                del workers[conn]
                return
            in_flight[conn] = position

        for conn in list(workers):
            give(conn)
        while in_flight and len(results) < len(items):
            for conn in wait(list(in_flight)):
                position = in_flight.pop(conn)
                try:
                    ok, value = conn.recv()
                except (EOFError, OSError):  # it died on this item: alone, it tells whether the item kills
                    del workers[conn]
                    if position not in results and position not in in_flight.values():
                        results[position] = pool.apart(function, items[position], on_crash)
                    continue
                if not ok:
                    raise value  # the function's own exception, as the pool would raise it
                results.setdefault(position, value)
                give(conn)
            if not in_flight:  # none has an item: each died (or failed to take one)
                for conn in list(workers):
                    give(conn)
        left = [position for queue in (rest, *queues.values()) for position in queue]
        if left:
            results.update(zip(left, pool.map(function, [items[p] for p in left], on_crash=on_crash)))
    finally:
        for conn in in_flight:  # working on an item answered by another (or the run failed)
            if conn in workers:
                workers[conn].terminate()
        for conn, process in forked:
            try:
                conn.send(None)
            except Exception:
                pass
            conn.close()
            process.join()
        for head, _ in heads:
            head.close()
    return [results[i] for i in range(len(items))]


def _serve_ahead(parent: int, initializer: Callable[[Any], None], state: Any,
                 ahead: Callable[[Callable[[], bool]], object], conn: Any) -> None:
    die_with(parent)
    initializer(state)
    try:
        ahead(conn.poll)
    except Exception:  # the work ahead is a bonus: what it made so far serves, the rest is done as it would be
        pass
    try:
        message = conn.recv()
    except (EOFError, OSError):
        return
    if message is None:  # not needed after all
        return
    adopt, news = message
    try:
        outcome: tuple[bool, object] = (True, adopt(news))
    except Exception as error:
        outcome = (False, error)
    conn.send(outcome)
    if outcome[0]:
        _serve(conn)


def _serve_items(parent: int, initializer: Callable[[Any], None], state: Any, conn: Any) -> None:
    die_with(parent)
    initializer(state)
    _serve(conn)


def _serve(conn: Any) -> None:
    """(function, item) after (function, item) from `conn`, each answered, until None or EOF."""
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        function, item = message
        try:
            outcome: tuple[bool, object] = (True, function(item))
        except Exception as error:  # handed to the parent, which raises it as the pool would
            outcome = (False, error)
        conn.send(outcome)


def _forked(target: Callable[..., None], *args: Any) -> tuple[Any, Any]:
    """A daemon process forked now, running `target(this pid, *args, its end of a pipe)`:
    our end of the pipe, and the process."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe()
    process = context.Process(target=_quietly, args=(target, os.getpid(), *args, theirs), daemon=True)
    process.start()
    theirs.close()  # ours: end of input once the child's copy closes
    return ours, process


def _quietly(target: Callable[..., None], *args: Any) -> None:
    """`target(*args)` in a process of the engine's: Ctrl-C reaches every process of the
    terminal's group, and the one that started this answers it (it ends its workers), so this
    one ends without a traceback of its own."""
    try:
        target(*args)
    except KeyboardInterrupt:
        pass


def _serve_ready(parent: int, initializer: Callable[[Any], None], state: Any, ready: Callable[[], object],
                 conn: Any) -> None:
    die_with(parent)
    initializer(state)
    ready()
    try:
        adopt, news, function, items = conn.recv()
    except (EOFError, OSError):  # not needed after all
        return
    try:
        adopt(news)
        outcome: tuple[bool, object] = (True, [function(item) for item in items])
    except Exception as error:  # handed to the parent, which raises it as the pool would
        outcome = (False, error)
    conn.send(outcome)
    conn.close()


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def _install(parent: int, initializer: Callable[[Any], None], state: Any, marks: Any) -> None:
    die_with(parent)  # a killed parent must not leave its workers waiting on the queue
    _MARKS[:] = [marks]
    initializer(state)


def _run_chunk(function: Callable[[T], R], chunk: list[tuple[int, T]]) -> list[R]:
    marks = _MARKS[0]
    results = []
    for position, item in chunk:
        marks[position] = _STARTED
        results.append(function(item))
        marks[position] = _FINISHED
    return results


def _run_alone(parent: int, initializer: Callable[[Any], None], state: Any, function: Callable[[T], R], item: T,
               sender: Any) -> None:
    die_with(parent)
    initializer(state)
    try:
        outcome: tuple[bool, object] = (True, function(item))
    except Exception as error:  # handed to the parent, which raises it as the pool would
        outcome = (False, error)
    sender.send(outcome)
    sender.close()
