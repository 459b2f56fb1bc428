// The player: an account made on the first visit (POST /v1/players) whose key, shown
// once by the server, this browser keeps. Games made with the key are the player's: the
// list of them (GET /v1/players/me/games, a page at a time by its cursor) resumes any of
// them, here or on another device given the key; GET /v1/players/me has the statistics,
// the daily challenge's streaks (days in a row played and won, a layout each) and the
// monthly badges. The panel shows the player's ratings in ranked duels (GET
// /v1/players/{id}/ratings) and leads to their duels and the rating boards (duels.js). It
// also lists the player's challenges and the editions of events
// they entered (GET …/me/challenges) and the people they follow (following.js).

import { ApiError } from "./api.js";
import { isDaily, titleOf } from "./challenges.js";
import { poolTitle, signed } from "./duels.js";
import { editionOf, roundOf } from "./events.js";
import { Following } from "./following.js";
import { explain, sayAt } from "./messages.js";

const $ = (id) => document.getElementById(id);
const PLAYER_KEY = "tripeaks.player"; // {id, key}
const STATUS = { in_progress: "in play", won: "won", lost: "lost", conceded: "conceded" };
const LAYOUT_TITLE = { tripeaks: "TriPeaks", six_peaks: "Six Peaks", golf: "Golf" };
const CHALLENGE_STATUS = { upcoming: "opens later", open: "open", closed: "closed" };
const TIER = { bronze: "Bronze", silver: "Silver", gold: "Gold" };

/** "Best · TriPeaks": 466, "Best · Golf": "3 cards left", a line each, most played
 * first; one "Best score –" before any game has ended. */
export function bestScores(stats) {
  const lines = stats.by_layout.filter((l) => l.best_score != null).sort((a, b) => b.played - a.played);
  if (!lines.length) return [["Best score", "–"]];
  const scheme = (l) => (l.scoring === "msc" ? " (MSC)" : l.scoring === "classic" || l.scoring === "cards_left" ? "" : ` (${l.scoring})`);
  return lines.map((l) => [
    `Best · ${LAYOUT_TITLE[l.layout] ?? l.layout}${scheme(l)}`,
    l.scoring === "cards_left" ? `${l.best_score} card${l.best_score === 1 ? "" : "s"} left` : l.best_score,
  ]);
}

function load() {
  try {
    const p = JSON.parse(localStorage.getItem(PLAYER_KEY) || "null");
    return p && typeof p.key === "string" && typeof p.id === "string" ? p : null;
  } catch {
    return null;
  }
}

export class Players {
  /** `onEvent(id)` opens an event's page; `eventName(id)` answers its name (a promise). */
  constructor(api, { onResume, onChallenge, onSetChallenge, onEvent, onDuel, onMyDuels, onRatingBoard, eventName, say }) {
    Object.assign(this, { api, onResume, onChallenge, onEvent, eventName, say });
    this.me = load();
    this.following = new Following(api, () => this.key);
    this.making = null;
    this.cursor = null;
    this.el = $("player-panel");
    $("pp-close").addEventListener("click", () => this.el.close());
    $("pp-more").addEventListener("click", () => this.listGames(true));
    $("pp-set-challenge").addEventListener("click", () => {
      this.el.close();
      onSetChallenge();
    });
    for (const [id, action] of [["pp-duel", onDuel], ["pp-my-duels", onMyDuels], ["pp-rating-board", onRatingBoard]]) {
      $(id).addEventListener("click", () => {
        this.el.close();
        action();
      });
    }
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

  /** What the player's result at a challenge that opened at `opensAt` counts for, said
   * before they play: null for an established account; for a new one (or none yet: it is
   * made on the first tap), provisional (README: nobody is refused for being new). On a
   * public board (`isPublic`: the daily, events) it is ranked apart until measured ok. */
  async provisional(opensAt, isPublic) {
    let newer = true;
    if (this.me) {
      try {
        const me = await this.api.getMe(this.me.key);
        newer = new Date(me.created_at) > new Date(opensAt) || Date.now() < new Date(me.provisional_until);
      } catch {
        return null;
      }
    }
    if (!newer) return null;
    return isPublic
      ? "Your account is new, so your result is provisional: it is ranked apart until the fair-play check, minutes after your game ends, finds it fair; then it takes its place on the board."
      : "Your account is new, so your result will be marked provisional; it ranks with everyone else's.";
  }

  forget() {
    this.me = null;
    this.following.forget();
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
    await Promise.all([this.listGames(false), this.listRatings(), this.listChallenges(), this.listFollowing()]);
  }

  /** The player's rating in each pool they have dueled in: rank, record, latest change. */
  async listRatings() {
    if (!this.me) return;
    const list = $("pp-ratings");
    try {
      const { ratings } = await this.api.getPlayerRatings(this.me.id);
      list.replaceChildren(
        ...ratings.map((r) => {
          const li = document.createElement("li");
          li.dataset.pool = r.pool;
          const last = r.recent[0];
          const change = last ? ` · last duel ${last.taken_back ? "taken back" : signed(last.after - last.before)}` : "";
          const text = document.createElement("span");
          text.append(
            Object.assign(document.createElement("b"), { textContent: `${poolTitle(r.pool)}: ${r.rating}` }),
            r.provisional ? " (provisional)" : "",
            Object.assign(document.createElement("span"), { className: "more", textContent: `#${r.rank} · ${r.games} duel${r.games === 1 ? "" : "s"}: ${r.wins} won, ${r.losses} lost, ${r.draws} drawn${change}` }),
          );
          li.append(text);
          return li;
        }),
      );
      if (!list.children.length) list.append(Object.assign(document.createElement("li"), { textContent: "No rating yet: play a ranked duel against a player of your level." }));
    } catch (e) {
      $("pp-error").textContent = explain(e);
    }
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
      this.streaks(me.daily ?? []);
      this.badges(me.badges ?? []);
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
      // The overall line mixes scoring schemes, so it has no best score (the server sends
      // null there): the bests are each layout's and scheme's.
      ...bestScores(stats),
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

  /** The daily challenge's runs of days, a layout each: now and at their longest. */
  streaks(daily) {
    const box = $("pp-daily");
    if (!daily.length) {
      box.replaceChildren(Object.assign(document.createElement("p"), { className: "small", textContent: "Play the daily challenge on days in a row for a streak." }));
      return;
    }
    box.replaceChildren(
      ...daily.map((d) => {
        const table = document.createElement("table");
        table.dataset.layout = d.layout;
        table.createCaption().textContent = LAYOUT_TITLE[d.layout] ?? d.layout;
        const head = table.createTHead().insertRow();
        for (const text of ["Days in a row", "Now", "Longest"]) head.append(Object.assign(document.createElement("th"), { scope: "col", textContent: text }));
        const body = table.createTBody();
        for (const [name, now, longest] of [["Played", d.played_streak, d.played_longest], ["Won", d.won_streak, d.won_longest]]) {
          const row = body.insertRow();
          row.append(Object.assign(document.createElement("th"), { scope: "row", textContent: name }));
          // A streak under way is lit.
          row.insertCell().append(Object.assign(document.createElement("span"), { textContent: String(now), className: now > 0 ? "lit" : "" }));
          row.insertCell().textContent = String(longest);
        }
        return table;
      }),
    );
  }

  /** Monthly badges, newest first: bronze for 10 dailies won, silver 20, gold every day. */
  badges(badges) {
    const list = $("pp-badges");
    if (!badges.length) {
      list.replaceChildren(Object.assign(document.createElement("li"), { className: "none", textContent: "None yet: win the daily 10 times in a month for bronze, 20 for silver, every day for gold." }));
      return;
    }
    list.replaceChildren(
      ...badges.map((b) => {
        const [year, month] = b.month.split("-").map(Number);
        const name = new Date(Date.UTC(year, month - 1, 1)).toLocaleDateString("en", { month: "long", year: "numeric", timeZone: "UTC" });
        const li = Object.assign(document.createElement("li"), { className: `badge ${b.tier}` });
        const text = document.createElement("span");
        text.append(
          Object.assign(document.createElement("b"), { textContent: TIER[b.tier] ?? b.tier }),
          ` ${LAYOUT_TITLE[b.layout] ?? b.layout}`,
          Object.assign(document.createElement("span"), { className: "more", textContent: `${name} · ${b.wins} wins` }),
        );
        li.append(Object.assign(document.createElement("span"), { className: "medal" }), text);
        return li;
      }),
    );
  }

  /** The challenges the player set or entered (the first page), each opened by a tap; an
   * event's edition is one line (its total), its rounds not listed apart. */
  async listChallenges() {
    if (!this.me) return;
    const list = $("pp-challenges");
    try {
      const page = await this.api.listMyChallenges(this.me.key, null, 20);
      list.replaceChildren(
        ...page.challenges.filter(({ challenge: c }) => !roundOf(c.id)).map(({ challenge: c, created, entry }) => {
          const li = document.createElement("li");
          const edition = c.kind === "edition" ? editionOf(c.id) : null;
          const parts = [edition ? "Event" : titleOf(c), LAYOUT_TITLE[c.layout] ?? c.layout, CHALLENGE_STATUS[c.status] ?? c.status];
          if (created) parts.push("set by you");
          if (entry?.ranked) parts.push(`${edition ? "total" : "best"} ${entry.score}`);
          const text = Object.assign(document.createElement("span"), { textContent: parts.join(" · ") });
          if (edition) {
            this.eventName(edition.event).then((name) => {
              parts[0] = `Event: ${name}`;
              text.textContent = parts.join(" · ");
            }, () => {});
          }
          li.append(text);
          const button = Object.assign(document.createElement("button"), { type: "button", textContent: "Open" });
          button.dataset[edition ? "event" : "challenge"] = edition ? edition.event : c.id;
          button.addEventListener("click", () => {
            this.el.close();
            if (edition) this.onEvent(edition.event);
            else this.onChallenge(c.id);
          });
          li.append(button);
          return li;
        }),
      );
      if (!list.children.length) list.append(Object.assign(document.createElement("li"), { textContent: "None yet: set one for your friends, or open a friend's link." }));
    } catch (e) {
      $("pp-error").textContent = explain(e);
    }
  }

  /** The people the player follows, each with a button to stop. */
  async listFollowing() {
    if (!this.me) return;
    try {
      const people = await this.following.list();
      $("pp-following-count").textContent = String(people.length);
      $("pp-following").replaceChildren(
        ...people.map((p) => {
          const li = document.createElement("li");
          li.append(Object.assign(document.createElement("span"), { textContent: p.name ?? "Anonymous" }));
          const button = Object.assign(document.createElement("button"), { type: "button", textContent: "Unfollow" });
          button.setAttribute("aria-label", `Unfollow ${p.name ?? "this player"}`);
          button.addEventListener("click", async () => {
            try {
              await this.following.unfollow(p.player_id);
              await this.listFollowing();
            } catch (e) {
              sayAt(button, explain(e));
            }
          });
          li.append(button);
          return li;
        }),
      );
    } catch (e) {
      $("pp-error").textContent = explain(e);
    }
  }

  async listGames(more) {
    if (!this.me) return;
    const list = $("pp-games");
    if (!more) {
      this.cursor = null;
      list.replaceChildren();
    }
    try {
      // A duel's game is a challenge's attempt to the games list: the player's latest duels
      // say which are duels'.
      const [page, duels] = await Promise.all([
        this.api.listMyGames(this.me.key, more ? this.cursor : null),
        this.api.listMyDuels(this.me.key, null, 100).catch(() => ({ duels: [] })),
      ]);
      const duelGames = new Set(duels.duels.map((d) => d.game_id));
      this.cursor = page.next;
      $("pp-more").hidden = !page.next;
      for (const g of page.games) list.append(this.gameItem(g, duelGames.has(g.id)));
      if (!list.children.length) list.append(Object.assign(document.createElement("li"), { textContent: "No games yet." }));
    } catch (e) {
      $("pp-error").textContent = explain(e);
    }
  }

  gameItem(g, duel = false) {
    const li = document.createElement("li");
    const when = new Date(g.updated_at);
    const score = g.scoring === "cards_left" ? `${g.cards_left} left` : `score ${g.score}`;
    const kind = duel ? " (ranked duel)" : g.challenge_id ? (isDaily(g.challenge_id) ? " (daily)" : roundOf(g.challenge_id) ? " (event)" : " (challenge)") : g.practice_of ? " (practice)" : "";
    const what = `${LAYOUT_TITLE[g.layout] ?? g.layout}${kind} · ${STATUS[g.status] ?? g.status} · ${score}`;
    li.append(Object.assign(document.createElement("span"), { textContent: `${what} · ${when.toLocaleDateString()}` }));
    const button = Object.assign(document.createElement("button"), { type: "button", textContent: g.status === "in_progress" ? "Resume" : "View" });
    button.dataset.game = g.id;
    button.addEventListener("click", async () => {
      try {
        await this.onResume(g.id);
        this.el.close();
      } catch (e) {
        sayAt(button, explain(e));
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
      sayAt($("pp-name-form"), "Name saved.", "notice");
    } catch (e) {
      sayAt($("pp-name-form"), explain(e));
    }
  }

  async useKey(key) {
    if (!/^tpk\.[^.]+\.[^.]+$/.test(key)) {
      sayAt($("pp-key-form"), "A player key looks like tpk.… with two dots.");
      return;
    }
    sayAt($("pp-key-form"), "");
    try {
      const me = await this.api.getMe(key);
      this.me = { id: me.id, key, name: me.name };
      this.following.forget();
      localStorage.setItem(PLAYER_KEY, JSON.stringify(this.me));
      $("pp-key-input").value = "";
      await this.refresh();
      await Promise.all([this.listGames(false), this.listRatings(), this.listChallenges(), this.listFollowing()]);
    } catch (e) {
      sayAt($("pp-key-form"), e instanceof ApiError && e.status === 403 ? "That key opens no account." : explain(e));
    }
  }
}
