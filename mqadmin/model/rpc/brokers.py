"""Broker-wide requests: its config and runtime information."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.rpc.bodies import KV_TABLE, PROPERTIES
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigVersionHeader(Header):
    version: str | None = wire("version", None)
    """The broker config's DataVersion as JSON."""


GET_BROKER_CONFIG = Rpc(
    C.GET_BROKER_CONFIG, "GET_BROKER_CONFIG", response_header=ConfigVersionHeader, response_body=PROPERTIES,
    summary="the broker's config as properties",
)  # fmt: skip
UPDATE_BROKER_CONFIG = Rpc(
    C.UPDATE_BROKER_CONFIG, "UPDATE_BROKER_CONFIG", body=PROPERTIES, summary="change broker config keys at run time"
)
GET_BROKER_RUNTIME_INFO = Rpc(
    C.GET_BROKER_RUNTIME_INFO, "GET_BROKER_RUNTIME_INFO", response_body=KV_TABLE,
    summary="version, TPS, offsets, disk and thread-pool figures",
)  # fmt: skip
