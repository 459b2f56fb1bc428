// The public /v1 API, used exactly as any third-party client would use it.

/** An error answer (RFC 9457 problem+json), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter; // seconds, from Retry-After (429, 503)
  }
  /** The last part of the problem's type: "illegal-move", "game-over", "not-found"... */
  get kind() {
    return String(this.problem.type || "").split("/").pop();
  }
}

export function newKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

const game = (id) => `/v1/games/${encodeURIComponent(id)}`;
const challenge = (id) => `/v1/challenges/${encodeURIComponent(id)}`;
const event = (id) => `/v1/events/${encodeURIComponent(id)}`;

export class Api {
  /** `base`: the server's address ("" for the page's own server). */
  constructor(base = "") {
    this.base = base.replace(/\/$/, "");
  }

  async request(path, { method = "GET", token, body, headers = {}, retry = false, fresh = false } = {}) {
    const init = { method, headers: { Accept: "application/json", ...headers } };
    // Past the browser's cache: a game's ETag names its version, and a duel that ends
    // reveals its deal without a move (the version is the same, the answer is not).
    if (fresh) init.cache = "no-store";
    if (token) init.headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    for (let attempt = 0; ; attempt++) {
      try {
        response = await fetch(this.base + path, init);
        break;
      } catch (e) {
        // A move carries an Idempotency-Key, so one retry after a network failure is safe.
        if (retry && attempt === 0) continue;
        throw new ApiError(0, { title: "Network error", detail: `the server did not answer (${e.message})` });
      }
    }
    const type = response.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await response.json().catch(() => ({})) : {};
    if (!response.ok) {
      const after = Number(response.headers.get("Retry-After"));
      throw new ApiError(response.status, { title: response.statusText, status: response.status, ...data }, Number.isFinite(after) && after > 0 ? after : null);
    }
    return data;
  }

  listLayouts() {
    return this.request("/v1/layouts");
  }

  getLayout(name) {
    return this.request(`/v1/layouts/${encodeURIComponent(name)}`);
  }

  /** POST /v1/games: {layout, rules, deal_number | deal, winnable_only}; answers the state
   * and the token. With a player key (`key`), the game is the player's. */
  createGame(request, key = null) {
    return this.request("/v1/games", { method: "POST", body: request, token: key });
  }

  getGame(id, token, { fresh = false } = {}) {
    return this.request(game(id), { token, fresh });
  }

  /** Post a legal-move object back unchanged. `version` goes in If-Match (a stale state
   * is refused, 412) and `idempotencyKey` makes a retry of the same tap safe: the server
   * answers the first result again instead of applying the move twice. */
  move(id, token, legalMove, version, idempotencyKey = newKey()) {
    return this.request(`${game(id)}/moves`, {
      method: "POST",
      token,
      body: legalMove,
      headers: { "If-Match": `"v${version}"`, "Idempotency-Key": idempotencyKey },
      retry: true,
    });
  }

  concede(id, token, version, idempotencyKey = newKey()) {
    return this.request(`${game(id)}/concede`, {
      method: "POST",
      token,
      headers: { "If-Match": `"v${version}"`, "Idempotency-Key": idempotencyKey },
      retry: true,
    });
  }

  hint(id, token) {
    return this.request(`${game(id)}/hint`, { token });
  }

  analysis(id, token) {
    return this.request(`${game(id)}/analysis`, { token });
  }

  /** The whole move history, a page at a time: by the page's `next` cursor where the
   * server gives one, else by offset. */
  async listMoves(id, token) {
    const moves = [];
    let cursor = null;
    for (;;) {
      const q = new URLSearchParams({ limit: "1000" });
      if (cursor) q.set("cursor", cursor);
      else if (moves.length) q.set("offset", String(moves.length));
      const page = await this.request(`${game(id)}/moves?${q}`, { token });
      moves.push(...page.moves);
      if (page.next) cursor = page.next;
      else if (page.next === undefined && page.moves.length === 1000) cursor = null;
      else return { moves };
    }
  }

  // Players: an account without e-mail or password, known by its key (shown once).
  createPlayer(body = { kind: "human" }) {
    return this.request("/v1/players", { method: "POST", body });
  }

  getMe(key) {
    return this.request("/v1/players/me", { token: key });
  }

  updateMe(key, body) {
    return this.request("/v1/players/me", { method: "PATCH", token: key, body });
  }

  /** Any player's public profile: name, statistics, daily streaks, badges. */
  getPlayer(id) {
    return this.request(`/v1/players/${encodeURIComponent(id)}`);
  }

  listMyGames(key, cursor = null, limit = 10) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (cursor) q.set("cursor", cursor);
    return this.request(`/v1/players/me/games?${q}`, { token: key });
  }

  // The daily challenge, any challenge's attempts and its leaderboard.
  getDailyChallenge(layout = "tripeaks") {
    return this.request(`/v1/challenges/daily?layout=${encodeURIComponent(layout)}`);
  }

  startChallengeGame(challengeId, key) {
    return this.request(`${challenge(challengeId)}/games`, { method: "POST", token: key });
  }

  /** A page from the top; `around`: the caller's result and its neighbours; `among`:
   * "following", the caller and the players they follow, ranked among themselves (each
   * entry's `global_rank` its place on the whole board). Both need the player key. */
  getLeaderboard(challengeId, { key = null, around = false, among = null, limit = 5 } = {}) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (around) q.set("around", "me");
    if (among) q.set("among", among);
    return this.request(`${challenge(challengeId)}/leaderboard?${q}`, { token: around || among ? key : null });
  }

  // Events the server's operators run: editions of rounds (each round a challenge), whose
  // entrants are ranked by their totals, on one board or in cohorts by when they joined.
  listEvents({ state = "running", kind = "human", cursor = null, limit = 20 } = {}) {
    const q = new URLSearchParams({ state, kind, limit: String(limit) });
    if (cursor) q.set("cursor", cursor);
    return this.request(`/v1/events?${q}`);
  }

  getEvent(id) {
    return this.request(event(id));
  }

  /** The newest editions first: the latest of an event with none open now. */
  listEditions(id, limit = 1) {
    return this.request(`${event(id)}/editions?limit=${limit}`);
  }

  getEdition(id, number) {
    return this.request(`${event(id)}/editions/${number}`);
  }

  /** Join the edition open now: the player's number in the join order and cohort (the
   * same answer again for a player who has joined). */
  joinEvent(id, key) {
    return this.request(`${event(id)}/join`, { method: "POST", token: key });
  }

  startEventRound(id, round, key) {
    return this.request(`${event(id)}/rounds/${round}/games`, { method: "POST", token: key });
  }

  /** An edition's board of totals, as getLeaderboard's; `cohort`: "mine", the caller's
   * cohort ranked among itself (each entry's `global_rank` its place on the whole board). */
  getEventLeaderboard(id, number, { key = null, around = false, among = null, cohort = null, limit = 5 } = {}) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (around) q.set("around", "me");
    if (among) q.set("among", among);
    if (cohort) q.set("cohort", cohort);
    return this.request(`${event(id)}/editions/${number}/leaderboard?${q}`, { token: around || among || cohort ? key : null });
  }

  // Challenges players set: the server draws the deal and commits to it; the id (or the
  // invite code) is the invitation.
  createChallenge(body, key) {
    return this.request("/v1/challenges", { method: "POST", body, token: key });
  }

  getChallenge(id) {
    return this.request(challenge(id));
  }

  getChallengeByInvite(code) {
    return this.request(`/v1/challenges/invites/${encodeURIComponent(code)}`);
  }

  closeChallenge(id, key) {
    return this.request(`${challenge(id)}/close`, { method: "POST", token: key });
  }

  deleteChallenge(id, key) {
    return this.request(challenge(id), { method: "DELETE", token: key });
  }

  /** An unranked game of a closed challenge's deal (the player's, given a key). */
  startPracticeGame(id, key = null) {
    return this.request(`${challenge(id)}/practice`, { method: "POST", token: key });
  }

  listMyChallenges(key, cursor = null, limit = 20) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (cursor) q.set("cursor", cursor);
    return this.request(`/v1/players/me/challenges?${q}`, { token: key });
  }

  // Following: whose results show on the caller's boards among=following.
  follow(key, playerId) {
    return this.request(`/v1/players/me/following/${encodeURIComponent(playerId)}`, { method: "PUT", token: key });
  }

  unfollow(key, playerId) {
    return this.request(`/v1/players/me/following/${encodeURIComponent(playerId)}`, { method: "DELETE", token: key });
  }

  listFollowing(key, cursor = null) {
    const q = new URLSearchParams({ limit: "100" });
    if (cursor) q.set("cursor", cursor);
    return this.request(`/v1/players/me/following?${q}`, { token: key });
  }

  // Ranked duels: two players of a similar rating on one deal the server drew, played
  // one after the other; a rating per player and pool (a layout and a rules preset).
  /** POST /v1/duels: {layout, preset, with_bots}; answers the duel and the player's game
   * of its deal (`game`, with its token), whether it matched a waiting duel or opened one. */
  requestDuel(body, key) {
    return this.request("/v1/duels", { method: "POST", body, token: key });
  }

  getDuel(id, key) {
    return this.request(`/v1/duels/${encodeURIComponent(id)}`, { token: key });
  }

  listMyDuels(key, cursor = null, limit = 10) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (cursor) q.set("cursor", cursor);
    return this.request(`/v1/players/me/duels?${q}`, { token: key });
  }

  /** Any player's ratings, a pool each, with their latest changes (public). */
  getPlayerRatings(id) {
    return this.request(`/v1/players/${encodeURIComponent(id)}/ratings`);
  }

  /** A page of a pool's rating board: from the top (by `cursor`), `around` the caller, or
   * `among` "following"; the last two need the player key. */
  getRatingBoard(pool, { key = null, around = false, among = null, cursor = null, limit = 10 } = {}) {
    const q = new URLSearchParams({ kind: "human", limit: String(limit) });
    if (around) q.set("around", "me");
    if (among) q.set("among", among);
    if (cursor) q.set("cursor", cursor);
    return this.request(`/v1/ratings/${encodeURIComponent(pool)}?${q}`, { token: around || among ? key : null });
  }

  /** Whether this server has GET /v1/games/{id}/hint: asked of its OpenAPI document;
   * null when the document cannot be read (then the first 404 answers it). */
  async hasHint() {
    try {
      const spec = await this.request("/openapi.json");
      return Object.entries(spec.paths || {}).some(([path, item]) => /\/hint$/.test(path) && item.get);
    } catch {
      return null;
    }
  }
}
