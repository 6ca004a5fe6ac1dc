"""The SSRF guard refuses every non-public target before any connection (SPEC-011 / CDX-02)."""

from __future__ import annotations

import ipaddress

import pytest

from luma_shared.errors import FetchError, UnsafeUrlError
from luma_shared.guard import UrlGuard, guard_url, is_public_address

PUBLIC = "93.184.216.34"


def resolver_to(*answers: str):  # type: ignore[no-untyped-def]
    """A resolver stand-in that answers every name with ``answers`` and records the calls."""
    calls: list[tuple[str, int]] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append((host, port))
        return list(answers)

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost.:80/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://172.16.5.4/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://255.255.255.255/",
        "http://[::1]/",
        "http://[::]/",
        "http://[fe80::1]/",
        "http://[fc00::1]/",
        "http://[ff02::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[2002:7f00:1::]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://017700000001/",
        "http://127.1/",
        "http://0x7f.0.0.1/",
        "http://0251.0376.0251.0376/",
        "http://192.0.2.1/",
        "http://198.18.0.1/",
    ],
)
def test_non_public_addresses_are_refused(url: str) -> None:
    """GIVEN a URL whose host is (or spells) a non-public address WHEN guarded THEN refused."""
    resolve = resolver_to("127.0.0.1")
    with pytest.raises(UnsafeUrlError):
        guard_url(url, resolver=resolve)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "gopher://x/",
        "ftp://binaric.tech/",
        "https://user:pw@binaric.tech/",
        "https://binaric.tech@127.0.0.1/",
        "https:///nohost",
        "http://bin aric.tech/",
        "https://x.tech:99999/",
        "",
        "https://binaric.tech/" + "a" * 3000,
        "http://binaric.tech/\r\nHost: evil",
    ],
)
def test_bad_schemes_credentials_and_shapes_are_refused(url: str) -> None:
    """GIVEN a non-http(s), credentialed, hostless or malformed URL WHEN guarded THEN refused without resolving."""
    resolve = resolver_to(PUBLIC)
    with pytest.raises(UnsafeUrlError):
        guard_url(url, resolver=resolve)
    assert resolve.calls == []  # type: ignore[attr-defined]


def test_name_resolving_to_private_address_is_refused() -> None:
    """GIVEN a public-looking name whose DNS answers include a private address WHEN guarded THEN refused."""
    with pytest.raises(UnsafeUrlError):
        guard_url("https://binaric.tech/search-index.json", resolver=resolver_to(PUBLIC, "10.1.2.3"))


def test_public_name_is_pinned_to_the_vetted_address() -> None:
    """GIVEN a name resolving to a public address WHEN guarded THEN the connection URL uses that address."""
    vetted = guard_url("https://binaric.tech/search-index.json?v=1", resolver=resolver_to(PUBLIC))
    assert vetted.address == PUBLIC
    assert vetted.connect_url == f"https://{PUBLIC}:443/search-index.json?v=1"
    assert vetted.host_header == "binaric.tech"


def test_ipv6_public_address_is_bracketed() -> None:
    """GIVEN a public IPv6 answer WHEN pinned THEN the connect URL brackets it."""
    vetted = guard_url("https://binaric.tech:8443/x", resolver=resolver_to("2606:4700::1111"))
    assert vetted.connect_url == "https://[2606:4700::1111]:8443/x"
    assert vetted.host_header == "binaric.tech:8443"


def test_allow_list_exempts_exact_host_and_port_only() -> None:
    """GIVEN GUARD_ALLOW_HOSTS=127.0.0.1:8123 WHEN guarded THEN that pair passes and its neighbours do not."""
    guard = UrlGuard(frozenset({"127.0.0.1:8123"}), resolver_to("127.0.0.1"))
    assert guard.check("http://127.0.0.1:8123/i.json").address == "127.0.0.1"
    with pytest.raises(UnsafeUrlError):
        guard.check("http://127.0.0.1:8124/i.json")
    with pytest.raises(UnsafeUrlError):
        guard.check("http://169.254.169.254/")


def test_unresolvable_name_is_a_fetch_error() -> None:
    """GIVEN a name with no DNS answer WHEN guarded THEN a FetchError, not a crash."""
    with pytest.raises(FetchError):
        guard_url("https://nothing.invalid/", resolver=resolver_to())


def test_resolver_garbage_is_refused() -> None:
    """GIVEN a resolver that returns something that is not an address WHEN guarded THEN refused."""
    with pytest.raises(UnsafeUrlError):
        guard_url("https://binaric.tech/", resolver=resolver_to("not-an-ip"))


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700::1111", True),
        ("::ffff:8.8.8.8", True),
        ("64:ff9b::808:808", True),
        ("fe80::1%eth0", False),
        ("100.100.100.200", False),
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    """GIVEN an address WHEN classified THEN only globally routable unicast is public, wrappers looked into."""
    assert is_public_address(ipaddress.ip_address(address)) is public
