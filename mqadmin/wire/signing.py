"""ACL request signing (AclClientRPCHook, 4.9.4+ and 5.x; also ACL 2.0 in 5.3): the client signs with it
(``mqadmin.transport.tcp``), the embedded servers verify with it (``mqadmin.server.auth``)."""

from __future__ import annotations

import base64
import hashlib
import hmac


def sign(ext: dict[str, str], body: bytes, secret_key: str) -> str:
    """Base64(HMAC-SHA1(secret, values of the ext fields sorted by key, then the body)).

    Keys sort in Java String order, which for the ASCII names used is code-point order
    (``sorted`` in Python); ``Signature`` itself is left out.
    """
    content = "".join(v for k, v in sorted(ext.items(), key=lambda kv: _java_key(kv[0])) if k != "Signature")
    mac = hmac.new(secret_key.encode(), content.encode() + body, hashlib.sha1)
    return base64.b64encode(mac.digest()).decode()


def _java_key(key: str) -> list[int]:
    # Java compares UTF-16 code units; the same as code points outside the astral planes.
    return list(key.encode("utf-16-be"))


def signed_ext(
    ext: dict[str, str], body: bytes, access_key: str, secret_key: str, security_token: str | None = None
) -> dict[str, str]:
    out = dict(ext)
    out["AccessKey"] = access_key
    if security_token:
        out["SecurityToken"] = security_token
    out["Signature"] = sign(out, body, secret_key)
    return out
