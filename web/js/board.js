// A leaderboard (the daily's, a challenge's set among friends, or an event's edition:
// each entrant's total over its rounds), drawn in a `.board` element: "Everyone" is the top
// of the board and the player's place on it (around=me), "People I follow" the player and
// the players they follow ranked among themselves (among=following), and on an event of
// cohorts "My cohort" the player's cohort ranked among itself (cohort=mine); each of the
// last two with every line's place on the whole board (global_rank). Every other player's
// line has a button to follow them, or to stop.

import { explain } from "./messages.js";

const TOP = 3; // lines from the top of the whole board
const AROUND = 2; // lines either side of the player's own
const AMONG = 50; // lines among the people followed, or in a cohort
const RECHECK_MS = 10000; // a provisional result is read again this often...
const RECHECKS = 60; // ...this many times: it takes its place minutes after the game

/** Where a result ranked apart stands, in words for its player; null for one on the board. */
function apartText(entry) {
  if (entry?.side === "provisional") return `Your result (${entry.score}) is provisional: your account is new, so it is ranked apart until the fair-play check, minutes after your game, finds it fair. Then it takes its place here.`;
  if (entry?.side === "flagged") return `Your result is ranked apart: ${entry.fair_play_reason}`;
  return null;
}

export class Board {
  /** `root`: the element holding a `.board-toggle` of buttons (`data-among` "" for
   * everyone, "following", and where a board may have cohorts "cohort"), a `.board-text`
   * and a `.board-list`. */
  constructor(root, { api, players, following }) {
    Object.assign(this, { root, api, players, following });
    this.text = root.querySelector(".board-text");
    this.list = root.querySelector(".board-list");
    this.toggles = [...root.querySelectorAll(".board-toggle button")];
    this.view = ""; // "", "following" or "cohort": the player's choice, kept between boards
    this.id = null;
    this.event = null;
    this.fallback = null;
    this.asked = 0; // the latest render: an older answer is not drawn over it
    this.recheck = null; // the next read of a provisional result, and the reads left
    this.rechecks = 0;
    for (const b of this.toggles) {
      b.addEventListener("click", () => {
        this.view = b.dataset.among;
        this.render();
      });
    }
  }

  /** Show the board of `challengeId`. `mine`: whether the player has a result on it (its
   * place is asked for only then: around=me answers 404 without one); `fallback` says why
   * they have none. `event`: {id, number} for an edition's board (`challengeId` its id),
   * and `cohorts` whether the player has a cohort on it (its board is then shown first). */
  show(challengeId, { mine = false, fallback = null, event = null, cohorts = false } = {}) {
    if (cohorts && !(this.cohorts && challengeId === this.id)) this.view = "cohort";
    if (!cohorts && this.view === "cohort") this.view = "";
    Object.assign(this, { id: challengeId, mine, fallback, event, cohorts, rechecks: RECHECKS });
    return this.render();
  }

  /** A page of the board: a challenge's, or an edition's. */
  read(options) {
    return this.event ? this.api.getEventLeaderboard(this.event.id, this.event.number, options) : this.api.getLeaderboard(this.id, options);
  }

  /** Draw the board as it is now; `focus`: the player whose follow button had the focus. */
  async render(focus = null) {
    const asked = ++this.asked;
    clearTimeout(this.recheck);
    const key = this.players.key;
    for (const b of this.toggles) {
      b.setAttribute("aria-pressed", String(b.dataset.among === this.view));
      b.hidden = !key || (b.dataset.among === "cohort" && !this.cohorts);
    }
    this.text.textContent = "Reading the leaderboard…";
    try {
      // Where the player's result stands (on the board, or ranked apart: provisional or
      // flagged): its place is asked for only when it is on the board.
      const entry = key && this.mine ? await this.entry() : null;
      const lines = this.view === "following" ? await this.amongFollowing(key) : this.view === "cohort" ? await this.cohort(key, entry) : await this.everyone(key, entry);
      if (asked !== this.asked) return;
      if (entry?.side === "provisional" && this.rechecks-- > 0) {
        // Read again now and then, so that the player sees it take its place.
        this.recheck = setTimeout(() => asked === this.asked && this.root.offsetParent !== null && this.render(), RECHECK_MS);
      }
      this.text.textContent = lines.text;
      this.list.replaceChildren(...lines.items);
      if (focus) (this.list.querySelector(`li[data-player="${CSS.escape(focus)}"] button`) ?? this.toggles.find((b) => b.getAttribute("aria-pressed") === "true"))?.focus();
    } catch (e) {
      if (asked !== this.asked) return;
      this.text.textContent = explain(e);
      this.list.replaceChildren();
    }
  }

  /** The top of the board, then the player's place with its neighbours (a gap between). */
  async everyone(key, entry) {
    const [top, around] = await Promise.all([
      this.read({ limit: TOP }),
      entry?.side === "board" ? this.read({ key, around: true, limit: AROUND }).catch(() => null) : null,
      key ? this.following.list().catch(() => []) : null,
    ]);
    const me = around?.entries.find((e) => e.player_id === this.players.id);
    let text = this.fallback ?? (top.ranked ? `${top.ranked} ranked so far.` : "Nobody has a result yet.");
    if (me) text = `You are ranked ${me.rank} of ${top.ranked}.`;
    else if (entry?.side) text = apartText(entry) ?? text;
    const seen = new Set();
    const rows = [];
    for (const e of [...top.entries, ...(around?.entries ?? [])]) {
      if (!seen.has(e.player_id)) rows.push(e);
      seen.add(e.player_id);
    }
    const items = rows.flatMap((e, i) => {
      const li = this.line(e);
      if (i > 0 && e.rank > rows[i - 1].rank + 1) return [Object.assign(document.createElement("li"), { className: "gap", textContent: "…" }), li];
      return [li];
    });
    return { text, items };
  }

  /** The player's entry in this board's challenge (or edition), from their challenges. */
  async entry() {
    const page = await this.api.listMyChallenges(this.players.key, null, 100).catch(() => null);
    return page?.challenges.find((m) => m.challenge.id === this.id)?.entry ?? null;
  }

  /** The player and the people they follow, ranked among themselves. */
  async amongFollowing(key) {
    const [board, people] = await Promise.all([
      this.read({ key, among: "following", limit: AMONG }),
      this.following.list(),
    ]);
    const n = people.length;
    const me = board.entries.find((e) => e.player_id === this.players.id);
    let text;
    if (!n) text = "You follow nobody yet: follow players from the Everyone board.";
    else if (me) text = `You are ranked ${me.rank} of ${board.ranked} among you and the ${n} player${n === 1 ? "" : "s"} you follow.`;
    else text = `${board.ranked} of the ${n} player${n === 1 ? "" : "s"} you follow ranked here.`;
    const items = board.entries.map((e) => this.line(e, true));
    if (board.next) items.push(Object.assign(document.createElement("li"), { className: "gap", textContent: "…" }));
    return { text, items };
  }

  /** The player's cohort, ranked among itself (rank), each with their place overall. */
  async cohort(key, entry) {
    const [board] = await Promise.all([this.read({ key, cohort: "mine", limit: AMONG }), this.following.list().catch(() => [])]);
    const me = board.entries.find((e) => e.player_id === this.players.id);
    let text;
    if (me) text = `You are ranked ${me.rank} of ${board.ranked} in your cohort (#${me.global_rank} overall).`;
    else if (apartText(entry)) text = `${apartText(entry)} ${board.ranked} of your cohort ranked so far.`;
    else if (board.ranked) text = `${board.ranked} of your cohort ranked so far: ${this.fallback ?? "play a round to join them."}`;
    else text = "Nobody in your cohort has a result yet.";
    const items = board.entries.map((e) => this.line(e, true));
    if (board.next) items.push(Object.assign(document.createElement("li"), { className: "gap", textContent: "…" }));
    return { text, items };
  }

  /** One result: rank, who (with the moves, and among those followed the place on the
   * whole board, or in a cohort), score, and a button to follow or unfollow them. */
  line(e, among = false) {
    const li = document.createElement("li");
    const mine = e.player_id === this.players.id;
    if (mine) li.className = "me";
    li.dataset.player = e.player_id;
    const who = mine ? "You" : e.deleted ? "(deleted)" : (e.name ?? "Anonymous");
    const span = (text, className = "") => Object.assign(document.createElement("span"), { textContent: text, className });
    const name = span("", "who");
    // A new account's result on a challenge set among friends ranks, marked provisional.
    const marks = `${among ? ` · #${e.global_rank} overall` : ""}${e.provisional ? " · provisional" : ""}`;
    name.append(span(who, "name"), span(`${e.moves} moves${marks}`, "more"));
    li.append(span(`#${e.rank}`), name, span(e.score < 0 ? `−${-e.score}` : String(e.score), "score"));
    if (mine || e.deleted || !this.players.key) {
      li.append(span(""));
      return li;
    }
    const following = this.following.has(e.player_id);
    const button = Object.assign(document.createElement("button"), {
      type: "button",
      className: following ? "follow on" : "follow",
      textContent: following ? "Unfollow" : "Follow",
    });
    button.setAttribute("aria-label", `${following ? "Unfollow" : "Follow"} ${e.name ?? "this player"}`);
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        if (following) await this.following.unfollow(e.player_id);
        else await this.following.follow(e.player_id, e.name);
        await this.render(e.player_id);
      } catch (err) {
        this.text.textContent = explain(err);
        button.disabled = false;
      }
    });
    li.append(button);
    return li;
  }
}
