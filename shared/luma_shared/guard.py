"""SSRF guard: decide whether a URL may be fetched, and pin the address to connect to.

The guard runs before any network call. It accepts only http(s) URLs without
credentials, resolves the host once, refuses every non-public address (in any
spelling: decimal, octal, hex or short IPv4; IPv4-mapped, 6to4, Teredo and NAT64
IPv6) and returns the vetted address so the connection goes exactly there:
a DNS answer that changes between check and connect cannot redirect it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from luma_shared.errors import FetchError, UnsafeUrlError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Iterable[str]]

_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_URL_LENGTH = 2048


def system_resolver(host: str, port: int) -> list[str]:
    """Resolve ``host`` with the system resolver (every A/AAAA answer)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise FetchError("the host name could not be resolved") from e
    return [str(info[4][0]) for info in infos]


def is_public_address(ip: IPAddress) -> bool:
    """True only for globally routable unicast addresses, looking inside IPv6 wrappers."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and any(ip in net for net in _NAT64):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public_address(embedded)
        if ip.teredo is not None or ip.scope_id:
            return False
    return ip.is_global and not (
        ip.is_multicast or ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or ip.is_unspecified
    )


def _literal_address(host: str) -> IPAddress | None:
    """The address a host spells directly, in any notation the C library accepts."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:
        # inet_aton takes 2130706433, 0x7f.1, 0177.0.0.1, 127.1 ... exactly what
        # getaddrinfo would silently turn into an address.
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class VettedURL:
    """A URL that passed the guard, with the one address the connection must use."""

    url: str
    scheme: str
    host: str
    port: int
    address: str
    target: str  # path and query, as sent on the request line

    @property
    def host_header(self) -> str:
        """The Host header value: the name, with the port when it is not the default."""
        return self.host if self.port == _DEFAULT_PORTS[self.scheme] else f"{self.host}:{self.port}"

    @property
    def connect_url(self) -> str:
        """The URL with the vetted address in place of the name."""
        address = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{address}:{self.port}{self.target}"


@dataclass(frozen=True, slots=True)
class UrlGuard:
    """The SSRF guard with its two knobs: a local allow-list and the resolver."""

    allow_hosts: frozenset[str] = frozenset()
    resolver: Resolver = system_resolver

    def check(self, url: str) -> VettedURL:
        """Vet ``url`` or raise ``UnsafeUrlError``; resolution failures raise ``FetchError``."""
        if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
            raise UnsafeUrlError("refused URL: empty or too long")
        if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
            raise UnsafeUrlError("refused URL: it contains whitespace or control characters")
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise UnsafeUrlError("refused URL: it cannot be parsed") from None
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS:
            raise UnsafeUrlError("refused URL: only http and https are allowed")
        if "@" in parts.netloc:
            raise UnsafeUrlError("refused URL: credentials in URLs are not allowed")
        host = (parts.hostname or "").rstrip(".")
        if not host:
            raise UnsafeUrlError("refused URL: it has no host")
        try:
            host = host.encode("idna").decode("ascii") if not host.isascii() else host
        except UnicodeError:
            raise UnsafeUrlError("refused URL: the host name is not valid") from None
        port = port if port is not None else _DEFAULT_PORTS[scheme]
        target = parts.path or "/"
        if parts.query:
            target = f"{target}?{parts.query}"
        allowed = f"{host}:{port}" in self.allow_hosts

        literal = _literal_address(host)
        if literal is not None:
            addresses: list[IPAddress] = [literal]
        else:
            addresses = []
            for answer in self.resolver(host, port):
                try:
                    addresses.append(ipaddress.ip_address(answer))
                except ValueError:
                    raise UnsafeUrlError("refused URL: the resolver returned a non-address") from None
            if not addresses:
                raise FetchError("the host name could not be resolved")
        if not allowed and not all(is_public_address(a) for a in addresses):
            raise UnsafeUrlError("refused URL: it points at a private, loopback or reserved address")
        return VettedURL(
            url=url,
            scheme=scheme,
            host=host,
            port=port,
            address=str(addresses[0]),
            target=target,
        )


def guard_url(
    url: str, *, allow_hosts: frozenset[str] = frozenset(), resolver: Resolver = system_resolver
) -> VettedURL:
    """Vet ``url`` with a one-off guard (see ``UrlGuard.check``)."""
    return UrlGuard(allow_hosts, resolver).check(url)
