// Plays TriPeaks through a client that knows nothing but openapi/openapi.json: types made
// by openapi-typescript (src/generated/api.ts, generated at test time, never committed)
// and requests made by openapi-fetch. Run by tests/clients/test_typescript.py:
//
//   node dist/play.js BASE_URL PLAN_JSON
//
// PLAN_JSON: {"win": {"deal": [...], "order": [...]}, "lose": {"deal": [...]}}; then two new
// players play a ranked duel. Prints one JSON object describing what happened; exits
// non-zero when anything was not as expected.
import createClient from "openapi-fetch";

import type { components, paths } from "./generated/api.js";

type GameRead = components["schemas"]["GameRead"];
type LegalMove = components["schemas"]["LegalMoveRead"];
type IllegalMoveProblem = components["schemas"]["IllegalMoveProblem"];
type ForbiddenProblem = components["schemas"]["ForbiddenProblem"];
type DuelGameInProgressProblem = components["schemas"]["DuelGameInProgressProblem"];
// What every problem type's schema has (RFC 9457).
interface ProblemShape {
  type: string;
  title: string;
  status: number;
  detail: string;
}

interface Plan {
  win: { deal: string[]; order: number[] };
  lose: { deal: string[] };
}

interface Played {
  status: GameRead["status"];
  moves: number;
  score: number;
  revealed: boolean;
}

const MAX_MOVES = 500;

function fail(message: string): never {
  throw new Error(message);
}

const [baseUrl, planJson] = process.argv.slice(2);
if (baseUrl === undefined || planJson === undefined) {
  fail("usage: node dist/play.js BASE_URL PLAN_JSON");
}
const plan = JSON.parse(planJson) as Plan;
const anonymous = createClient<paths>({ baseUrl });

function playerClient(token: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
}

async function createGame(deal: string[]) {
  const { data, error, response } = await anonymous.POST("/v1/games", { body: { deal } });
  if (data === undefined) {
    fail(`create_game answered ${response.status}: ${error?.type} ${error?.detail}`);
  }
  if (response.status !== 201 || response.headers.get("Location") !== `/v1/games/${data.id}`) {
    fail(`create_game: status ${response.status}, Location ${response.headers.get("Location")}`);
  }
  return { game: data, player: playerClient(data.token) };
}

function choose(moves: LegalMove[], order: number[], played: number): LegalMove {
  const plays = moves.filter((m) => m.kind === "play");
  const next = order[played];
  const wanted = plays.find((m) => m.position === next) ?? plays[0];
  const chosen = wanted ?? moves.find((m) => m.kind === "draw");
  if (chosen === undefined) {
    fail(`no play and no draw among ${moves.map((m) => m.move).join(", ")}`);
  }
  return chosen;
}

async function play(deal: string[], order: number[]): Promise<Played> {
  const { game, player } = await createGame(deal);
  const path = { game_id: game.id };
  let state: GameRead = game;
  let plays = 0;
  for (let turn = 0; state.status === "in_progress"; turn++) {
    if (turn >= MAX_MOVES) fail(`still playing after ${MAX_MOVES} moves`);
    const legal = await player.GET("/v1/games/{game_id}/legal-moves", { params: { path } });
    if (legal.data === undefined) fail(`list_legal_moves: ${legal.error?.detail}`);
    if (legal.data.version !== state.version) fail("legal moves of another version");
    const move = choose(legal.data.legal_moves, order, plays);
    // The legal-move object goes back unchanged, guarded by the version it was read at.
    const posted = await player.POST("/v1/games/{game_id}/moves", {
      params: { path, header: { "if-match": `"v${legal.data.version}"` } },
      body: move,
    });
    if (posted.data === undefined) {
      fail(`make_move ${move.move}: ${posted.response.status} ${posted.error?.type}`);
    }
    if (posted.response.headers.get("ETag") !== `"v${posted.data.version}"`) {
      fail(`ETag ${posted.response.headers.get("ETag")} for version ${posted.data.version}`);
    }
    if (move.kind === "play") plays++;
    state = posted.data;
  }
  const score = await player.GET("/v1/games/{game_id}/score", { params: { path } });
  if (score.data === undefined) fail(`get_score: ${score.error?.detail}`);
  return {
    status: state.status,
    moves: state.version,
    score: score.data.score.total,
    revealed: JSON.stringify(state.reveal?.deal) === JSON.stringify(deal),
  };
}

// The error of a call is typed from the spec: a union of the problem types its operation
// declares, each told apart by its `type`. These lines compile only while every declared
// error is application/problem+json with a problem's members, and the illegal move's and
// the wrong token's types are among them with their own members.
type IsProblem<E> = [E] extends [ProblemShape] ? true : false;
type Has<U, T> = [Extract<U, T>] extends [never] ? false : true;

async function problems(deal: string[]) {
  const { game, player } = await createGame(deal);
  const path = { game_id: game.id };

  const illegal = await player.POST("/v1/games/{game_id}/play", {
    params: { path },
    body: { position: 0 },
  });
  type IllegalError = NonNullable<typeof illegal.error>;
  const illegalIsProblem: IsProblem<IllegalError> = true;
  const illegalTyped: Has<IllegalError, IllegalMoveProblem> = true;
  const illegalMove = illegal.error?.type === "/problems/illegal-move" ? illegal.error.move : null;

  // A poll: send the ETag of the state held; 304 says nothing changed (no body: data and
  // error are both undefined, and the state held stays right).
  const first = await player.GET("/v1/games/{game_id}", { params: { path } });
  const etag = first.response.headers.get("ETag") ?? fail("get_game sent no ETag");
  const polled = await player.GET("/v1/games/{game_id}", {
    params: { path, header: { "if-none-match": etag } },
  });
  const unchanged = polled.response.status === 304 && polled.data === undefined;

  const stranger = playerClient("not-the-token");
  const forbidden = await stranger.GET("/v1/games/{game_id}", { params: { path } });
  type ForbiddenError = NonNullable<typeof forbidden.error>;
  const forbiddenIsProblem: IsProblem<ForbiddenError> = true;
  const forbiddenTyped: Has<ForbiddenError, ForbiddenProblem> = true;

  const over = await player.POST("/v1/games/{game_id}/concede", { params: { path } });
  const again = await player.POST("/v1/games/{game_id}/draw", { params: { path } });
  return {
    typed: illegalIsProblem && forbiddenIsProblem && illegalTyped && forbiddenTyped,
    poll: { status: polled.response.status, unchanged },
    illegal: { status: illegal.response.status, type: illegal.error?.type, move: illegalMove },
    illegal_content_type: illegal.response.headers.get("Content-Type"),
    forbidden: { status: forbidden.response.status, type: forbidden.error?.type },
    conceded: over.data?.status,
    game_over: { status: again.response.status, type: again.error?.type },
  };
}

async function newPlayer(name: string) {
  const { data, error, response } = await anonymous.POST("/v1/players", { body: { name } });
  if (data === undefined) fail(`create_player answered ${response.status}: ${error?.type}`);
  return { id: data.id, client: playerClient(data.key) };
}

type Player = Awaited<ReturnType<typeof newPlayer>>;

// A duel's game played to its end with its player's key: `draws` draws, then a concession.
async function drawAndConcede(player: Player, gameId: string, draws: number): Promise<GameRead> {
  const path = { game_id: gameId };
  for (let i = 0; i < draws; i++) {
    const drawn = await player.client.POST("/v1/games/{game_id}/draw", { params: { path } });
    if (drawn.data?.status !== "in_progress") fail(`draw_card: ${drawn.error?.type}`);
  }
  const ended = await player.client.POST("/v1/games/{game_id}/concede", { params: { path } });
  if (ended.data === undefined) fail(`concede_game: ${ended.error?.type}`);
  return ended.data;
}

// A ranked duel between two new players: the host opens it and plays first (a second
// duel refused meanwhile), the challenger is matched to its deal and plays better.
async function duel() {
  const host = await newPlayer("ts host");
  const challenger = await newPlayer("ts challenger");
  const opened = await host.client.POST("/v1/duels", { body: {} });
  if (opened.data === undefined) fail(`request_duel: ${opened.error?.type}`);
  const duelId = opened.data.id;

  const refused = await host.client.POST("/v1/duels", { body: {} });
  type RefusedError = NonNullable<typeof refused.error>;
  const refusedTyped: Has<RefusedError, DuelGameInProgressProblem> = true;
  const busy = refused.error?.type === "/problems/duel-game-in-progress" ? refused.error : null;
  const hostEnd = await drawAndConcede(host, opened.data.game.id, 2);

  const matched = await challenger.client.POST("/v1/duels", { body: {} });
  if (matched.data === undefined) fail(`request_duel: ${matched.error?.type}`);
  const challengerEnd = await drawAndConcede(challenger, matched.data.game.id, 1);

  async function seenBy(player: Player, end: GameRead) {
    const read = await player.client.GET("/v1/duels/{duel_id}", {
      params: { path: { duel_id: duelId } },
    });
    if (read.data === undefined) fail(`get_duel: ${read.error?.type}`);
    const { status, result, you, opponent } = read.data;
    return {
      status,
      result,
      own_score: you.score === end.score.total,
      rating_change: you.rating_change,
      opponent_change: opponent?.rating_change,
    };
  }
  const board = await anonymous.GET("/v1/ratings/{pool}", {
    params: { path: { pool: opened.data.pool }, query: { kind: "human" } },
  });
  if (board.data === undefined) fail(`get_rating_board: ${board.error?.type}`);
  return {
    opened: {
      status: opened.data.status,
      role: opened.data.role,
      committed: opened.data.game.commitment === opened.data.commitment,
    },
    refused: {
      status: refused.response.status,
      type: refused.error?.type,
      typed: refusedTyped,
      names_the_game: busy?.duel_id === duelId && busy.game_id === opened.data.game.id,
    },
    matched: {
      same_duel: matched.data.id === duelId,
      status: matched.data.status,
      role: matched.data.role,
      same_deal: matched.data.game.commitment === opened.data.commitment,
    },
    host: await seenBy(host, hostEnd),
    challenger: await seenBy(challenger, challengerEnd),
    board: {
      rated: board.data.rated,
      entries: board.data.entries.map((e) => [e.rank, e.name, e.rating]),
    },
  };
}

async function main(): Promise<void> {
  const layouts = await anonymous.GET("/v1/layouts");
  const result = {
    layouts: layouts.data?.layouts.map((l) => l.name) ?? [],
    won: await play(plan.win.deal, plan.win.order),
    lost: await play(plan.lose.deal, []),
    problems: await problems(plan.win.deal),
    duel: await duel(),
  };
  console.log(JSON.stringify(result));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
