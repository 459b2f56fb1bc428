"""deploy/kubernetes/: every manifest valid against Kubernetes' own schemas (strictly: an
unknown or misplaced field fails), from the oldest release still common to the newest
that kubernetes-validate (PyPI) carries; and what ops rely on: probes on /healthz and
/readyz, resources, non-root pods with a read-only root and no privilege escalation,
the migration as a Job through the image's entrypoint, the scheduled jobs in the
server's pods (no CronJob), and a configuration whose every variable is a setting of the
server, with a valid value."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from app.settings import Settings
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
    for container in spec["containers"]:
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


def test_the_migration_job_runs_its_command() -> None:
    container = pod_specs()["Job/tripeaks-migrate"]["containers"][0]
    assert container["args"] == ["python", "-m", "app.ops.migrate"]
    assert importlib.util.find_spec("app.ops.migrate") is not None


def test_the_scheduled_jobs_run_in_the_server_s_pods() -> None:
    """The servers measure fair play and purge (app.ops.jobs): no CronJob runs them, and
    the configuration does not turn them off."""
    assert not [name for name in RESOURCES if name.startswith("CronJob/")]
    assert configuration().get("SCHEDULED_JOBS", "true") == "true"


def configuration() -> dict[str, str]:
    config = RESOURCES["ConfigMap/tripeaks-config"]["data"]
    secret = RESOURCES["Secret/tripeaks-secrets"]["stringData"]
    assert not set(config) & set(secret)
    return {**config, **secret}


def test_every_variable_is_a_valid_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    env = configuration()
    unknown = {k for k in env if k.lower() not in Settings.model_fields}
    assert not unknown
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    assert settings.database_url.startswith("postgresql+psycopg://")
    assert settings.rate_limit_storage_url.startswith("redis://")
    assert settings.migrate_on_start is False  # the Job migrates


def test_the_credentials_are_in_the_secret() -> None:
    secret = RESOURCES["Secret/tripeaks-secrets"]["stringData"]
    assert {"DATABASE_URL", "RATE_LIMIT_STORAGE_URL"} <= set(secret)
