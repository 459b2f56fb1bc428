"""A Python client generated from the committed spec plays whole games on a real server.

openapi-python-client generates the client into a temporary folder (clients/generate.py;
nothing generated is committed); the test imports it and plays against a server process
on 127.0.0.1, reading the legal moves and posting them back, as an SDK user would. Errors
come back parsed into the generated model of its problem type, which proves that the problem+json
responses are declared.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from clients import generate
from tests.fixtures.deals import TRIPEAKS_CLEAR_ORDER, chain_deal, losing_deal, verify_commitment
from tests.fixtures.packages import imported
from tests.fixtures.servers import live_server

pytestmark = pytest.mark.slow

PACKAGE = generate.OPENAPI_PYTHON_CLIENT_PACKAGE
GAME_OPERATIONS = {
    "create_game",
    "get_game",
    "list_legal_moves",
    "make_move",
    "play_card",
    "draw_card",
    "concede_game",
    "get_score",
    "list_moves",
}
DUEL_OPERATIONS = {
    "request_duel",
    "get_duel",
    "list_my_duels",
    "get_player_ratings",
    "list_rating_history",
    "get_rating_board",
}


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The generated package, imported from a temporary folder."""
    with imported(
        generate.openapi_python_client(tmp_path_factory.mktemp("sdk")), PACKAGE
    ) as package:
        yield package


@pytest.fixture(scope="module")
def base_url(database_url: str) -> Iterator[str]:
    with live_server(database_url) as url:
        yield url


def _api(sdk: Any, group: str, operation: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.api.{group}.{operation}")


def _models(sdk: Any) -> Any:
    return importlib.import_module(f"{PACKAGE}.models")


def test_operations_become_readable_modules(sdk: Any) -> None:
    root = Path(sdk.__file__).parent / "api"
    modules = {p.stem for p in root.glob("*/*.py") if p.stem != "__init__"}
    assert {p.stem for p in (root / "games").glob("*.py")} >= GAME_OPERATIONS
    assert {"list_layouts", "get_layout", "get_health", "get_readiness"} <= modules
    assert {p.stem for p in (root / "layouts").glob("*.py")} >= {"list_layouts", "get_layout"}
    assert {p.stem for p in (root / "duels").glob("*.py")} - {"__init__"} == DUEL_OPERATIONS
    # Every problem response is parsed into its problem type's model (409 into the one
    # its type names).
    make_move = (root / "games" / "make_move.py").read_text(encoding="utf-8")
    for status, model in (
        (400, "IllegalMoveProblem"),
        (401, "UnauthorizedProblem"),
        (403, "ForbiddenProblem"),
        (404, "NotFoundProblem"),
        (412, "PreconditionFailedProblem"),
    ):
        assert f"response_{status} = {model}.from_dict(response.json())" in make_move
    for model in ("GameOverProblem", "MoveLimitProblem", "ConflictProblem"):
        assert f"{model}.from_dict(data)" in make_move


class Clients:
    """Generated clients on one server, each closed at the end of the test."""

    def __init__(self, sdk: Any, base_url: str) -> None:
        self.sdk = sdk
        self.base_url = base_url
        self.opened: list[Any] = []
        self.anonymous = self._open(sdk.Client(base_url=base_url, raise_on_unexpected_status=True))

    def _open(self, client: Any) -> Any:
        self.opened.append(client)
        return client

    def player(self, token: str) -> Any:
        return self._open(
            self.sdk.AuthenticatedClient(
                base_url=self.base_url, token=token, raise_on_unexpected_status=True
            )
        )

    def create(self, **body: Any) -> tuple[Any, Any]:
        models = _models(self.sdk)
        request = models.GameCreate.from_dict(body)
        create_game = _api(self.sdk, "games", "create_game")
        answer = create_game.sync_detailed(client=self.anonymous, body=request)
        assert answer.status_code == 201, answer.content
        created = answer.parsed
        assert isinstance(created, models.GameCreated)
        assert answer.headers["Location"] == f"/v1/games/{created.id}"
        return created, self.player(created.token)

    def close(self) -> None:
        for client in self.opened:
            client.__exit__(None, None, None)


@pytest.fixture
def clients(sdk: Any, base_url: str) -> Iterator[Clients]:
    c = Clients(sdk, base_url)
    try:
        yield c
    finally:
        c.close()


def test_a_generated_client_wins_a_game(sdk: Any, clients: Clients) -> None:
    models = _models(sdk)
    games = {op: _api(sdk, "games", op) for op in GAME_OPERATIONS}
    game, player = clients.create(deal=chain_deal())
    assert game.status == models.GameStatus.IN_PROGRESS
    commitment = game.commitment
    state: Any = game
    for turn, position in enumerate(TRIPEAKS_CLEAR_ORDER):
        legal = games["list_legal_moves"].sync(game.id, client=player)
        assert isinstance(legal, models.LegalMoveList)
        plays = {m.position: m for m in legal.legal_moves if m.kind == models.MoveKind.PLAY}
        assert position in plays, (position, [m.move for m in legal.legal_moves])
        chosen = plays[position]
        if turn % 2 == 0:
            # The legal-move object, posted back unchanged.
            body = models.MoveCreate.from_dict(chosen.to_dict())
            state = games["make_move"].sync(
                game.id, client=player, body=body, if_match=f'"v{turn}"'
            )
        else:
            body = models.PlayCreate(position=position, card=chosen.card)
            state = games["play_card"].sync(game.id, client=player, body=body)
        assert isinstance(state, models.GameRead), state
        assert state.version == turn + 1
    assert state.status == models.GameStatus.WON
    assert state.cards_left == 0
    assert state.reveal is not None
    assert state.reveal.deal == chain_deal()
    assert verify_commitment(commitment, state.reveal.deal, state.reveal.salt)
    score = games["get_score"].sync(game.id, client=player)
    assert isinstance(score, models.GameScoreRead)
    assert score.status == "won"
    assert score.score.longest_streak == len(TRIPEAKS_CLEAR_ORDER)
    history = games["list_moves"].sync(game.id, client=player)
    assert isinstance(history, models.MoveList)
    assert history.total == len(TRIPEAKS_CLEAR_ORDER)
    assert [m.move for m in history.moves] == [f"play {p}" for p in TRIPEAKS_CLEAR_ORDER]
    # A move on a finished game: a typed game-over problem.
    over = games["draw_card"].sync_detailed(game.id, client=player)
    assert over.status_code == 409
    assert isinstance(over.parsed, models.GameOverProblem)
    assert over.parsed.type_ == "/problems/game-over"
    assert over.parsed.game_status == models.GameStatus.WON


def test_a_generated_client_loses_a_game(sdk: Any, clients: Clients) -> None:
    models = _models(sdk)
    games = {op: _api(sdk, "games", op) for op in GAME_OPERATIONS}
    game, player = clients.create(deal=losing_deal())
    state: Any = games["get_game"].sync(game.id, client=player)
    draws = 0
    while state.status == models.GameStatus.IN_PROGRESS:
        legal = games["list_legal_moves"].sync(game.id, client=player)
        kinds = {m.kind for m in legal.legal_moves}
        assert models.MoveKind.PLAY not in kinds
        assert models.MoveKind.DRAW in kinds
        state = games["draw_card"].sync(game.id, client=player)
        assert isinstance(state, models.GameRead), state
        draws += 1
    assert draws == 23
    assert state.status == models.GameStatus.LOST
    assert state.stock_count == 0
    assert state.legal_moves == []
    assert state.reveal is not None and state.reveal.deal == losing_deal()
    assert verify_commitment(game.commitment, state.reveal.deal, state.reveal.salt)


def test_errors_come_back_as_typed_problems(sdk: Any, clients: Clients) -> None:
    models = _models(sdk)
    games = {op: _api(sdk, "games", op) for op in GAME_OPERATIONS}
    game, player = clients.create(deal=chain_deal())

    # An illegal move: position 0 is a peak, still covered.
    illegal = games["play_card"].sync_detailed(
        game.id, client=player, body=models.PlayCreate(position=0)
    )
    assert illegal.status_code == 400
    problem = illegal.parsed
    assert isinstance(problem, models.IllegalMoveProblem)
    assert problem.type_ == "/problems/illegal-move"
    assert problem.status == 400
    assert problem.move == "play 0" and "covered" in problem.reason
    assert illegal.headers["content-type"] == "application/problem+json"

    # Another game's token opens nothing here.
    other, _ = clients.create()
    stranger = clients.player(other.token)
    forbidden = games["get_game"].sync_detailed(game.id, client=stranger)
    assert forbidden.status_code == 403
    assert isinstance(forbidden.parsed, models.ForbiddenProblem)
    assert forbidden.parsed.type_ == "/problems/forbidden"
    forger = clients.player("not-a-token")
    wrong = games["make_move"].sync_detailed(
        game.id, client=forger, body=models.MoveCreate(move="draw")
    )
    assert isinstance(wrong.parsed, models.ForbiddenProblem)
    assert wrong.parsed.type_ == "/problems/forbidden"

    # A stale If-Match and an unknown game.
    stale = games["draw_card"].sync_detailed(game.id, client=player, if_match='"v7"')
    assert stale.status_code == 412
    assert isinstance(stale.parsed, models.PreconditionFailedProblem)
    assert stale.parsed.type_ == "/problems/precondition-failed"
    assert stale.parsed.current_version == 0
    missing = games["get_score"].sync_detailed("no-such-game", client=player)
    assert missing.status_code == 404
    assert isinstance(missing.parsed, models.NotFoundProblem)
    assert missing.parsed.type_ == "/problems/not-found"

    # Invalid rules: a validation problem listing what was refused.
    bad = _api(sdk, "games", "create_game").sync_detailed(
        client=clients.anonymous,
        body=models.GameCreate.from_dict({"rules": {"wrap": True, "king_stops": True}}),
    )
    assert bad.status_code == 422
    assert isinstance(bad.parsed, models.ValidationProblem)
    assert bad.parsed.type_ == "/problems/validation"
    assert bad.parsed.option == "king_stops"
    assert [e.loc for e in bad.parsed.errors] == [["body", "rules", "king_stops"]]

    # Conceding ends the game and reveals the deal.
    conceded = games["concede_game"].sync(game.id, client=player)
    assert isinstance(conceded, models.GameRead)
    assert conceded.status == models.GameStatus.CONCEDED
    assert conceded.reveal is not None and conceded.reveal.deal == chain_deal()


def test_layouts_and_health_through_the_client(sdk: Any, clients: Clients) -> None:
    models = _models(sdk)
    anonymous = clients.anonymous
    listed = _api(sdk, "layouts", "list_layouts").sync(client=anonymous)
    assert isinstance(listed, models.LayoutList)
    names = [lay.name for lay in listed.layouts]
    assert "tripeaks" in names
    for name in names:
        layout = _api(sdk, "layouts", "get_layout").sync(name, client=anonymous)
        assert isinstance(layout, models.LayoutRead)
        assert len(layout.positions) == next(s.cards for s in listed.layouts if s.name == name)
    unknown = _api(sdk, "layouts", "get_layout").sync_detailed("nope", client=anonymous)
    assert isinstance(unknown.parsed, models.NotFoundProblem)
    assert unknown.parsed.type_ == "/problems/not-found"
    health = _api(sdk, "operations", "get_health").sync_detailed(client=anonymous)
    assert health.status_code == 200
    ready = _api(sdk, "operations", "get_readiness").sync_detailed(client=anonymous)
    assert ready.status_code == 200


def test_a_player_plays_the_daily_challenge_and_reads_the_leaderboard(
    sdk: Any, clients: Clients
) -> None:
    """Through the generated client only: a bot player is created, plays today's golf
    challenge to its end (draws, then concedes: golf counts cards left), finds the game
    in its list and its provisional result ranked apart on the bot board (a new account),
    and cannot enter twice."""
    models = _models(sdk)
    create_player = _api(sdk, "players", "create_player")
    created = create_player.sync(
        client=clients.anonymous,
        body=models.PlayerCreate(name="sdk bot", kind=models.PlayerKind.BOT),
    )
    assert isinstance(created, models.PlayerCreated)
    me = clients.player(created.key)
    profile = _api(sdk, "players", "get_me").sync(client=me)
    assert isinstance(profile, models.PlayerRead) and profile.name == "sdk bot"

    golf = models.LayoutName.GOLF
    daily = _api(sdk, "challenges", "get_daily_challenge").sync(
        client=clients.anonymous, layout=golf
    )
    assert isinstance(daily, models.ChallengeRead)
    assert daily.status == models.ChallengeStatus.OPEN and daily.reveal is None
    start = _api(sdk, "challenges", "start_challenge_game")
    game = start.sync(daily.id, client=me)
    assert isinstance(game, models.GameCreated)
    assert game.commitment == daily.commitment and game.challenge.ranked
    again = start.sync_detailed(daily.id, client=me)
    assert again.status_code == 409 and isinstance(again.parsed, models.AlreadyEnteredProblem)
    assert again.parsed.type_ == "/problems/already-entered"
    assert again.parsed.game_id == game.id

    games = {op: _api(sdk, "games", op) for op in GAME_OPERATIONS}
    hint = _api(sdk, "games", "get_hint").sync_detailed(game.id, client=me)
    assert hint.status_code == 409 and hint.parsed.type_ == "/problems/ranked-game"
    games["draw_card"].sync(game.id, client=me)
    ended = games["concede_game"].sync(game.id, client=me)
    assert isinstance(ended, models.GameRead) and ended.status == models.GameStatus.CONCEDED
    assert ended.reveal is None  # the day is not over

    mine = _api(sdk, "players", "list_my_games").sync(client=me)
    assert isinstance(mine, models.GameSummaryList)
    assert [g.id for g in mine.games] == [game.id]
    # A new account's result on the daily is provisional: ranked apart until measured.
    board = _api(sdk, "challenges", "get_leaderboard").sync(
        daily.id, client=me, kind=models.PlayerKind.BOT, fair_play=models.FairPlayView.PROVISIONAL
    )
    assert isinstance(board, models.LeaderboardRead)
    entry = next(e for e in board.entries if e.player_id == created.id)
    assert (entry.name, entry.score, entry.moves) == ("sdk bot", 35, 2)
    assert entry.provisional and entry.rank >= 1 and board.ranked >= 1
    challenges = _api(sdk, "challenges", "list_my_challenges").sync(client=me)
    assert isinstance(challenges, models.MyChallengesRead)
    [mine_there] = [c.entry for c in challenges.challenges if c.challenge.id == daily.id]
    assert mine_there.side == models.Side.PROVISIONAL and mine_there.provisional
    assert "ranked apart" in mine_there.provisional_note
    stats = _api(sdk, "players", "get_player").sync(created.id, client=clients.anonymous)
    assert isinstance(stats, models.PlayerRead)
    assert stats.stats.overall.played == 1 and stats.stats.overall.conceded == 1


def test_players_set_a_challenge_join_it_practise_it_and_follow(sdk: Any, clients: Clients) -> None:
    """Through the generated client only: a host sets a golf challenge (the server draws
    it), a guest joins it by its id and plays, the guest follows the host and reads the
    board among the players they follow; the host closes it and the guest practises its
    deal, unranked, learning where the result would have ranked."""
    models = _models(sdk)
    create_player = _api(sdk, "players", "create_player")
    keys = {}
    for name in ("sdk host", "sdk guest"):
        made = create_player.sync(client=clients.anonymous, body=models.PlayerCreate(name=name))
        assert isinstance(made, models.PlayerCreated)
        keys[name] = (made.id, clients.player(made.key))
    host_id, host = keys["sdk host"]
    guest_id, guest = keys["sdk guest"]

    closes = datetime.now(UTC) + timedelta(hours=2)
    body = models.ChallengeCreate(
        name="SDK race",
        closes_at=closes,
        layout=models.LayoutName.GOLF,
        attempts=2,
        winnable_only=False,
    )
    made = _api(sdk, "challenges", "create_challenge").sync_detailed(client=host, body=body)
    assert made.status_code == 201, made.content
    challenge = made.parsed
    assert isinstance(challenge, models.ChallengeRead)
    assert challenge.kind == models.ChallengeKind.SET and challenge.reveal is None
    assert made.headers["Location"] == f"/v1/challenges/{challenge.id}"
    by_code = _api(sdk, "challenges", "get_challenge_by_invite").sync(
        challenge.invite_code, client=clients.anonymous
    )
    assert isinstance(by_code, models.ChallengeRead) and by_code.id == challenge.id

    start = _api(sdk, "challenges", "start_challenge_game")
    games = {op: _api(sdk, "games", op) for op in GAME_OPERATIONS}
    for who in (host, guest):
        game = start.sync(challenge.id, client=who)
        assert isinstance(game, models.GameCreated) and game.challenge.ranked
        games["concede_game"].sync(game.id, client=who)

    follow = _api(sdk, "players", "follow_player").sync_detailed(host_id, client=guest)
    assert follow.status_code == 204
    itself = _api(sdk, "players", "follow_player").sync_detailed(guest_id, client=guest)
    assert itself.status_code == 409 and isinstance(itself.parsed, models.FollowSelfProblem)
    following = _api(sdk, "players", "list_following").sync(client=guest)
    assert isinstance(following, models.FollowingRead)
    assert [f.player_id for f in following.following] == [host_id] and following.count == 1
    board = _api(sdk, "challenges", "get_leaderboard").sync(
        challenge.id, client=guest, among=models.Among.FOLLOWING
    )
    assert isinstance(board, models.LeaderboardRead) and board.ranked == 2
    assert {e.player_id for e in board.entries} == {host_id, guest_id}
    assert all(e.rank == e.global_rank for e in board.entries)

    early = _api(sdk, "challenges", "start_practice_game").sync_detailed(
        challenge.id, client=clients.anonymous
    )
    assert early.status_code == 409
    assert isinstance(early.parsed, models.ChallengeStillOpenProblem)
    closed = _api(sdk, "challenges", "close_challenge").sync(challenge.id, client=host)
    assert isinstance(closed, models.ChallengeRead)
    assert closed.status == models.ChallengeStatus.CLOSED and closed.reveal is not None
    practice = _api(sdk, "challenges", "start_practice_game").sync(challenge.id, client=guest)
    assert isinstance(practice, models.GameCreated)
    assert practice.practice.challenge_id == challenge.id and practice.challenge is None
    ended = games["concede_game"].sync(practice.id, client=clients.player(practice.token))
    assert isinstance(ended, models.GameRead)
    assert ended.practice.rank == 1 and ended.practice.ranked == 2
    mine = _api(sdk, "challenges", "list_my_challenges").sync(client=host)
    assert isinstance(mine, models.MyChallengesRead)
    assert mine.challenges[0].challenge.id == challenge.id and mine.challenges[0].created
    profile = _api(sdk, "players", "get_player").sync(guest_id, client=clients.anonymous)
    assert isinstance(profile, models.PlayerRead) and profile.badges == []


def _draw_and_concede(sdk: Any, game_id: str, player: Any, draws: int) -> Any:
    """A duel's game played to its end: ``draws`` draws, then a concession; its last state."""
    models = _models(sdk)
    for _ in range(draws):
        state = _api(sdk, "games", "draw_card").sync(game_id, client=player)
        assert isinstance(state, models.GameRead) and state.status == models.GameStatus.IN_PROGRESS
    ended = _api(sdk, "games", "concede_game").sync(game_id, client=player)
    assert isinstance(ended, models.GameRead) and ended.status == models.GameStatus.CONCEDED
    return ended


def test_two_players_play_a_ranked_duel(sdk: Any, duel_server: str) -> None:
    """Through the generated client only, on a database of the test's own: the first of two
    players asks for a ranked duel and opens one (the host, who plays at once), is refused
    a second while that game is unfinished (a typed problem naming it), and plays to its
    end; the second is matched to it (the challenger, on the same committed deal) and plays
    better; both read the duel finished with opposite rating changes, the deal revealed as
    committed, and the pool's board ranks them both."""
    models = _models(sdk)
    duels = {op: _api(sdk, "duels", op) for op in DUEL_OPERATIONS}
    clients = Clients(sdk, duel_server)
    try:
        ids, players = {}, {}
        for role in ("host", "challenger"):
            made = _api(sdk, "players", "create_player").sync(
                client=clients.anonymous, body=models.PlayerCreate(name=f"sdk {role}")
            )
            assert isinstance(made, models.PlayerCreated)
            ids[role], players[role] = made.id, clients.player(made.key)

        asked = duels["request_duel"].sync_detailed(
            client=players["host"], body=models.DuelCreate()
        )
        assert asked.status_code == 201, asked.content
        opened = asked.parsed
        assert isinstance(opened, models.DuelCreated)
        assert asked.headers["Location"] == f"/v1/duels/{opened.id}"
        assert (opened.status, opened.role, opened.pool) == (
            models.DuelStatus.WAITING,
            "host",
            "tripeaks.standard",
        )
        assert opened.opponent is None and opened.you.player_id == ids["host"]
        assert opened.game.id == opened.game_id and opened.game.token
        assert opened.game.commitment == opened.commitment
        assert opened.game.reveal is None

        again = duels["request_duel"].sync_detailed(
            client=players["host"], body=models.DuelCreate()
        )
        assert again.status_code == 409
        assert isinstance(again.parsed, models.DuelGameInProgressProblem)
        assert again.parsed.type_ == "/problems/duel-game-in-progress"
        assert (again.parsed.duel_id, again.parsed.game_id) == (opened.id, opened.game.id)

        host_game = clients.player(opened.game.token)
        host_end = _draw_and_concede(sdk, opened.game.id, host_game, draws=2)
        assert host_end.reveal is None  # the duel has not ended
        waiting = duels["get_duel"].sync(opened.id, client=players["host"])
        assert isinstance(waiting, models.DuelRead)
        assert waiting.status == models.DuelStatus.WAITING and waiting.you.finished
        assert waiting.you.score == host_end.score.total

        matched = duels["request_duel"].sync(client=players["challenger"], body=models.DuelCreate())
        assert isinstance(matched, models.DuelCreated)
        assert (matched.id, matched.status, matched.role) == (
            opened.id,
            models.DuelStatus.MATCHED,
            "challenger",
        )
        assert matched.commitment == matched.game.commitment == opened.commitment
        assert matched.opponent is not None and matched.opponent.player_id == ids["host"]
        assert matched.opponent.score is None  # the host's score shows once the duel ends
        challenger_end = _draw_and_concede(
            sdk, matched.game.id, clients.player(matched.game.token), draws=1
        )

        seen = {
            role: duels["get_duel"].sync(opened.id, client=players[role])
            for role in ("host", "challenger")
        }
        host, challenger = seen["host"], seen["challenger"]
        assert isinstance(host, models.DuelRead) and isinstance(challenger, models.DuelRead)
        assert host.status == challenger.status == models.DuelStatus.FINISHED
        assert (host.result, challenger.result) == (models.YourResult.LOST, models.YourResult.WON)
        assert host.opponent is not None and challenger.opponent is not None
        assert host.opponent.score == challenger.you.score == challenger_end.score.total
        assert challenger.opponent.score == host.you.score == host_end.score.total
        change = challenger.you.rating_change
        assert isinstance(change, int) and change > 0
        assert host.you.rating_change == -change == challenger.opponent.rating_change
        revealed = _api(sdk, "games", "get_game").sync(opened.game.id, client=host_game)
        assert isinstance(revealed, models.GameRead) and revealed.reveal is not None
        assert verify_commitment(opened.commitment, revealed.reveal.deal, revealed.reveal.salt)

        board = duels["get_rating_board"].sync(
            "tripeaks.standard", client=players["host"], kind=models.PlayerKind.HUMAN
        )
        assert isinstance(board, models.RatingBoardRead) and board.rated == 2
        assert [(e.rank, e.player_id, e.rating) for e in board.entries] == [
            (1, ids["challenger"], 1500 + change),
            (2, ids["host"], 1500 - change),
        ]
        assert all(e.provisional and e.games == 1 for e in board.entries)
        rated = duels["get_player_ratings"].sync(ids["host"], client=clients.anonymous)
        assert isinstance(rated, models.PlayerRatingsRead)
        [rating] = rated.ratings
        assert (rating.pool, rating.rating, rating.rank, rating.losses) == (
            "tripeaks.standard",
            1500 - change,
            2,
            1,
        )
        assert [(c.duel_id, c.before, c.after) for c in rating.recent] == [
            (opened.id, 1500, 1500 - change)
        ]
        history = duels["list_rating_history"].sync(
            ids["challenger"], "tripeaks.standard", client=clients.anonymous
        )
        assert isinstance(history, models.RatingHistoryRead)
        assert [(c.duel_id, c.after - c.before, c.taken_back) for c in history.changes] == [
            (opened.id, change, False)
        ]
        mine = duels["list_my_duels"].sync(client=players["challenger"])
        assert isinstance(mine, models.MyDuelsRead)
        assert [d.id for d in mine.duels] == [opened.id] and mine.next_ is None
    finally:
        clients.close()
