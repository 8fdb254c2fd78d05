"""Subscription-group requests the embedded broker answers, as a 5.5 broker does: create or update one group
(200) or many (225), read all (201) or one (352, creating a missing group when autoCreateSubscriptionGroup
is on, as Java's findSubscriptionGroupConfig does), delete (207, with cleanOffset the offsets too).

Attribute operations are applied as Java's AttributeUtil does (``+k`` only on create, ``-k`` only for a key
the group has, only the keys 5.5 knows), group by group: a list stops at the first group refused, keeping
the ones before it, as Apache's does (tests/conformance/test_batch_parity.py).
"""

from __future__ import annotations

from typing import Any

from mqadmin.model.group import GROUP_ATTRIBUTES, GroupWrite, SubscriptionGroupConfig
from mqadmin.model.names import group_refusal
from mqadmin.model.rpc import Decoded, RequestRefused
from mqadmin.model.rpc import groups as rpc
from mqadmin.server.broker.admin import SLAVE_REFUSAL
from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand


def apply_attribute_ops(create: bool, current: dict[str, str], ops: dict[str, str | None]) -> dict[str, str]:
    """``current`` with the operations applied; ValueError with Java's message for an unacceptable one."""
    out = dict(current)
    for key, value in ops.items():
        if create and value is None:
            raise ValueError(f"only add attribute is supported while creating topic. key: {key}")
        if value is None and key not in current:
            raise ValueError(f"attempt to delete a nonexistent key: {key}")
        known = GROUP_ATTRIBUTES.get(key)
        if known is None:
            raise ValueError(f"unsupported key: {key}")
        if value is None:
            out.pop(key, None)
        elif not known[0](value):
            raise ValueError(f"attribute {key}={value!r} is not valid: must be {known[1]}")
        else:
            out[key] = value
    return out


class GroupAdmin(Processor):
    def _final(self, write: GroupWrite) -> SubscriptionGroupConfig:
        """The config to store for one write; ``RequestRefused`` when it must not be."""
        cfg = write.config  # its name was checked by the declaration
        current = self.groups.get(cfg.group_name)
        held = SubscriptionGroupConfig.from_json(current).attributes if current is not None else {}
        try:
            return cfg.with_(attributes=apply_attribute_ops(current is None, held, write.attribute_ops))
        except ValueError as e:
            raise RequestRefused(str(e)) from None

    async def _store(self, cmd: RemotingCommand, writes: list[GroupWrite]) -> RemotingCommand:
        if self.config.broker_id != 0:
            return cmd.response(ResponseCode.SYSTEM_ERROR, SLAVE_REFUSAL)
        finals: list[dict[str, Any]] = []
        answer = cmd.response(ResponseCode.SUCCESS)
        for write in writes:  # in order: as Apache's, the groups before a refused one are kept
            try:
                finals.append(self._final(write).to_json())
            except RequestRefused as e:
                answer = cmd.response(e.code, e.remark)
                break
        if finals:
            await self.groups.update_many(finals)
        return answer

    async def update(self, req: Decoded[None, GroupWrite | None], ch: ClientChannel) -> RemotingCommand:
        if req.body is None:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, "bad SubscriptionGroupConfig body: empty")
        return await self._store(req.cmd, [req.body])

    async def update_list(self, req: Decoded[None, list[GroupWrite] | None], ch: ClientChannel) -> RemotingCommand:
        return await self._store(req.cmd, req.body or [])

    async def get_all(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        return req.cmd.response(ResponseCode.SUCCESS, body=await self.groups.wrapper_body())

    async def get_one(self, req: Decoded[rpc.GetGroupConfigHeader, None], ch: ClientChannel) -> RemotingCommand:
        group = req.header.group
        found = None if group_refusal(group) else await self.groups.find_or_create(group)
        if found is None:
            return req.cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "No group in this broker")
        return req.cmd.response(ResponseCode.SUCCESS, body=fastjson.dumps_bytes(found))

    async def delete(self, req: Decoded[rpc.DeleteGroupHeader, None], ch: ClientChannel) -> RemotingCommand:
        if self.config.broker_id != 0:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, SLAVE_REFUSAL)
        group = req.header.group_name
        await self.groups.delete(group)
        if req.header.clean_offset:
            self.offsets.delete_group(group)
        return req.cmd.response(ResponseCode.SUCCESS)
