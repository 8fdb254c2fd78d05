"""Static-topic requests a 5.x broker answers: create or update a topic together with its logic-queue
mapping. (The current mapping is read with GET_TOPIC_CONFIG and ``lo=true``, declared in ``topics``.)"""

from __future__ import annotations

from mqadmin.model.rpc.bodies import JsonBody
from mqadmin.model.rpc.spec import Rpc
from mqadmin.model.rpc.topics import CreateTopicHeader
from mqadmin.model.static_topic import TopicQueueMappingDetail

UPDATE_AND_CREATE_STATIC_TOPIC_CODE = 513

MAPPING_DETAIL = JsonBody("TopicQueueMappingDetail", TopicQueueMappingDetail.from_json, TopicQueueMappingDetail.to_json)

UPDATE_AND_CREATE_STATIC_TOPIC = Rpc(
    UPDATE_AND_CREATE_STATIC_TOPIC_CODE, "UPDATE_AND_CREATE_STATIC_TOPIC", CreateTopicHeader, body=MAPPING_DETAIL,
    summary="create or update a static topic and this broker's logic-queue mapping (5.0+)",
)  # fmt: skip
