"""The servers' frame cutting (mqadmin.server.framing): whatever the chunks a connection's bytes arrive in, the same
frames come out in order, large frames are charged to the budget only while they arrive, and a bad length field
costs the connection."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from mqadmin.server.framing import SMALL_FRAME, FrameBudget, FrameProtocol
from mqadmin.wire.frame import FrameError, RemotingCommand, encode_frame


class Recorder(FrameProtocol):
    def __init__(self, budget: FrameBudget) -> None:
        super().__init__(budget)
        self.frames: list[RemotingCommand] = []
        self.errors: list[Exception] = []

    def frame_received(self, cmd: RemotingCommand) -> None:
        self.frames.append(cmd)

    def bad_input(self, error: Exception) -> None:
        self.errors.append(error)


class FakeTransport:
    def __init__(self) -> None:
        self.closed = False

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


def opened(budget: FrameBudget | None = None) -> tuple[Recorder, FakeTransport]:
    proto, transport = Recorder(budget or FrameBudget(1 << 30)), FakeTransport()
    proto.connection_made(transport)  # type: ignore[arg-type]
    return proto, transport


def requests(bodies: list[bytes]) -> list[bytes]:
    return [
        encode_frame(RemotingCommand(code=10 + i, opaque=i, ext={"topic": f"T{i}"}, body=body))
        for i, body in enumerate(bodies)
    ]


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:], strict=False)]


@settings(max_examples=200, deadline=None)
@given(
    bodies=st.lists(st.binary(max_size=300), min_size=1, max_size=6),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=20),
)
def test_frames_come_out_whole_and_in_order_whatever_the_chunks(bodies: list[bytes], cuts: list[int]) -> None:
    proto, transport = opened()
    for chunk in chunked(b"".join(requests(bodies)), cuts):
        proto.data_received(chunk)
    assert [(f.code, f.opaque, f.ext["topic"], f.body) for f in proto.frames] == [
        (10 + i, i, f"T{i}", body) for i, body in enumerate(bodies)
    ]
    assert not proto.errors and not transport.closed
    assert proto.frame_started == 0.0  # nothing in transit


def test_a_large_frame_is_charged_while_it_arrives_and_released_once_whole() -> None:
    budget = FrameBudget(1 << 30)
    proto, _ = opened(budget)
    (big,) = requests([b"x" * (2 * SMALL_FRAME)])
    proto.data_received(big[:1000])
    assert budget.held == len(big) - 4 and proto.frame_started > 0
    for i in range(1000, len(big), 4096):
        proto.data_received(big[i : i + 4096])
    assert budget.held == 0 and proto.frame_started == 0.0
    assert [f.body for f in proto.frames] == [b"x" * (2 * SMALL_FRAME)]


def test_a_connection_lost_mid_frame_gives_its_charge_back() -> None:
    budget = FrameBudget(1 << 30)
    proto, _ = opened(budget)
    (big,) = requests([b"y" * (2 * SMALL_FRAME)])
    proto.data_received(big[:5000])
    assert budget.held > 0
    proto.connection_lost(None)
    assert budget.held == 0


def test_a_frame_over_the_budget_or_the_length_limit_costs_the_connection() -> None:
    proto, transport = opened(FrameBudget(SMALL_FRAME * 2))
    (big,) = requests([b"z" * (4 * SMALL_FRAME)])
    proto.data_received(big[:100])
    assert transport.closed and isinstance(proto.errors[0], FrameError)

    proto, transport = opened()
    proto.data_received(struct.pack(">i", 1 << 30) + b"\0" * 8)
    assert transport.closed and "frame length" in str(proto.errors[0])
    assert proto.frames == []


def test_frames_after_the_connection_is_closed_are_not_handed_on() -> None:
    class Closing(Recorder):
        def frame_received(self, cmd: RemotingCommand) -> None:
            super().frame_received(cmd)
            self.transport.close()

    proto, transport = Closing(FrameBudget(1 << 30)), FakeTransport()
    proto.connection_made(transport)  # type: ignore[arg-type]
    proto.data_received(b"".join(requests([b"a", b"b"])))
    assert [f.body for f in proto.frames] == [b"a"]
