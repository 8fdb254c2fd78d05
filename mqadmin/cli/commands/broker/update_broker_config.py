"""updateBrokerConfig: change one config key on one broker or on every master (or broker) of a cluster,
showing old → new on each."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.namesrv._shared import config_key, config_value
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import SettingDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "updateBrokerConfig",
    "mqadmin updateBrokerConfig -b 127.0.0.1:10911 -k maxMessageSize -v 8388608",
    "mqadmin updateBrokerConfig -c DefaultCluster -a true -k slaveReadEnable -v true   # slaves too",
    blocking=True,
    document=SettingDoc,
)
def update_broker_config(
    key: Annotated[str, Option("-k", "--key", metavar="KEY", help="Config key.")],
    value: Annotated[str, Option("-v", "--value", metavar="VALUE", help="New value.")],
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    all_brokers: Annotated[
        str | None,
        Option(
            "-a",
            "--updateAllBroker",
            metavar="true|false",
            help="With -c: the slaves too (Java's -a takes a value).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Change one config key (UPDATE_BROKER_CONFIG) on one broker (-b) or on every master of a cluster (-c;
    with -a true its slaves too), concurrently.

    Each broker's config is read before and after: it reports updated (old→new), unchanged (already that
    value; nothing sent) or failed with the reason: the broker's answer for a refused key (brokerConfigPath,
    rocketmqHome, configBlackList…: NO_PERMISSION), "unknown key" for a key the broker does not have (Java
    mqadmin reports success and nothing changes), or "not applied" for a value the broker did not take. Keys
    a broker reads only at start-up change in its config but take effect after a restart.
    """
    from mqadmin.cli.commands.broker._shared import brokers
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)
    key, value = config_key(key), config_value(value)
    slaves = bool(parse_bool(all_brokers, "-a"))
    if slaves and broker_addr:
        raise usage_error("-a (slaves too) goes with -c", "with -b only that broker is changed; drop -a")

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await brokers(admin, broker_addr, cluster, slaves=slaves)
        return await admin.update_broker_config_on(targets, key, value)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, key=key, value=value))
    else:
        print_results(results)
    exit_for_results(results, f"updateBrokerConfig {key}")
