// Ranked duels: asking for one (POST /v1/duels: the server matches the player with a
// waiting duel of a similar rating, or opens one; either way the answer holds the
// player's game of the duel's deal, played at once), the duel as it stands (GET
// /v1/duels/{id}: waiting for an opponent, waiting for their result, or decided: the two
// scores and the rating's change), the player's duels (GET /v1/players/me/duels, a page at
// a time) and a pool's rating board (GET /v1/ratings/{pool}: from the top, around the
// player, among the people they follow). The opponent's score is the server's to show, once
// the duel has ended: until then the page says whom it waits for, and looks again.
//
// One dialog, in four modes: "ask" (the form), "view" (one duel), "mine" (the list) and
// "board". The end of a duel's game shows the duel in the end panel (showEnd).

import { ApiError } from "./api.js";
import { LAYOUT_TITLE, when } from "./challenges.js";
import { explain, sayAt } from "./messages.js";

const $ = (id) => document.getElementById(id);
const PRESET_TITLE = { standard: "standard", "no-wrap": "no wrap" };
const RESULT_TITLE = { won: "You won the duel!", lost: "You lost the duel", draw: "A draw", void: "No result" };
const BOARD_PAGE = 10; // players a page from the top
const AROUND = 3; // players either side of the player's own
const AMONG = 50; // players among those followed
const RECHECK_MS = 15000; // a duel waiting for the opponent's result is read again this often...
const RECHECKS = 40; // ...this many times, while it is on screen

/** "TriPeaks · standard": a pool in words. */
export function poolTitle(pool) {
  const [layout, preset] = String(pool).split(".");
  return `${LAYOUT_TITLE[layout] ?? layout} · ${PRESET_TITLE[preset] ?? preset}`;
}

/** "+158", "−160", "±0". */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

const nameOf = (side) => side?.name ?? "Anonymous";
const scoreText = (side) => (side?.forfeit ? "out of time" : side?.score == null ? "–" : side.score < 0 ? `−${-side.score}` : String(side.score));

/** What the page keeps of a duel with its game (the session's `duel`): enough to name
 * it while it is played and to ask for another of the same kind. */
export function summary(d, withBots = false) {
  return {
    id: d.id,
    pool: d.pool,
    layout: d.layout,
    preset: d.preset,
    with_bots: withBots,
    status: d.status,
    opponent: d.opponent ? { name: nameOf(d.opponent), rating: d.opponent.rating } : null,
    rating: d.you.rating,
    provisional: d.you.provisional,
  };
}

/** The line above the table while a duel's game is played. */
export function duelLine(s) {
  const who = s.opponent ? `vs ${s.opponent.name} (${s.opponent.rating})` : "· waiting for an opponent";
  return `Ranked duel ${who} · your rating ${s.rating}${s.provisional ? " (provisional)" : ""}`;
}

/** The duel as it stands, in words and two scores: drawn into `box` (a `.duel-state`). */
export function drawDuel(box, d) {
  const el = (tag, text, className = "") => Object.assign(document.createElement(tag), { textContent: text, className });
  const opp = d.opponent;
  const parts = [];
  box.dataset.status = d.status;
  box.dataset.result = d.result ?? "";
  let title;
  let text;
  if (d.status === "finished") {
    title = RESULT_TITLE[d.result] ?? d.result;
    if (opp?.forfeit && !d.you.forfeit) text = `${nameOf(opp)} did not finish in time.`;
    else if (d.you.forfeit) text = opp?.forfeit ? "Neither of you finished in time." : "You did not finish in time.";
    else if (d.you.flagged) text = "The fair-play check flagged your result: it loses the duel.";
    else if (opp?.flagged) text = `The fair-play check flagged ${nameOf(opp)}'s result: it loses the duel.`;
    else if (d.result === "void") text = "Your opponent's account is gone: no rating changes.";
    else text = `Your score ${scoreText(d.you)} against ${nameOf(opp)}'s ${scoreText(opp)}.`;
  } else if (d.status === "expired") {
    title = "Expired";
    text = "Nobody was matched to this duel in time: no rating changes.";
  } else if (!d.you.finished) {
    title = "Your game is in progress";
    text = opp ? `Against ${nameOf(opp)} (${opp.rating}): finish it ${when(d.you.due_at)}.` : `Nobody is matched yet: finish it ${when(d.you.due_at)}.`;
  } else if (!opp) {
    title = "Waiting for an opponent";
    text = `Your score ${scoreText(d.you)} is in. A player of a similar rating gets the same deal; the duel is open until ${when(d.expires_at)}.`;
  } else {
    title = "Waiting for your opponent";
    text = `Your score ${scoreText(d.you)} is in. ${nameOf(opp)} (${opp.rating}) has the same deal and until ${when(opp.due_at)} to play it.`;
  }
  parts.push(el("p", title, "duel-title"));
  parts.push(el("p", text, "duel-text"));
  // The two scores side by side, once both can be shown.
  if (opp) {
    const vs = el("p", "", "duel-vs");
    const side = (label, s) => {
      const span = el("span", "", "side");
      span.append(el("span", label, "who"), el("span", scoreText(s), "score"));
      return span;
    };
    vs.append(side("You", d.you), el("span", "vs", "versus"), side(nameOf(opp), opp));
    vs.setAttribute("aria-label", `You ${scoreText(d.you)}, ${nameOf(opp)} ${scoreText(opp)}`);
    parts.push(vs);
  }
  const change = d.you.rating_change;
  const rating = el("p", "", "duel-rating");
  if (change != null && d.status === "finished") {
    rating.append(`Your rating (${poolTitle(d.pool)}): ${d.you.rating} → ${d.you.rating + change} `);
    rating.append(el("b", signed(change), `change ${change > 0 ? "up" : change < 0 ? "down" : ""}`));
  } else {
    rating.append(`Your rating (${poolTitle(d.pool)}): ${d.you.rating}`);
  }
  if (d.you.provisional) rating.append(" ", el("span", "provisional", "mark"));
  parts.push(rating);
  box.replaceChildren(...parts);
}

export class Duels {
  /** `begin(created, extra)` shows a new game; `resume(id)` one of the player's;
   * `patiently(call)` asks again while the server is busy; `layouts()` lists them;
   * `inPlay()` says whether a game is in progress; `sessionOf()` the game on the table's
   * session; `ended()` is called when the duel on the end panel has been decided (its
   * game's deal is revealed now). */
  constructor(api, { players, begin, resume, patiently, layouts, inPlay, sessionOf, ended, say }) {
    Object.assign(this, { api, players, begin, resume, patiently, layouts, inPlay, sessionOf, ended, say });
    this.el = $("duel");
    this.current = null; // the duel shown in "view" mode
    this.cursor = null; // my duels' next page
    this.board = { pool: "tripeaks.standard", view: "", cursor: null, asked: 0 };
    this.endDuel = null; // the duel on the end panel
    this.recheck = null;
    $("du-ask").addEventListener("submit", (e) => {
      e.preventDefault();
      this.play({ layout: $("du-layout").value, preset: $("du-preset").value, with_bots: $("du-bots").checked }, $("du-play"));
    });
    $("du-layout").addEventListener("change", () => this.describe());
    $("du-preset").addEventListener("change", () => this.describe());
    $("du-cancel").addEventListener("click", () => this.el.close());
    $("du-done").addEventListener("click", () => this.el.close());
    $("du-to-mine").addEventListener("click", () => this.openMine());
    $("du-to-board").addEventListener("click", () => this.openBoard(this.current?.pool));
    $("du-to-ask").addEventListener("click", () => this.openAsk());
    $("du-more").addEventListener("click", () => this.listMine(true));
    $("du-again").addEventListener("click", () => this.show(this.current.id));
    $("du-game").addEventListener("click", async () => {
      try {
        await this.resume(this.current.game_id, this.current);
        this.el.close();
      } catch (e) {
        $("du-error").textContent = explain(e);
      }
    });
    $("du-pool").addEventListener("change", () => {
      this.board.pool = $("du-pool").value;
      this.renderBoard();
    });
    for (const b of $("du-board").querySelectorAll(".board-toggle button")) {
      b.addEventListener("click", () => {
        this.board.view = b.dataset.view;
        this.renderBoard();
      });
    }
    $("du-board-more").addEventListener("click", () => this.renderBoard(true));
    $("end-duel-again").addEventListener("click", () => this.showEnd(this.endDuel?.gameId, this.endDuel?.id, true));
    $("end-duel-board").addEventListener("click", () => this.fromEnd(() => this.openBoard(this.endDuel?.pool)));
    $("end-duel-mine").addEventListener("click", () => this.fromEnd(() => this.openMine()));
    this.el.addEventListener("close", () => clearTimeout(this.recheck));
  }

  mode(name, title) {
    this.el.dataset.mode = name;
    $("du-title").textContent = title;
    $("du-ask").hidden = name !== "ask";
    $("du-view").hidden = name !== "view";
    $("du-mine").hidden = name !== "mine";
    $("du-board").hidden = name !== "board";
    $("du-to-mine").hidden = name === "mine" || name === "ask";
    $("du-to-board").hidden = name === "board";
    $("du-to-ask").hidden = name === "ask";
    $("du-error").textContent = "";
    if (!this.el.open) this.el.showModal();
  }

  /** The pools a select offers: each layout in each preset. */
  async poolOptions(select, selected) {
    if (!select.options.length) {
      const layouts = await this.layouts();
      select.replaceChildren(
        ...layouts.flatMap((l) =>
          ["standard", "no-wrap"].map((p) => Object.assign(document.createElement("option"), { value: `${l.name}.${p}`, textContent: `${l.title} · ${PRESET_TITLE[p]}` })),
        ),
      );
    }
    if (selected && [...select.options].some((o) => o.value === selected)) select.value = selected;
  }

  /** The form: a layout and its rules (the last duel's by default), bots or not. */
  async openAsk(defaults = this.sessionOf()?.duel ?? null) {
    this.mode("ask", "Play a ranked duel");
    const select = $("du-layout");
    if (!select.options.length) {
      const layouts = await this.layouts();
      select.replaceChildren(...layouts.map((l) => Object.assign(document.createElement("option"), { value: l.name, textContent: l.title })));
    }
    if (defaults) {
      select.value = defaults.layout;
      $("du-preset").value = defaults.preset;
      $("du-bots").checked = !!defaults.with_bots;
    }
    $("du-warning").hidden = !this.inPlay();
    sayAt($("du-play"), "");
    this.describe();
    $("du-play").focus();
  }

  /** The player's rating in the pool chosen, under the form. */
  async describe() {
    const pool = `${$("du-layout").value}.${$("du-preset").value}`;
    const el = $("du-rating");
    el.textContent = "";
    const id = this.players.id;
    if (!id) return;
    try {
      const r = (await this.api.getPlayerRatings(id)).ratings.find((x) => x.pool === pool);
      if (pool !== `${$("du-layout").value}.${$("du-preset").value}`) return;
      el.textContent = r
        ? `Your rating here: ${r.rating}${r.provisional ? " (provisional)" : ""}, #${r.rank} · ${r.wins} won, ${r.losses} lost, ${r.draws} drawn.`
        : "Your first duel here: everyone starts at 1500, marked provisional for the first duels.";
    } catch {
      /* the form works without it */
    }
  }

  /** Ask for a duel and play its game at once. A duel's game still to finish: offered. */
  async play(options, button) {
    button.disabled = true;
    const label = button.textContent;
    button.textContent = "Finding your duel…";
    sayAt(button, "");
    try {
      const key = await this.players.ensure();
      if (!key) throw new Error("A ranked duel needs a player, and the server would not make one.");
      const created = await this.patiently(() => this.api.requestDuel(options, key));
      const { game, ...duel } = created;
      await this.begin(game, { duel: summary(duel, options.with_bots) });
      if (this.el.open) this.el.close();
      this.say(duel.opponent ? `Matched with ${nameOf(duel.opponent)} (${duel.opponent.rating}): the same deal as theirs.` : "Your duel is open: play now; a player of a similar rating gets the same deal.");
    } catch (e) {
      if (!button.offsetParent) {
        this.say(explain(e), "error"); // asked from a panel that has closed since
      } else if (e instanceof ApiError && e.kind === "duel-game-in-progress" && e.problem.game_id) {
        this.offerResume(button, e.problem);
      } else {
        sayAt(button, explain(e));
      }
    } finally {
      button.disabled = false;
      button.textContent = label;
    }
  }

  /** The refusal of a second duel while one's game is unfinished, with that game. */
  offerResume(button, problem) {
    sayAt(button, "You have a ranked duel's game to finish first.");
    const said = button.closest(".buttons, li, form")?.nextElementSibling;
    const resume = Object.assign(document.createElement("button"), { type: "button", textContent: "Resume that game", className: "primary resume-duel" });
    resume.addEventListener("click", async () => {
      try {
        const duel = await this.api.getDuel(problem.duel_id, this.players.key);
        await this.resume(problem.game_id, duel);
        if (this.el.open) this.el.close();
        if ($("end").open) $("end").close();
      } catch (e) {
        sayAt(button, explain(e));
      }
    });
    if (said?.classList.contains("said")) said.append(" ", resume);
  }

  /** One duel's page (from My duels). */
  async show(id) {
    this.mode("view", "Ranked duel");
    clearTimeout(this.recheck);
    const box = $("du-view").querySelector(".duel-state");
    try {
      const d = await this.api.getDuel(id, this.players.key);
      this.current = d;
      $("du-title").textContent = d.opponent ? `Ranked duel vs ${nameOf(d.opponent)}` : "Ranked duel";
      drawDuel(box, d);
      $("du-game").hidden = !d.game_id;
      $("du-game").textContent = d.you.finished ? "See your game" : "Play your game";
    } catch (e) {
      $("du-error").textContent = explain(e);
    }
  }

  /** The player's duels, newest first, a page at a time. */
  async openMine() {
    this.mode("mine", "My duels");
    await this.listMine(false);
  }

  async listMine(more) {
    const list = $("du-list");
    if (!more) {
      this.cursor = null;
      list.replaceChildren();
    }
    const key = await this.players.ensure();
    if (!key) return;
    try {
      const page = await this.api.listMyDuels(key, more ? this.cursor : null);
      this.cursor = page.next;
      $("du-more").hidden = !page.next;
      for (const d of page.duels) list.append(this.duelItem(d));
      if (!list.children.length) list.append(Object.assign(document.createElement("li"), { textContent: "No duels yet: play one." }));
    } catch (e) {
      $("du-error").textContent = explain(e);
    }
  }

  duelItem(d) {
    const li = document.createElement("li");
    li.dataset.duel = d.id;
    const opp = d.opponent ? `vs ${nameOf(d.opponent)}` : "no opponent yet";
    let state;
    if (d.status === "finished") {
      const change = d.you.rating_change;
      state = `${{ won: "won", lost: "lost", draw: "drawn", void: "void" }[d.result] ?? d.result} ${scoreText(d.you)}–${scoreText(d.opponent)}${change != null ? ` · ${signed(change)}` : ""}`;
    } else if (d.status === "expired") state = "expired";
    else if (!d.you.finished) state = "your game in play";
    else state = d.opponent ? "waiting for their result" : "waiting for an opponent";
    const text = document.createElement("span");
    text.append(
      Object.assign(document.createElement("b"), { textContent: `${poolTitle(d.pool)} · ${opp}` }),
      Object.assign(document.createElement("span"), { className: "more", textContent: `${state} · ${new Date(d.created_at).toLocaleDateString()}` }),
    );
    li.append(text);
    const button = Object.assign(document.createElement("button"), { type: "button", textContent: "Open" });
    button.setAttribute("aria-label", `Open the duel ${opp}`);
    button.addEventListener("click", () => this.show(d.id));
    li.append(button);
    return li;
  }

  // ---------------------------------------------------------------- the rating board

  async openBoard(pool = null) {
    this.mode("board", "Rating board");
    if (pool) this.board.pool = pool;
    await this.poolOptions($("du-pool"), this.board.pool);
    this.board.pool = $("du-pool").value;
    await this.renderBoard();
    $("du-board").querySelector('.board-toggle button[aria-pressed="true"]')?.focus();
  }

  /** Draw the board as chosen: the top (a page more with `more`), around the player, or
   * among the people they follow. */
  async renderBoard(more = false) {
    const root = $("du-board");
    const text = root.querySelector(".board-text");
    const list = root.querySelector(".board-list");
    const { pool, view } = this.board;
    const asked = ++this.board.asked;
    const key = this.players.key;
    for (const b of root.querySelectorAll(".board-toggle button")) {
      b.setAttribute("aria-pressed", String(b.dataset.view === view));
      b.hidden = !key && b.dataset.view !== "";
    }
    if (!more) text.textContent = "Reading the rating board…";
    try {
      // Around the player only where they have a rating (else the server says 404).
      const mine = key ? (await this.api.getPlayerRatings(this.players.id)).ratings.find((r) => r.pool === pool) : null;
      let page;
      if (view === "around" && mine) page = await this.api.getRatingBoard(pool, { key, around: true, limit: AROUND });
      else if (view === "following") page = await this.api.getRatingBoard(pool, { key, among: "following", limit: AMONG });
      else if (view === "around") page = null;
      else page = await this.api.getRatingBoard(pool, { cursor: more ? this.board.cursor : null, limit: BOARD_PAGE });
      if (key) await this.players.following.list().catch(() => []);
      if (asked !== this.board.asked) return;
      const lines = (page?.entries ?? []).map((e) => this.line(e, view === "following"));
      if (more) list.append(...lines);
      else list.replaceChildren(...lines);
      this.board.cursor = view === "" ? page.next : null;
      $("du-board-more").hidden = !(view === "" && page?.next);
      const you = mine ? `Your rating ${mine.rating}${mine.provisional ? " (provisional)" : ""}: #${mine.rank} of ${page?.rated ?? "–"}.` : "You have no rating here yet: play a ranked duel.";
      if (view === "following") {
        const n = (await this.players.following.list().catch(() => [])).length;
        text.textContent = n ? `${you} Among you and the ${n} player${n === 1 ? "" : "s"} you follow.` : `${you} You follow nobody yet: follow players from the Top board.`;
      } else if (!page) {
        text.textContent = you;
      } else {
        text.textContent = page.rated ? `${page.rated} player${page.rated === 1 ? "" : "s"} rated. ${key ? you : ""}` : "Nobody is rated here yet: play the first duel.";
      }
    } catch (e) {
      if (asked !== this.board.asked) return;
      text.textContent = explain(e);
      list.replaceChildren();
    }
  }

  /** One player: rank, name (games, provisional, and among those followed their place on
   * the whole board), rating, and a button to follow or unfollow them. */
  line(e, among) {
    const li = document.createElement("li");
    const mine = e.player_id === this.players.id;
    if (mine) li.className = "me";
    li.dataset.player = e.player_id;
    const span = (text, className = "") => Object.assign(document.createElement("span"), { textContent: text, className });
    const who = span("", "who");
    const marks = `${e.games} duel${e.games === 1 ? "" : "s"}${among ? ` · #${e.global_rank} overall` : ""}${e.provisional ? " · provisional" : ""}`;
    who.append(span(mine ? "You" : (e.name ?? "Anonymous"), "name"), span(marks, "more"));
    li.append(span(`#${e.rank}`), who, span(String(e.rating), "score"));
    if (mine || !this.players.key) {
      li.append(span(""));
      return li;
    }
    const following = this.players.following.has(e.player_id);
    const button = Object.assign(document.createElement("button"), { type: "button", className: following ? "follow on" : "follow", textContent: following ? "Unfollow" : "Follow" });
    button.setAttribute("aria-label", `${following ? "Unfollow" : "Follow"} ${e.name ?? "this player"}`);
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        if (following) await this.players.following.unfollow(e.player_id);
        else await this.players.following.follow(e.player_id, e.name);
        await this.renderBoard();
      } catch (err) {
        sayAt(button, explain(err));
        button.disabled = false;
      }
    });
    li.append(button);
    return li;
  }

  // ---------------------------------------------------------------- the end of a game

  /** From the end panel to this dialog: the panel closes first (one modal at a time). */
  fromEnd(open) {
    $("end").close();
    open();
  }

  /** The duel of the game that ended, in the end panel: read now (and again every little
   * while as long as the opponent's result is awaited, or at a tap on "Look again"). */
  async showEnd(gameId, duelId, asked = false) {
    const section = $("end-duel");
    clearTimeout(this.recheck);
    if (!duelId) {
      section.hidden = true;
      this.endDuel = null;
      return;
    }
    const fresh = this.endDuel?.id !== duelId;
    if (fresh) this.endDuel = { id: duelId, gameId, pool: this.sessionOf()?.duel?.pool ?? null, rechecks: RECHECKS };
    section.hidden = false;
    const box = section.querySelector(".duel-state");
    if (fresh) box.replaceChildren(Object.assign(document.createElement("p"), { textContent: "Reading the duel…" }));
    const button = $("end-duel-again");
    button.disabled = true;
    sayAt(button, "");
    try {
      const d = await this.api.getDuel(duelId, this.players.key);
      if (this.endDuel?.id !== duelId) return;
      this.endDuel.pool = d.pool;
      drawDuel(box, d);
      const session = this.sessionOf();
      const decided = d.status === "finished" || d.status === "expired";
      if (session?.duel?.id === d.id) {
        session.duel = { ...summary(d, session.duel.with_bots) };
        if (decided) this.ended?.(d);
      }
      $("end-duel-again").hidden = decided;
      if (!decided && this.endDuel.rechecks-- > 0) {
        this.recheck = setTimeout(() => {
          if ($("end").open) this.showEnd(gameId, duelId);
        }, RECHECK_MS);
      }
      if (asked && !decided) sayAt(button, "No change yet: your opponent has not finished.", "notice");
    } catch (e) {
      box.replaceChildren(Object.assign(document.createElement("p"), { className: "error", textContent: explain(e) }));
    } finally {
      button.disabled = false;
    }
  }

  /** The duel whose game `state` is, for a game opened from the games list: found among
   * the player's latest duels (null for any other game). */
  async find(state) {
    const key = this.players.key;
    if (!key || !state.challenge) return null;
    try {
      const page = await this.api.listMyDuels(key, null, 20);
      return page.duels.find((d) => d.game_id === state.id || d.id === state.challenge.id) ?? null;
    } catch {
      return null;
    }
  }
}
