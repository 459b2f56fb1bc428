"""The layout endpoints through HTTP."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_layouts_give_the_geometry_to_draw_them(client: TestClient) -> None:
    listed = client.get("/v1/layouts").json()["layouts"]
    assert {lay["name"] for lay in listed} == {"tripeaks", "six_peaks", "golf"}
    for summary in listed:
        lay = client.get(f"/v1/layouts/{summary['name']}").json()
        assert len(lay["positions"]) == summary["cards"]
        assert all(0 <= p["x"] <= lay["width"] - 2 for p in lay["positions"])
        assert all(0 <= p["row"] < lay["rows"] for p in lay["positions"])
    tri = client.get("/v1/layouts/tripeaks").json()
    assert tri["peaks"] == [0, 1, 2]
    assert tri["positions"][0]["covered_by"] == [3, 4]
    r = client.get("/v1/layouts/nope")
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/problem+json"
