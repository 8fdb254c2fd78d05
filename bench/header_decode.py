"""CPU cost of decoding a SEND_MESSAGE_V2 (310) header as the broker does before its handler runs: the
text check, then the declaration's decode (fields, types, name checks). Side by side with a plain loop
over the declared fields (what a generic decoder does), to show what the generated per-class decoder
(``mqadmin.model.rpc.spec``) saves on the hottest request.

    python bench/header_decode.py [--n 100000]
"""

from __future__ import annotations

import argparse
import time
import timeit
from typing import Any

from mqadmin.model.rpc.messages import SEND_MESSAGE_V2, SendHeaderV2
from mqadmin.model.rpc.spec import RequestRefused
from mqadmin.server.validation import check_text
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.message import encode_properties

PROPS = encode_properties(
    {"UNIQ_KEY": "7F00000100002A9F0000000000000001", "WAIT": "true", "TAGS": "TagA", "KEYS": "k1"}
)
EXT = {
    "a": "PG_BENCH", "b": "BenchTopic", "c": "TBW102", "d": "4", "e": "3", "f": "0", "g": "1700000000000",
    "h": "0", "i": PROPS, "j": "0", "k": "false", "m": "false", "n": "broker-a",
}  # fmt: skip


def loop_decode(ext: dict[str, str]) -> Any:
    """The generic way: one pass over the declared fields, then the dataclass constructor."""
    values: dict[str, Any] = {}
    for f in SendHeaderV2.wire_fields():
        raw = ext.get(f.wire)
        if f.check is not None and raw and (refusal := f.check(raw)) is not None:
            raise RequestRefused.of(refusal)
        if raw is None or (raw == "" and f.kind is not str):
            if f.required:
                raise RequestRefused(f"the custom field <{f.wire}> is null")
            values[f.attr] = f.default
        elif f.kind is bool:
            values[f.attr] = raw.strip().lower() == "true"
        else:
            values[f.attr] = f.kind(raw)
    return SendHeaderV2(**values)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    n = ap.parse_args().n
    cmd = RemotingCommand(310, 1, 0, dict(EXT), body=bytes(1024))
    assert loop_decode(EXT) == SEND_MESSAGE_V2.decode(cmd).header

    def generated() -> None:
        check_text(cmd)
        SEND_MESSAGE_V2.decode(cmd)

    def generic() -> None:
        check_text(cmd)
        loop_decode(cmd.ext)

    timings = dict.fromkeys(("generated decoder", "generic loop"), float("inf"))
    for _ in range(10):  # interleaved, best of each: the machine is shared
        for name, fn in (("generated decoder", generated), ("generic loop", generic)):
            spent = timeit.timeit(fn, number=n // 10, timer=time.process_time)
            timings[name] = min(timings[name], spent / (n // 10) * 1e9)
    for name, ns in timings.items():
        print(f"{name:18} {ns:7.0f} ns CPU per 310 header")
    print(f"ratio generic/generated: {timings['generic loop'] / timings['generated decoder']:.2f}")


if __name__ == "__main__":
    main()
