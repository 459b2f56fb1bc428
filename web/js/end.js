// The end of a game: what the score was made of, whether the deal could have been won
// and where the win slipped away (GET /v1/games/{id}/analysis, shown on the table
// replayed to that move), the challenge's leaderboard for a challenge's attempt (the
// daily's, or one set among friends: board.js), the edition's board of totals for an
// event's round (by cohort where it has them), where a practice of a closed challenge's
// deal would have ranked, and the check of the revealed deal against the commitment.
//
// The panel is a modal <dialog>: a tap meant for the table cannot reach a game behind it.
// Its actions arm a moment after it opens, so that a second tap of a double tap on the
// last card or the stock (which lands where the panel now is) does not deal a new game
// and skip the summary. Focus goes to its first action.

import { ApiError } from "./api.js";
import { Board } from "./board.js";
import { pretty } from "./cards.js";
import { isDaily } from "./challenges.js";
import { roundOf } from "./events.js";
import { fit } from "./fit.js";
import { explain } from "./messages.js";
import { motionOn } from "./motion.js";
import { replay } from "./replay.js";
import { paintCard } from "./table.js";
import { verifyReveal } from "./verify.js";

const $ = (id) => document.getElementById(id);
const ARM_MS = 600;
const TITLES = { won: "You won!", lost: "No moves left", conceded: "Conceded" };
const COUNT_MS = 900; // the total counted up from 0
const ANALYSIS_TRIES = 18; // 1 + 2 + 4 + 8 × 15 s: about two minutes of a busy solver

export class EndPanel {
  /** `eventOf(id)`: the event (a promise), for an event's round. */
  constructor(api, { again, players, duels, duelOf, eventOf, layoutOf, sessionOf, shareLink }) {
    Object.assign(this, { api, againAction: again, players, duels, duelOf, eventOf, layoutOf, sessionOf, shareLink });
    this.el = $("end");
    this.board = new Board($("ranking"), { api, players, following: players.following });
    this.shownFor = null; // the game whose extras (analysis, board, check) were asked for
    this.armTimer = null;
    const armed = (fn) => (event) => {
      if (!("armed" in this.el.dataset)) {
        event.preventDefault();
        return;
      }
      fn(event);
    };
    $("again").addEventListener("click", armed(() => {
      this.close();
      this.againAction();
    }));
    $("end-close").addEventListener("click", armed(() => this.close()));
    $("replay-link").addEventListener("click", armed(() => {}));
    // Escape closes it like "See the table"; it is never closed by a tap outside it.
    this.el.addEventListener("cancel", (e) => {
      if (!("armed" in this.el.dataset)) e.preventDefault();
    });
  }

  close() {
    clearTimeout(this.armTimer);
    if (this.el.open) this.el.close();
  }

  /** Resolves once the analysis request this panel has in flight has answered: the
   * server runs one solver search a player at a time, so a search of the page's own (a
   * winnable deal) waits for it rather than be refused. */
  async settled() {
    await this.asking?.catch(() => {});
  }

  open(game) {
    const layout = this.layoutOf();
    if (!layout) return;
    this.el.dataset.status = game.status;
    $("end-title").textContent = TITLES[game.status] ?? game.status;
    $("end-detail").textContent = this.detail(game, layout);
    $("end-meaning").textContent = meaning(game, layout);
    this.breakdown(game);
    const duel = this.duelOf(game);
    $("again").textContent = duel ? "Play another duel" : !game.challenge ? "New deal, same rules" : isDaily(game.challenge.id) ? "New game" : roundOf(game.challenge.id) ? "Back to the event" : "Back to the challenge";
    if (game.reveal) $("replay-link").href = this.shareLink({ deal: game.reveal.deal });
    $("replay-link").hidden = !game.reveal;
    if (!this.el.open) {
      delete this.el.dataset.armed;
      this.el.showModal();
      $("again").focus();
      clearTimeout(this.armTimer);
      this.armTimer = setTimeout(() => (this.el.dataset.armed = ""), ARM_MS);
    }
    // (A duel found after the panel opened, or its deal revealed since, asks again.)
    const shown = `${game.id}:${game.status}:${duel}:${!!game.reveal}`;
    if (this.shownFor !== shown) {
      const first = !this.shownFor?.startsWith(`${game.id}:${game.status}:`);
      this.shownFor = shown;
      if (first) countUp($("end-score"), game);
      this.verify(game, layout);
      this.analyse(game, layout);
      this.rank(game);
      if (first) this.record(game);
      this.duels.showEnd(game.id, duel);
    }
  }

  /** The player's record right after the game (GET /v1/players/me, which the game's end
   * has updated): the layout's best and the wins in a row, or for the daily challenge its
   * streak of days. */
  async record(game) {
    const el = $("end-player");
    el.hidden = true;
    const key = this.players.key;
    if (!key || game.player_id == null) return;
    let me;
    try {
      me = await this.api.getMe(key);
    } catch {
      return; // the panel says enough without it
    }
    if (this.sessionOf()?.id !== game.id) return;
    const parts = [];
    const daily = isDaily(game.challenge?.id) ? me.daily?.find((d) => d.layout === game.layout) : null;
    if (daily) {
      const [n, what] = daily.won_streak > 0 ? [daily.won_streak, "won"] : [daily.played_streak, "played"];
      parts.push(`Daily challenge: ${n} day${n === 1 ? "" : "s"} ${what} in a row (longest ${what === "won" ? daily.won_longest : daily.played_longest})`);
    }
    const line = me.stats?.by_layout?.find((l) => l.layout === game.layout && l.scoring === game.score.scheme);
    if (line?.best_score != null) {
      const mine = game.score.scheme === "cards_left" ? game.score.cards_left : game.score.total;
      const best = game.score.scheme === "cards_left" ? `${line.best_score} card${line.best_score === 1 ? "" : "s"} left` : String(line.best_score);
      parts.push(line.best_score === mine && line.played > 1 ? `Your best yet on ${layoutTitle(game)}: ${best}` : `Your best on ${layoutTitle(game)}: ${best}`);
    }
    if (game.status === "won" && line?.current_run > 1) parts.push(`${line.current_run} wins in a row`);
    el.textContent = parts.join(" · ");
    el.hidden = !parts.length;
  }

  detail(game, layout) {
    const s = game.score;
    const parts =
      s.scheme === "cards_left"
        ? [`${s.cards_left} card${s.cards_left === 1 ? "" : "s"} left`]
        : [`Final score ${s.total}`, `longest streak ${s.longest_streak}`];
    if (layout.peaks.length) parts.push(`peaks ${s.peaks_taken} of ${layout.peaks.length}`);
    return parts.join(" · ");
  }

  /** The score's parts, as the server counted them (GameRead.score). */
  breakdown(game) {
    const s = game.score;
    const rows = [];
    if (s.scheme === "cards_left") {
      rows.push(["Cards left", s.cards_left, true]);
    } else {
      rows.push(["Streak points", s.streak_points]);
      if (s.bonus_points) rows.push(["Peak bonuses", `+${s.bonus_points}`]);
      if (s.draw_penalties) rows.push(["Draw penalties", `−${Math.abs(s.draw_penalties)}`]);
      if (s.deal_cost) rows.push(["Deal cost", `−${Math.abs(s.deal_cost)}`]);
      rows.push([s.scheme === "msc" ? "Total (MSC)" : "Total", s.total < 0 ? `−${-s.total}` : s.total, true]);
    }
    $("breakdown").replaceChildren(
      ...rows.flatMap(([name, value, total], i) => {
        const dt = Object.assign(document.createElement("dt"), { textContent: name });
        const dd = Object.assign(document.createElement("dd"), { textContent: String(value) });
        if (total) dt.className = dd.className = "total";
        // Each part comes in turn while the total counts up (no motion: at once).
        for (const el of [dt, dd]) el.style.setProperty("--i", String(i));
        return [dt, dd];
      }),
    );
  }

  verify(game, layout) {
    const el = $("verify");
    el.className = "verify";
    if (!game.reveal && this.duelOf(game)) {
      el.textContent = "The deal is revealed when the duel ends; the page checks it against the commitment then.";
      return;
    }
    if (!game.reveal && game.challenge) {
      const when = new Date(game.challenge.reveal_after);
      el.textContent = isDaily(game.challenge.id)
        ? `The day's deal is revealed after ${when.toUTCString().slice(17, 22)} UTC; the page checks it against the commitment then.`
        : `The deal is revealed after the ${roundOf(game.challenge.id) ? "edition" : "challenge"} closes (${when.toLocaleString("en", { weekday: "short", hour: "2-digit", minute: "2-digit" })}); the page checks it against the commitment then.`;
      return;
    }
    el.textContent = "checking the deal…";
    verifyReveal(game, layout, this.sessionOf()?.chosenDeal ?? null)
      .then(({ ok, text }) => {
        el.textContent = text;
        el.className = ok ? "verify ok" : "verify bad";
      })
      .catch((e) => {
        el.textContent = `⚠ could not check the deal: ${explain(e)}`;
        el.className = "verify bad";
      });
  }

  async analyse(game, layout, attempt = 0) {
    const box = $("analysis");
    const text = $("analysis-text");
    $("replay-wrap").hidden = true;
    if (!game.reveal) {
      box.hidden = !game.challenge;
      text.textContent = this.duelOf(game)
        ? "The analysis comes once the duel has ended."
        : isDaily(game.challenge?.id)
        ? "The analysis of a daily challenge comes once its day is over."
        : `The analysis comes once the ${roundOf(game.challenge?.id) ? "edition" : "challenge"} has closed.`;
      return;
    }
    box.hidden = false;
    text.textContent = "Looking back at the whole deal…";
    const session = this.sessionOf();
    let a;
    try {
      this.asking = this.api.analysis(game.id, session.token);
      a = await this.asking;
    } catch (e) {
      // The solver busy (its slots full, or a search of another player behind the same
      // address): asked again, as its Retry-After says and then less often, for about two
      // minutes, while the panel is still this game's.
      if (e instanceof ApiError && e.status === 503 && attempt < ANALYSIS_TRIES) {
        text.textContent = "Looking back at the whole deal… (the solver is busy: waiting for it)";
        const wait = Math.max(e.retryAfter ?? 1, Math.min(8, 2 ** attempt));
        await new Promise((resolve) => setTimeout(resolve, wait * 1000));
        if (this.sessionOf()?.id !== game.id) return;
        return this.analyse(game, layout, attempt + 1);
      }
      text.textContent = e instanceof ApiError && e.status === 404 ? "This server gives no analysis." : explain(e);
      return;
    }
    if (this.sessionOf()?.id !== game.id) return;
    const score = bestScoreText(a);
    const best = `${score}${difficultyText(a.difficulty)}`;
    if (a.winnable === null) {
      text.textContent = `The solver ran out of time on this deal.${best}`;
    } else if (!a.winnable) {
      text.textContent = `Nobody could have cleared this deal, whatever they played.${best}`;
    } else if (game.status === "won") {
      text.textContent = `You cleared it.${best}`;
    } else if (a.lost_at != null) {
      text.textContent = `This deal could be cleared. The win slipped away at move ${a.lost_at + 1} (${this.moveName(a.lost_move, game, a)}): the table just before it is below.${best}`;
      this.showReplay(game, layout, a);
    } else {
      text.textContent = `This deal could be cleared.${a.complete ? "" : " (The search ran out of time before finding where the win was lost.)"}${best}`;
    }
  }

  moveName(move, game) {
    const [verb, arg] = String(move).split(" ");
    if (verb === "play" && game.reveal) return `playing ${pretty(game.reveal.deal[Number(arg)])}`;
    if (verb === "draw") return "a draw";
    return String(move);
  }

  /** The table replayed from the revealed deal to just before the move that lost the
   * win, with that move marked. */
  async showReplay(game, layout, a) {
    let moves;
    try {
      moves = (await this.api.listMoves(game.id, this.sessionOf().token)).moves.map((m) => m.move);
    } catch {
      return;
    }
    const state = replay(game.reveal.deal, layout, game.rules, moves, a.lost_at);
    const box = $("replay");
    const width = Math.min(box.parentElement.clientWidth || 320, 440);
    const f = fit(layout, width - 16, 220, { maxU: 22 });
    box.style.width = `${f.tw * f.u + 10}px`;
    box.style.height = `${f.th * f.u + 10}px`;
    box.style.setProperty("--u", `${f.u}px`);
    const [verb, arg] = a.lost_move.split(" ");
    const cards = state.tableau
      .filter((s) => !s.removed)
      .map((s) => {
        const el = document.createElement("div");
        el.className = "card";
        // As the player saw it then: the cards still face down are backs.
        paintCard(el, s.face_up ? s.card : null);
        const at = f.place.get(s.position);
        el.style.setProperty("--x", String(at.x));
        el.style.setProperty("--y", String(at.y));
        el.style.zIndex = String(layout.positions[s.position].row + 1);
        if (verb === "play" && Number(arg) === s.position) el.classList.add("lost-here");
        return el;
      });
    box.replaceChildren(...cards);
    const waste = state.waste.length ? pretty(state.waste.at(-1)) : "empty";
    box.setAttribute("aria-label", `The table before move ${a.lost_at + 1}: waste ${waste}, stock ${state.stock_count} cards`);
    $("replay-caption").textContent = `${verb === "play" ? "Marked: the card whose play lost the win." : `The move that lost the win: ${this.moveName(a.lost_move, game)}.`} Waste ${waste}, stock ${state.stock_count}.`;
    $("replay-wrap").hidden = false;
  }

  /** A challenge's attempt or a practice of its deal: the challenge's board (board.js),
   * and for a practice where its result would have ranked. An event's round: its
   * edition's board of totals, the player's cohort first where the event has cohorts. */
  rank(game) {
    const id = this.duelOf(game) ? null : game.challenge?.id ?? game.practice?.challenge_id;
    $("ranking").hidden = !id;
    $("practice-text").hidden = !game.practice;
    if (game.practice) $("practice-text").textContent = practiceText(game.practice);
    if (!id) return;
    const today = new Date().toISOString().slice(0, 10);
    const round = game.challenge && roundOf(id);
    $("rank-title").textContent = round ? "The event's leaderboard" : !isDaily(id) ? "The challenge's leaderboard" : id.startsWith(today) ? "Today's leaderboard" : "The day's leaderboard";
    const unranked = game.challenge && !game.challenge.ranked ? `This game is not ranked: it did not end before the ${round ? "edition" : "challenge"} closed.` : null;
    if (!round) {
      this.board.show(id, { mine: !!game.challenge?.ranked, fallback: unranked });
      return;
    }
    // The player entered the edition to play the round: their total is on its board.
    const show = (cohorts) => this.board.show(round.edition, { mine: !!game.challenge.ranked, fallback: unranked, event: { id: round.event, number: round.number }, cohorts });
    this.eventOf(round.event).then((e) => show(e.cohort_size > 0), () => show(false));
  }
}

const layoutTitle = (game) => ({ tripeaks: "TriPeaks", six_peaks: "Six Peaks", golf: "Golf" })[game.layout] ?? game.layout;

/** A win's total counted up from 0 (at once without motion, and for any other end): the
 * moment a win's score is made, not a number already there. */
function countUp(el, game) {
  const s = game.score;
  const target = s.scheme === "cards_left" ? s.cards_left : s.total;
  const label = s.scheme === "cards_left" ? (target === 1 ? " card left" : " cards left") : " points";
  const show = (n) => (el.textContent = `${n < 0 ? "−" : ""}${Math.abs(n)}${label}`);
  el.dataset.total = String(target);
  // A win's moment alone: any other end shows its total at once.
  if (!motionOn() || game.status !== "won" || s.scheme === "cards_left" || target === 0) return show(target);
  const began = performance.now();
  const step = (now) => {
    const t = Math.min(1, (now - began) / COUNT_MS);
    show(Math.round(target * (1 - (1 - t) ** 3)));
    if (t < 1 && el.dataset.total === String(target)) requestAnimationFrame(step);
  };
  show(0);
  requestAnimationFrame(step);
}

/** What the result means, in words a player reads at once: a win is a win even when
 * draws left its total small; a loss says how close it came. */
export function meaning(game, layout) {
  const s = game.score;
  const cards = layout.positions.length;
  if (game.status === "won") {
    const earned = (s.streak_points ?? 0) + (s.bonus_points ?? 0);
    const cost = Math.abs(s.draw_penalties ?? 0) + Math.abs(s.deal_cost ?? 0);
    const cleared = `All ${cards} cards cleared: the deal is beaten.`;
    if (s.scheme === "cards_left" || !cost || cost * 2 < earned) return cleared;
    return `${cleared} Your plays earned ${earned} points and the draws cost ${cost}: a small total is still a win.`;
  }
  if (game.status === "lost") {
    const left = game.cards_left;
    if (left <= 3) return `So close: ${left} card${left === 1 ? "" : "s"} from clearing the table.`;
    const peaks = layout.peaks.length ? ` You took ${s.peaks_taken} of ${layout.peaks.length} peaks.` : "";
    return `${left} of ${cards} cards were left.${peaks}`;
  }
  return "";
}

const ORDINAL = new Intl.PluralRules("en", { type: "ordinal" });
const SUFFIX = { one: "st", two: "nd", few: "rd", other: "th" };

/** "Practice: your score would have ranked 14th of 230." (Its rank is one more than the
 * results better than it: after every ranked one, it is one more than their number.) */
function practiceText({ rank, ranked }) {
  if (rank == null) return "Practice: this game is not ranked.";
  if (!ranked) return "Practice: nobody was ranked on this challenge; your score would have been first.";
  const place = `${rank}${SUFFIX[ORDINAL.select(rank)]}`;
  if (rank > ranked) return `Practice: your score would have ranked ${place}, after ${ranked === 1 ? "the one result" : `all ${ranked} results`} on the challenge's board.`;
  return `Practice: your score would have ranked ${place} of ${ranked} on the challenge's board.`;
}

// How hard the deal was (the analysis's difficulty: the hint's own games on it), in words.
export function difficultyText(d) {
  if (!d) return "";
  const won = `the hint, playing it ${d.playouts} times without seeing the hidden cards, won ${d.wins}`;
  return ` A${d.tier === "easy" ? "n" : ""} ${d.tier} deal: ${won}.`;
}

// The deal's best score in words: exact, or (six peaks, where the exact search rarely
// finishes) the best line found and the most any line could score.
export function bestScoreText(a) {
  if (a.best_score == null) return "";
  if (a.scoring === "cards_left") {
    return a.best_score_exact
      ? ` The fewest cards it could leave: ${a.best_score}.`
      : ` A line leaves only ${a.best_score} cards (none could leave fewer than ${a.best_score_bound}).`;
  }
  return a.best_score_exact
    ? ` Its best possible score: ${a.best_score} (yours ${a.final_score}).`
    : ` A line scores ${a.best_score} (yours ${a.final_score}); none could score more than ${a.best_score_bound}.`;
}
