"""/metrics: Prometheus text with requests by route template and status, latency, games
created and ended, moves applied, conflicts, and the solver and hint histograms."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from app.kit import metrics
from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, losing_deal
from tests.ops.servers import metric_samples, metric_value


def scrape(client: TestClient) -> str:
    r = client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=")
    return r.text


def new_game(client: TestClient, **body: Any) -> tuple[str, dict[str, str]]:
    r = client.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    return f"/v1/games/{r.json()['id']}", {"Authorization": f"Bearer {r.json()['token']}"}


def test_requests_are_counted_by_route_template_and_status(client: TestClient) -> None:
    before = scrape(client)
    url, auth = new_game(client)
    game_id = url.rsplit("/", 1)[1]
    for _ in range(3):
        assert client.get(url, headers=auth).status_code == 200
    assert client.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert client.get(f"/v1/games/{game_id}x/legal-moves", headers=auth).status_code == 404
    assert client.get("/no/such/path/sentinel-x7q").status_code == 404
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return metric_value(after, name, **labels) - metric_value(before, name, **labels)

    requests = "tripeaks_http_requests_total"
    game = "/v1/games/{game_id}"
    assert delta(requests, method="POST", route="/v1/games", status="201") == 1
    assert delta(requests, method="GET", route=game, status="200") == 3
    assert delta(requests, method="GET", route=game, status="403") == 1
    assert delta(requests, route="/v1/games/{game_id}/legal-moves", status="404") == 1
    assert delta(requests, route="unmatched", status="404") == 1
    latency = "tripeaks_http_request_duration_seconds_count"
    assert delta(latency, method="GET", route=game) == 4
    # No id or raw path ever becomes a label value.
    assert game_id not in after
    assert "sentinel-x7q" not in after
    routes = {dict(k)["route"] for k in metric_samples(after, requests)}
    assert all(r == "unmatched" or r.startswith("/") for r in routes)
    assert not any("{" not in r and r.startswith("/v1/games/") for r in routes)


def test_games_created_won_lost_conceded_and_moves_applied(client: TestClient) -> None:
    before = scrape(client)
    url, auth = new_game(client, deal=chain_deal(), rules={"wrap": True})
    for position in TRIPEAKS_CLEAR_ORDER:
        r = client.post(f"{url}/play", json={"position": position}, headers=auth)
        assert r.status_code == 200, r.text
    assert r.json()["status"] == "won"
    url, auth = new_game(client, deal=losing_deal())
    while client.get(url, headers=auth).json()["status"] == "in_progress":
        assert client.post(f"{url}/draw", headers=auth).status_code == 200
    url, auth = new_game(client, layout="golf")
    assert client.post(f"{url}/concede", headers=auth).status_code == 200
    # A refused move is not counted as applied.
    assert client.post(f"{url}/draw", headers=auth).status_code == 409
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return metric_value(after, name, **labels) - metric_value(before, name, **labels)

    assert delta("tripeaks_games_created_total") == 3
    assert delta("tripeaks_games_created_total", layout="golf") == 1
    assert delta("tripeaks_games_ended_total", outcome="won") == 1
    assert delta("tripeaks_games_ended_total", outcome="lost") == 1
    assert delta("tripeaks_games_ended_total", outcome="conceded") == 1
    assert delta("tripeaks_moves_applied_total", kind="play") == len(TRIPEAKS_CLEAR_ORDER)
    assert delta("tripeaks_moves_applied_total", kind="draw") == 23
    assert delta("tripeaks_moves_applied_total", kind="concede") == 1
    assert delta("tripeaks_conflicts_total") == 0  # game over is a 409 but no conflict


def test_stale_if_match_is_counted_as_a_conflict(client: TestClient) -> None:
    url, auth = new_game(client)
    before = scrape(client)
    assert client.post(f"{url}/draw", headers={**auth, "If-Match": '"v0"'}).status_code == 200
    assert client.post(f"{url}/draw", headers={**auth, "If-Match": '"v0"'}).status_code == 412
    after = scrape(client)
    assert (
        metric_value(after, "tripeaks_conflicts_total", status="412")
        - metric_value(before, "tripeaks_conflicts_total", status="412")
        == 1
    )


def test_solver_and_hint_histograms_are_exported(client: TestClient) -> None:
    before = scrape(client)
    metrics.observe_solver(0.02, "solved")
    metrics.observe_hint(0.3, "budget_exhausted")
    with metrics.timed(metrics.HINT_SECONDS, result="found"):
        time.sleep(0.01)
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return metric_value(after, name, **labels) - metric_value(before, name, **labels)

    assert delta("tripeaks_solver_seconds_count", result="solved") == 1
    assert delta("tripeaks_solver_seconds_bucket", result="solved", le="0.025") == 1
    assert delta("tripeaks_solver_seconds_bucket", result="solved", le="0.01") == 0
    assert delta("tripeaks_hint_seconds_count", result="budget_exhausted") == 1
    assert delta("tripeaks_hint_seconds_count", result="found") == 1
    assert delta("tripeaks_hint_seconds_sum", result="found") >= 0.01


def test_metrics_is_not_in_the_openapi_schema(client: TestClient) -> None:
    assert "/metrics" not in client.get("/openapi.json").json()["paths"]
