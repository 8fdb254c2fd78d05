"""The embedded broker. ``broker.Broker`` builds its parts (config tables, message store, clients,
registration), serves every request by its declaration in ``Broker._serve`` and runs their life cycle;
each request processor works with ``brokerstore.BrokerParts``, never with the Broker.
"""
