"""openapi-generator's clients, made from the committed spec, play whole games.

The most used generator, as SDK authors run it (clients/generate.py; the jar comes with
the ``openapi-generator-cli`` wheel and runs under Java 17): its ``python`` client is
generated into a temporary folder, imported, and plays against a server process on
127.0.0.1 — a won game and a lost one, each move sent with the ``ETag`` of the answer
before it as ``If-Match`` (read from the response headers through the
``*_with_http_info`` methods), and every kind of error read into the model of its
problem type (a status that may carry several types is a oneOf told apart by ``type``:
its wrapper's ``actual_instance``).
Its ``typescript-fetch`` client is generated and type-checked by ``tsc --strict``.
Generation fails on any warning the spec could remove (clients.generate.KNOWN_WARNINGS
lists the others, each with its reason).
"""

from __future__ import annotations

import importlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients import generate
from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, losing_deal, verify_commitment
from tests.fixtures.packages import imported
from tests.fixtures.servers import live_server

pytestmark = pytest.mark.slow

PACKAGE = generate.PYTHON_PACKAGE


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The generated package, imported from a temporary folder."""
    if shutil.which("java") is None:  # pragma: no cover - Java 17 is on every machine
        pytest.fail("openapi-generator needs Java (17 or later) on PATH")
    with imported(
        generate.python_client(tmp_path_factory.mktemp("openapi-generator") / "python"), PACKAGE
    ) as package:
        yield package


@pytest.fixture(scope="module")
def base_url(database_url: str) -> Iterator[str]:
    with live_server(database_url) as url:
        yield url


class Player:
    """The generated APIs, as one caller (anonymous, or with a game's token)."""

    def __init__(self, sdk: Any, base_url: str, token: str | None = None) -> None:
        config = sdk.Configuration(host=base_url, access_token=token)
        self.client = sdk.ApiClient(config)
        self.games = sdk.GamesApi(self.client)
        self.layouts = sdk.LayoutsApi(self.client)
        self.players = sdk.PlayersApi(self.client)
        self.duels = sdk.DuelsApi(self.client)

    def close(self) -> None:
        self.client.__exit__(None, None, None)


@pytest.fixture
def players(sdk: Any, base_url: str) -> Iterator[Any]:
    """Opens Players on the live server; each is closed at the end of the test."""
    opened: list[Player] = []

    def open_player(token: str | None = None) -> Player:
        opened.append(Player(sdk, base_url, token))
        return opened[-1]

    yield open_player
    for player in opened:
        player.close()


def _etag(answer: Any) -> str:
    """The ETag of an answer, as a client reads it from the response headers (the
    generated ApiResponse keeps them in a plain dict: lower-case names, as HTTP/1.1 sent
    them)."""
    etag = answer.headers["etag"]
    assert isinstance(etag, str) and etag.startswith('"v'), etag
    return etag


def _create(sdk: Any, anonymous: Player, deal: list[str]) -> tuple[Any, str]:
    answer = anonymous.games.create_game_with_http_info(sdk.GameCreate(deal=deal))
    assert answer.status_code == 201
    assert isinstance(answer.data, sdk.GameCreated)
    assert answer.headers["location"] == f"/v1/games/{answer.data.id}"
    return answer.data, _etag(answer)


def test_the_python_client_wins_a_game_sending_each_etag_back(sdk: Any, players: Any) -> None:
    game, etag = _create(sdk, players(), chain_deal())
    assert game.status == sdk.GameStatus.IN_PROGRESS
    me = players(game.token)
    state: Any = game
    for turn, position in enumerate(TRIPEAKS_CLEAR_ORDER):
        legal = me.games.list_legal_moves(game.id)
        assert isinstance(legal, sdk.LegalMoveList)
        plays = {m.position: m for m in legal.legal_moves if m.kind == sdk.MoveKind.PLAY}
        assert position in plays, (position, [m.move for m in legal.legal_moves])
        if turn % 2 == 0:
            # The legal-move object, posted back unchanged.
            body = sdk.MoveCreate.from_dict(plays[position].to_dict())
            answer = me.games.make_move_with_http_info(game.id, body, if_match=etag)
        else:
            body = sdk.PlayCreate(position=position, card=plays[position].card)
            answer = me.games.play_card_with_http_info(game.id, body, if_match=etag)
        assert answer.status_code == 200
        state = answer.data
        assert isinstance(state, sdk.GameRead)
        assert state.version == turn + 1
        etag = _etag(answer)
        assert etag == f'"v{state.version}"'
    assert state.status == sdk.GameStatus.WON
    assert state.cards_left == 0
    assert state.reveal is not None and state.reveal.deal == chain_deal()
    assert verify_commitment(game.commitment, state.reveal.deal, state.reveal.salt)
    score = me.games.get_score(game.id)
    assert isinstance(score, sdk.GameScoreRead)
    assert score.score.longest_streak == len(TRIPEAKS_CLEAR_ORDER)
    history = me.games.list_moves(game.id)
    assert isinstance(history, sdk.MoveList)
    assert [m.move for m in history.moves] == [f"play {p}" for p in TRIPEAKS_CLEAR_ORDER]


def test_the_python_client_loses_a_game(sdk: Any, players: Any) -> None:
    game, etag = _create(sdk, players(), losing_deal())
    me = players(game.token)
    read = me.games.get_game_with_http_info(game.id)
    assert _etag(read) == etag == '"v0"'
    state = read.data
    draws = 0
    while state.status == sdk.GameStatus.IN_PROGRESS:
        kinds = {m.kind for m in me.games.list_legal_moves(game.id).legal_moves}
        assert sdk.MoveKind.DRAW in kinds and sdk.MoveKind.PLAY not in kinds
        answer = me.games.draw_card_with_http_info(game.id, if_match=etag)
        state, etag = answer.data, _etag(answer)
        assert isinstance(state, sdk.GameRead)
        draws += 1
    assert draws == 23
    assert state.status == sdk.GameStatus.LOST
    assert state.stock_count == 0 and state.legal_moves == []
    assert state.reveal is not None and state.reveal.deal == losing_deal()
    assert verify_commitment(game.commitment, state.reveal.deal, state.reveal.salt)


def _problem(model: type[Any], exception: type[Exception], call: Any, *args: Any, **kw: Any) -> Any:
    """The problem of a call that must fail with ``exception``, read into ``model``."""
    with pytest.raises(exception) as caught:
        call(*args, **kw)
    error: Any = caught.value
    problem = getattr(error.data, "actual_instance", error.data)  # a oneOf's wrapper
    assert isinstance(problem, model), (error.status, error.body)
    assert problem.status == error.status
    assert error.headers["Content-Type"] == "application/problem+json"
    return problem


def test_every_error_comes_back_as_a_typed_problem(sdk: Any, players: Any) -> None:
    errors = importlib.import_module(f"{PACKAGE}.exceptions")
    anonymous = players()
    game, etag = _create(sdk, anonymous, chain_deal())
    me = players(game.token)
    other, _ = _create(sdk, anonymous, chain_deal())
    stranger = players(other.token)
    games = me.games

    # 400: an illegal move (position 0 is a peak, still covered).
    illegal = _problem(
        sdk.IllegalMoveProblem,
        errors.BadRequestException,
        games.play_card,
        game.id,
        sdk.PlayCreate(position=0),
    )
    assert illegal.type == "/problems/illegal-move"
    assert illegal.move == "play 0" and "covered" in illegal.reason
    # 401: no token at all.
    unauthorized = _problem(
        sdk.UnauthorizedProblem, errors.UnauthorizedException, anonymous.games.get_game, game.id
    )
    assert unauthorized.type == "/problems/unauthorized"
    # 403: another game's token.
    forbidden = _problem(
        sdk.ForbiddenProblem, errors.ForbiddenException, stranger.games.get_game, game.id
    )
    assert forbidden.type == "/problems/forbidden"
    # 404: no such game; no such layout.
    missing = _problem(
        sdk.NotFoundProblem, errors.NotFoundException, games.get_score, "no-such-game"
    )
    assert missing.type == "/problems/not-found"
    no_layout = _problem(
        sdk.NotFoundProblem, errors.NotFoundException, anonymous.layouts.get_layout, "nope"
    )
    assert no_layout.type == "/problems/not-found"
    # 412: a stale If-Match, once the game has moved on.
    moved = games.draw_card_with_http_info(game.id, if_match=etag)
    assert _etag(moved) != etag
    stale = _problem(
        sdk.PreconditionFailedProblem, errors.ApiException, games.draw_card, game.id, if_match=etag
    )
    assert (stale.status, stale.type) == (412, "/problems/precondition-failed")
    assert f'"v{stale.current_version}"' == _etag(moved)
    # 422: rules that cannot go together.
    rules = sdk.RulesCreate(wrap=True, king_stops=True)
    invalid = _problem(
        sdk.ValidationProblem,
        errors.UnprocessableEntityException,
        anonymous.games.create_game,
        sdk.GameCreate(rules=rules),
    )
    assert invalid.type == "/problems/validation"
    assert invalid.option == "king_stops"
    assert [e.loc for e in invalid.errors] == [["body", "rules", "king_stops"]]
    # 409: a move on a finished game.
    conceded = games.concede_game_with_http_info(game.id, if_match=_etag(moved))
    assert conceded.data.status == sdk.GameStatus.CONCEDED
    over = _problem(sdk.GameOverProblem, errors.ConflictException, games.draw_card, game.id)
    assert over.type == "/problems/game-over"
    assert over.game_status == sdk.GameStatus.CONCEDED and over.move == "draw"


def _draw_and_concede(sdk: Any, games: Any, game_id: str, etag: str, draws: int) -> Any:
    """A duel's game played to its end, each move sent with the ETag before it: ``draws``
    draws, then a concession; its last state."""
    for _ in range(draws):
        answer = games.draw_card_with_http_info(game_id, if_match=etag)
        assert answer.data.status == sdk.GameStatus.IN_PROGRESS
        etag = _etag(answer)
    ended = games.concede_game_with_http_info(game_id, if_match=etag).data
    assert isinstance(ended, sdk.GameRead) and ended.status == sdk.GameStatus.CONCEDED
    return ended


def test_the_python_client_plays_a_ranked_duel(sdk: Any, duel_server: str) -> None:
    """Two players made through the client, on a database of the test's own: the host
    opens a duel and plays it (a second duel refused meanwhile, its problem read into its
    model from the 409's oneOf), the challenger is matched to its deal and plays better;
    each reads the duel finished with opposite rating changes, and the board ranks both."""
    errors = importlib.import_module(f"{PACKAGE}.exceptions")
    opened_players: list[Player] = []

    def player(key: str | None = None) -> Player:
        opened_players.append(Player(sdk, duel_server, key))
        return opened_players[-1]

    try:
        anonymous = player()
        made = {
            role: anonymous.players.create_player(sdk.PlayerCreate(name=f"generated {role}"))
            for role in ("host", "challenger")
        }
        host, challenger = (player(made[role].key) for role in ("host", "challenger"))

        asked = host.duels.request_duel_with_http_info(sdk.DuelCreate())
        assert asked.status_code == 201
        opened = asked.data
        assert isinstance(opened, sdk.DuelCreated)
        assert (opened.status, opened.role) == (sdk.DuelStatus.WAITING, "host")
        assert opened.game.commitment == opened.commitment and opened.opponent is None
        busy = _problem(
            sdk.DuelGameInProgressProblem,
            errors.ConflictException,
            host.duels.request_duel,
            sdk.DuelCreate(),
        )
        assert busy.type == "/problems/duel-game-in-progress"
        assert (busy.duel_id, busy.game_id) == (opened.id, opened.game.id)
        # A duel's answer is no game's state: the ETag of its game is its version's.
        version = f'"v{opened.game.version}"'
        host_end = _draw_and_concede(sdk, host.games, opened.game.id, version, draws=2)

        matched = challenger.duels.request_duel(sdk.DuelCreate())
        assert isinstance(matched, sdk.DuelCreated)
        assert (matched.id, matched.status, matched.role) == (
            opened.id,
            sdk.DuelStatus.MATCHED,
            "challenger",
        )
        assert matched.commitment == matched.game.commitment == opened.commitment
        # The challenger plays with their player key: it answers for the duel's game too.
        start = challenger.games.get_game_with_http_info(matched.game.id)
        challenger_end = _draw_and_concede(
            sdk, challenger.games, matched.game.id, _etag(start), draws=1
        )

        seen = {who: who.duels.get_duel(opened.id) for who in (host, challenger)}
        assert all(isinstance(d, sdk.DuelRead) for d in seen.values())
        assert {d.status for d in seen.values()} == {sdk.DuelStatus.FINISHED}
        assert (seen[host].result, seen[challenger].result) == (
            sdk.YourResult.LOST,
            sdk.YourResult.WON,
        )
        assert seen[host].you.score == host_end.score.total
        assert seen[host].opponent.score == challenger_end.score.total
        change = seen[challenger].you.rating_change
        assert change > 0 and seen[host].you.rating_change == -change

        board = host.duels.get_rating_board("tripeaks.standard", kind=sdk.PlayerKind.HUMAN)
        assert isinstance(board, sdk.RatingBoardRead) and board.rated == 2
        assert [(e.rank, e.player_id, e.rating) for e in board.entries] == [
            (1, made["challenger"].id, 1500 + change),
            (2, made["host"].id, 1500 - change),
        ]
        around = challenger.duels.get_rating_board("tripeaks.standard", around="me")
        assert around.entries[0].player_id == made["challenger"].id
    finally:
        for opened_player in opened_players:
            opened_player.close()


def test_the_typescript_fetch_client_compiles_under_strict(tmp_path: Path) -> None:
    if not (generate.NODE_BIN / "tsc").exists():
        reason = "clients/ts/node_modules is needed: run `make node-setup`"
        if os.environ.get("CI"):
            pytest.fail(f"CI must compile the typescript-fetch client: {reason}")
        pytest.skip(reason)
    out = generate.typescript_fetch_client(tmp_path / "typescript-fetch")
    apis = {p.stem for p in (out / "src" / "apis").glob("*Api.ts")}
    assert apis == {
        "GamesApi",
        "LayoutsApi",
        "PlayersApi",
        "ChallengesApi",
        "EventsApi",
        "OperatorsApi",
        "OperationsApi",
        "DuelsApi",
    }
    games_api = (out / "src" / "apis" / "GamesApi.ts").read_text(encoding="utf-8")
    for method in ("createGame", "makeMove", "playCard", "drawCard", "listLegalMoves"):
        assert f"async {method}Raw(" in games_api, method


def test_generation_prints_no_warning_the_spec_could_remove() -> None:
    # The known ones are told apart from the rest by their own words; any other line that
    # says WARN or ERROR fails generation (and so the fixtures above).
    sample = (
        "[main] WARN  o.o.codegen.DefaultCodegen - OpenAPI 3.1 support is still in beta.\n"
        "[main] WARN  o.o.codegen.utils.ModelUtils - Failed to get the schema name: null\n"
        "[main] INFO  o.o.codegen.DefaultGenerator - Generating with dryRun=false\n"
        "[main] WARN  o.o.codegen.DefaultCodegen - Unknown type found in the schema: foo\n"
    )
    assert generate.unexpected_warnings(sample) == [sample.splitlines()[3]]
