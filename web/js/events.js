// Events the server's operators run (GET /v1/events): an event has editions (one, or one
// a day, a week or a month), each of rounds whose deals are the same for every entrant,
// committed when the edition opens and revealed when it closes. An entrant's total over
// the rounds ranks them on the edition's board and, where the event has cohorts, among
// the players who joined about when they did. One dialog in two modes: "list" (the events
// running now) and "event" (its rules in words, its edition, Join, its rounds to play and
// its board: board.js). A round is played as any challenge's attempt
// (POST …/rounds/{n}/games); once the edition has closed, its rounds are practised.

import { ApiError } from "./api.js";
import { Board } from "./board.js";
import { LAYOUT_TITLE, relative, when } from "./challenges.js";
import { explain, sayAt } from "./messages.js";

const $ = (id) => document.getElementById(id);
const ROUND_ID = /^([A-Za-z0-9_-]{1,32})\.(\d{1,6})\.(\d{1,2})$/;
const EDITION_ID = /^([A-Za-z0-9_-]{1,32})\.(\d{1,6})$/;
const SCORING = { classic: "classic scoring", cards_left: "fewest cards left wins", msc: "MSC scoring" };
const PERIOD = { daily: "day", weekly: "week", monthly: "month" };

/** A round's challenge id (a game's `challenge.id`) is "<event>.<edition>.<round>". */
export function roundOf(id) {
  const m = ROUND_ID.exec(String(id ?? ""));
  return m ? { event: m[1], number: Number(m[2]), round: Number(m[3]), edition: `${m[1]}.${m[2]}` } : null;
}

/** An edition's id (its board's challenge id) is "<event>.<edition>". */
export function editionOf(id) {
  const m = EDITION_ID.exec(String(id ?? ""));
  return m ? { event: m[1], number: Number(m[2]) } : null;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The rule options, in words. */
function rulesWords(r) {
  const words = [SCORING[r.scoring] ?? r.scoring, r.wrap ? "A and K neighbours" : "no wrap from K to A"];
  if (r.king_stops) words.push("nothing goes on a K");
  if (r.open_peaks) words.push("every card face up");
  if (r.free_start) words.push("any card may start");
  if (r.jokers) words.push(plural(r.jokers, "joker"));
  if (r.redeals) words.push(plural(r.redeals, "redeal"));
  words.push(r.undo ? "undo allowed" : "no undo");
  return words.join(", ");
}

/** How the event is played, a sentence a line. */
function howItWorks(e) {
  const layout = LAYOUT_TITLE[e.layout] ?? e.layout;
  const once = e.round_opening === "one_per_day";
  const lines = [
    e.rounds === 1
      ? `One round of ${layout}: the same deal for everyone.`
      : `${e.rounds} rounds of ${layout}, ${once ? "one more opening each day" : "all open at once"}: the same deals for everyone.`,
    e.attempts === 1 ? "One try at each round." : `Up to ${e.attempts} tries at each round, one at a time: your best counts.`,
    e.rounds === 1
      ? "Your score ranks you."
      : `Your total over the rounds ranks you (a round not played counts ${e.rules.scoring === "cards_left" ? "every card left" : "0"}).`,
    e.cohort_size
      ? `Players are grouped by when they join into cohorts of ${e.cohort_size}: you are ranked in yours, and on the whole board.`
      : "One board for everyone.",
    e.join_required ? `Join, then play the rounds${once ? "" : " in any order"}.` : "Your first round enters you.",
    `Rules: ${rulesWords(e.rules)}.`,
    `${e.winnable_only ? "Every deal is proved winnable. " : ""}The deals stay secret, and hints off, until the edition closes.`,
  ];
  if (PERIOD[e.schedule]) lines.push(`A new edition every ${PERIOD[e.schedule]}: new deals, a new board.`);
  if (e.max_size) lines.push(`Up to ${e.max_size} players an edition.`);
  if (e.entrants === "both") lines.push("People and bots play it, each ranked on a board of their own.");
  return lines;
}

/** A `<dl>` of facts, as the challenge's page has. */
function facts(list) {
  return list.map(([name, value]) => {
    const div = document.createElement("div");
    div.append(Object.assign(document.createElement("dt"), { textContent: name }), Object.assign(document.createElement("dd"), { textContent: value }));
    return div;
  });
}

export class Events {
  /** `begin(created, extra)` shows a new game, `resume(id)` one of the player's;
   * `patiently(call)` asks again while the server is busy; `inPlay()` says whether a game
   * is in progress (it is left, not lost, by a round). */
  constructor(api, { players, begin, resume, patiently, inPlay, say }) {
    Object.assign(this, { api, players, begin, resume, patiently, inPlay, say });
    this.el = $("events");
    this.known = new Map(); // event id -> promise of the event (names and cohorts)
    this.places = new Map(); // edition id -> the player's place, as joining answered it
    this.current = null; // {event, edition} shown
    this.cursor = null;
    this.board = new Board($("ev-board"), { api, players, following: players.following });
    $("ev-more").addEventListener("click", () => this.page(true));
    $("ev-back").addEventListener("click", () => this.openList());
    $("ev-done").addEventListener("click", () => this.el.close());
    $("ev-join").addEventListener("click", () => this.join());
  }

  mode(name) {
    this.el.dataset.mode = name;
    $("ev-list-view").hidden = name !== "list";
    $("ev-view").hidden = name !== "event";
    $("ev-back").hidden = name !== "event";
    $("ev-error").textContent = "";
    if (!this.el.open) this.el.showModal();
  }

  /** An event, read once for the page: a game's header, a board's cohorts. */
  get(id) {
    if (!this.known.has(id)) this.known.set(id, this.api.getEvent(id).catch((e) => (this.known.delete(id), Promise.reject(e))));
    return this.known.get(id);
  }

  /** The events running now, a page at a time. */
  async openList() {
    this.current = null;
    $("ev-title").textContent = "Events";
    this.mode("list");
    $("ev-list").replaceChildren();
    $("ev-list-text").textContent = "Reading the events…";
    await this.page(false);
  }

  async page(more) {
    try {
      const page = await this.api.listEvents({ cursor: more ? this.cursor : null });
      this.cursor = page.next;
      $("ev-more").hidden = !page.next;
      for (const e of page.events) {
        this.known.set(e.id, Promise.resolve(e));
        $("ev-list").append(this.item(e));
      }
      const n = $("ev-list").children.length;
      $("ev-list-text").textContent = n ? "Running now: the same deals for everyone who enters, a few rounds, one board of totals." : "No event is running now: come back later.";
      if (!more) $("ev-list").querySelector("button")?.focus();
    } catch (e) {
      $("ev-list-text").textContent = "";
      $("ev-error").textContent = explain(e);
    }
  }

  /** An event in the list: its name, layout, rounds, time left; then, once its edition is
   * read, its players and how long that edition has left. */
  item(e) {
    const li = document.createElement("li");
    li.dataset.event = e.id;
    const what = document.createElement("div");
    const line = (text, className) => Object.assign(document.createElement("span"), { textContent: text, className });
    const ends = e.schedule === "once" ? e.ends_at : e.next_opens_at;
    const first = line([LAYOUT_TITLE[e.layout] ?? e.layout, plural(e.rounds, "round"), ends ? `ends ${relative(ends)}` : null].filter(Boolean).join(" · "), "more");
    const second = line(e.cohort_size ? `cohorts of ${e.cohort_size}` : "one board", "more");
    what.append(line(e.name, "name"), first, second);
    const button = Object.assign(document.createElement("button"), { type: "button", textContent: "Open" });
    button.dataset.event = e.id;
    button.setAttribute("aria-label", `Open ${e.name}`);
    button.addEventListener("click", () => this.show(e.id));
    li.append(what, button);
    if (e.current_edition != null) {
      this.api.getEdition(e.id, e.current_edition).then(
        (ed) => {
          first.textContent = [LAYOUT_TITLE[e.layout] ?? e.layout, plural(e.rounds, "round"), `ends ${relative(ed.closes_at)}`].join(" · ");
          second.textContent = `${plural(ed.entrants, "player")} · ${e.cohort_size ? `cohorts of ${e.cohort_size}` : "one board"}`;
          li.dataset.entrants = String(ed.entrants);
        },
        () => {},
      );
    }
    return li;
  }

  /** The event's page: the edition open now, else its latest. */
  async show(id, { focus = null } = {}) {
    this.mode("event");
    if (this.current?.event.id !== id) {
      // Another event's page is not left on show while this one is read.
      $("ev-body").hidden = true;
      $("ev-board").hidden = true;
      $("ev-when").textContent = "Reading the event…";
    }
    try {
      const event = await this.api.getEvent(id);
      this.known.set(id, Promise.resolve(event));
      const [edition, mine] = await Promise.all([this.edition(event), this.mine(id)]);
      this.showEvent(event, edition, mine, focus);
    } catch (e) {
      this.current = null;
      $("ev-title").textContent = "Event";
      $("ev-when").textContent = "";
      $("ev-error").textContent = e instanceof ApiError && e.status === 404 ? "There is no such event: it may have been removed." : explain(e);
    }
  }

  async edition(event) {
    if (event.current_edition != null) return this.api.getEdition(event.id, event.current_edition);
    if (event.state === "upcoming") return null;
    return (await this.api.listEditions(event.id, 1)).editions[0] ?? null;
  }

  /** The player's entries on this event's editions and rounds (their challenges list):
   * challenge id -> {attempts, game_id, score, moves, ranked}. */
  async mine(eventId) {
    const key = this.players.key;
    const entries = new Map();
    if (!key) return entries;
    try {
      const page = await this.api.listMyChallenges(key, null, 100);
      for (const { challenge: c, entry } of page.challenges) {
        if (entry && (roundOf(c.id)?.event ?? editionOf(c.id)?.event) === eventId) entries.set(c.id, entry);
      }
    } catch {
      /* shown as not played */
    }
    return entries;
  }

  showEvent(event, edition, mine, focus) {
    this.current = { event, edition };
    const open = edition?.state === "open" && event.state === "running";
    const place = edition && this.places.get(edition.id);
    const total = edition && mine.get(edition.id);
    const joined = !!(place || total);
    const canPlay = open && (joined || !event.join_required);
    this.el.dataset.state = event.state;
    $("ev-title").textContent = event.name;
    $("ev-body").hidden = false;
    $("ev-description").textContent = event.description;
    $("ev-description").hidden = !event.description;
    $("ev-when").textContent = this.whenText(event, edition);
    const size = edition ? `${edition.entrants}${event.max_size && edition.entrants >= event.max_size ? " (full)" : ""}` : "–";
    $("ev-facts").replaceChildren(
      ...facts([
        ["Layout", LAYOUT_TITLE[event.layout] ?? event.layout],
        ["Rounds", String(event.rounds)],
        ["Tries a round", event.attempts === 1 ? "one" : `best of ${event.attempts}`],
        ["Players", size],
        ["Cohorts", event.cohort_size ? `${event.cohort_size} players` : "one board"],
      ]),
    );
    $("ev-rules").replaceChildren(...howItWorks(event).map((text) => Object.assign(document.createElement("li"), { textContent: text })));
    // How it works: open until the player has joined (then a tap away).
    if (this.shownEvent !== event.id) $("ev-how").open = !joined;
    this.shownEvent = event.id;
    // Joined or not: the player's place, and their total so far.
    let entry = "";
    if (open && !joined) entry = event.join_required ? "Join to play its rounds." : "";
    else if (joined && place) entry = `You have joined: number ${place.number} to join${place.cohort != null ? `, in cohort ${place.cohort + 1}` : ""}.`;
    else if (joined) entry = "You have joined this edition.";
    if (total?.side === "board") entry += ` Your total: ${total.score} (${plural(total.moves, "move")}).`;
    else if (total?.side === "provisional") entry += ` Your total: ${total.score} (${plural(total.moves, "move")}), provisional: ranked apart until its rounds' fair-play checks find them fair.`;
    else if (total?.side === "flagged") entry += ` Your total is not on the board: ${total.fair_play_reason}`;
    $("ev-entry").textContent = entry.trim();
    $("ev-entry").className = joined ? "notice" : "";
    $("ev-entry").hidden = !entry;
    $("ev-join").hidden = !(open && event.join_required && !joined);
    $("ev-warning").hidden = !(canPlay && this.inPlay());
    $("ev-rounds-title").hidden = !edition;
    $("ev-provisional").hidden = true;
    if (canPlay) {
      // Before the tap: what a new account's results count for here.
      this.players.provisional(edition.opens_at, true).then((note) => {
        if (this.current?.edition !== edition) return;
        $("ev-provisional").textContent = note ?? "";
        $("ev-provisional").hidden = !note;
      });
    }
    $("ev-rounds").replaceChildren(...(edition?.rounds ?? []).map((r) => this.roundItem(event, edition, r, mine.get(r.challenge_id), canPlay)));
    $("ev-board").hidden = !edition || edition.state === "upcoming";
    if (edition) {
      const cohorts = event.cohort_size > 0 && joined;
      this.board.show(edition.id, { mine: !!total?.ranked, event: { id: event.id, number: edition.number }, cohorts });
    }
    const target = focus === "play" ? $("ev-rounds").querySelector("button") : null;
    (target ?? (!$("ev-join").hidden ? $("ev-join") : $("ev-rounds").querySelector("button") ?? $("ev-done"))).focus();
  }

  whenText(event, edition) {
    if (event.state === "cancelled") return `Cancelled${edition ? ": its board stays as it stood" : ""}.`;
    if (!edition || edition.state === "upcoming") {
      const at = event.next_opens_at ?? edition?.opens_at;
      return at ? `Opens ${when(at)}.` : "No edition is open.";
    }
    const which = event.schedule === "once" ? "Open" : `Edition ${edition.number + 1} open`;
    if (edition.state === "open") return `${which}: ends ${when(edition.closes_at)}.`;
    const next = event.next_opens_at ? ` The next opens ${when(event.next_opens_at)}.` : "";
    return `Ended ${when(edition.closes_at)}: its deals are revealed, to practise.${next}`;
  }

  /** A round: whether it is open (or when it opens), the player's tries and best, and
   * its button (play, play again, see the game, or practise once closed). */
  roundItem(event, edition, r, entry, canPlay) {
    const li = document.createElement("li");
    li.dataset.round = String(r.round);
    const now = Date.now();
    const upcoming = edition.state === "open" && new Date(r.opens_at) > now;
    li.className = upcoming ? "upcoming" : "";
    const what = document.createElement("div");
    const span = (text, className) => Object.assign(document.createElement("span"), { textContent: text, className });
    const state = upcoming ? `opens ${when(r.opens_at)}` : edition.state === "open" ? `open · ${r.entries} played it` : `closed · ${r.entries} played it`;
    what.append(span(`Round ${r.round}`, "name"), span(state, "more state"));
    if (entry) {
      const tries = event.attempts === 1 ? "" : ` · ${entry.attempts} of ${event.attempts} tries`;
      const result = `${entry.score} in ${plural(entry.moves, "move")}`;
      const best =
        entry.side === "board" ? `Your best: ${result}`
        : entry.side === "provisional" ? `Provisional: ${result}, ranked apart until its fair-play check`
        : entry.side === "flagged" ? "Flagged by the fair-play check: ranked apart"
        : entry.score != null ? "Not ranked: it ended after the close"
        : "In play";
      what.append(span(`${best}${tries}`, "more mine"));
    }
    li.append(what);
    let label = null;
    let action = null;
    if (edition.state === "closed") {
      label = `Practise round ${r.round}`;
      action = () => this.practise(event, r, li);
    } else if (canPlay && !upcoming) {
      const used = entry?.attempts ?? 0;
      if (!used) label = `Play round ${r.round}`;
      else if (used < event.attempts) label = `Play again (${used + 1} of ${event.attempts})`;
      else if (entry.game_id) label = "See your game";
      action = () => this.play(event, r, li);
    }
    if (label) {
      const button = Object.assign(document.createElement("button"), { type: "button", textContent: label, className: edition.state === "open" && !entry?.attempts ? "primary" : "" });
      button.setAttribute("aria-label", label.startsWith("Play again") ? `Play round ${r.round} again (attempt ${entry.attempts + 1} of ${event.attempts})` : label === "See your game" ? `See your game of round ${r.round}` : label);
      button.addEventListener("click", async () => {
        button.disabled = true;
        await action();
        button.disabled = false;
      });
      li.append(button);
    }
    return li;
  }

  async join() {
    const { event } = this.current;
    const button = $("ev-join");
    button.disabled = true;
    $("ev-error").textContent = "";
    try {
      const key = await this.players.ensure();
      if (!key) throw new Error("Joining needs a player, and the server would not make one.");
      const place = await this.patiently(() => this.api.joinEvent(event.id, key));
      this.places.set(place.edition_id, place);
      $("ev-how").open = false; // read: the rounds come into view
      await this.show(event.id, { focus: "play" });
    } catch (e) {
      sayAt(button, this.explain(e));
    } finally {
      button.disabled = false;
    }
  }

  /** An attempt at a round. None left, or one in progress: that game is shown. A
   * refusal is said under the round's button, where the eye is. */
  async play(event, r, li) {
    $("ev-error").textContent = "";
    sayAt(li, "");
    try {
      const key = await this.players.ensure();
      if (!key) throw new Error("An event needs a player, and the server would not make one.");
      try {
        const created = await this.patiently(() => this.api.startEventRound(event.id, r.round, key));
        await this.begin(created, { challengeName: event.name });
      } catch (e) {
        if (!(e instanceof ApiError && e.kind === "already-entered" && e.problem.game_id)) throw e;
        await this.resume(e.problem.game_id);
        this.say(`${event.attempts > 1 ? "Your attempt goes on, or you have played every one" : "You have played this round"}: here is your game.`);
      }
      this.el.close();
    } catch (e) {
      sayAt(li, this.explain(e));
    }
  }

  /** An unranked game of a closed edition's round; its end says where it would rank. */
  async practise(event, r, li) {
    sayAt(li, "");
    try {
      const created = await this.patiently(() => this.api.startPracticeGame(r.challenge_id, this.players.key));
      await this.begin(created, { challengeName: event.name });
      this.el.close();
    } catch (e) {
      sayAt(li, this.explain(e));
    }
  }

  /** The event's refusals, said of an event (messages.js says a challenge's). */
  explain(e) {
    if (!(e instanceof ApiError)) return explain(e);
    const next = e.problem.next_opens_at;
    switch (e.kind) {
      case "event-not-open":
        return `No edition of this event is open now${next ? `: the next opens ${when(next)}` : ""}.`;
      case "event-cancelled":
        return "This event was cancelled.";
      case "kind-not-admitted":
        return "This event is not open to players of your kind.";
      case "not-joined":
        return "Join the event first, then play its rounds.";
      case "challenge-full":
        return "This edition takes no more players.";
      case "challenge-not-open":
        return "This round has not opened yet.";
      case "challenge-closed":
        return "This edition has closed.";
      default:
        return explain(e);
    }
  }
}
