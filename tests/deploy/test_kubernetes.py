"""deploy/kubernetes/: every manifest valid against Kubernetes' own schemas (strictly: an
unknown or misplaced field fails), from the oldest release still common to the newest
that kubernetes-validate (PyPI) carries; and what ops rely on: probes on /healthz and
/readyz, resources, non-root pods with a read-only root and no privilege escalation,
the migration as a Job through the image's entrypoint, the scheduled jobs in the
server's pods (no CronJob), and a configuration whose every variable is a setting of the
server, with a valid value."""

from __future__ import annotations

import importlib.util
import ipaddress
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from pydantic import ValidationError

from app.settings import PLACEHOLDER, Settings
from tests.fixtures.servers import ROOT

MANIFESTS = ROOT / "deploy" / "kubernetes"
DOCKERFILE = (ROOT / "Dockerfile").read_text()
OLDEST = "1.28.0"
VERSIONS = sorted({OLDEST, kubernetes_validate.latest_version()})


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


RESOURCES = {
    f"{doc['kind']}/{doc['metadata']['name']}": doc
    for path in sorted(MANIFESTS.glob("*.yaml"))
    if path.name != "kustomization.yaml"
    for doc in documents(path)
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_the_manifest_is_valid(name: str, version: str) -> None:
    kubernetes_validate.validate(RESOURCES[name], version, strict=True)


def test_the_validator_refuses_a_misplaced_field() -> None:
    broken = yaml.safe_load(yaml.safe_dump(RESOURCES["Deployment/tripeaks"]))
    broken["spec"]["template"]["spec"]["containers"][0]["readOnlyRootFilesystem"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSIONS[-1], strict=True)


def test_kustomization_applies_every_manifest() -> None:
    kustomization = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in MANIFESTS.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk


def pod_specs() -> dict[str, dict[str, Any]]:
    return {
        name: doc["spec"]["template"]["spec"]
        for name, doc in RESOURCES.items()
        if doc["kind"] in ("Deployment", "Job")
    }


@pytest.mark.parametrize("name", sorted(pod_specs()))
def test_pods_run_unprivileged_on_a_read_only_root(name: str) -> None:
    spec = pod_specs()[name]
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["automountServiceAccountToken"] is False
    mounts: dict[str, str] = {}
    for container in [*spec.get("initContainers", []), *spec["containers"]]:
        context = container["securityContext"]
        assert context["readOnlyRootFilesystem"] is True
        assert context["allowPrivilegeEscalation"] is False
        assert context["capabilities"]["drop"] == ["ALL"]
        assert container["resources"]["requests"] and container["resources"]["limits"]
        mounts |= {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for path, volume in mounts.items():
        assert "emptyDir" in volumes[volume], path


def server_pods() -> dict[str, dict[str, Any]]:
    """The pods that run the image (the server, the migration)."""
    return {
        name: spec
        for name, spec in pod_specs().items()
        if spec["containers"][0]["image"] == "tripeaks"
    }


@pytest.mark.parametrize("name", sorted(server_pods()))
def test_pods_of_the_image_run_as_its_user_with_a_writable_tmp(name: str) -> None:
    spec = server_pods()[name]
    user = re.findall(r"^USER\s+(\d+):(\d+)", DOCKERFILE, flags=re.M)[-1]
    context = spec["securityContext"]
    assert (str(context["runAsUser"]), str(context["runAsGroup"])) == user
    container = spec["containers"][0]
    # Read-only root: /tmp holds the workers' metrics and the solver pool's socket.
    assert {m["mountPath"] for m in container["volumeMounts"]} == {"/tmp"}
    # `command` would replace the entrypoint, which validates the settings first.
    assert "command" not in container
    refs = [next(iter(ref.values()))["name"] for ref in container["envFrom"]]
    assert refs == ["tripeaks-config", "tripeaks-secrets"]


def test_the_deployment_probes_health_and_readiness() -> None:
    deployment = RESOURCES["Deployment/tripeaks"]
    spec = deployment["spec"]["template"]["spec"]
    server = spec["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in server["ports"]}
    assert ports == {"http": int(re.findall(r"^\s*PORT=(\d+)", DOCKERFILE, flags=re.M)[0])}
    assert server["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert server["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert server["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert deployment["spec"]["replicas"] >= 2
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    # The requests in flight get SHUTDOWN_TIMEOUT_S after the preStop pause, and a margin.
    shutdown = int(RESOURCES["ConfigMap/tripeaks-config"]["data"]["SHUTDOWN_TIMEOUT_S"])
    pause = int(re.findall(r"sleep\((\d+)\)", str(server["lifecycle"]["preStop"]))[0])
    assert spec["terminationGracePeriodSeconds"] > shutdown + pause
    service = RESOURCES["Service/tripeaks"]["spec"]
    assert service["selector"] == deployment["spec"]["selector"]["matchLabels"]
    assert service["ports"][0]["targetPort"] == "http"


def test_each_server_pod_migrates_before_it_serves() -> None:
    """An init container of the server's image runs the migrations (its pods take turns at
    the database's lock: tests/ops/test_commands.py): a new image needs no hand step, and
    no Job is left to delete."""
    spec = pod_specs()["Deployment/tripeaks"]
    [migrate] = spec["initContainers"]
    [server] = spec["containers"]
    assert migrate["args"] == ["python", "-m", "app.ops.migrate"]
    assert importlib.util.find_spec("app.ops.migrate") is not None
    assert (migrate["image"], migrate["envFrom"]) == (server["image"], server["envFrom"])
    assert "command" not in migrate  # the entrypoint validates the settings first
    assert not [name for name in RESOURCES if name.startswith("Job/")]
    assert configuration()["MIGRATE_ON_START"] == "false"  # the server itself does not


def test_the_scheduled_jobs_run_in_the_server_s_pods() -> None:
    """The servers measure fair play and purge (app.ops.jobs): no CronJob runs them, and
    the configuration does not turn them off."""
    assert not [name for name in RESOURCES if name.startswith("CronJob/")]
    assert configuration().get("SCHEDULED_JOBS", "true") == "true"


def test_a_disruption_keeps_a_server_and_only_the_server_reaches_its_stores() -> None:
    """The PodDisruptionBudget keeps one server pod of the Deployment up; the network
    policies let the server's pods alone reach Redis and PostgreSQL, on their ports."""
    server = RESOURCES["Deployment/tripeaks"]["spec"]["selector"]["matchLabels"]
    budget = RESOURCES["PodDisruptionBudget/tripeaks"]["spec"]
    assert budget["selector"]["matchLabels"] == server and budget["minAvailable"] == 1
    redis = RESOURCES["Deployment/tripeaks-redis"]["spec"]["template"]["metadata"]["labels"]
    for name, selected, port in (
        ("NetworkPolicy/tripeaks-redis", redis, 6379),
        ("NetworkPolicy/tripeaks-postgresql", {"app.kubernetes.io/name": "postgresql"}, 5432),
    ):
        policy = RESOURCES[name]["spec"]
        assert policy["podSelector"]["matchLabels"] == selected
        [rule] = policy["ingress"]
        assert [peer["podSelector"]["matchLabels"] for peer in rule["from"]] == [server]
        assert rule["ports"] == [{"protocol": "TCP", "port": port}]


def configuration() -> dict[str, str]:
    config = RESOURCES["ConfigMap/tripeaks-config"]["data"]
    secret = RESOURCES["Secret/tripeaks-secrets"]["stringData"]
    assert not set(config) & set(secret)
    return {**config, **secret}


def test_every_variable_is_a_valid_setting_once_its_placeholders_are_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Secret's placeholders (CHANGE-ME) are refused by the server's settings, so a
    deployment that forgot one does not start with a value anyone can read here; with
    them set, every variable is a valid setting."""
    env = configuration()
    unknown = {k for k in env if k.lower() not in Settings.model_fields}
    assert not unknown
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ValidationError) as refused:
        Settings()
    named = {str(e["loc"][0]).upper() for e in refused.value.errors()}
    assert named == {k for k, v in env.items() if PLACEHOLDER in v.upper()}
    assert named == {"DATABASE_URL", "METRICS_TOKEN"}
    for key in named:
        monkeypatch.setenv(key, env[key].replace(PLACEHOLDER, "s3cr3t-0123456789abcdef"))
    settings = Settings()
    assert settings.database_url.startswith("postgresql+psycopg://")
    assert settings.rate_limit_storage_url.startswith("redis://")
    assert settings.migrate_on_start is False  # each pod's init container migrates


def test_the_credentials_are_in_the_secret() -> None:
    secret = RESOURCES["Secret/tripeaks-secrets"]["stringData"]
    assert {"DATABASE_URL", "RATE_LIMIT_STORAGE_URL"} <= set(secret)


def test_the_servers_believe_the_pod_network_alone() -> None:
    """X-Forwarded-For is believed from the cluster's pod network (where the ingress
    controller runs), never from any peer ("*")."""
    trusted = configuration()["FORWARDED_ALLOW_IPS"]
    assert trusted != "*" and ipaddress.ip_network(trusted).is_private
