"""What a long Spark audit is doing, for a terminal: the phase (from the job) and, for the stages running,
their tasks and the rows read so far (from the driver's status store, polled in a thread).

Only the CLI shows it, and only on a terminal (``mqadmin audit`` piped prints nothing of it). The status store
is Spark's own record of every stage (kept with the UI off); reading it is a py4j call or two per poll.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

POLL_S = 0.5
"""How often the running stages are read: a display refresh, not a synchronisation."""


class SparkProgress:
    """``with SparkProgress(spark, show) as p: job.run_spark(..., progress=p.phase)``: ``show`` receives the
    phase, followed by the running stages (``stage 3: tasks 5/8, 4,200,000 rows read``) while there are any."""

    def __init__(self, spark: Any, show: Callable[[str], None], interval: float = POLL_S) -> None:
        self.spark, self.show, self.interval = spark, show, interval
        self._phase = ""
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="mqadmin-spark-progress", daemon=True)
        self._lock = threading.Lock()

    def __enter__(self) -> SparkProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: tuple[type[BaseException] | None, BaseException | None, TracebackType | None]) -> None:
        self._done.set()
        self._thread.join()

    def phase(self, text: str) -> None:
        with self._lock:
            self._phase = text
        self.show(text)

    def _poll(self) -> None:
        while not self._done.wait(self.interval):
            try:
                stages = self.running()
            except Exception:  # the session is stopping: nothing to show
                return
            if stages:
                with self._lock:
                    phase = self._phase
                self.show(" - ".join(t for t in (phase, "; ".join(stage_text(*s) for s in stages)) if t))

    def running(self) -> list[tuple[int, int, int, int]]:
        """The running stages: (stage id, tasks done, tasks, rows read)."""
        return [self.stage(i) for i in sorted(self.spark.sparkContext.statusTracker().getActiveStageIds())]

    def stage(self, stage_id: int) -> tuple[int, int, int, int]:
        data = self.spark.sparkContext._jsc.sc().statusStore().lastStageAttempt(stage_id)
        return stage_id, data.numCompleteTasks(), data.numTasks(), data.inputRecords()


def stage_text(stage_id: int, done: int, tasks: int, rows: int) -> str:
    return f"stage {stage_id}: tasks {done}/{tasks}, {rows:,} rows read"
