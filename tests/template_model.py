"""Read template.yaml so tests and fixtures use what is deployed, not a copy of it.

``quota_table_properties()`` gives the moto table the deployed key schema, so the
mock cannot drift from the real table.  Only PyYAML is needed (no cfn-lint, no SAM).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
TEMPLATE_PATH = REPO_ROOT / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    """SafeLoader that turns CloudFormation short tags (!Ref, !Sub, ...) into their long form."""


def _construct_tag(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if tag_suffix == "Ref":
        return {"Ref": value}
    if tag_suffix == "Condition":
        return {"Condition": value}
    if tag_suffix == "GetAtt" and isinstance(value, str):
        resource, _, attribute = value.partition(".")
        return {"Fn::GetAtt": [resource, attribute]}
    return {f"Fn::{tag_suffix}": value}


_CfnLoader.add_multi_constructor("!", _construct_tag)


def load_template(path: Path = TEMPLATE_PATH) -> dict[str, Any]:
    """Parse a CloudFormation/SAM template, intrinsic functions in their long (JSON) form."""
    with path.open(encoding="utf-8") as stream:
        return yaml.load(stream, Loader=_CfnLoader)  # noqa: S506 - SafeLoader subclass


@cache
def _deployed_template() -> dict[str, Any]:
    return load_template()


def quota_table_properties() -> dict[str, Any]:
    """Keyword arguments for boto3 ``create_table`` matching the deployed QuotaTable (add ``TableName``).

    >>> client.create_table(TableName="quota", **quota_table_properties())
    """
    props = _deployed_template()["Resources"]["QuotaTable"]["Properties"]
    return {
        "KeySchema": [
            {"AttributeName": str(k["AttributeName"]), "KeyType": str(k["KeyType"])} for k in props["KeySchema"]
        ],
        "AttributeDefinitions": [
            {"AttributeName": str(a["AttributeName"]), "AttributeType": str(a["AttributeType"])}
            for a in props["AttributeDefinitions"]
        ],
        "BillingMode": str(props["BillingMode"]),
    }


def quota_table_ttl_attribute() -> str:
    """The attribute DynamoDB expires items by (for ``update_time_to_live`` on the mock table)."""
    ttl = _deployed_template()["Resources"]["QuotaTable"]["Properties"]["TimeToLiveSpecification"]
    return str(ttl["AttributeName"])
