// The player: an account made on the first visit (POST /v1/players) whose key, shown
// once by the server, this browser keeps. Games made with the key are the player's: the
// list of them (GET /v1/players/me/games, a page at a time by its cursor) resumes any of
// them, here or on another device given the key; GET /v1/players/me has the statistics.

import { ApiError } from "./api.js";
import { explain } from "./messages.js";

const $ = (id) => document.getElementById(id);
const PLAYER_KEY = "tripeaks.player"; // {id, key}
const STATUS = { in_progress: "in play", won: "won", lost: "lost", conceded: "conceded" };
const LAYOUT_TITLE = { tripeaks: "TriPeaks", six_peaks: "Six Peaks", golf: "Golf" };

function load() {
  try {
    const p = JSON.parse(localStorage.getItem(PLAYER_KEY) || "null");
    return p && typeof p.key === "string" && typeof p.id === "string" ? p : null;
  } catch {
    return null;
  }
}

export class Players {
  constructor(api, { onResume, say }) {
    Object.assign(this, { api, onResume, say });
    this.me = load();
    this.making = null;
    this.cursor = null;
    this.el = $("player-panel");
    $("pp-close").addEventListener("click", () => this.el.close());
    $("pp-more").addEventListener("click", () => this.listGames(true));
    $("pp-show-key").addEventListener("click", () => {
      const code = $("pp-key");
      code.hidden = !code.hidden;
      code.textContent = code.hidden ? "" : this.me?.key ?? "";
      $("pp-show-key").textContent = code.hidden ? "Show my key" : "Hide my key";
    });
    $("pp-name-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.rename($("pp-name").value);
    });
    $("pp-key-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.useKey($("pp-key-input").value.trim());
    });
    this.label();
  }

  get key() {
    return this.me?.key ?? null;
  }

  get id() {
    return this.me?.id ?? null;
  }

  /** The player's key, making the player on the first visit; null when the server
   * makes none (the page then plays anonymous games). */
  async ensure() {
    if (this.me) return this.me.key;
    if (!this.making) {
      this.making = this.api
        .createPlayer({ kind: "human" })
        .then((p) => {
          this.me = { id: p.id, key: p.key };
          localStorage.setItem(PLAYER_KEY, JSON.stringify(this.me));
          this.label();
          return p.key;
        })
        .catch(() => null)
        .finally(() => (this.making = null));
    }
    return this.making;
  }

  forget() {
    this.me = null;
    localStorage.removeItem(PLAYER_KEY);
    this.label();
  }

  label(name = this.me?.name) {
    $("player-button").textContent = name ? name : "Me";
    $("player-button").hidden = false;
  }

  async open() {
    $("pp-error").textContent = "";
    $("pp-key").hidden = true;
    $("pp-show-key").textContent = "Show my key";
    if (!this.el.open) this.el.showModal();
    await this.ensure();
    await this.refresh();
    await this.listGames(false);
  }

  async refresh() {
    if (!this.me || !this.el.open) return;
    try {
      const me = await this.api.getMe(this.me.key);
      this.me.name = me.name;
      localStorage.setItem(PLAYER_KEY, JSON.stringify(this.me));
      this.label(me.name);
      $("pp-name").value = me.name ?? "";
      this.stats(me.stats);
    } catch (e) {
      $("pp-error").textContent = explain(e);
    }
  }

  stats(stats) {
    const o = stats.overall;
    const pct = o.win_rate == null ? "–" : `${Math.round(o.win_rate * 100)}%`;
    const items = [
      ["Played", o.played],
      ["Won", o.won],
      ["Win rate", pct],
      ["Best score", o.best_score ?? "–"],
      ["Wins in a row", o.current_run],
      ["Longest run", o.longest_run],
    ];
    $("pp-stats").replaceChildren(
      ...items.map(([name, value]) => {
        const div = document.createElement("div");
        div.append(Object.assign(document.createElement("dt"), { textContent: name }), Object.assign(document.createElement("dd"), { textContent: String(value) }));
        return div;
      }),
    );
  }

  async listGames(more) {
    if (!this.me) return;
    const list = $("pp-games");
    if (!more) {
      this.cursor = null;
      list.replaceChildren();
    }
    try {
      const page = await this.api.listMyGames(this.me.key, more ? this.cursor : null);
      this.cursor = page.next;
      $("pp-more").hidden = !page.next;
      for (const g of page.games) list.append(this.gameItem(g));
      if (!list.children.length) list.append(Object.assign(document.createElement("li"), { textContent: "No games yet." }));
    } catch (e) {
      $("pp-error").textContent = explain(e);
    }
  }

  gameItem(g) {
    const li = document.createElement("li");
    const when = new Date(g.updated_at);
    const score = g.scoring === "cards_left" ? `${g.cards_left} left` : `score ${g.score}`;
    const what = `${LAYOUT_TITLE[g.layout] ?? g.layout}${g.challenge_id ? " (daily)" : ""} · ${STATUS[g.status] ?? g.status} · ${score}`;
    li.append(Object.assign(document.createElement("span"), { textContent: `${what} · ${when.toLocaleDateString()}` }));
    const button = Object.assign(document.createElement("button"), { type: "button", textContent: g.status === "in_progress" ? "Resume" : "View" });
    button.dataset.game = g.id;
    button.addEventListener("click", async () => {
      try {
        await this.onResume(g.id);
        this.el.close();
      } catch (e) {
        $("pp-error").textContent = explain(e);
      }
    });
    li.append(button);
    return li;
  }

  async rename(name) {
    try {
      const me = await this.api.updateMe(this.me.key, { name: name.trim() || null });
      this.me.name = me.name;
      localStorage.setItem(PLAYER_KEY, JSON.stringify(this.me));
      this.label(me.name);
      $("pp-error").textContent = "";
      this.say("Name saved.");
    } catch (e) {
      $("pp-error").textContent = explain(e);
    }
  }

  async useKey(key) {
    if (!/^tpk\.[^.]+\.[^.]+$/.test(key)) {
      $("pp-error").textContent = "A player key looks like tpk.… with two dots.";
      return;
    }
    try {
      const me = await this.api.getMe(key);
      this.me = { id: me.id, key, name: me.name };
      localStorage.setItem(PLAYER_KEY, JSON.stringify(this.me));
      $("pp-key-input").value = "";
      await this.refresh();
      await this.listGames(false);
    } catch (e) {
      $("pp-error").textContent = e instanceof ApiError && e.status === 403 ? "That key opens no account." : explain(e);
    }
  }
}
