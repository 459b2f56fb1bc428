// Challenges among friends: setting one (POST /v1/challenges: the server draws the deal,
// proved winnable, and keeps it secret from everyone, its setter included, until it
// closes), its link (`?challenge=<id>`: the random id is the invitation) or invite code,
// the challenge's page (GET /v1/challenges/{id}: when it closes, attempts, entries, its
// board), a ranked attempt (POST …/games), and once it has closed, practice of its deal
// (POST …/practice). One dialog, in two modes: "set" (the form) and "view" (the page).

import { ApiError } from "./api.js";
import { Board } from "./board.js";
import { explain, sayAt } from "./messages.js";

const $ = (id) => document.getElementById(id);
const HOUR = 3600_000;
export const LAYOUT_TITLE = { tripeaks: "TriPeaks", six_peaks: "Six Peaks", golf: "Golf" };
const RELATIVE = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** A daily challenge's id is its day and layout ("2026-12-01.tripeaks"). */
export const isDaily = (id) => /^\d{4}-\d{2}-\d{2}\./.test(String(id));

/** What a challenge is called: its name, or the daily's day. */
export const titleOf = (c) => c.name ?? `Daily challenge ${c.date ?? String(c.id).slice(0, 10)}`;

/** The page's own link to a challenge: opening it shows the challenge. */
export const linkTo = (id) => `${location.origin}${location.pathname}?challenge=${encodeURIComponent(id)}`;

/** "in 23 hours", "2 days ago". */
export function relative(iso) {
  const s = (new Date(iso) - Date.now()) / 1000;
  const a = Math.abs(s);
  const [value, unit] = a < 5400 ? [s / 60, "minute"] : a < 48 * 3600 ? [s / 3600, "hour"] : [s / 86400, "day"];
  return RELATIVE.format(Math.round(value), unit);
}

/** "in 23 hours (Fri 5 Dec, 20:00)": and the local time. */
export function when(iso) {
  const local = new Date(iso).toLocaleString("en", { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  return `${relative(iso)} (${local})`;
}

export class Challenges {
  /** `begin(created, extra)` shows a new game, `resume(id)` one of the player's;
   * `patiently(call)` asks again while the server is busy; `layouts()` lists them;
   * `inPlay()` says whether a game is in progress (it is left, not lost, by a new one). */
  constructor(api, { players, begin, resume, patiently, layouts, inPlay, say }) {
    Object.assign(this, { api, players, begin, resume, patiently, layouts, inPlay, say });
    this.el = $("challenge");
    this.current = null; // the challenge shown
    this.armed = null; // the creator's action waiting for its second tap
    this.board = new Board($("ch-board"), { api, players, following: players.following });
    $("ch-set-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.create();
    });
    $("ch-join-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.join($("ch-code").value.trim());
    });
    $("ch-cancel").addEventListener("click", () => this.el.close());
    $("ch-done").addEventListener("click", () => this.el.close());
    $("ch-copy").addEventListener("click", () => this.copy());
    $("ch-play").addEventListener("click", () => this.play());
    $("ch-practise").addEventListener("click", () => this.practise());
    $("ch-close-now").addEventListener("click", () => this.creatorAction("close"));
    $("ch-delete").addEventListener("click", () => this.creatorAction("delete"));
  }

  mode(name) {
    this.el.dataset.mode = name;
    $("ch-set").hidden = name !== "set";
    $("ch-view").hidden = name !== "view";
    $("ch-done").hidden = name !== "view";
    $("ch-error").textContent = "";
    if (!this.el.open) this.el.showModal();
  }

  /** The form to set a challenge (and to join one by its code). */
  async openSet() {
    this.current = null;
    $("ch-title").textContent = "Challenge friends";
    this.mode("set");
    const select = $("ch-layout");
    if (!select.options.length) {
      const layouts = await this.layouts();
      select.replaceChildren(...layouts.map((l) => Object.assign(document.createElement("option"), { value: l.name, textContent: l.title })));
    }
    $("ch-name").focus();
  }

  async create() {
    const form = $("ch-set-form");
    const submit = $("ch-submit");
    const hours = Number(form.elements.hours.value);
    const body = {
      name: form.elements.name.value.trim(),
      layout: form.elements.layout.value,
      closes_at: new Date(Date.now() + hours * HOUR).toISOString(),
      attempts: Number(form.elements.attempts.value),
    };
    if (form.elements.tier.value) body.tier = form.elements.tier.value;
    submit.disabled = true;
    submit.textContent = body.tier ? `Dealing a winnable ${body.tier} deal…` : "Dealing a winnable deal…";
    $("ch-error").textContent = "";
    sayAt(submit, "");
    try {
      const key = await this.players.ensure();
      if (!key) throw new Error("Setting a challenge needs a player, and the server would not make one.");
      const c = await this.patiently(() => this.api.createChallenge(body, key));
      form.reset();
      this.showChallenge(c, { justSet: true });
    } catch (e) {
      sayAt(submit, explain(e)); // under the button, not under the invite code's form
    } finally {
      submit.disabled = false;
      submit.textContent = "Set the challenge";
    }
  }

  async join(code) {
    if (!code) return;
    const row = $("ch-join-form").querySelector(".row");
    sayAt(row, "");
    try {
      this.showChallenge(await this.api.getChallengeByInvite(code));
    } catch (e) {
      sayAt(row, e instanceof ApiError && e.status === 404 ? "No challenge has that code: check it, or ask for the link." : explain(e));
    }
  }

  /** The challenge's page, by its id (a link, the player's list, the end of a game). */
  async show(id) {
    try {
      this.showChallenge(await this.api.getChallenge(id));
    } catch (e) {
      this.current = null;
      $("ch-title").textContent = "Challenge";
      this.mode("view");
      for (const id of ["ch-body", "ch-board"]) $(id).hidden = true;
      $("ch-error").textContent = e instanceof ApiError && e.status === 404 ? "There is no challenge at that link: it may have been deleted." : explain(e);
    }
  }

  showChallenge(c, { justSet = false } = {}) {
    this.current = c;
    this.disarm();
    $("ch-title").textContent = titleOf(c);
    this.mode("view");
    $("ch-body").hidden = false;
    $("ch-board").hidden = c.status === "upcoming";
    $("ch-set-note").hidden = !justSet;
    this.el.dataset.status = c.status;
    $("ch-when").textContent =
      c.status === "upcoming" ? `Opens ${when(c.opens_at)}.` : c.status === "open" ? `Open: closes ${when(c.closes_at)}.` : `Closed ${when(c.closes_at)}: its deal is revealed.`;
    const mine = c.creator_id && c.creator_id === this.players.id;
    const facts = [
      ["Layout", LAYOUT_TITLE[c.layout] ?? c.layout],
      ["Attempts", c.attempts === 1 ? "one try" : `best of ${c.attempts}`],
      ["Entries", c.max_entries && c.entries >= c.max_entries ? `${c.entries} (full)` : String(c.entries)],
      ["Deal", c.winnable_only ? "proved winnable" : "random"],
    ];
    if (c.tier) facts.push(["Drawn", `a${c.tier === "easy" ? "n" : ""} ${c.tier} deal`]);
    if (c.difficulty) facts.push(["Difficulty", `${c.difficulty.tier}: the hint won ${c.difficulty.wins} of ${c.difficulty.playouts} games`]);
    if (c.kind === "set") facts.push(["Set by", mine ? "you" : "a friend"]);
    const values = facts.map(([, value]) => Object.assign(document.createElement("dd"), { textContent: value }));
    $("ch-facts").replaceChildren(
      ...facts.map(([name], i) => {
        const div = document.createElement("div");
        div.append(Object.assign(document.createElement("dt"), { textContent: name }), values[i]);
        return div;
      }),
    );
    if (c.kind === "set" && !mine && c.creator_id) {
      this.api.getPlayer(c.creator_id).then((p) => p.name && (values.at(-1).textContent = p.name), () => {});
    }
    // The link and the code, for anyone who has the page to pass on (a daily needs none).
    $("ch-share").hidden = c.kind !== "set";
    $("ch-link").value = linkTo(c.id);
    $("ch-invite").textContent = c.invite_code ?? "";
    $("ch-copy").textContent = "Copy link";
    $("ch-copied").textContent = "";
    $("ch-play").hidden = c.status !== "open";
    $("ch-play").textContent = "Play it";
    $("ch-practise").hidden = c.status !== "closed";
    $("ch-close-now").hidden = !mine || c.status === "closed";
    $("ch-delete").hidden = !mine || c.entries > 0;
    $("ch-warning").hidden = c.status === "upcoming" || !this.inPlay();
    $("ch-entry").textContent = "";
    $("ch-act-error").textContent = "";
    $("ch-provisional").hidden = true;
    if (c.status === "open") {
      // Before the tap: what a new account's result counts for here.
      this.players.provisional(c.opens_at, c.kind !== "set").then((note) => {
        if (this.current?.id !== c.id) return;
        $("ch-provisional").textContent = note ?? "";
        $("ch-provisional").hidden = !note;
      });
    }
    this.entry(c).then((e) => {
      if (c.status !== "upcoming" && this.current?.id === c.id) this.board.show(c.id, { mine: !!e?.ranked });
    });
    (justSet ? $("ch-copy") : c.status === "open" ? $("ch-play") : $("ch-done")).focus();
  }

  /** The player's own entry, from their list of challenges: attempts used, best score. */
  async entry(c) {
    const key = this.players.key;
    if (!key) return null;
    let mine = null;
    try {
      mine = (await this.api.listMyChallenges(key, null, 100)).challenges.find((m) => m.challenge.id === c.id);
    } catch {
      return null;
    }
    const e = mine?.entry;
    if (this.current?.id !== c.id || !e) return e ?? null;
    const best = e.score == null || !e.side || e.side === "flagged" ? "" : ` Your best: ${e.score} in ${e.moves} moves.`;
    // A result ranked apart: the server says why, and until when, in words for the player.
    const apart = e.side === "flagged" ? ` Your result is not on the board: ${e.fair_play_reason}` : e.side === "provisional" ? ` ${e.provisional_note}` : "";
    $("ch-entry").textContent = `You have played ${e.attempts} of ${c.attempts} attempt${c.attempts === 1 ? "" : "s"}.${best}${apart}`;
    if (e.side) $("ch-provisional").hidden = true; // the entry says it now
    $("ch-play").textContent = e.attempts < c.attempts ? `Play again (attempt ${e.attempts + 1} of ${c.attempts})` : "See your game";
    return e;
  }

  async copy() {
    const link = $("ch-link").value;
    try {
      await navigator.clipboard.writeText(link);
      $("ch-copy").textContent = "Copied ✓";
      $("ch-copied").textContent = "The link is copied: paste it to your friends.";
    } catch {
      // No clipboard here (an insecure page, a refusal): the link, selected, to copy by hand.
      $("ch-link").focus();
      $("ch-link").select();
      $("ch-copied").textContent = "Copy the selected link (Ctrl+C, or hold it on a phone).";
    }
  }

  /** A ranked attempt. No attempt left, or one in progress: that game is shown. */
  async play() {
    const c = this.current;
    const button = $("ch-play");
    button.disabled = true;
    try {
      const key = await this.players.ensure();
      if (!key) throw new Error("A challenge needs a player, and the server would not make one.");
      try {
        const created = await this.patiently(() => this.api.startChallengeGame(c.id, key));
        await this.begin(created, { challengeName: titleOf(c) });
      } catch (e) {
        if (!(e instanceof ApiError && e.kind === "already-entered" && e.problem.game_id)) throw e;
        await this.resume(e.problem.game_id);
        this.say(`${c.attempts > 1 ? "Your attempt goes on, or you have played every one" : "You have played this challenge"}: here is your game.`);
      }
      this.el.close();
    } catch (e) {
      $("ch-act-error").textContent = explain(e);
    } finally {
      button.disabled = false;
    }
  }

  /** An unranked game of a closed challenge's deal; its end says where it would rank. */
  async practise() {
    const c = this.current;
    try {
      const created = await this.patiently(() => this.api.startPracticeGame(c.id, this.players.key));
      await this.begin(created, { challengeName: titleOf(c) });
      this.el.close();
    } catch (e) {
      $("ch-act-error").textContent = explain(e);
    }
  }

  /** The setter's close or delete: the first tap arms it, the second does it. */
  async creatorAction(action) {
    const button = $(action === "close" ? "ch-close-now" : "ch-delete");
    if (this.armed !== action) {
      this.disarm();
      this.armed = action;
      button.textContent = action === "close" ? "Sure? Close it now" : "Sure? Delete it";
      button.classList.add("armed");
      this.armTimer = setTimeout(() => this.disarm(), 4000);
      return;
    }
    this.disarm();
    const c = this.current;
    try {
      if (action === "close") {
        this.showChallenge(await this.api.closeChallenge(c.id, this.players.key));
        $("ch-copied").textContent = "";
      } else {
        await this.api.deleteChallenge(c.id, this.players.key);
        this.el.close();
        this.say(`The challenge “${titleOf(c)}” is deleted.`);
      }
    } catch (e) {
      $("ch-act-error").textContent = explain(e);
    }
  }

  disarm() {
    clearTimeout(this.armTimer);
    this.armed = null;
    $("ch-close-now").textContent = "Close it now";
    $("ch-delete").textContent = "Delete it";
    $("ch-close-now").classList.remove("armed");
    $("ch-delete").classList.remove("armed");
  }
}
