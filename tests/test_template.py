"""Guard-rails on template.yaml: runtime, auth, configuration wiring, least privilege, quota table.

The template is parsed with PyYAML (CloudFormation tags turned into their long form) and the
few intrinsic functions it uses are evaluated here, so IAM statements are checked for concrete
parameter values (for example with and without a leading slash on the SSM parameter name).
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.template_model import REPO_ROOT, load_template, quota_table_properties, quota_table_ttl_attribute

TEMPLATE = load_template()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
PARAMETERS: dict[str, Any] = TEMPLATE["Parameters"]
FUNCTIONS = ("CodexFunction", "WebFunction")
TABLE_ARN = {"Fn::GetAtt": ["QuotaTable", "Arn"]}
PSEUDO = {"AWS::Partition": "aws", "AWS::Region": "eu-west-1", "AWS::AccountId": "123456789012"}

# Environment variable -> Parameter feeding it, per function (what the code reads as configuration).
CONFIG_ENV = {
    "CodexFunction": {
        "ENABLE_CODEX": "EnableCodex",
        "CODEX_INDEX_URL": "CodexIndexUrl",
        "CODEX_MAX_BYTES": "CodexMaxBytes",
        "CODEX_CACHE_TTL": "CodexCacheTtl",
        "CODEX_SUMMARY_CHARS": "CodexSummaryChars",
        "CODEX_DAILY_PER_USER": "CodexDailyPerUser",
    },
    "WebFunction": {
        "ENABLE_WEB_SEARCH": "EnableWebSearch",
        "EXA_API_KEY_PARAMETER": "ExaApiKeyParameter",
        "WEB_SNIPPET_CHARS": "WebSnippetChars",
        "WEB_DAILY_PER_USER": "WebDailyPerUser",
        "EXA_BASE_URL": "ExaBaseUrl",
    },
}
FIXED_ENV = {
    "CodexFunction": {"POWERTOOLS_SERVICE_NAME": "codex", "POWERTOOLS_METRICS_NAMESPACE": "Luma"},
    "WebFunction": {"POWERTOOLS_SERVICE_NAME": "web", "POWERTOOLS_METRICS_NAMESPACE": "Luma"},
}
# Parameter -> the properties it must declare (type, default, bounds).
PARAMETER_SPECS: dict[str, dict[str, Any]] = {
    "EnableCodex": {"Type": "String", "Default": "false", "AllowedValues": ["true", "false"]},
    "CodexIndexUrl": {"Type": "String", "Default": "https://binaric.tech/search-index.json"},
    "CodexMaxBytes": {"Type": "Number", "Default": 4194304, "MinValue": 1, "MaxValue": 67108864},
    "CodexCacheTtl": {"Type": "Number", "Default": 3600, "MinValue": 0, "MaxValue": 604800},
    "CodexSummaryChars": {"Type": "Number", "Default": 500, "MinValue": 1, "MaxValue": 4000},
    "CodexDailyPerUser": {"Type": "Number", "Default": 50, "MinValue": 0},
    "EnableWebSearch": {"Type": "String", "Default": "false", "AllowedValues": ["true", "false"]},
    "ExaApiKeyParameter": {"Type": "String", "Default": ""},
    "WebSnippetChars": {"Type": "Number", "Default": 400, "MinValue": 1, "MaxValue": 2000},
    "WebDailyPerUser": {"Type": "Number", "Default": 30, "MinValue": 0},
    "ExaBaseUrl": {"Type": "String", "Default": "https://api.exa.ai"},
}
# Read by the code but never set by the deployed template: the guard's loopback allow-list for local
# testing, and a plaintext Exa key for local runs (deployed, the key comes from SSM).
LOCAL_ONLY_ENV = frozenset({"GUARD_ALLOW_HOSTS", "EXA_API_KEY"})
ENV_READ = re.compile(
    r"""(?:\benv_\w+\(\s*\w+\s*,\s*|environ\.get\(\s*|environ\[\s*|getenv\(\s*|\benv\.get\(\s*|\benv\[\s*)"""
    r"""["']([A-Z][A-Z0-9_]*)["']"""
)


# --- a tiny evaluator for the intrinsic functions the template uses ---------------------------

_NO_VALUE = object()


def _param_values(overrides: Mapping[str, str]) -> dict[str, str]:
    values = {name: str(spec.get("Default", "")) for name, spec in PARAMETERS.items()}
    values.update(overrides)
    values.update(PSEUDO)
    return values


def _condition(name: str, params: Mapping[str, str]) -> bool:
    return bool(_resolve(TEMPLATE["Conditions"][name], params))


def _resolve(node: Any, params: Mapping[str, str]) -> Any:
    """Evaluate Ref/Sub/Join/Split/If/Not/Equals for concrete parameters; keep Fn::GetAtt as is."""
    if isinstance(node, list):
        return [v for v in (_resolve(item, params) for item in node) if v is not _NO_VALUE]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((key, arg),) = node.items()
        if key == "Ref":
            if arg == "AWS::NoValue":
                return _NO_VALUE
            return params.get(arg, node)  # resource refs stay symbolic
        if key == "Fn::Sub":
            assert isinstance(arg, str), "only the string form of Fn::Sub is evaluated"
            return re.sub(r"\$\{([^}!]+)\}", lambda m: params[m.group(1)], arg)
        if key == "Fn::Join":
            return arg[0].join(_resolve(arg[1], params))
        if key == "Fn::Split":
            return _resolve(arg[1], params).split(arg[0])
        if key == "Fn::Equals":
            left, right = _resolve(arg, params)
            return left == right
        if key == "Fn::Not":
            return not _resolve(arg[0], params)
        if key == "Fn::If":
            return _resolve(arg[1] if _condition(arg[0], params) else arg[2], params)
        if key == "Fn::GetAtt":
            return node
    return {k: v for k, v in ((k, _resolve(v, params)) for k, v in node.items()) if v is not _NO_VALUE}


def _statements(function: str, **parameters: str) -> list[dict[str, Any]]:
    """Every IAM statement of the function's inline policies, for the given parameter values."""
    policies = RESOURCES[function]["Properties"]["Policies"]
    out = []
    for policy in _resolve(policies, _param_values(parameters)):
        out.extend(policy["Statement"])
    return out


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _walk_keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield str(key)
            yield from _walk_keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk_keys(item)


def _env(function: str) -> dict[str, Any]:
    glob = TEMPLATE.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {})
    local = RESOURCES[function]["Properties"].get("Environment", {}).get("Variables", {})
    return {**glob, **local}


def _ssm_arn(name: str) -> str:
    return f"arn:aws:ssm:{PSEUDO['AWS::Region']}:{PSEUDO['AWS::AccountId']}:parameter/{name.lstrip('/')}"


# --- runtime and packaging ---------------------------------------------------------------------


def test_functions_run_python313_on_arm64() -> None:
    """GIVEN the template WHEN the functions and layer are built THEN they target python3.13 on arm64."""
    glob = TEMPLATE["Globals"]["Function"]
    assert glob["Runtime"] == "python3.13"
    assert glob["Architectures"] == ["arm64"]
    for function in FUNCTIONS:
        props = RESOURCES[function]["Properties"]
        assert props.get("Runtime", "python3.13") == "python3.13", function
        assert props.get("Architectures", ["arm64"]) == ["arm64"], function
    layer = RESOURCES["SharedLayer"]
    assert layer["Properties"]["CompatibleRuntimes"] == ["python3.13"]
    assert layer["Properties"]["CompatibleArchitectures"] == ["arm64"]
    assert layer["Metadata"]["BuildMethod"] == "python3.13"


def test_globals_hold_the_shared_limits() -> None:
    """GIVEN the Globals WHEN a limit is tuned THEN one edit there applies to both functions."""
    glob = TEMPLATE["Globals"]["Function"]
    assert (glob["MemorySize"], glob["Tracing"]) == (256, "Active")
    assert glob["Environment"]["Variables"]["POWERTOOLS_LOG_LEVEL"] == "INFO"
    assert glob["Environment"]["Variables"]["POWERTOOLS_TRACE_DISABLED"] == "true"  # X-Ray SDK is opt-in
    for function in FUNCTIONS:
        props = RESOURCES[function]["Properties"]
        assert not {"Timeout", "MemorySize", "Tracing"} & props.keys(), f"{function} overrides Globals"


def test_timeout_covers_every_deadline_in_the_code() -> None:
    """GIVEN the code's own worst cases (quota, key read, upstream) WHEN compared THEN the Lambda timeout covers them,
    so a slow dependency ends in an {error} from our code, never in a Lambda timeout."""
    from codex_tool.handler import FETCH_WORST_CASE_S
    from luma_shared.quota import WORST_CASE_S as QUOTA_WORST_S
    from web_tool.exa import SSM_WORST_CASE_S, ExaTimeouts

    timeout = TEMPLATE["Globals"]["Function"]["Timeout"]
    assert timeout > QUOTA_WORST_S + FETCH_WORST_CASE_S
    assert timeout > QUOTA_WORST_S + SSM_WORST_CASE_S + ExaTimeouts().total + ExaTimeouts().read
    assert timeout <= 30, "keep a hung dependency from billing for long"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_handler_resolves_to_code(function: str) -> None:
    """GIVEN a function WHEN SAM packages CodeUri THEN its Handler names a module and function that exist."""
    props = RESOURCES[function]["Properties"]
    module, _, attribute = props["Handler"].rpartition(".")
    source = REPO_ROOT / props["CodeUri"] / Path(*module.split(".")).with_suffix(".py")
    if not source.exists():
        pytest.fail(f"{props['Handler']} does not resolve to {source.relative_to(REPO_ROOT)}")
    assert re.search(rf"^(?:async\s+)?def {attribute}\(|^{attribute}\s*=", source.read_text(), re.M)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_function_uses_the_shared_layer(function: str) -> None:
    """GIVEN a function WHEN it imports luma_shared THEN the layer built from shared/ is attached."""
    assert RESOURCES[function]["Properties"]["Layers"] == [{"Ref": "SharedLayer"}]
    assert RESOURCES["SharedLayer"]["Properties"]["ContentUri"].rstrip("/") == "shared"


# --- authentication --------------------------------------------------------------------------


@pytest.mark.parametrize("function", FUNCTIONS)
def test_function_url_requires_iam(function: str) -> None:
    """GIVEN a function WHEN its URL is created THEN callers must sign with IAM (no public URL)."""
    assert RESOURCES[function]["Properties"]["FunctionUrlConfig"]["AuthType"] == "AWS_IAM"


def test_no_public_invoke_path_exists() -> None:
    """GIVEN the whole template WHEN scanned THEN no explicit URL, permission or API opens the functions."""
    kinds = {resource["Type"] for resource in RESOURCES.values()}
    assert not kinds & {
        "AWS::Lambda::Url",
        "AWS::Lambda::Permission",
        "AWS::Serverless::Api",
        "AWS::Serverless::HttpApi",
    }
    for function in FUNCTIONS:
        assert "Events" not in RESOURCES[function]["Properties"], f"{function} has event sources"


# --- configuration wiring --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "variable", "parameter"),
    [(fn, var, param) for fn, mapping in CONFIG_ENV.items() for var, param in mapping.items()],
)
def test_config_env_var_comes_from_its_parameter(function: str, variable: str, parameter: str) -> None:
    """GIVEN a setting the code reads WHEN the function is deployed THEN it is fed by its own Parameter."""
    assert _env(function).get(variable) == {"Ref": parameter}
    assert parameter in PARAMETERS


@pytest.mark.parametrize("function", FUNCTIONS)
def test_function_env_is_exactly_the_expected_set(function: str) -> None:
    """GIVEN a function WHEN its environment is assembled THEN it holds only the known variables."""
    expected = {**FIXED_ENV[function], **{v: {"Ref": p} for v, p in CONFIG_ENV[function].items()}}
    expected["QUOTA_TABLE"] = {"Ref": "QuotaTable"}
    expected["POWERTOOLS_LOG_LEVEL"] = "INFO"
    expected["POWERTOOLS_TRACE_DISABLED"] = "true"
    assert _env(function) == expected


@pytest.mark.parametrize("parameter", sorted(PARAMETER_SPECS))
def test_parameter_declares_type_default_and_bounds(parameter: str) -> None:
    """GIVEN a Parameter WHEN an operator deploys THEN its type, default and bounds are the documented ones."""
    declared = PARAMETERS[parameter]
    for key, value in PARAMETER_SPECS[parameter].items():
        got = declared.get(key)
        if key in {"Default", "MinValue", "MaxValue"} and declared.get("Type") == "Number":
            got = int(got)
        assert got == value, f"{parameter}.{key}"


def test_every_parameter_is_described_and_used() -> None:
    """GIVEN the Parameters section WHEN read THEN each has a Description and feeds some variable."""
    assert set(PARAMETERS) == set(PARAMETER_SPECS)
    for name, spec in PARAMETERS.items():
        assert str(spec.get("Description", "")).strip(), f"{name} has no Description"
    used = {p for mapping in CONFIG_ENV.values() for p in mapping.values()}
    assert used == set(PARAMETERS)


def _env_names_read(*roots: Path) -> set[str]:
    names: set[str] = set()
    for root in roots:
        for source in root.rglob("*.py"):
            names.update(ENV_READ.findall(source.read_text(encoding="utf-8")))
    return names


@pytest.mark.parametrize(("function", "code_dir"), [("CodexFunction", "codex"), ("WebFunction", "web")])
def test_code_and_template_agree_on_env_vars(function: str, code_dir: str) -> None:
    """GIVEN the function's and shared code WHEN it reads variables THEN the template sets each (and no dead ones)."""
    shared = _env_names_read(REPO_ROOT / "shared")
    assert {"QUOTA_TABLE", "GUARD_ALLOW_HOSTS"} <= shared, "env-var scan no longer matches the code's style"
    own = _env_names_read(REPO_ROOT / "functions" / code_dir)
    if not own:
        pytest.fail(f"no environment variable reads found under functions/{code_dir}")
    read = {n for n in shared | own if not n.startswith(("AWS_", "POWERTOOLS_", "_X_AMZN", "LAMBDA_"))}
    configured = {n for n in _env(function) if not n.startswith("POWERTOOLS_")}
    assert read - LOCAL_ONLY_ENV - configured == set(), "read by the code but not set by the template"
    other = {n for fn, mapping in CONFIG_ENV.items() if fn != function for n in mapping}
    assert configured - (own | shared) == set(), "set by the template but never read"
    assert not (own & other), "one function reads the other's settings"


# --- what the code does with each variable (parsed, not imported) ------------------------------

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv}


def _const(node: ast.expr, names: Mapping[str, Any]) -> Any:
    """Value of a constant expression such as ``4 * 1024 * 1024`` or a module-level constant."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_const(node.operand, names)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_const(node.left, names), _const(node.right, names))
    raise ValueError(ast.dump(node))


def _reader_defaults() -> dict[str, dict[str, Any]]:
    """Keyword defaults of the luma_shared.config readers, e.g. ``env_int(..., minimum=0, maximum=None)``."""
    tree = ast.parse((REPO_ROOT / "shared" / "luma_shared" / "config.py").read_text(encoding="utf-8"))
    readers: dict[str, dict[str, Any]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("env_"):
            kw = node.args.kwonlyargs
            readers[node.name] = {
                a.arg: _const(d, {}) for a, d in zip(kw, node.args.kw_defaults, strict=True) if d is not None
            }
    return readers


def _code_reads(code_dir: str) -> dict[str, dict[str, Any]]:
    """Each ``env_*(env, "NAME", default, minimum=..., maximum=...)`` call in a function's code."""
    readers = _reader_defaults()
    found: dict[str, dict[str, Any]] = {}
    for source in (REPO_ROOT / "functions" / code_dir).rglob("*.py"):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        names: dict[str, Any] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    names[node.targets[0].id] = _const(node.value, names)
                except ValueError:
                    continue
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in readers):
                continue
            if len(call.args) < 2 or not isinstance(call.args[1], ast.Constant):
                continue
            read: dict[str, Any] = {"reader": call.func.id, **readers[call.func.id]}
            if len(call.args) > 2:
                read["default"] = _const(call.args[2], names)
            read.update({k.arg: _const(k.value, names) for k in call.keywords if k.arg})
            found[call.args[1].value] = read
    return found


@pytest.mark.parametrize(
    ("function", "code_dir"), [("CodexFunction", "codex"), ("WebFunction", "web")], ids=["codex", "web"]
)
def test_parameter_bounds_and_defaults_match_the_code(function: str, code_dir: str) -> None:
    """GIVEN each setting's Parameter WHEN compared with the code's reader THEN default and bounds agree."""
    reads = _code_reads(code_dir)
    for variable, parameter in CONFIG_ENV[function].items():
        assert variable in reads, f"{variable} is not read with a luma_shared.config env_* reader"
        read, spec = reads[variable], PARAMETERS[parameter]
        if read["reader"] == "env_int":
            assert spec["Type"] == "Number", parameter
            assert int(spec["Default"]) == read["default"], f"{parameter} Default"
            assert int(spec["MinValue"]) == read["minimum"], f"{parameter} MinValue"
            maximum = spec.get("MaxValue")
            assert (None if maximum is None else int(maximum)) == read["maximum"], f"{parameter} MaxValue"
        elif read["reader"] == "env_bool":
            assert spec["AllowedValues"] == ["true", "false"], parameter
            assert spec["Default"] == str(read["default"]).lower(), f"{parameter} Default"
        else:
            assert spec["Type"] == "String", parameter
            assert spec["Default"] == read.get("default", ""), f"{parameter} Default"


@pytest.mark.parametrize("variable", sorted(LOCAL_ONLY_ENV))
def test_local_only_variables_are_never_set(variable: str) -> None:
    """GIVEN the deployed template WHEN scanned THEN local-only switches (allow-list, plaintext key) never appear."""
    assert variable not in set(_walk_keys(TEMPLATE))
    assert not re.search(rf"\b{variable}\b", (REPO_ROOT / "template.yaml").read_text(encoding="utf-8"))


# --- least privilege -------------------------------------------------------------------------


@pytest.mark.parametrize("function", FUNCTIONS)
def test_policies_are_inline_statements_only(function: str) -> None:
    """GIVEN a function WHEN its role is generated THEN it gets only inline statements (no templates, no role)."""
    props = RESOURCES[function]["Properties"]
    assert "Role" not in props
    assert "PermissionsBoundary" not in props
    policies = props["Policies"]
    assert isinstance(policies, list)
    assert policies
    for policy in policies:
        assert isinstance(policy, dict), policy
        assert set(policy) <= {"Version", "Statement"}, policy


@pytest.mark.parametrize("key", ["", "/luma/exa-api-key", "luma-exa-key"])
def test_codex_may_only_update_quota_items(key: str) -> None:
    """GIVEN the Codex role WHEN evaluated THEN it allows dynamodb:UpdateItem on the quota table and nothing else."""
    statements = _statements("CodexFunction", ExaApiKeyParameter=key)
    assert len(statements) == 1
    (statement,) = statements
    assert statement["Effect"] == "Allow"
    assert _as_list(statement["Action"]) == ["dynamodb:UpdateItem"]
    assert _as_list(statement["Resource"]) == [TABLE_ARN]
    assert not {"NotAction", "NotResource", "Condition"} & statement.keys()


def test_web_without_key_parameter_only_updates_quota_items() -> None:
    """GIVEN no Exa key parameter WHEN the web role is evaluated THEN it has no SSM or KMS access."""
    statements = _statements("WebFunction", ExaApiKeyParameter="")
    assert [(_as_list(s["Action"]), _as_list(s["Resource"])) for s in statements] == [
        (["dynamodb:UpdateItem"], [TABLE_ARN])
    ]


@pytest.mark.parametrize("key", ["/luma/exa-api-key", "luma/exa-api-key", "exa-api-key"])
def test_web_reads_exactly_one_ssm_parameter(key: str) -> None:
    """GIVEN a key parameter name (with or without leading slash) WHEN evaluated THEN only its ARN is readable."""
    statements = _statements("WebFunction", ExaApiKeyParameter=key)
    by_action: dict[str, list[dict[str, Any]]] = {}
    for statement in statements:
        assert statement["Effect"] == "Allow"
        assert not {"NotAction", "NotResource", "NotPrincipal"} & statement.keys()
        for action in _as_list(statement["Action"]):
            assert "*" not in action, action
            by_action.setdefault(action, []).append(statement)
    assert set(by_action) == {"dynamodb:UpdateItem", "ssm:GetParameter", "kms:Decrypt"}
    assert all(len(found) == 1 for found in by_action.values())

    (update,) = by_action["dynamodb:UpdateItem"]
    assert _as_list(update["Resource"]) == [TABLE_ARN]
    (get,) = by_action["ssm:GetParameter"]
    assert _as_list(get["Action"]) == ["ssm:GetParameter"]
    assert _as_list(get["Resource"]) == [_ssm_arn(key)]
    assert "Condition" not in get


@pytest.mark.parametrize("key", ["/luma/exa-api-key", "exa-api-key"])
def test_web_decrypts_only_via_ssm_for_that_parameter(key: str) -> None:
    """GIVEN a key parameter WHEN KMS is asked to decrypt THEN only SSM, for that one parameter, may do it."""
    (decrypt,) = [
        s for s in _statements("WebFunction", ExaApiKeyParameter=key) if "kms:Decrypt" in _as_list(s["Action"])
    ]
    assert _as_list(decrypt["Action"]) == ["kms:Decrypt"]
    region, account = PSEUDO["AWS::Region"], PSEUDO["AWS::AccountId"]
    assert _as_list(decrypt["Resource"]) in (
        [f"arn:aws:kms:{region}:{account}:key/*"],
        [f"arn:aws:kms:{region}:{account}:alias/aws/ssm"],
    )
    condition = decrypt["Condition"]["StringEquals"]
    assert condition["kms:ViaService"] == f"ssm.{region}.amazonaws.com"
    assert condition["kms:EncryptionContext:PARAMETER_ARN"] == _ssm_arn(key)


def test_key_condition_tracks_the_parameter() -> None:
    """GIVEN HasExaKeyParameter WHEN the parameter is empty or set THEN the condition is false or true."""
    assert _condition("HasExaKeyParameter", _param_values({"ExaApiKeyParameter": ""})) is False
    assert _condition("HasExaKeyParameter", _param_values({"ExaApiKeyParameter": "/luma/k"})) is True


# --- quota table -----------------------------------------------------------------------------


def test_quota_table_is_on_demand_with_ttl_and_encryption() -> None:
    """GIVEN the quota table WHEN deployed THEN it is PAY_PER_REQUEST, expires items by expires_at, encrypted."""
    table = RESOURCES["QuotaTable"]
    assert table["Type"] == "AWS::DynamoDB::Table"
    props = table["Properties"]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert "ProvisionedThroughput" not in props
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert props["SSESpecification"]["SSEEnabled"] is True
    assert props["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert props["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"}]
    assert not {"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} & props.keys()


def test_quota_table_properties_match_the_template() -> None:
    """GIVEN the moto fixture helper WHEN it builds create_table kwargs THEN they equal the deployed schema."""
    assert quota_table_properties() == {
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    assert quota_table_ttl_attribute() == "expires_at"


# --- logs and outputs ------------------------------------------------------------------------


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_has_a_two_week_log_group(function: str) -> None:
    """GIVEN a function WHEN it logs THEN its /aws/lambda log group keeps 14 days."""
    groups = [
        r["Properties"]
        for r in RESOURCES.values()
        if r["Type"] == "AWS::Logs::LogGroup"
        and r["Properties"]["LogGroupName"] == {"Fn::Sub": f"/aws/lambda/${{{function}}}"}
    ]
    assert len(groups) == 1
    assert groups[0]["RetentionInDays"] == 14


def test_outputs_expose_urls_arns_and_table() -> None:
    """GIVEN the stack WHEN deployed THEN the bot can find both URLs, both ARNs and the table name."""
    outputs = {name: out["Value"] for name, out in TEMPLATE["Outputs"].items()}
    assert outputs == {
        "CodexFunctionUrl": {"Fn::GetAtt": ["CodexFunctionUrl", "FunctionUrl"]},
        "WebFunctionUrl": {"Fn::GetAtt": ["WebFunctionUrl", "FunctionUrl"]},
        "QuotaTableName": {"Ref": "QuotaTable"},
        "CodexFunctionArn": {"Fn::GetAtt": ["CodexFunction", "Arn"]},
        "WebFunctionArn": {"Fn::GetAtt": ["WebFunction", "Arn"]},
    }
