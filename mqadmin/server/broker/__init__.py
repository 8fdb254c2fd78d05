"""The embedded broker: topic and subscription-group config, admin requests, name-server registration.

The message path (send, pull, offsets, store) is installed by ``messaging.install(broker)``.
"""
