"""Fetch at once everything the conformance tests otherwise download on first use, and say how long each
part took: the Apache RocketMQ distributions (one ``mvn`` per version), the client peers (Java
rocketmq-client, PyPI ``rocketmq``, npm ``ali-ons``) and the loopback bind shim.

The parts run concurrently (they are mostly waiting on the network), each under the same file lock the
tests take, so a test that needs a part meanwhile waits for it instead of fetching it twice. ``.ci/run``
starts this in the background as soon as the virtual environment exists (standard library only), so on a
machine with empty caches the downloads overlap the installation of the project::

    python -m tests.realrmq.prefetch            # everything
    python -m tests.realrmq.prefetch 5.5.0 node # some parts: versions and peer kinds

Exit status 1 when a part failed (its reason is printed); the tests then report the same failure where
they need that part.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed

from tests.peers import harness
from tests.realrmq import apache


def parts() -> dict[str, Callable[[], object]]:
    """Name -> the call that makes that part ready (idempotent; nearly free when it is cached)."""
    jobs: dict[str, Callable[[], object]] = {
        f"rocketmq-{v}": (lambda v=v: apache.ensure_distribution(v)) for v in apache.VERSIONS
    }
    jobs |= {f"peer-{kind}": (lambda kind=kind: harness.ensure_peer(kind)) for kind in harness.KINDS}
    jobs["loopback-shim"] = apache.loopback_shim
    return jobs


def _timed(name: str, fn: Callable[[], object]) -> tuple[str, float, str | None]:
    started = time.monotonic()
    try:
        fn()
    except (apache.RocketMQHarnessError, harness.PeerUnavailable, OSError) as e:
        return name, time.monotonic() - started, str(e).strip().splitlines()[0] if str(e).strip() else repr(e)
    return name, time.monotonic() - started, None


def prefetch(names: list[str] | None = None) -> list[tuple[str, float, str | None]]:
    """Make the parts ready concurrently, printing a line per part as it is done; returns (name, seconds,
    error or None) per part."""
    chosen = {n: f for n, f in parts().items() if not names or any(w in n for w in names)}
    results = []
    with ThreadPoolExecutor(max(1, len(chosen))) as pool:
        for future in as_completed([pool.submit(_timed, n, f) for n, f in chosen.items()]):
            name, seconds, error = future.result()
            outcome = f"FAILED in {seconds:.1f} s: {error}" if error else f"ready in {seconds:.1f} s"
            print(f"prefetch: {name} {outcome}", flush=True)
            results.append((name, seconds, error))
    return results


def main(argv: list[str]) -> int:
    started = time.monotonic()
    results = prefetch(argv or None)
    print(f"prefetch: {len(results)} parts in {time.monotonic() - started:.1f} s", flush=True)
    return 1 if any(error for _, _, error in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
