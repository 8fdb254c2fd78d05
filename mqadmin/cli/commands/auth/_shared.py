"""What the user and ACL commands share: their options, where they send (Java's targets), passwords that
never appear on screen, per-broker rows of users and ACLs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, TypedDict

from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.model.auth import AclInfo, UserInfo

UsernameOpt = Annotated[str, Option("-u", "--username", metavar="USER", help="User name.")]
SubjectOpt = Annotated[str, Option("-s", "--subject", metavar="User:NAME", help="The ACL's subject.")]
DryRunOpt = Annotated[bool, Option("--dry-run", help="Show what would be deleted; change nothing.")]
PasswordOpt = Annotated[
    str | None,
    Option("-p", "--password", metavar="PASSWORD", help="Password (lands in shell history: prefer the next)."),
]
PasswordFileOpt = Annotated[
    str | None, Option("--password-file", metavar="FILE", help="Read the password from FILE's first line.")
]
PasswordStdinOpt = Annotated[bool, Option("--password-stdin", help="Read the password from stdin's first line.")]
FromBrokerOpt = Annotated[str, Option("-f", "--fromBroker", metavar="HOST:PORT", help="Broker to copy from.")]
ToBrokerOpt = Annotated[str, Option("-t", "--toBroker", metavar="HOST:PORT", help="Broker to copy to.")]


def password(value: str | None, file: str | None, stdin: bool, *, required: bool, confirm: bool) -> str | None:
    """The password from -p, --password-file or --password-stdin (one of them), else asked on the terminal
    without echo when ``required``. Never printed, never in an error message."""
    from mqadmin.cli.render import warn
    from mqadmin.cli.secret_sources import prompt_secret, read_secret_file, read_stdin_secret

    given = [n for n, v in (("-p", value), ("--password-file", file), ("--password-stdin", stdin)) if v]
    if len(given) > 1:
        raise usage_error(f"give the password once ({' and '.join(given)} were given)")
    if value is not None:
        if not value.strip():
            raise usage_error("-p is empty", "give a password")
        warn("-p puts the password in your shell history; --password-file FILE or the prompt keep it out")
        return value.strip()  # Java trims it
    if file:
        return read_secret_file(file, "password")
    if stdin:
        return read_stdin_secret("password")
    return prompt_secret("password", confirm=confirm) if required else None


def checked(check: Callable[[str], str], value: str, option: str) -> str:
    """``check(value)``, a ValueError becoming a usage error naming the option."""
    try:
        return check(value)
    except ValueError as e:
        raise usage_error(f"{option}: {e}") from None


class UserDoc(TypedDict):
    """A user, never its password."""

    username: str
    userType: Annotated[str | None, "Super or Normal"]
    userStatus: Annotated[str | None, "enable or disable"]


class AclEntryDoc(TypedDict):
    resource: Annotated[str, "Topic:NAME, Group:NAME, Cluster:NAME, Namespace:NAME or *, with * patterns"]
    actions: Annotated[list[str], "Pub, Sub, Create, Update, Delete, Get, List, All"]
    sourceIps: list[str]
    decision: Annotated[str, "Allow or Deny"]


class AclPolicyDoc(TypedDict):
    policyType: Annotated[str | None, "Custom or Default"]
    entries: list[AclEntryDoc]


class AclDoc(TypedDict):
    subject: Annotated[str, "User:NAME"]
    policies: list[AclPolicyDoc]


class AuthReadDoc(TypedDict):
    """What one broker answered (its own users and ACLs)."""

    broker: str
    addr: str
    user: NotRequired[Annotated[UserDoc | None, "getUser (null: no such user, or failed)"]]
    users: NotRequired[Annotated[list[UserDoc], "listUser"]]
    acl: NotRequired[Annotated[AclDoc | None, "getAcl (null: no ACL for the subject, or failed)"]]
    acls: NotRequired[Annotated[list[AclDoc], "listAcl"]]
    error: Annotated[str | None, "why the broker could not be read (null: it was)"]


class AuthReadsDoc(TypedDict):
    brokers: Annotated[list[AuthReadDoc], "each broker asked (-c: every master)"]


class UserChangeDoc(TypedDict):
    """createUser, updateUser, deleteUser."""

    username: str
    userType: NotRequired[Annotated[str | None, "createUser -t: Super or Normal (null: the broker's default)"]]
    dryRun: NotRequired[Annotated[bool, "deleteUser"]]
    results: Annotated[list[TargetResultDoc], "each broker (-c: every address of the cluster)"]
    outcome: Outcome


class AclChangeDoc(TypedDict):
    """createAcl, updateAcl, deleteAcl."""

    subject: str
    resource: NotRequired[Annotated[str | None, "deleteAcl -r (null: every resource)"]]
    dryRun: NotRequired[Annotated[bool, "deleteAcl"]]
    results: Annotated[list[TargetResultDoc], "each broker (-c: every address of the cluster)"]
    outcome: Outcome


class AuthCopyDoc(TypedDict):
    """copyUser, copyAcl: one row per user or subject copied."""

    fromBroker: str
    toBroker: str
    results: Annotated[list[TargetResultDoc], "name: the user or subject"]
    outcome: Outcome


async def auth_targets(
    admin: AdminClient, broker_addr: str | None, cluster: str | None, *, every_address: bool
) -> list[Target]:
    """``-b`` that broker (a slave too), or ``-c`` every address of the cluster (changes: each broker keeps its
    own users and ACLs) or every master (reads), as Java mqadmin does."""
    from mqadmin.admin.fanout import every_address as all_addrs
    from mqadmin.admin.fanout import masters
    from mqadmin.cli.runner import broker_targets

    if cluster:
        brokers = await admin.cluster_brokers(cluster)
        return all_addrs(brokers) if every_address else masters(brokers)
    return await broker_targets(admin, broker_addr, None, masters_only=False)


def print_changes(results: Sequence[TargetResult], what: str, kind: str = "BROKER", **fields: Any) -> None:
    """The per-target rows of a change (and its JSON document), then the exit code."""
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json

    if json_output():
        print_json(results_json(results, **fields))
    else:
        print_results(results, kind)
    exit_for_results(results, what)


# --- reads: one row set per broker -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Read:
    """What one broker answered to a read (``value``), or why it could not (``error``)."""

    target: Target
    value: Any
    error: str | None
    cause: Exception | None = None
    """The failure ``error`` describes."""


async def read_each(targets: list[Target], op: Callable[[str], Awaitable[Any]]) -> list[Read]:
    from mqadmin.admin import Status, TargetResult, fan_out

    async def one(t: Target) -> TargetResult:
        return TargetResult(t.name, t.addr, Status.OK, data=await op(t.addr))

    results = await fan_out(targets, one)
    return [Read(t, r.data, r.reason, r.error) for t, r in zip(targets, results, strict=True)]


def user_json(user: UserInfo) -> UserDoc:
    """A user as mqadmin shows it: never its password."""
    return {"username": user.username, "userType": user.user_type, "userStatus": user.user_status}


def acl_json(acl: AclInfo) -> AclDoc:
    return {
        "subject": acl.subject,
        "policies": [
            {
                "policyType": p.policy_type,
                "entries": [
                    {"resource": e.resource, "actions": list(e.actions), "sourceIps": list(e.source_ips),
                     "decision": e.decision}
                    for e in p.entries
                ],
            }
            for p in acl.policies
        ],
    }  # fmt: skip


def broker_json(read: Read, key: str, value: Any) -> dict[str, Any]:
    return {"broker": read.target.name, "addr": read.target.addr, key: value, "error": read.error}


def print_user_reads(reads: Sequence[Read]) -> None:
    from mqadmin.cli.render import Column, print_table

    rows = [
        (r.target.name, r.target.addr, u.username, u.user_type or "", u.user_status or "")
        for r in reads
        for u in (r.value or [])
    ]
    print_table([Column("BROKER"), Column("ADDRESS"), Column("USER"), Column("TYPE"), Column("STATUS")], rows)
    _print_read_errors(reads)


def print_acl_reads(reads: Sequence[Read]) -> None:
    from mqadmin.cli.render import Column, print_table

    rows = []
    for r in reads:
        for acl in r.value or []:
            for subject, policy, e in acl.rows():
                entry = (e.resource, ",".join(e.actions), ",".join(e.source_ips), e.decision) if e else ("",) * 4
                rows.append((r.target.name, r.target.addr, subject, policy, *entry))
    headers = ("BROKER", "ADDRESS", "SUBJECT", "POLICY", "RESOURCE", "ACTIONS", "SOURCE IPS", "DECISION")
    print_table([Column(h) for h in headers], rows)
    _print_read_errors(reads)


def _print_read_errors(reads: Sequence[Read]) -> None:
    from mqadmin.cli.render import warn

    for r in reads:
        if r.error:
            warn(f"{r.target.name or '?'} {r.target.addr}: {r.error}")


def exit_for_reads(reads: Sequence[Read], what: str) -> None:
    from mqadmin.admin import Status, TargetResult
    from mqadmin.cli.runner import exit_for_results

    results = [
        TargetResult(r.target.name, r.target.addr, Status.FAILED if r.error else Status.OK, r.error, error=r.cause)
        for r in reads
    ]
    exit_for_results(results, what)


def show_reads(
    namesrv: str | None,
    broker_addr: str | None,
    cluster: str | None,
    op: Callable[[AdminClient, str], Awaitable[Any]],
    *,
    key: str,
    item_json: Callable[[Any], Any],
    users: bool,
    what: str,
) -> list[Read]:
    """A read on ``-b`` or every master of ``-c``: one JSON entry (``key``: what the broker holds) or table rows
    per broker, a warning per broker that failed, then the exit code. ``op`` answers one item (or None) when
    ``key`` is singular (``user``, ``acl``), else a list."""
    from dataclasses import replace

    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import run_admin

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[Read]:
        targets = await auth_targets(admin, broker_addr, cluster, every_address=False)
        return await read_each(targets, lambda addr: op(admin, addr))

    reads = run_admin(namesrv, go)
    single = not key.endswith("s")
    if json_output():
        entries = []
        for r in reads:
            if single:
                entries.append(broker_json(r, key, item_json(r.value) if r.value else None))
            else:
                entries.append(broker_json(r, key, [item_json(x) for x in r.value or []]))
        print_json({"brokers": entries})
    else:
        rows = [replace(r, value=[r.value] if r.value else []) for r in reads] if single else reads
        (print_user_reads if users else print_acl_reads)(rows)
    exit_for_reads(reads, what)
    return reads
