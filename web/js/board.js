// A challenge's leaderboard (the daily's, or one set among friends), drawn in a
// `.board` element: "Everyone" is the top of the board and the player's place on it
// (around=me), "People I follow" the player and the players they follow ranked among
// themselves (among=following), each with their place on the whole board (global_rank).
// Every other player's line has a button to follow them, or to stop.

import { explain } from "./messages.js";

const TOP = 3; // lines from the top of the whole board
const AROUND = 2; // lines either side of the player's own
const AMONG = 50; // lines among the people followed

export class Board {
  /** `root`: the element holding a `.board-toggle` of two buttons (`data-among` "" and
   * "following"), a `.board-text` and a `.board-list`. */
  constructor(root, { api, players, following }) {
    Object.assign(this, { root, api, players, following });
    this.text = root.querySelector(".board-text");
    this.list = root.querySelector(".board-list");
    this.toggles = [...root.querySelectorAll(".board-toggle button")];
    this.among = false;
    this.id = null;
    this.fallback = null;
    this.asked = 0; // the latest render: an older answer is not drawn over it
    for (const b of this.toggles) {
      b.addEventListener("click", () => {
        this.among = b.dataset.among === "following";
        this.render();
      });
    }
  }

  /** Show the board of `challengeId`. `mine`: whether the player has a result on it (its
   * place is asked for only then: around=me answers 404 without one); `fallback` says why
   * they have none. */
  show(challengeId, { mine = false, fallback = null } = {}) {
    Object.assign(this, { id: challengeId, mine, fallback });
    return this.render();
  }

  /** Draw the board as it is now; `focus`: the player whose follow button had the focus. */
  async render(focus = null) {
    const asked = ++this.asked;
    const key = this.players.key;
    for (const b of this.toggles) {
      b.setAttribute("aria-pressed", String((b.dataset.among === "following") === this.among));
      b.hidden = !key;
    }
    this.text.textContent = "Reading the leaderboard…";
    try {
      const lines = this.among ? await this.amongFollowing(key) : await this.everyone(key);
      if (asked !== this.asked) return;
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
  async everyone(key) {
    const [top, around] = await Promise.all([
      this.api.getLeaderboard(this.id, { limit: TOP }),
      key && this.mine ? this.api.getLeaderboard(this.id, { key, around: true, limit: AROUND }).catch(() => null) : null,
      key ? this.following.list().catch(() => []) : null,
    ]);
    const me = around?.entries.find((e) => e.player_id === this.players.id);
    const text = me
      ? `You are ranked ${me.rank} of ${top.ranked}.`
      : (this.fallback ?? (top.ranked ? `${top.ranked} ranked so far.` : "Nobody has a result yet."));
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

  /** The player and the people they follow, ranked among themselves. */
  async amongFollowing(key) {
    const [board, people] = await Promise.all([
      this.api.getLeaderboard(this.id, { key, among: "following", limit: AMONG }),
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

  /** One result: rank, who (with the moves, and among those followed the place on the
   * whole board), score, and a button to follow or unfollow them. */
  line(e, among = false) {
    const li = document.createElement("li");
    const mine = e.player_id === this.players.id;
    if (mine) li.className = "me";
    li.dataset.player = e.player_id;
    const who = mine ? "You" : e.deleted ? "(deleted)" : (e.name ?? "Anonymous");
    const span = (text, className = "") => Object.assign(document.createElement("span"), { textContent: text, className });
    const name = span("", "who");
    name.append(span(who, "name"), span(`${e.moves} moves${among ? ` · #${e.global_rank} overall` : ""}`, "more"));
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
