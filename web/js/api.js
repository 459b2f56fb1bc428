// The public /v1 API, used exactly as any third-party client would use it.

/** An error answer (RFC 9457 problem+json), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
  /** The last part of the problem's type: "illegal-move", "game-over", "not-found"... */
  get kind() {
    return String(this.problem.type || "").split("/").pop();
  }
}

function newKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export class Api {
  /** `base`: the server's address ("" for the page's own server). */
  constructor(base = "") {
    this.base = base.replace(/\/$/, "");
  }

  async request(path, { method = "GET", token, body, headers = {}, retry = false } = {}) {
    const init = { method, headers: { Accept: "application/json", ...headers } };
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
      throw new ApiError(response.status, { title: response.statusText, status: response.status, ...data });
    }
    return data;
  }

  listLayouts() {
    return this.request("/v1/layouts");
  }

  getLayout(name) {
    return this.request(`/v1/layouts/${encodeURIComponent(name)}`);
  }

  /** POST /v1/games: {layout, rules, deal_number | deal}; answers the state and the token. */
  createGame(request) {
    return this.request("/v1/games", { method: "POST", body: request });
  }

  getGame(id, token) {
    return this.request(`/v1/games/${encodeURIComponent(id)}`, { token });
  }

  /** Post a legal-move object back unchanged; If-Match refuses a stale state (412). */
  move(game, token, legalMove) {
    return this.request(`/v1/games/${encodeURIComponent(game.id)}/moves`, {
      method: "POST",
      token,
      body: legalMove,
      headers: { "If-Match": `"v${game.version}"`, "Idempotency-Key": newKey() },
      retry: true,
    });
  }

  concede(game, token) {
    return this.request(`/v1/games/${encodeURIComponent(game.id)}/concede`, {
      method: "POST",
      token,
      headers: { "Idempotency-Key": newKey() },
      retry: true,
    });
  }

  hint(id, token) {
    return this.request(`/v1/games/${encodeURIComponent(id)}/hint`, { token });
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
