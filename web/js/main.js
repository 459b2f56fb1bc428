// The reference web client: plays a game through the public /v1 API only.

import { Api, ApiError } from "./api.js";
import { card, parseDealText, pretty, whyNot } from "./cards.js";
import { Challenges, isDaily, titleOf } from "./challenges.js";
import { Duels, duelLine, summary } from "./duels.js";
import { EndPanel } from "./end.js";
import { Events, roundOf } from "./events.js";
import { chanceText, explain } from "./messages.js";
import * as motion from "./motion.js";
import { Players } from "./players.js";
import { MoveQueue } from "./queue.js";
import { Table, paintCard } from "./table.js";

const $ = (id) => document.getElementById(id);
const api = new Api(document.querySelector('meta[name="tripeaks-api"]')?.content ?? "");

const GAME_KEY = "tripeaks.game"; // {id, token, chosenDeal, winnable}: a reload resumes it
const OPTIONS_KEY = "tripeaks.options"; // the new-game panel's last choices
const ZOOM_KEY = "tripeaks.zoom";

// The documented defaults (docs/rules.md); a layout's own defaults go over them.
const BASE_RULES = {
  wrap: true,
  king_stops: false,
  open_peaks: false,
  free_start: false,
  jokers: 0,
  redeals: 0,
  undo: false,
  scoring: "classic",
  draw_penalty: 5,
  deal_cost: 0,
};
const BOOL_RULES = ["wrap", "king_stops", "open_peaks", "free_start", "undo"];
const INT_RULES = ["jokers", "redeals", "draw_penalty", "deal_cost"];
const STATUS_TEXT = { won: "Won! The table is clear", lost: "Lost: no moves left", conceded: "Conceded" };
// The new-game panel's presets: a layout and the options that differ from its defaults.
const PRESETS = {
  classic: { layout: "tripeaks" },
  relaxed: { layout: "tripeaks", undo: true, wrap: true },
  golf: { layout: "golf" },
  six_peaks: { layout: "six_peaks" },
};
const TOUCH = matchMedia("(hover: none) and (pointer: coarse)");
const SIDEWAYS = matchMedia("(orientation: landscape) and (max-height: 34rem)");
// A phone held upright (style.css docks the stock, the waste and the buttons at the
// bottom): its table's rows spread apart to take the height the width leaves.
const UPRIGHT = matchMedia("(orientation: portrait) and (max-width: 48rem)");
const UPRIGHT_STEP = 2.4; // half-widths between rows at most: a covered card shows 6/7
// px: a card at least this wide (and 1.4 times as tall) is tapped as it is; below it a
// touch screen offers bigger cards and a pan. TriPeaks' ten cards across a phone of 390
// px are 39 px: they fit, with no pan.
const MIN_TAP = 36;
const MESSAGE_LINE = 26; // px kept below the stock for the message line

let session = null; // {id, token, chosenDeal, winnable, challengeName, duel}
let game = null; // the last state the server sent
let layout = null; // its layout's geometry
let hintAvailable = null; // true, false, or null while unknown
let hinted = null; // a position, "stock", or null
let lastWasteTop = undefined;
let usingKeyboard = false; // the last input was a key: keep a card focused for the next one
const layoutCache = new Map(); // name -> promise of the geometry
const layoutData = new Map(); // name -> the geometry, once it came
let layoutList = [];

const table = new Table($("table"), (position) => tapCard(position));
const players = new Players(api, {
  onResume: (id) => resumeGame(id),
  onChallenge: (id) => challenges.show(id),
  onSetChallenge: () => challenges.openSet(),
  onEvent: (id) => events.show(id),
  onDuel: () => duels.openAsk(),
  onMyDuels: () => duels.openMine(),
  onRatingBoard: () => duels.openBoard(),
  eventName: (id) => events.get(id).then((e) => e.name),
  say,
});
const challenges = new Challenges(api, {
  players,
  begin: (created, extra) => begin(created, extra),
  resume: (id) => resumeGame(id),
  patiently: (call) => patiently(call),
  layouts: async () => {
    await loadLayoutList();
    return layoutList;
  },
  inPlay: () => !!game && game.status === "in_progress" && game.version > 0,
  say,
});
const events = new Events(api, {
  players,
  begin: (created, extra) => begin(created, extra),
  resume: (id) => resumeGame(id),
  patiently: (call) => patiently(call),
  inPlay: () => !!game && game.status === "in_progress" && game.version > 0,
  say,
});
const duels = new Duels(api, {
  players,
  begin: (created, extra) => begin(created, extra),
  resume: (id, duel) => resumeGame(id, duel),
  patiently: (call) => patiently(call),
  layouts: async () => {
    await loadLayoutList();
    return layoutList;
  },
  inPlay: () => !!game && game.status === "in_progress" && game.version > 0,
  sessionOf: () => session,
  ended: () => duelEnded(),
  say,
});
const end = new EndPanel(api, {
  again: () => newDealSameRules(),
  players,
  duels,
  duelOf: (state) => (session?.duel && session.id === state.id ? session.duel.id : null),
  eventOf: (id) => events.get(id),
  layoutOf: () => layout,
  sessionOf: () => session,
  shareLink: (args) => shareLink(args),
});

// ---------------------------------------------------------------------------- helpers

function say(text, kind = "info") {
  const el = $("message");
  el.textContent = text;
  el.className = kind;
}

async function getLayout(name) {
  if (!layoutCache.has(name)) layoutCache.set(name, api.getLayout(name));
  try {
    const data = await layoutCache.get(name);
    layoutData.set(name, data);
    return data;
  } catch (e) {
    layoutCache.delete(name);
    throw e;
  }
}

function saveSession() {
  if (session) localStorage.setItem(GAME_KEY, JSON.stringify(session));
  else localStorage.removeItem(GAME_KEY);
}

function loadSession() {
  try {
    const s = JSON.parse(localStorage.getItem(GAME_KEY) || "null");
    return s && typeof s.id === "string" && typeof s.token === "string" ? s : null;
  } catch {
    return null;
  }
}

function legal(kind) {
  return game?.legal_moves.find((m) => m.kind === kind) ?? null;
}

/** The rules a layout starts from: the documented defaults, then the layout's own. */
function defaultsFor(name) {
  const lay = layoutData.get(name);
  return { ...BASE_RULES, ...(lay?.defaults ?? {}) };
}

/** A ranked challenge game (the daily, or one set among friends) that has not closed:
 * no hints, no reveal yet. */
function rankedNow(state = game) {
  if (session?.duel && session.id === state?.id && !state.reveal) return true; // until the duel ends
  return !!state?.challenge && new Date(state.challenge.reveal_after) > new Date();
}

// ---------------------------------------------------------------------------- sizing

/** Size the table by the space it has: the board's width, and the height left on the
 * screen below its top (less the stock and waste when they are below it). */
function fitTable() {
  if (!layout) return;
  const board = $("board");
  const top = board.getBoundingClientRect().top + scrollY;
  // A line kept for the message whatever it says: a long one must not shrink the cards.
  const below = SIDEWAYS.matches ? 0 : $("piles").offsetHeight + MESSAGE_LINE;
  const height = Math.max(120, innerHeight - top - below - 12);
  const maxStep = UPRIGHT.matches ? UPRIGHT_STEP : undefined;
  // Upright, the board is that tall whatever the table's cards need: the stock, the waste
  // and the buttons below it sit at the bottom of the screen.
  if (UPRIGHT.matches) board.style.setProperty("--board-h", `${height}px`);
  else board.style.removeProperty("--board-h");
  // The pan's buttons take columns of their own beside the table (never over a card):
  // the width is measured without them, and the zoom's table is sized for what is left.
  const full = $("board").clientWidth - 6; // room for a playable card's glow at the edges
  const fitted = table.resize(full, height, { maxStep });
  const small = TOUCH.matches && 2 * fitted.u < MIN_TAP;
  // The player's choice (kept) applies where the cards would be too small to tap.
  const zoomed = small && document.body.classList.contains("zoomed");
  $("zoom").hidden = !small;
  document.body.classList.toggle("panning", zoomed);
  if (zoomed) table.resize($("table-wrap").clientWidth, height, { minU: 24, maxStep });
  else $("table-wrap").scrollLeft = 0;
  $("zoom").textContent = zoomed ? "Fit the screen" : "Bigger cards";
  $("zoom").setAttribute("aria-pressed", String(zoomed));
  updatePan();
}

function updatePan() {
  const wrap = $("table-wrap");
  const zoomed = document.body.classList.contains("panning");
  // Shown throughout a zoom (a column each), and disabled at their end: a button that
  // came and went would move the table under the finger.
  $("pan-left").hidden = $("pan-right").hidden = !zoomed;
  $("pan-left").disabled = wrap.scrollLeft <= 1;
  $("pan-right").disabled = wrap.scrollLeft + wrap.clientWidth >= wrap.scrollWidth - 1;
}

function pan(direction) {
  const wrap = $("table-wrap");
  wrap.scrollBy({ left: direction * wrap.clientWidth * 0.6, behavior: motion.motionOn() ? "smooth" : "auto" });
}

function toggleZoom() {
  const on = !document.body.classList.contains("zoomed");
  document.body.classList.toggle("zoomed", on);
  localStorage.setItem(ZOOM_KEY, on ? "1" : "0");
  fitTable();
}

// ---------------------------------------------------------------------------- drawing

function render() {
  if (!game || !layout) return;
  table.setLayout(layout);
  table.update(game, typeof hinted === "number" ? hinted : null);
  const over = game.status !== "in_progress";
  document.body.classList.toggle("game-over", over);
  document.body.dataset.status = game.status;
  document.body.dataset.version = String(game.version);

  // The header names the layout once; the line beside it says which deal.
  $("game-title").textContent = layout.title || layout.name;
  $("game-sub").textContent = dealName();
  const duel = session?.duel && session.id === game.id ? session.duel : null;
  $("duel-line").hidden = !duel;
  $("duel-line").textContent = duel ? duelLine(duel) : "";
  document.title = `${layout.title || layout.name} · TriPeaks`;

  // Score, streak, cards left, status: one live region.
  const s = game.score;
  if (s.scheme === "cards_left") {
    $("score-label").textContent = "Cards left score";
    $("score").textContent = String(s.cards_left);
  } else {
    $("score-label").textContent = s.scheme === "msc" ? "Score (MSC)" : "Score";
    $("score").textContent = String(s.total);
  }
  $("streak").textContent = String(s.current_streak);
  const next = s.scheme === "classic" ? s.current_streak + 1 : s.scheme === "msc" ? 100 + 200 * s.current_streak : null;
  $("next-points").textContent = next != null && !over ? `(next +${next})` : "";
  $("cards-left").textContent = String(game.cards_left);
  $("status").textContent = statusText();

  // Stock: a back with its count; a redeal when the stock is out and one is allowed.
  const stock = $("stock");
  const redeal = legal("redeal");
  stock.classList.toggle("back", game.stock_count > 0);
  stock.classList.toggle("empty", game.stock_count === 0 && !redeal);
  stock.classList.toggle("redeal", game.stock_count === 0 && !!redeal);
  stock.classList.toggle("playable", !!legal("draw") || !!redeal);
  stock.classList.toggle("hinted", hinted === "stock");
  stock.disabled = over;
  $("stock-count").textContent =
    game.stock_count > 0 ? String(game.stock_count) : redeal ? `↻ ${game.redeals_left}` : "0";
  stock.dataset.count = String(game.stock_count);
  stock.setAttribute(
    "aria-label",
    game.stock_count > 0
      ? `Stock, ${game.stock_count} cards: draw one`
      : redeal
        ? `Stock empty: redeal the waste (${game.redeals_left} left)`
        : "Stock empty",
  );

  // Waste: its top card, with the two before it fanned underneath.
  const waste = $("waste");
  const shown = game.waste.slice(-3);
  waste.replaceChildren(
    ...shown.map((code, i) => {
      const el = document.createElement("div");
      el.className = "card";
      paintCard(el, code);
      el.style.setProperty("--i", String(shown.length - 1 - i));
      return el;
    }),
  );
  if (!shown.length) waste.append(Object.assign(document.createElement("div"), { className: "card empty" }));
  if (game.waste_top !== lastWasteTop && lastWasteTop !== undefined && motion.motionOn()) waste.lastElementChild?.classList.add("arrived");
  lastWasteTop = game.waste_top;
  waste.dataset.top = game.waste_top ?? "";
  waste.setAttribute("aria-label", game.waste_top ? `Waste: ${card(game.waste_top).name} on top` : "Waste: empty");

  // Controls: undo only where the rules allow it; no hints in a ranked challenge.
  const hintsOff = hintAvailable === false || rankedNow();
  $("undo").hidden = !game.rules.undo;
  $("undo-key").hidden = !game.rules.undo;
  $("undo").disabled = !game.can_undo || over;
  $("hint").hidden = hintsOff;
  $("hint-key").hidden = hintsOff;
  $("hint").disabled = over;
  $("concede").hidden = over;
  $("show-end").hidden = !over || $("end").open;

  renderPending();
  renderFairness();
  fitTable();
}

function dealName() {
  const ranked = rankedNow() ? " · ranked" : "";
  if (session?.duel && session.id === game.id) return `Ranked duel${ranked}`;
  const round = roundOf(game.challenge?.id ?? game.practice?.challenge_id);
  if (round) return `${game.challenge ? "Event" : "Practice"} · ${session?.challengeName ?? "an event"} · round ${round.round}${ranked}`;
  if (game.challenge && isDaily(game.challenge.id)) return `Daily challenge · ${game.challenge.id.slice(0, 10)}${ranked}`;
  if (game.challenge) return `Challenge · ${session?.challengeName ?? "with friends"}${ranked}`;
  if (game.practice) return `Practice · ${session?.challengeName ?? "a closed challenge"}`;
  if (game.deal_number != null) return `Deal #${game.deal_number}`;
  if (session?.chosenDeal) return "Your deal";
  return session?.winnable ? "Random winnable deal" : "Random deal";
}

function statusText() {
  if (game.status !== "in_progress") return STATUS_TEXT[game.status] ?? game.status;
  if (queue.busy) return "Playing…";
  if (legal("play")) return "Your move";
  if (legal("draw")) return "No card fits: draw";
  if (legal("redeal")) return "Stock empty: redeal";
  return "Your move";
}

/** Taps waiting their turn: the card lifted, the stock with a count. */
function renderPending() {
  const waiting = queue.pending;
  const cards = new Set(waiting.filter((i) => i.kind === "play").map((i) => i.position));
  for (const b of table.buttons) b.classList.toggle("pending", cards.has(Number(b.dataset.position)));
  const draws = waiting.filter((i) => i.kind === "draw").length;
  if (draws) $("stock").dataset.pending = String(draws);
  else delete $("stock").dataset.pending;
  document.body.classList.toggle("busy", queue.busy);
  document.body.dataset.queued = String(waiting.length);
}

function renderFairness() {
  $("deal-info").textContent = dealName();
  $("commitment").textContent = game.commitment.slice(0, 16) + "…";
  $("commitment").dataset.full = game.commitment;
  $("commitment").title = `SHA-256 of the deal and a secret salt, published before the first move: ${game.commitment}`;
  const link = $("share-link");
  if (game.deal_number != null) {
    link.href = shareLink({ deal_number: game.deal_number });
    link.hidden = false;
  } else if (game.reveal) {
    link.href = shareLink({ deal: game.reveal.deal });
    link.hidden = false;
  } else {
    link.hidden = true;
  }
}

/** A link that starts this game's rules on a given deal (for puzzles and bug reports). */
function shareLink({ deal_number, deal }) {
  const params = new URLSearchParams();
  params.set("layout", game.layout);
  const defaults = defaultsFor(game.layout);
  for (const key of Object.keys(BASE_RULES)) {
    const value = game.rules[key];
    if (value !== defaults[key]) params.set(key, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
  }
  if (deal_number != null) params.set("deal_number", String(deal_number));
  const query = params.toString() + (deal ? `&deal=${deal.join("-")}` : "");
  return `${location.pathname}?${query}`;
}

// ---------------------------------------------------------------------------- playing

const queue = new MoveQueue({
  resolve: (intent) => plan(intent),
  onState: (state, intent) => show(state, intent),
  onRefuse: (intent, reason) => refuse(intent, reason),
  onWait: (e, intent, wait) => say(`${explain(e)} Your move will be sent ${e.status === 0 ? "when the server answers" : `in ${Math.ceil(wait / 1000)} s`}.`, "error"),
  onError: (e, intent) => failed(e, intent),
  onChange: () => {
    renderPending();
    if (game) $("status").textContent = statusText();
  },
});

/** What a tap means now, against the latest state: a request to send, or a refusal. */
function plan(intent) {
  if (!game || !session || intent.gameId !== game.id) return { refuse: null };
  if (game.status !== "in_progress") return { refuse: intent.kind === "concede" ? null : "the game is over" };
  const version = game.version;
  const id = game.id;
  const token = session.token;
  const post = (move) => ({ move, send: (key) => api.move(id, token, move, version, key) });
  if (intent.kind === "play") {
    const slot = game.tableau[intent.position];
    // A card tapped while face down is never played, whatever it turned out to be.
    if (intent.seen == null) return { refuse: whyNot(game, layout, intent.position) ?? "that card was face down when you tapped it" };
    if (!slot || slot.removed) return { refuse: null }; // tapped twice: it is already played
    const move = game.legal_moves.find((m) => m.kind === "play" && m.position === intent.position);
    if (!move) return { refuse: whyNot(game, layout, intent.position) ?? "that card cannot be played now" };
    return post(move);
  }
  if (intent.kind === "draw") {
    const move = legal("draw") ?? legal("redeal");
    if (!move) return { refuse: game.stock_count === 0 ? "the stock is empty" : "you cannot draw now" };
    return post(move);
  }
  if (intent.kind === "undo") {
    const move = legal("undo");
    if (!move) return { refuse: game.rules.undo ? "nothing to undo" : "this game does not allow undo" };
    return post(move);
  }
  if (intent.kind === "concede") {
    return { send: (key) => api.concede(id, token, version, key) };
  }
  return { refuse: null };
}

function refuse(intent, reason) {
  if (reason == null) return;
  say(reason, "refusal");
  if (intent.kind === "play") shake(table.buttons[intent.position]);
  else if (intent.kind === "draw") shake($("stock"));
}

async function failed(e, intent) {
  if (e instanceof ApiError && [409, 412].includes(e.status)) {
    // The game moved on elsewhere (another tab, another device): taps aimed at the old
    // table are not played on the new one.
    const dropped = queue.clear();
    await refresh();
    say(`${explain(e)}${dropped ? ` Your ${dropped} waiting tap${dropped === 1 ? " was" : "s were"} not played.` : ""}`, "error");
    return;
  }
  say(explain(e), "error");
  if (intent.kind === "play") shake(table.buttons[intent.position]);
}

/** A new state from the server; `intent`, when it answers a tap, animates that tap. */
function show(next, intent = null) {
  const prev = game && next.id === game.id ? game : null;
  if (prev && next.version !== prev.version) hinted = null;
  if (prev && next.version < prev.version) return; // an older answer than the one shown
  const from = intent?.kind === "play" ? table.buttons[intent.position]?.getBoundingClientRect() : null;
  game = next;
  render();
  if (prev && intent) animate(prev, next, intent, from);
  if (intent?.kind === "draw" && next.waste_top && !queue.busy) {
    const mv = intent.sent?.move;
    say(mv?.kind === "redeal" ? "the waste was turned over into a new stock" : `drew ${pretty(next.waste_top)}`);
  } else if (intent?.kind === "undo") {
    say("move taken back");
  }
  if (prev && prev.status === "in_progress" && next.status !== "in_progress") finish();
}

function animate(prev, next, intent, from) {
  if (intent.kind === "play" && from) {
    // The last card of a win flies slower, bigger, and glows: the moment the deal is beaten.
    const last = next.status === "won";
    motion.fly(prev.tableau[intent.position].card, from, $("waste").lastElementChild, { last });
    const gained = next.score.streak_points - prev.score.streak_points;
    const bonus = next.score.bonus_points - prev.score.bonus_points;
    if (next.score.scheme !== "cards_left" && gained > 0) motion.points(from, `+${gained}`);
    if (next.score.scheme !== "cards_left" && bonus > 0) motion.points(from, `+${bonus} peak!`, true);
  }
  const turned = next.tableau
    .filter((s) => s.face_up && !s.removed && prev.tableau[s.position] && !prev.tableau[s.position].face_up)
    .map((s) => table.buttons[s.position]);
  motion.flip(turned);
}

async function finish() {
  if (game.status === "won") {
    say(`The table is clear: ${game.score.scheme === "cards_left" ? "every card played" : `${game.score.total} points`}!`, "win");
    await motion.celebrate();
  }
  else motion.lament($("stock"));
  if (game.status !== "in_progress") end.open(game);
  render();
}

async function refresh({ fresh = false } = {}) {
  if (!session) return;
  try {
    const state = await api.getGame(session.id, session.token, { fresh });
    if (!layout || layout.name !== state.layout) layout = await getLayout(state.layout);
    show(state); // and the end, if the game ended elsewhere
  } catch (e) {
    say(explain(e), "error");
  }
}

function shake(el) {
  if (!el) return;
  el.classList.remove("refused");
  void el.offsetWidth; // restart the animation
  el.classList.add("refused");
}

function tapCard(position) {
  if (!game) return;
  const slot = game.tableau[position];
  if (!slot || slot.removed) return;
  if (game.status !== "in_progress") return say("the game is over", "refusal");
  if (!queue.busy) {
    // Nothing on its way: the table on screen is the game's, so say why not at once.
    const reason = whyNot(game, layout, position);
    if (reason) {
      say(reason, "refusal");
      shake(table.buttons[position]);
      return;
    }
    say("");
  }
  queue.push({ kind: "play", position, seen: slot.face_up ? slot.card : null, gameId: game.id });
}

function draw() {
  if (!game) return;
  if (game.status !== "in_progress") return say("the game is over", "refusal");
  if (!queue.busy && !legal("draw") && !legal("redeal")) {
    shake($("stock"));
    return say(game.stock_count === 0 ? "the stock is empty" : "you cannot draw now", "refusal");
  }
  queue.push({ kind: "draw", gameId: game.id });
}

function undo() {
  if (!game || game.status !== "in_progress") return;
  if (!game.rules.undo) return say("this game does not allow undo", "refusal");
  queue.push({ kind: "undo", gameId: game.id });
}

let concedeArmed = null;

function concede() {
  if (!game || game.status !== "in_progress") return;
  const button = $("concede");
  if (!concedeArmed) {
    button.textContent = "Sure? Concede";
    button.classList.add("armed");
    concedeArmed = setTimeout(disarmConcede, 4000);
    return;
  }
  disarmConcede();
  queue.push({ kind: "concede", gameId: game.id });
}

function disarmConcede() {
  clearTimeout(concedeArmed);
  concedeArmed = null;
  $("concede").textContent = "Concede";
  $("concede").classList.remove("armed");
}

let hintAsked = false;

async function hint() {
  if (!game || hintAsked || game.status !== "in_progress" || hintAvailable === false) return;
  if (rankedNow()) return say("No hints in a ranked challenge game.", "refusal");
  hintAsked = true;
  const asked = game.version;
  say("thinking…");
  try {
    const answer = await api.hint(session.id, session.token);
    hintAvailable = true;
    if (game.version === asked && answer.version === asked) showHint(answer);
    else say("");
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && game) {
      // The game is there, so it is the endpoint that is not: this server has no hints.
      hintAvailable = false;
      say("this server gives no hints");
    } else {
      say(explain(e), "error");
    }
  } finally {
    hintAsked = false;
    render();
  }
}

/** Show a hint: the suggested move on the table, and its chance said as honestly as its
 * samples allow: exact when nothing was hidden, else a 95% range over the samples. */
function showHint(answer) {
  const m = answer.move;
  let text;
  hinted = null;
  if (m?.kind === "play") {
    hinted = m.position;
    text = `play ${m.card ? pretty(m.card) : `position ${m.position}`}`;
  } else if (m?.kind === "draw" || m?.kind === "redeal") {
    hinted = "stock";
    text = m.kind === "draw" ? "draw a card" : "redeal the waste";
  } else {
    text = m?.move ?? "no suggestion";
  }
  say(`Hint: ${text}. ${chanceText(answer)}`, "hint");
  render();
}

// ---------------------------------------------------------------------------- new games

/** Show a freshly created (or resumed) game: its layout, a clean slate. */
async function begin(created, extra = {}) {
  layout = await getLayout(created.layout);
  const { token, ...state } = created;
  session = { id: created.id, token: extra.token ?? token, chosenDeal: extra.chosenDeal ?? null, winnable: !!extra.winnable, challengeName: extra.challengeName ?? null, duel: extra.duel ?? null };
  saveSession();
  nameChallenge(state);
  queue.clear();
  game = null;
  hinted = null;
  lastWasteTop = undefined;
  disarmConcede();
  end.close();
  show(state);
  say("");
  if (state.status !== "in_progress") end.open(state);
  if (usingKeyboard) table.focusFirst();
}

/** A game of a challenge set among friends or of an event's round (an attempt, or a
 * practice) is named by its challenge or event: asked for when the game was opened without
 * its name (from the games list). */
function nameChallenge(state) {
  const id = state.challenge?.id ?? state.practice?.challenge_id;
  if (!id || session.challengeName || session.duel || (state.challenge && isDaily(id))) return;
  const round = roundOf(id);
  // A duel's deal is held by a challenge nobody else may read: the player's duels say
  // whether this is one.
  const duel = round || !state.challenge ? Promise.resolve(null) : duels.find(state);
  duel.then((d) => {
    if (!d || session?.id !== state.id) return d;
    session.duel = summary(d);
    saveSession();
    render();
    if ($("end").open) end.open(game);
    return d;
  }).then((d) => (d ? Promise.reject(null) : round ? events.get(round.event) : api.getChallenge(id))).then(
    (c) => {
      if (session?.id !== state.id) return;
      session.challengeName = titleOf(c);
      saveSession();
      render();
    },
    () => {},
  );
}

/** Ask again while the server says it is busy (503: nothing was made; 429: nothing was
 * counted), as long as it says when, a few times. */
async function patiently(call) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof ApiError && [429, 503].includes(e.status) && attempt < 12)) throw e;
      say(`${explain(e)} Trying again…`, "error");
      await new Promise((resolve) => setTimeout(resolve, (e.retryAfter ?? 1) * 1000));
    }
  }
}

async function startGame(request, chosenDeal = null) {
  const key = await players.ensure();
  let created;
  try {
    created = await patiently(() => api.createGame(request, key));
  } catch (e) {
    if (!(key && e instanceof ApiError && (e.status === 401 || e.status === 403))) throw e;
    players.forget(); // a key this server does not know: play without one
    created = await patiently(() => api.createGame(request));
  }
  await begin(created, { chosenDeal, winnable: !!request.winnable_only });
}

async function startDaily(layoutName = "tripeaks") {
  const key = await players.ensure();
  if (!key) throw new Error("The daily challenge needs a player, and the server would not make one.");
  const challenge = await patiently(() => api.getDailyChallenge(layoutName));
  try {
    const created = await patiently(() => api.startChallengeGame(challenge.id, key));
    await begin(created);
  } catch (e) {
    if (e instanceof ApiError && e.kind === "already-entered" && e.problem.game_id) {
      await resumeGame(e.problem.game_id);
      say("You have played today's challenge: here is your game.");
      return;
    }
    throw e;
  }
}

/** Open one of the player's games (the key opens every game of theirs). */
async function resumeGame(id, duel = null) {
  const key = players.key;
  const state = await api.getGame(id, key);
  await begin(state, { token: key, duel: duel ? summary(duel) : null });
}

/** A duel's game in play: whom it is against now (a waiting duel may have been matched
 * while the player was away), for the line over the table. */
async function duelMatched(gameId) {
  try {
    const d = await api.getDuel(session.duel.id, players.key);
    if (session?.id !== gameId || !session.duel) return;
    session.duel = summary(d, session.duel.with_bots);
    saveSession();
    render();
  } catch {
    /* the line stays as it was */
  }
}

/** The duel on the end panel was decided: its game's deal is revealed now, so the game is
 * read again (the panel checks the deal and shows the analysis). */
async function duelEnded() {
  saveSession();
  if (game?.reveal) return render();
  await refresh({ fresh: true });
  if ($("end").open && game) end.open(game);
}

function newDealSameRules() {
  if (session?.duel) {
    const { layout: l, preset, with_bots } = session.duel;
    say("Finding your duel…");
    return duels.play({ layout: l, preset, with_bots: !!with_bots }, $("again"));
  }
  const rules = { ...game.rules };
  delete rules.layout;
  const request = { layout: game.layout, rules };
  if (session?.winnable) request.winnable_only = true;
  const round = roundOf(game.challenge?.id);
  if (round) return events.show(round.event);
  if (game.challenge) return isDaily(game.challenge.id) ? openPanel() : challenges.show(game.challenge.id);
  // A winnable deal is a solver search: it waits for the analysis of the game just ended,
  // the player's search in flight (one at a time), instead of being refused for it.
  const ready = request.winnable_only ? end.settled() : Promise.resolve();
  if (request.winnable_only) say("Finding a winnable deal…");
  return ready.then(() => startGame(request)).catch((e) => say(explain(e), "error"));
}

/** A create_game request from form-like values (the panel, or the page's URL). */
function requestFrom(values) {
  const name = values.layout || "tripeaks";
  const defaults = defaultsFor(name);
  const rules = {};
  for (const key of BOOL_RULES) {
    if (values[key] != null && values[key] !== "") {
      const v = ["1", "true", "on", "yes", true].includes(values[key]);
      if (v !== defaults[key]) rules[key] = v;
    }
  }
  for (const key of INT_RULES) {
    if (values[key] != null && values[key] !== "") {
      const v = Number(values[key]);
      if (!Number.isInteger(v)) throw new Error(`${key.replace("_", " ")} must be a whole number`);
      if (v !== defaults[key]) rules[key] = v;
    }
  }
  if (values.scoring && values.scoring !== defaults.scoring) rules.scoring = values.scoring;
  const request = { layout: name };
  if (Object.keys(rules).length) request.rules = rules;
  let chosenDeal = null;
  if (values.dealkind === "number" || (values.dealkind == null && values.deal_number)) {
    const n = Number(values.deal_number);
    if (values.deal_number === "" || values.deal_number == null || !Number.isSafeInteger(n) || n < 0) {
      throw new Error("Give a deal number (0 or more).");
    }
    request.deal_number = n;
  } else if (values.dealkind === "cards" || (values.dealkind == null && values.deal)) {
    const { codes, bad } = parseDealText(String(values.deal ?? "").replace(/[-.]/g, " "));
    if (bad.length) throw new Error(`These are not cards: ${bad.slice(0, 5).join(" ")}${bad.length > 5 ? " …" : ""}`);
    if (!codes.length) throw new Error("Type the deal's cards, e.g. 8s Jh 9c …");
    request.deal = codes;
    chosenDeal = codes;
  } else if (values.dealkind === "winnable" || values.winnable_only === "1") {
    request.winnable_only = true;
  }
  return { request, chosenDeal };
}

// The panel.
const dialog = $("new-game");
const form = $("new-game-form");

function fillForm(values) {
  const name = values.layout ?? "tripeaks";
  form.elements.layout.value = name;
  const rules = { ...defaultsFor(name), ...values };
  for (const key of BOOL_RULES) form.elements[key].checked = rules[key] === true || rules[key] === "1";
  for (const key of INT_RULES) form.elements[key].value = String(rules[key]);
  form.elements.scoring.value = rules.scoring;
  if (values.dealkind) form.elements.dealkind.value = values.dealkind;
  describeLayout();
}

/** The preset whose options these are, or "custom". */
function presetOf(values) {
  for (const [name, preset] of Object.entries(PRESETS)) {
    if ((values.layout ?? "tripeaks") !== preset.layout) continue;
    const want = { ...defaultsFor(preset.layout), ...preset };
    const same = [...BOOL_RULES, ...INT_RULES, "scoring"].every((k) => {
      const v = values[k];
      const have = BOOL_RULES.includes(k) ? v === true || v === "1" : INT_RULES.includes(k) ? Number(v) : v;
      return have === want[k];
    });
    if (same) return name;
  }
  return "custom";
}

function choosePreset(name) {
  form.elements.preset.value = name;
  $("custom-preset").hidden = name !== "custom";
  $("ng-daily").hidden = name !== "daily";
  if (PRESETS[name]) fillForm({ ...PRESETS[name], dealkind: form.elements.dealkind.value === "cards" || form.elements.dealkind.value === "number" ? "random" : form.elements.dealkind.value });
  if (name === "daily") describeDaily();
  warnAbandon();
}

async function describeDaily() {
  const el = $("ng-daily");
  el.textContent = "Today's challenge: one deal for everyone, proved winnable. One ranked try a player; no hints, no undo.";
  try {
    const c = await api.getDailyChallenge("tripeaks");
    el.textContent = `Today's challenge (${c.date}): one deal for everyone, proved winnable; ${c.entries} player${c.entries === 1 ? " has" : "s have"} played it. One ranked try a player; no hints, no undo; the deal is shown when the day is over.`;
    const note = await players.provisional(c.opens_at, true);
    if (note) el.textContent += ` ${note}`;
  } catch {
    /* the description stays general */
  }
}

function describeLayout() {
  const lay = layoutList.find((l) => l.name === form.elements.layout.value);
  $("ng-layout-desc").textContent = lay ? `${lay.description} (${lay.cards} cards, ${lay.decks} deck${lay.decks > 1 ? "s" : ""})` : "";
}

function warnAbandon() {
  const inPlay = game && game.status === "in_progress" && game.version > 0;
  const warning = $("ng-warning");
  warning.hidden = !inPlay;
  if (inPlay) {
    const score = game.score.scheme === "cards_left" ? `${game.cards_left} cards left` : `score ${game.score.total}`;
    warning.textContent = `Your game in progress (${score}) will be left unfinished.${players.key ? " It stays in your games, to finish later." : ""}`;
  }
  $("ng-start").textContent = inPlay ? "Leave it and deal" : "Deal";
}

function formValues() {
  const values = { layout: form.elements.layout.value, dealkind: form.elements.dealkind.value };
  for (const key of BOOL_RULES) values[key] = form.elements[key].checked ? "1" : "0";
  for (const key of INT_RULES) values[key] = form.elements[key].value;
  values.scoring = form.elements.scoring.value;
  values.deal_number = form.elements.deal_number.value;
  values.deal = form.elements.deal.value;
  return values;
}

async function openPanel(values = null) {
  if (dialog.open) return;
  $("ng-error").textContent = "";
  await loadLayoutList();
  const saved = JSON.parse(localStorage.getItem(OPTIONS_KEY) || "null");
  const start = values ?? (game ? { ...game.rules, layout: game.layout } : saved ?? { layout: "tripeaks" });
  fillForm(start);
  const preset = values ? "custom" : game?.challenge ? "daily" : presetOf(start);
  choosePreset(preset);
  if (preset === "custom") $("ng-more").open = true;
  dialog.showModal();
  form.querySelector('input[name="preset"]:checked')?.focus();
}

async function loadLayoutList() {
  if (layoutList.length) return;
  try {
    layoutList = (await api.listLayouts()).layouts;
    await Promise.all(layoutList.map((l) => getLayout(l.name)));
  } catch (e) {
    $("ng-error").textContent = explain(e);
    layoutList = [{ name: "tripeaks", title: "TriPeaks", description: "", cards: 28, decks: 1 }];
  }
  form.elements.layout.replaceChildren(
    ...layoutList.map((l) => Object.assign(document.createElement("option"), { value: l.name, textContent: l.title })),
  );
}

for (const radio of form.elements.preset) radio.addEventListener("change", () => choosePreset(radio.value));
form.elements.layout.addEventListener("change", () => {
  // A new layout starts from its own defaults (golf: no wrap, cards-left scoring).
  fillForm({ layout: form.elements.layout.value });
  choosePreset(presetOf(formValues()));
});
for (const key of [...BOOL_RULES, ...INT_RULES, "scoring"]) {
  form.elements[key].addEventListener("change", () => {
    const p = presetOf(formValues());
    form.elements.preset.value = p;
    $("custom-preset").hidden = p !== "custom";
    $("ng-daily").hidden = true;
  });
}
form.elements.king_stops.addEventListener("change", () => {
  if (form.elements.king_stops.checked) form.elements.wrap.checked = false; // the rule needs it
});
form.elements.wrap.addEventListener("change", () => {
  if (form.elements.wrap.checked) form.elements.king_stops.checked = false;
});
form.elements.deal_number.addEventListener("input", () => (form.elements.dealkind.value = "number"));
form.elements.deal.addEventListener("input", () => (form.elements.dealkind.value = "cards"));
$("ng-cancel").addEventListener("click", () => dialog.close());
$("ng-challenge").addEventListener("click", () => {
  dialog.close();
  challenges.openSet();
});
$("ng-events").addEventListener("click", () => {
  dialog.close();
  events.openList();
});
$("ng-duel").addEventListener("click", () => {
  dialog.close();
  duels.openAsk();
});
// Closed with no game on the table (a bad link, then Cancel): never leave a dead page.
dialog.addEventListener("close", () => {
  if (!game) startAnyGame();
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const values = formValues();
  const start = $("ng-start");
  const label = start.textContent;
  try {
    start.disabled = true;
    if (form.elements.preset.value === "daily") {
      start.textContent = "Opening today's challenge…";
      await startDaily();
    } else {
      const { request, chosenDeal } = requestFrom(values);
      start.textContent = values.dealkind === "winnable" ? "Finding a winnable deal…" : "Dealing…";
      await startGame(request, chosenDeal);
      const { deal: _d, deal_number: _n, ...keep } = values;
      localStorage.setItem(OPTIONS_KEY, JSON.stringify({ ...keep, dealkind: keep.dealkind === "winnable" ? "winnable" : "random" }));
    }
    dialog.close();
    if (usingKeyboard) table.focusFirst();
  } catch (e) {
    $("ng-error").textContent = explain(e);
  } finally {
    start.disabled = false;
    start.textContent = label;
  }
});

// ---------------------------------------------------------------------------- wiring

$("stock").addEventListener("click", () => draw());
$("undo").addEventListener("click", () => undo());
$("hint").addEventListener("click", () => hint());
$("concede").addEventListener("click", () => concede());
$("show-end").addEventListener("click", () => end.open(game));
$("new-game-button").addEventListener("click", () => openPanel());
$("player-button").addEventListener("click", () => players.open());
$("zoom").addEventListener("click", () => toggleZoom());
$("pan-left").addEventListener("click", () => pan(-1));
$("pan-right").addEventListener("click", () => pan(1));
$("table-wrap").addEventListener("scroll", () => updatePan(), { passive: true });
$("end").addEventListener("close", () => render());
// A challenge's or an event's page closed: the address no longer names it, and the table
// has a game.
$("duel").addEventListener("close", () => {
  if (!game) startAnyGame();
});
for (const [id, param] of [["challenge", "challenge"], ["events", "event"]]) {
  $(id).addEventListener("close", () => {
    if (new URLSearchParams(location.search).has(param)) history.replaceState(null, "", location.pathname);
    if (!game) startAnyGame();
  });
}
$("commitment").addEventListener("click", () => {
  const el = $("commitment");
  el.textContent = el.textContent.endsWith("…") ? el.dataset.full : el.dataset.full.slice(0, 16) + "…";
});
new ResizeObserver(() => fitTable()).observe(document.body);
addEventListener("resize", () => fitTable());
// A tab that comes back shows the game as it is now (another device may have moved).
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && session && !queue.busy) {
    refresh();
    players.refresh();
    if (session.duel && ["waiting", "matched"].includes(session.duel.status)) duelMatched(session.id);
  }
});

document.addEventListener("pointerdown", () => (usingKeyboard = false), true);
document.addEventListener("keydown", (e) => {
  usingKeyboard = true;
  if (document.querySelector("dialog[open]") || e.ctrlKey || e.metaKey || e.altKey) return;
  const target = e.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return;
  const key = e.key.toLowerCase();
  if (key === "d") draw();
  else if (key === "u") undo();
  else if (key === "h" && !$("hint").hidden) hint();
  else if (key === "n") openPanel();
  else if (key.startsWith("arrow") && !table.buttons.includes(target)) {
    e.preventDefault();
    table.focusFirst();
  } else return;
  if (key.length === 1) e.preventDefault();
});

// ---------------------------------------------------------------------------- start

const GAME_PARAMS = ["layout", "deal", "deal_number", "winnable_only", ...BOOL_RULES, ...INT_RULES, "scoring"];

/** Show the saved game if it is still there (and open the end panel over it when
 * `endPanel` and it is over); false when there is none to show. */
async function resumeSaved({ endPanel = true } = {}) {
  session = loadSession();
  if (!session) return false;
  try {
    const state = await api.getGame(session.id, session.token);
    layout = await getLayout(state.layout);
    show(state);
    if (state.status === "in_progress") say("Welcome back: your game goes on.");
    else if (endPanel) end.open(state);
    return true;
  } catch (e) {
    if (!(e instanceof ApiError) || ![401, 403, 404].includes(e.status)) {
      say(`Could not load your game. ${explain(e)}`, "error");
      $("status").textContent = "Not loaded";
      return true;
    }
    session = null; // gone (or from another server): start afresh
    saveSession();
    return false;
  }
}

/** The saved game if it is still there, else a new deal with the options last used. */
async function startAnyGame() {
  if (await resumeSaved()) return;
  try {
    const saved = JSON.parse(localStorage.getItem(OPTIONS_KEY) || "null");
    if (saved?.layout) await getLayout(saved.layout).catch(() => null);
    const { request } = saved ? requestFrom({ ...saved, dealkind: saved.dealkind ?? "random" }) : { request: {} };
    await startGame(request);
  } catch (e) {
    say(`Could not start a game. ${explain(e)}`, "error");
    $("status").textContent = "No game";
  }
}

async function main() {
  if (localStorage.getItem(ZOOM_KEY) === "1") document.body.classList.add("zoomed");
  api.hasHint().then((has) => {
    if (has !== null) hintAvailable = has;
    if (game) render();
  });
  await players.ensure();
  const params = new URLSearchParams(location.search);
  if (params.has("challenge") || params.has("event")) {
    // A link to a challenge or an event: its page, over the saved game (if any: none is
    // dealt). The address keeps naming it while its page is open.
    const which = params.has("challenge") ? "challenge" : "events";
    await (which === "challenge" ? challenges.show(params.get("challenge")) : events.show(params.get("event")));
    if (await resumeSaved({ endPanel: false })) return;
    if ($(which).open) $("status").textContent = "No game yet";
    else await startAnyGame();
    return;
  }
  const fromUrl = GAME_PARAMS.some((p) => params.has(p));
  if (fromUrl) {
    // A link to a game (a puzzle, a bug report): deal it, then drop the query so that a
    // reload resumes this game instead of dealing again.
    const values = Object.fromEntries(GAME_PARAMS.filter((p) => params.has(p)).map((p) => [p, params.get(p)]));
    history.replaceState(null, "", location.pathname);
    try {
      await loadLayoutList();
      if (values.layout && !layoutList.some((l) => l.name === values.layout)) {
        throw new Error(`There is no layout called “${values.layout.slice(0, 40)}”: choose one of the list.`);
      }
      const { request, chosenDeal } = requestFrom(values);
      await startGame(request, chosenDeal);
      return;
    } catch (e) {
      say(`Could not start that game. ${explain(e)}`, "error");
      $("status").textContent = "No game yet";
      const known = layoutData.has(values.layout) ? values : { ...values, layout: "tripeaks" };
      await openPanel(known);
      if (values.deal) {
        form.elements.dealkind.value = "cards";
        form.elements.deal.value = values.deal.replace(/-/g, " ");
      } else if (values.deal_number) {
        form.elements.dealkind.value = "number";
        form.elements.deal_number.value = values.deal_number;
      }
      $("ng-error").textContent = explain(e);
      return;
    }
  }
  await startAnyGame();
}

main();
