"""Name servers from an address server (Java's ``rocketmq.namesrv.domain``, ``http://host:8080/rocketmq/nsaddr``):
an HTTP GET whose body's first line is a ``;``-separated ``host:port`` list (rocketmq-protocol.md §10).

Fetched with httpx: a timeout per attempt, up to ``attempts`` tries on connection failures, timeouts and
5xx answers, TLS verified for https (the given CA, or the system's). The list is cached for ``ttl``
seconds in ``$XDG_CACHE_HOME/mqadmin/nsaddr/`` so a series of commands asks once; when the address server
cannot be reached, a list cached less than ``STALE_TTL`` ago is used with a warning (as Java clients keep
the last list they fetched).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from mqadmin.admin.errors import AdminError, BadNameServerAddress

if TYPE_CHECKING:
    import ssl
    from pathlib import Path

TTL = 30.0
STALE_TTL = 24 * 3600.0
MAX_BODY = 64 * 1024
ATTEMPTS = 3
BACKOFF = 0.2


class AddressServerError(AdminError):
    """The address server could not be reached, or did not answer with a name-server list."""

    def __init__(self, url: str, detail: str) -> None:
        self.url = url
        super().__init__(f"address server {url}: {detail}")


def is_url(value: str) -> bool:
    return value.strip().lower().startswith(("http://", "https://"))


def cache_dir() -> Path:
    from pathlib import Path  # only with an address server: every command imports this module

    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "mqadmin" / "nsaddr"


def fetch_namesrv_list(
    url: str,
    *,
    timeout: float = 3.0,
    attempts: int = ATTEMPTS,
    verify: ssl.SSLContext | bool = True,
    ttl: float = TTL,
    warn: Callable[[str], None] | None = None,
    parse: Callable[[str], list[str]],
) -> list[str]:
    """The name servers the address server at ``url`` lists (``parse`` checks the ``;`` list)."""
    import hashlib  # only with an address server (every command imports this module)

    cache = cache_dir() / hashlib.sha256(url.encode()).hexdigest()[:24]
    cached = _read_cache(cache)
    if cached is not None and time.time() - cached[0] < ttl:
        return parse(cached[1])
    try:
        body = _get(url, timeout=timeout, attempts=attempts, verify=verify)
        text = body.splitlines()[0].strip() if body.strip() else ""
        if not text:
            raise AddressServerError(url, "answered an empty body (expected 'host:port;host:port')")
        try:
            addrs = parse(text)
        except BadNameServerAddress as e:
            raise AddressServerError(url, f"answered {_snippet(text)}, not a name-server list ({e})") from None
        if not addrs:
            raise AddressServerError(url, f"answered {_snippet(text)}, which lists no name server")
    except AddressServerError as e:
        if cached is None or time.time() - cached[0] > STALE_TTL:
            raise
        age = time.time() - cached[0]
        if warn:
            warn(f"{e}; using the list it gave {age:.0f}s ago")
        return parse(cached[1])
    _write_cache(cache, ";".join(addrs))
    return addrs


def _get(url: str, *, timeout: float, attempts: int, verify: ssl.SSLContext | bool) -> str:
    import httpx

    last = "no attempt"
    with httpx.Client(timeout=timeout, verify=verify, follow_redirects=True, trust_env=False) as client:
        for attempt in range(attempts):
            if attempt:
                time.sleep(BACKOFF * 2 ** (attempt - 1))  # back off before trying again (not synchronisation)
            try:
                with client.stream("GET", url, headers={"Accept": "text/plain"}) as resp:
                    if resp.status_code >= 500:
                        last = f"HTTP {resp.status_code}"
                        continue
                    if resp.status_code != 200:
                        raise AddressServerError(url, f"answered HTTP {resp.status_code} (expected 200)")
                    data = b""
                    for chunk in resp.iter_bytes():
                        data += chunk
                        if len(data) > MAX_BODY:
                            raise AddressServerError(url, f"answered more than {MAX_BODY} bytes")
                    return data.decode("utf-8", "replace")
            except httpx.TimeoutException:
                last = f"no answer within {timeout:g}s"
            except httpx.ConnectError as e:
                last = _connect_reason(e)
                if "CERTIFICATE_VERIFY_FAILED" in str(e):
                    raise AddressServerError(url, last) from None
            except httpx.HTTPError as e:
                last = f"{type(e).__name__}: {e}"
    tries = f"{attempts} attempts" if attempts > 1 else "1 attempt"
    raise AddressServerError(url, f"{last} ({tries})")


def _connect_reason(e: Exception) -> str:
    text = str(e)
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return f"its certificate was not accepted ({text})"
    return f"cannot connect ({text or type(e).__name__})"


def _snippet(text: str, limit: int = 60) -> str:
    short = text if len(text) <= limit else text[:limit] + "…"
    return repr(short)


def _read_cache(path: Path) -> tuple[float, str] | None:
    try:
        stamp, _, value = path.read_text(encoding="utf-8").partition("\n")
        return float(stamp), value.strip()
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _write_cache(path: Path, value: str) -> None:
    import tempfile  # only with an address server: every command imports this module

    with contextlib.suppress(OSError):  # a cache that cannot be written only costs a fetch next time
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".nsaddr.")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{time.time()}\n{value}\n")
        os.replace(tmp, path)
