"""The check that a domain's repositories name only its own tables (tools/own_tables.py,
run by ``make lint``): it passes on this tree and fails on a repository that reads another
domain's table, by ``table(...)`` or in SQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import own_tables

ROOT = Path(__file__).resolve().parents[2]


def _tree(root: Path, repository: str) -> Path:
    """A tree of two domains, ``alpha`` (table ``alphas``) and ``beta`` (``betas``), whose
    alpha repository is ``repository``."""
    for domain in ("alpha", "beta"):
        (root / "app" / domain).mkdir(parents=True)
        (root / "app" / domain / "models.py").write_text(
            f'class Row:\n    __tablename__ = "{domain}s"\n', encoding="utf-8"
        )
    (root / "app" / "alpha" / "repository.py").write_text(repository, encoding="utf-8")
    return root


def test_this_tree_passes() -> None:
    assert own_tables.check(ROOT) == []
    assert own_tables.main([str(ROOT)]) == 0


@pytest.mark.parametrize(
    "repository",
    [
        'from sqlalchemy import column, table\nBETAS = table("betas", column("id"))\n',
        'import sqlalchemy as sa\nBETAS = sa.table("betas")\n',
        'from sqlalchemy import text\nQ = text("SELECT id FROM betas WHERE 1 = 1")\n',
        'Q = "select a.id from alphas a join betas b on b.id = a.id"\n',
    ],
)
def test_another_domains_table_fails(
    tmp_path: Path, repository: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path, repository)
    [violation] = own_tables.check(root)
    assert (violation.path, violation.domain, violation.table, violation.owner) == (
        "app/alpha/repository.py",
        "alpha",
        "betas",
        "beta",
    )
    assert own_tables.main([str(root)]) == 1
    assert "app/alpha/repository.py:" in capsys.readouterr().out


def test_own_tables_prose_and_other_strings_pass(tmp_path: Path) -> None:
    repository = (
        '"""Reads alphas; the betas are read through the beta service."""\n'
        'from sqlalchemy import table\nALPHAS = table("alphas")\n'
        'VALUES = {"betas": 1}\n'
    )
    assert own_tables.check(_tree(tmp_path, repository)) == []
