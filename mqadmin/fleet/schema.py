"""The fleet export format, version 3: the tables, their columns and what each column means.

An export is a directory holding one gzip JSON Lines table per entity and ``manifest.json``
(see ``mqadmin.fleet.manifest``). ``docs/fleet-schema.md`` is the prose version of this module;
``tests/fleet/test_schema.py`` keeps the two, and the audit job's Spark schemas, in step.

A *source* is one entry of the fleet: a set of name servers, named in the fleet file (or, with
``-n``, by its address list). One source can serve several RocketMQ clusters, and two sources can
both have a cluster called ``DefaultCluster``, so every row carries ``source`` and ``cluster``.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 3
"""3: the tables' columns in camelCase; 2: manifest.json's keys in camelCase; 1: both snake_case. Every version reads
(``mqadmin.audit.job.SNAKE_COLUMNS`` renames an older export's columns)."""
KIND = "mqadmin-fleet-export"


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str  # string | int | long | bool | map<string,string>
    doc: str
    nullable: bool = False


_SOURCE = Column("source", "string", "fleet entry (name-server set) the row came from")
_CLUSTER = Column("cluster", "string", "RocketMQ cluster name, as the name server reports it")
_BROKER = Column("brokerName", "string", "broker name (shared by a master and its slaves)")

TABLES: dict[str, tuple[Column, ...]] = {
    "clusters": (
        _SOURCE,
        _CLUSTER,
        Column("namesrv", "string", "the source's name servers, mqadmin -n form: host:port;host:port"),
    ),
    "brokers": (
        _SOURCE,
        _CLUSTER,
        _BROKER,
        Column("brokerId", "long", "0 for the master, >0 for slaves"),
        Column("addr", "string", "host:port the broker registered"),
        Column("role", "string", "master or slave"),
        Column("brokerPermission", "int", "brokerPermission from the broker's config (masters; null if unknown)", True),
        Column("topicsOk", "bool", "the broker's topic configs were collected (masters only)"),
        Column("groupsOk", "bool", "the broker's subscription groups were collected (masters only)"),
    ),
    "topics": (
        _SOURCE,
        _CLUSTER,
        _BROKER,
        Column("topic", "string", "topic name"),
        Column("readQueueNums", "int", "readQueueNums on this broker"),
        Column("writeQueueNums", "int", "writeQueueNums on this broker"),
        Column("perm", "int", "permission bits on this broker: 4 read, 2 write, 1 inherit"),
        Column("order", "bool", "the broker's order flag for the topic"),
        Column("topicSysFlag", "int", "topicSysFlag"),
        Column("topicFilterType", "string", "SINGLE_TAG or MULTI_TAG"),
        Column("attributes", "map<string,string>", "5.x topic attributes ({} on 4.9)"),
    ),
    "groups": (
        _SOURCE,
        _CLUSTER,
        _BROKER,
        Column("group", "string", "subscription group name"),
        Column("consumeEnable", "bool", "consumeEnable"),
        Column("consumeMessageOrderly", "bool", "consumeMessageOrderly"),
        Column("consumeBroadcastEnable", "bool", "consumeBroadcastEnable"),
        Column("retryQueueNums", "int", "retryQueueNums"),
        Column("retryMaxTimes", "int", "retryMaxTimes"),
    ),
    "consumer_lag": (
        _SOURCE,
        _CLUSTER,
        _BROKER,
        Column("group", "string", "consumer group"),
        Column("topic", "string", "topic the group consumes on this broker"),
        Column("lag", "long", "sum over the broker's queues of brokerOffset - consumerOffset"),
        Column("queues", "int", "number of queues summed"),
    ),
    "order_conf": (
        _SOURCE,
        Column("topic", "string", "topic name (the KV key in namespace ORDER_TOPIC_CONFIG)"),
        Column("orderConf", "string", "the raw value, brokerName:queueNums;brokerName:queueNums"),
    ),
}


def column_names(table: str) -> list[str]:
    return [c.name for c in TABLES[table]]
