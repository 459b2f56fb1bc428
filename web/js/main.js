// The reference web client: plays a game through the public /v1 API only.

import { Api, ApiError } from "./api.js";
import { card, parseDealText, pretty, whyNot } from "./cards.js";
import { Table, paintCard } from "./table.js";
import { verifyReveal } from "./verify.js";

const $ = (id) => document.getElementById(id);
const api = new Api(document.querySelector('meta[name="tripeaks-api"]')?.content ?? "");

const GAME_KEY = "tripeaks.game"; // {id, token, chosenDeal}: a reload resumes the game
const OPTIONS_KEY = "tripeaks.options"; // the new-game panel's last choices

// The documented defaults (docs and RULES.md); a layout's own defaults go over them.
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

let session = null; // {id, token, chosenDeal}
let game = null; // the last state the server sent
let layout = null; // its layout's geometry
let busy = false;
let hintAvailable = null; // true, false, or null while unknown
let hinted = null; // a position, "stock", or null
let lastWasteTop = undefined;
let usingKeyboard = false; // the last input was a key: keep a card focused for the next one
const layoutCache = new Map(); // name -> promise of the geometry
const layoutData = new Map(); // name -> the geometry, once it came
let layoutList = [];

const table = new Table($("table"), (position) => play(position));

// ---------------------------------------------------------------------------- helpers

function say(text, kind = "info") {
  const el = $("message");
  el.textContent = text;
  el.className = kind;
}

function problemText(e) {
  if (e instanceof ApiError) return e.problem.detail || e.problem.title || e.message;
  return String(e?.message ?? e);
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

// ---------------------------------------------------------------------------- drawing

function render() {
  if (!game || !layout) return;
  table.setLayout(layout);
  table.update(game, typeof hinted === "number" ? hinted : null);
  const over = game.status !== "in_progress";
  document.body.classList.toggle("game-over", over);
  document.body.dataset.status = game.status;
  document.body.dataset.version = String(game.version);

  const title = layout.title || layout.name;
  const deal = game.deal_number != null ? ` · deal #${game.deal_number}` : session?.chosenDeal ? " · your deal" : "";
  $("game-title").textContent = `${title}${deal}`;

  // Score, streak, cards left, status.
  const s = game.score;
  if (s.scheme === "cards_left") {
    $("score-label").textContent = "Score (cards left)";
    $("score").textContent = String(s.cards_left);
  } else {
    $("score-label").textContent = s.scheme === "msc" ? "Score (MSC)" : "Score";
    $("score").textContent = String(s.total);
  }
  $("streak").textContent = String(s.current_streak);
  const next = s.scheme === "classic" ? s.current_streak + 1 : s.scheme === "msc" ? 100 + 200 * s.current_streak : null;
  $("next-points").textContent = next != null && !over ? `next +${next}` : "";
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
  if (game.waste_top !== lastWasteTop && lastWasteTop !== undefined) waste.lastElementChild?.classList.add("arrived");
  lastWasteTop = game.waste_top;
  waste.dataset.top = game.waste_top ?? "";
  waste.setAttribute("aria-label", game.waste_top ? `Waste: ${card(game.waste_top).name} on top` : "Waste: empty");

  // Controls.
  $("undo").hidden = !game.rules.undo;
  $("undo").disabled = !game.can_undo || over;
  $("hint").hidden = hintAvailable === false;
  $("hint-key").hidden = hintAvailable === false;
  $("hint").disabled = over;
  $("concede").disabled = over;

  renderFairness();
  renderEnd();
}

function statusText() {
  if (game.status !== "in_progress") return STATUS_TEXT[game.status] ?? game.status;
  if (legal("play")) return "Your move";
  if (legal("draw")) return "No card fits: draw";
  if (legal("redeal")) return "Stock empty: redeal";
  return "Your move";
}

function renderFairness() {
  const info = [];
  if (game.deal_number != null) info.push(`Deal #${game.deal_number}`);
  else if (session?.chosenDeal) info.push("Your own deal");
  else info.push("Random deal");
  $("deal-info").textContent = info.join(" ");
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

let verifiedFor = null;

function renderEnd() {
  const end = $("end");
  end.hidden = game.status === "in_progress";
  if (end.hidden) return;
  end.dataset.status = game.status;
  $("end-title").textContent = STATUS_TEXT[game.status];
  const s = game.score;
  const parts =
    s.scheme === "cards_left"
      ? [`${s.cards_left} card${s.cards_left === 1 ? "" : "s"} left`]
      : [`Final score ${s.total}`, `longest streak ${s.longest_streak}`];
  if (layout.peaks.length) parts.push(`peaks ${s.peaks_taken}/${layout.peaks.length}`);
  $("end-detail").textContent = parts.join(" · ");
  if (game.reveal) $("replay-link").href = shareLink({ deal: game.reveal.deal });
  $("replay-link").hidden = !game.reveal;
  // The reveal is checked once per finished game.
  if (verifiedFor !== game.id) {
    verifiedFor = game.id;
    const verify = $("verify");
    verify.textContent = "checking the deal…";
    verify.className = "verify";
    verifyReveal(game, layout, session?.chosenDeal ?? null)
      .then(({ ok, text }) => {
        verify.textContent = text;
        verify.className = ok ? "verify ok" : "verify bad";
      })
      .catch((e) => {
        verify.textContent = `⚠ could not check the deal: ${problemText(e)}`;
        verify.className = "verify bad";
      });
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

/** Run one server call; on a stale or raced state, fetch the game again. */
async function act(call) {
  if (busy || !session) return;
  busy = true;
  document.body.classList.add("busy");
  try {
    const next = await call();
    if (next) show(next);
  } catch (e) {
    say(problemText(e), "error");
    // A stale version (412) or a move that lost a race (409): show the game as it is.
    if (e instanceof ApiError && (e.status === 412 || e.status === 409)) {
      say(`${problemText(e)} (the table was refreshed)`, "error");
      await refresh();
    }
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

function show(next) {
  if (game && next.id === game.id && next.version !== game.version) hinted = null;
  game = next;
  render();
}

async function refresh() {
  try {
    show(await api.getGame(session.id, session.token));
  } catch (e) {
    say(problemText(e), "error");
  }
}

function shake(el) {
  el.classList.remove("refused");
  void el.offsetWidth; // restart the animation
  el.classList.add("refused");
}

function play(position) {
  if (!game || busy) return;
  const slot = game.tableau[position];
  if (!slot || slot.removed) return;
  const reason = whyNot(game, layout, position);
  if (reason) {
    say(reason, "refusal");
    shake(table.buttons[position]);
    return;
  }
  const move =
    game.legal_moves.find((m) => m.kind === "play" && m.position === position) ??
    // The page could not tell why not: ask the server, and show its answer.
    { move: `play ${position}` };
  say("");
  return act(() => api.move(game, session.token, move));
}

function draw() {
  if (!game || busy) return;
  if (game.status !== "in_progress") return say("the game is over", "refusal");
  const move = legal("draw") ?? legal("redeal");
  if (!move) {
    shake($("stock"));
    return say(game.stock_count === 0 ? "the stock is empty" : "you cannot draw now", "refusal");
  }
  return act(async () => {
    const next = await api.move(game, session.token, move);
    say(move.kind === "redeal" ? "the waste was turned over into a new stock" : `drew ${pretty(next.waste_top)}`);
    return next;
  });
}

function undo() {
  if (!game || busy) return;
  const move = legal("undo");
  if (!move) return say(game.rules.undo ? "nothing to undo" : "this game does not allow undo", "refusal");
  return act(async () => {
    const next = await api.move(game, session.token, move);
    say("move taken back");
    return next;
  });
}

let concedeArmed = null;

function concede() {
  if (!game || busy || game.status !== "in_progress") return;
  const button = $("concede");
  if (!concedeArmed) {
    button.textContent = "Sure? Concede";
    button.classList.add("armed");
    concedeArmed = setTimeout(disarmConcede, 4000);
    return;
  }
  disarmConcede();
  return act(() => api.concede(game, session.token));
}

function disarmConcede() {
  clearTimeout(concedeArmed);
  concedeArmed = null;
  $("concede").textContent = "Concede";
  $("concede").classList.remove("armed");
}

async function hint() {
  if (!game || busy || game.status !== "in_progress" || hintAvailable === false) return;
  busy = true;
  say("thinking…");
  try {
    const answer = await api.hint(session.id, session.token);
    hintAvailable = true;
    showHint(answer);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && game) {
      // The game is there, so it is the endpoint that is not: this server has no hints.
      hintAvailable = false;
      say("this server gives no hints");
    } else {
      say(problemText(e), "error");
    }
  } finally {
    busy = false;
    render();
  }
}

/** Show a hint answer: a suggested move {move, kind, position, card} and a win chance. */
function showHint(answer) {
  const found = [answer?.move, answer?.hint, answer?.suggestion, answer].find(
    (m) => m && typeof m === "object" && typeof m.kind === "string",
  );
  const moveText = typeof answer?.move === "string" ? answer.move : found?.move;
  let text;
  hinted = null;
  if (found?.kind === "play") {
    hinted = found.position;
    text = `play ${found.card ? pretty(found.card) : `position ${found.position}`}`;
  } else if (found?.kind === "draw" || found?.kind === "redeal") {
    hinted = "stock";
    text = found.kind === "draw" ? "draw a card" : "redeal the waste";
  } else if (found?.kind) {
    text = found.kind;
  } else {
    text = moveText ? String(moveText) : "no suggestion";
  }
  const chance = winChance(answer);
  say(`Hint: ${text}${chance != null ? ` (estimated win chance ${chance}%)` : ""}`, "hint");
}

function winChance(answer) {
  for (const [key, value] of Object.entries(answer ?? {})) {
    if (/win/i.test(key) && typeof value === "number") {
      return Math.round(value <= 1 ? value * 100 : value);
    }
  }
  return null;
}

// ---------------------------------------------------------------------------- new games

async function startGame(request, chosenDeal = null) {
  const created = await api.createGame(request);
  layout = await getLayout(created.layout);
  session = { id: created.id, token: created.token, chosenDeal };
  saveSession();
  const { token: _token, ...state } = created;
  game = null;
  hinted = null;
  lastWasteTop = undefined;
  disarmConcede();
  show(state);
  say("");
  if (usingKeyboard) table.focusFirst();
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
      throw new Error("give a deal number (0 or more)");
    }
    request.deal_number = n;
  } else if (values.dealkind === "cards" || (values.dealkind == null && values.deal)) {
    const { codes, bad } = parseDealText(String(values.deal ?? "").replace(/[-.]/g, " "));
    if (bad.length) throw new Error(`not card codes: ${bad.slice(0, 5).join(" ")}`);
    if (!codes.length) throw new Error("type the deal's cards, e.g. 8s Jh 9c …");
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
  describeLayout();
}

function describeLayout() {
  const lay = layoutList.find((l) => l.name === form.elements.layout.value);
  $("ng-layout-desc").textContent = lay ? `${lay.description} (${lay.cards} cards, ${lay.decks} deck${lay.decks > 1 ? "s" : ""})` : "";
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

async function openPanel() {
  if (dialog.open) return;
  $("ng-error").textContent = "";
  await loadLayoutList();
  const saved = JSON.parse(localStorage.getItem(OPTIONS_KEY) || "null");
  if (game) {
    fillForm({ ...game.rules, layout: game.layout });
  } else if (saved) {
    fillForm(saved);
  } else {
    fillForm({ layout: "tripeaks" });
  }
  dialog.showModal();
  form.elements.layout.focus();
}

async function loadLayoutList() {
  if (layoutList.length) return;
  try {
    layoutList = (await api.listLayouts()).layouts;
    await Promise.all(layoutList.map((l) => getLayout(l.name)));
  } catch (e) {
    $("ng-error").textContent = problemText(e);
    layoutList = [{ name: "tripeaks", title: "TriPeaks", description: "", cards: 28, decks: 1 }];
  }
  form.elements.layout.replaceChildren(
    ...layoutList.map((l) => Object.assign(document.createElement("option"), { value: l.name, textContent: l.title })),
  );
}

form.elements.layout.addEventListener("change", () => {
  // A new layout starts from its own defaults (golf: no wrap, cards-left scoring).
  fillForm({ layout: form.elements.layout.value });
});
form.elements.king_stops.addEventListener("change", () => {
  if (form.elements.king_stops.checked) form.elements.wrap.checked = false; // the rule needs it
});
form.elements.wrap.addEventListener("change", () => {
  if (form.elements.wrap.checked) form.elements.king_stops.checked = false;
});
form.elements.deal_number.addEventListener("input", () => (form.elements.dealkind.value = "number"));
form.elements.deal.addEventListener("input", () => (form.elements.dealkind.value = "cards"));
$("ng-cancel").addEventListener("click", () => dialog.close());

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const values = formValues();
  const start = $("ng-start");
  try {
    const { request, chosenDeal } = requestFrom(values);
    start.disabled = true;
    start.textContent = values.dealkind === "winnable" ? "Finding a winnable deal…" : "Dealing…";
    await startGame(request, chosenDeal);
    const { deal: _d, deal_number: _n, ...keep } = values;
    localStorage.setItem(OPTIONS_KEY, JSON.stringify({ ...keep, dealkind: keep.dealkind === "winnable" ? "winnable" : "random" }));
    dialog.close();
    if (usingKeyboard) table.focusFirst();
  } catch (e) {
    $("ng-error").textContent = problemText(e);
  } finally {
    start.disabled = false;
    start.textContent = "Deal";
  }
});

// ---------------------------------------------------------------------------- wiring

$("stock").addEventListener("click", () => draw());
$("undo").addEventListener("click", () => undo());
$("hint").addEventListener("click", () => hint());
$("concede").addEventListener("click", () => concede());
$("new-game-button").addEventListener("click", () => openPanel());
$("again").addEventListener("click", () => {
  const rules = { ...game.rules };
  delete rules.layout;
  act(() => startGame({ layout: game.layout, rules }).then(() => null));
});
$("commitment").addEventListener("click", () => {
  const el = $("commitment");
  el.textContent = el.textContent.endsWith("…") ? el.dataset.full : el.dataset.full.slice(0, 16) + "…";
});

document.addEventListener("pointerdown", () => (usingKeyboard = false), true);
document.addEventListener("keydown", (e) => {
  usingKeyboard = true;
  if (dialog.open || e.ctrlKey || e.metaKey || e.altKey) return;
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

async function main() {
  api.hasHint().then((has) => {
    if (has !== null) hintAvailable = has;
    if (game) render();
  });
  const params = new URLSearchParams(location.search);
  const fromUrl = GAME_PARAMS.some((p) => params.has(p));
  if (fromUrl) {
    // A link to a game (a puzzle, a bug report): deal it, then drop the query so that a
    // reload resumes this game instead of dealing again.
    const values = Object.fromEntries(GAME_PARAMS.filter((p) => params.has(p)).map((p) => [p, params.get(p)]));
    history.replaceState(null, "", location.pathname);
    try {
      await getLayout(values.layout || "tripeaks").catch(() => null);
      const { request, chosenDeal } = requestFrom(values);
      await startGame(request, chosenDeal);
      return;
    } catch (e) {
      say(`could not start that game: ${problemText(e)}`, "error");
      await openPanel();
      fillForm(values);
      if (values.deal) {
        form.elements.dealkind.value = "cards";
        form.elements.deal.value = values.deal.replace(/-/g, " ");
      } else if (values.deal_number) {
        form.elements.dealkind.value = "number";
        form.elements.deal_number.value = values.deal_number;
      }
      $("ng-error").textContent = problemText(e);
      return;
    }
  }
  session = loadSession();
  if (session) {
    try {
      const state = await api.getGame(session.id, session.token);
      layout = await getLayout(state.layout);
      show(state);
      if (state.status === "in_progress") say("welcome back: your game goes on");
      return;
    } catch (e) {
      if (!(e instanceof ApiError) || ![401, 403, 404].includes(e.status)) {
        say(`could not load your game: ${problemText(e)}`, "error");
        return;
      }
      session = null; // gone (or from another server): start afresh
      saveSession();
    }
  }
  // A first visit: deal at once, with the options last used.
  try {
    const saved = JSON.parse(localStorage.getItem(OPTIONS_KEY) || "null");
    if (saved?.layout) await getLayout(saved.layout).catch(() => null);
    const { request } = saved ? requestFrom({ ...saved, dealkind: saved.dealkind ?? "random" }) : { request: {} };
    await startGame(request);
  } catch (e) {
    say(`could not start a game: ${problemText(e)}`, "error");
  }
}

main();
