// What to tell a player when the server says no: the problem's type decides, and the
// detail is used only where it is already written for people (an illegal move's reason).

import { ApiError } from "./api.js";
import { normalizeCode, pretty } from "./cards.js";

const OPTION_NAMES = {
  layout: "layout",
  wrap: "wrap",
  king_stops: "king stops",
  open_peaks: "open peaks",
  free_start: "free start",
  jokers: "jokers",
  redeals: "redeals",
  undo: "undo",
  scoring: "scoring",
  draw_penalty: "draw penalty",
  deal_cost: "deal cost",
  deal_number: "deal number",
};

// A challenge's fields a 422 may name (POST /v1/challenges).
const CHALLENGE_FIELDS = { name: "name", closes_at: "closing time", opens_at: "opening time", attempts: "number of attempts" };

/** A deal the server refused, said in a sentence: how many cards are missing or extra,
 * naming a few, not the whole list. */
function dealText(detail) {
  const missing = /missing ([^;]+)/.exec(detail);
  const extra = /(?:extra|too many|duplicate[sd]?) ([^;]+)/i.exec(detail);
  const count = /has (\d+) cards, not (\d+)/.exec(detail);
  const few = (list) => {
    const codes = list.trim().split(/\s+/);
    const names = codes.slice(0, 3).map((c) => (normalizeCode(c) ? pretty(normalizeCode(c)) : c));
    return `${names.join(", ")}${codes.length > 3 ? ` and ${codes.length - 3} more` : ""}`;
  };
  if (missing) {
    const n = missing[1].trim().split(/\s+/).length;
    const full = count ? ` (a full deal has ${count[1]} cards; this one has ${count[2]})` : "";
    return `That deal is not a whole deck: ${n} card${n === 1 ? " is" : "s are"} missing, such as ${few(missing[1])}${full}.`;
  }
  if (extra) return `That deal has cards twice or too many: ${few(extra[1])}.`;
  if (count) return `A deal of this layout has ${count[1]} cards; this one has ${count[2]}.`;
  return "That deal cannot be dealt: check its cards.";
}

/** A sentence for a player, from an ApiError (or any error). */
export function explain(e) {
  if (!(e instanceof ApiError)) return String(e?.message ?? e);
  const detail = String(e.problem.detail || "");
  switch (e.kind) {
    case "precondition-failed":
    case "conflict":
      return "This game was changed in another tab or on another device: here it is as it stands now.";
    case "illegal-move":
      return detail ? `Not allowed: ${detail.replace(/^[^:]*: /, "")}.` : "That move is not allowed.";
    case "game-over":
      return "This game is over.";
    case "move-limit":
      return "This game has reached its move limit: it can only be conceded.";
    case "rate-limited":
      return `Too many moves at once: the server asks for a pause${e.retryAfter ? ` of ${e.retryAfter} s` : ""}.`;
    case "unavailable":
      return "The server is busy: trying again in a moment.";
    case "ranked-game":
      return "No hints or analysis in a ranked game until its challenge closes or its duel ends.";
    case "duel-game-in-progress":
      return "You have a ranked duel's game to finish first.";
    case "too-many-waiting-duels":
      return `You have as many duels waiting for an opponent as you may${e.problem.limit ? ` (${e.problem.limit})` : ""}: play again once one is matched or expires.`;
    case "no-rating":
      return "You have no rating in this pool yet: play a ranked duel first.";
    case "already-entered":
      return "You have no attempt left at that challenge, or one is in progress.";
    case "challenge-closed":
      return "That challenge has closed.";
    case "challenge-not-open":
      return "That challenge has not begun yet.";
    case "challenge-full":
      return "That challenge takes no more players.";
    case "challenge-still-open":
      return "The deal can be practised once the challenge has closed.";
    case "challenge-entered":
      return "Somebody has played it, so it can no longer be deleted: close it instead.";
    case "not-challenge-creator":
      return "Only the player who set the challenge may do that.";
    case "too-many-open-challenges":
      return `You have as many open challenges as you may set${e.problem.limit ? ` (${e.problem.limit})` : ""}: close one first.`;
    case "follow-self":
      return "Your own results are on every board: there is no need to follow yourself.";
    case "following-limit":
      return "You follow as many players as you may: unfollow someone first.";
    case "player-key-required":
    case "player-key-refused":
      return "This browser's player key is not accepted: it may have been replaced on another device.";
    case "unauthorized":
    case "forbidden":
      return "This browser has no access to that game.";
    case "not-found":
      return "That game is gone (games nobody plays are deleted after a while).";
    case "payload-too-large":
      return "That is too much to send.";
    case "validation": {
      if (/deal/.test(detail) && /(missing|cards|deck)/.test(detail)) return dealText(detail);
      const option = e.problem.option ?? /^(\w+):/.exec(detail)?.[1];
      if (option === "layout") return "There is no such layout: choose one of the list.";
      if (CHALLENGE_FIELDS[option]) return `The challenge's ${CHALLENGE_FIELDS[option]} cannot be that: ${detail.replace(/^\w+: /, "")}.`;
      if (option && OPTION_NAMES[option]) return `The ${OPTION_NAMES[option]} option cannot be ${/must|not/.test(detail) ? "set that way" : "used"}: ${detail.replace(/^\w+: /, "")}.`;
      return "The server could not read that request.";
    }
    default:
      if (e.status === 0) return "No connection to the server.";
      return e.problem.title && !/^HTTP /.test(e.problem.title) ? `${e.problem.title}.` : "Something went wrong on the server.";
  }
}

/** "Chance of a win: 54–71% (64 possible deals tried)": the 95% interval the server gives
 * with its calibrated chance (what a player following the hints wins from here), never a
 * bare 0% or 100% from a handful of samples. */
function wilson(p, n) {
  const z = 1.96;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [centre - half, centre + half];
}

export function chanceText({ win_chance: p, win_chance_ci95: ci, samples: n, exact }) {
  if (typeof p !== "number") return "";
  if (exact) return p >= 1 ? "Nothing is hidden: this wins." : p <= 0 ? "Nothing is hidden: no move wins now." : `Exact chance ${Math.round(p * 100)}%.`;
  if (!n) return "No estimate of the chance this time.";
  // A server older than the calibrated chance sends no interval: Wilson's over the samples.
  const [low, high] = Array.isArray(ci) && ci.length === 2 ? ci : wilson(p, n);
  const lo = Math.max(0, Math.round(low * 100));
  const hi = Math.min(100, Math.round(high * 100));
  const tried = `${n} possible deal${n === 1 ? "" : "s"} tried`;
  if (lo === hi) return `Chance of a win: about ${lo}% (${tried}).`;
  if (lo <= 0) return `Chance of a win: under ${Math.max(hi, 1)}% (${tried}).`;
  if (hi >= 100) return `Chance of a win: over ${Math.min(lo, 99)}% (${tried}).`;
  return `Chance of a win: ${lo}–${hi}% (${tried}).`;
}

/** Say `text` (a refusal, an error) just after `anchor`, the control that was used, and
 * bring it into view: a message at the foot of a long page reads as nothing happening.
 * The one said there before goes; an empty `text` only clears. `kind`: "error", or
 * "notice" for good news. */
export function sayAt(anchor, text, kind = "error") {
  const box = anchor.closest("li, .buttons, form") ?? anchor;
  box.parentElement?.querySelectorAll(":scope > .said, :scope > li > .said").forEach((el) => el.remove());
  box.querySelectorAll(".said").forEach((el) => el.remove());
  if (!text) return;
  const said = Object.assign(document.createElement("p"), { className: `${kind} said`, textContent: text });
  said.setAttribute("role", kind === "error" ? "alert" : "status");
  if (box.tagName === "LI") box.append(said);
  else box.after(said);
  said.scrollIntoView({ block: "nearest" });
}
