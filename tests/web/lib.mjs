// What the browser scenarios share: launching Debian's Chromium, the screen sizes, reading
// what the page shows and checking it against the API's state, screenshots.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

// The sizes the issues name: a desktop (1280x900), a phone upright (390x844) and sideways.
export const SCREENS = {
  desktop: { viewport: { width: 1280, height: 900 } },
  portrait: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  landscape: { viewport: { width: 844, height: 390 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  // A small phone upright, where TriPeaks' cards would be under 36 px: bigger cards, a pan.
  small: { viewport: { width: 320, height: 640 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

export class Run {
  constructor(config) {
    this.config = config;
    this.seen = { checks: 0, screenshots: [], steps: [] };
    this.problems = [];
    this.started = Date.now();
    this.allowedErrors = [];
    this.contexts = 0;
    mkdirSync(config.screenshots, { recursive: true });
  }

  async launch() {
    this.browser = await chromium.launch({ executablePath: this.config.chromium, args: CHROMIUM_FLAGS, timeout: 30_000 });
    return this.browser;
  }

  /** A fresh browser context (its own storage: a first visit) at a named screen size,
   * from an address of its own. Every browser of the tests connects from 127.0.0.1, and
   * the server allows one solver search an address at a time: a scenario's page asking
   * for its analysis was refused (503) while the analysis of a game of the scenario
   * before, from the same address, was still running. Players have addresses of their
   * own; so has each context here, passed as a trusted proxy would (the live server
   * trusts 127.0.0.1's X-Forwarded-For). */
  async context(screen, extra = {}) {
    const address = `10.${(process.pid >> 8) & 255}.${process.pid & 255}.${++this.contexts}`;
    const headers = { "X-Forwarded-For": address, ...extra.extraHTTPHeaders };
    const context = await this.browser.newContext({ ...SCREENS[screen], ...extra, extraHTTPHeaders: headers });
    context.setDefaultTimeout(10_000);
    return context;
  }

  async page(context) {
    const page = await context.newPage();
    page.on("pageerror", (e) => this.problems.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      // Error answers the run provokes on purpose show in the console as failed loads.
      // A failed load names its resource: which request answered an error is the first
      // thing to know about it.
      const where = m.location()?.url;
      const text = /Failed to load resource/.test(m.text()) && where ? `${m.text()} (${where})` : m.text();
      if (m.type() === "error" && !this.allowedErrors.some((re) => re.test(text))) this.problems.push(`console error: ${text}`);
    });
    return page;
  }

  step(text) {
    this.seen.steps.push(`${((Date.now() - this.started) / 1000).toFixed(1)}s ${text}`);
  }

  async shot(page, name, fullPage = false) {
    const path = join(this.config.screenshots, name);
    await page.screenshot({ path, fullPage });
    this.seen.screenshots.push(path);
  }
}

export function assert(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

/** The page's own saved game: {id, token}. */
export async function session(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem("tripeaks.game")));
}

/** The game's state from the API, fetched the way any client would. */
export async function apiState(page) {
  return page.evaluate(async () => {
    const s = JSON.parse(localStorage.getItem("tripeaks.game"));
    const r = await fetch(`/v1/games/${s.id}`, { headers: { Authorization: `Bearer ${s.token}` } });
    return r.json();
  });
}

export async function apiMoves(page) {
  return page.evaluate(async () => {
    const s = JSON.parse(localStorage.getItem("tripeaks.game"));
    const r = await fetch(`/v1/games/${s.id}/moves?limit=1000`, { headers: { Authorization: `Bearer ${s.token}` } });
    return (await r.json()).moves.map((m) => m.move);
  });
}

export async function waitVersion(page, version, timeout = 10_000) {
  await page.waitForFunction((v) => document.body.dataset.version === String(v), version, { timeout });
}

export async function version(page) {
  return Number(await page.evaluate(() => document.body.dataset.version));
}

/** The end of the game is on screen: the end panel (a dialog, or the old page's section). */
export async function endShown(page) {
  return page.evaluate(() => {
    const end = document.getElementById("end");
    return end.tagName === "DIALOG" ? end.open : !end.hidden;
  });
}

/** What the page shows, read from the DOM. */
export async function shown(page) {
  return page.evaluate(() => {
    const text = (id) => document.getElementById(id)?.textContent.trim();
    const cards = {};
    for (const b of document.querySelectorAll("#table .card")) {
      cards[b.dataset.position] = b.hidden ? "removed" : b.classList.contains("back") ? "back" : b.dataset.card;
    }
    const playable = [...document.querySelectorAll("#table .card.playable")].map((b) => Number(b.dataset.position));
    const end = document.getElementById("end");
    return {
      score: text("score"),
      streak: text("streak"),
      cardsLeft: text("cards-left"),
      status: text("status"),
      stock: document.getElementById("stock").dataset.count,
      wasteTop: document.getElementById("waste").dataset.top,
      version: document.body.dataset.version,
      message: text("message"),
      cards,
      playable,
      endVisible: end.tagName === "DIALOG" ? end.open : !end.hidden,
      undoVisible: !document.getElementById("undo").hidden,
      undoEnabled: !document.getElementById("undo").disabled,
      hintVisible: !document.getElementById("hint").hidden,
    };
  });
}

/** Check that the page shows the API's state: score, streak, stock, waste, status, cards. */
export async function check(run, page, label) {
  const state = await apiState(page);
  const view = await shown(page);
  const where = `${label}: `;
  assert(view.version === String(state.version), `${where}version ${view.version} != ${state.version}`);
  const score = state.score.scheme === "cards_left" ? state.score.cards_left : state.score.total;
  assert(view.score === String(score), `${where}score ${view.score} != ${score}`);
  assert(view.streak === String(state.score.current_streak), `${where}streak ${view.streak} != ${state.score.current_streak}`);
  assert(view.cardsLeft === String(state.cards_left), `${where}cards left ${view.cardsLeft} != ${state.cards_left}`);
  assert(view.stock === String(state.stock_count), `${where}stock ${view.stock} != ${state.stock_count}`);
  assert(view.wasteTop === (state.waste_top ?? ""), `${where}waste top ${view.wasteTop} != ${state.waste_top}`);
  const statusWords = { in_progress: /move|draw|redeal|playing/i, won: /won/i, lost: /lost/i, conceded: /conceded/i };
  assert(statusWords[state.status].test(view.status), `${where}status text '${view.status}' for ${state.status}`);
  for (const slot of state.tableau) {
    // Once the game is over, the revealed deal shows the cards that never turned.
    const hidden = state.reveal ? state.reveal.deal[slot.position] : "back";
    const expected = slot.removed ? "removed" : slot.face_up ? slot.card : hidden;
    assert(view.cards[slot.position] === expected, `${where}position ${slot.position} shows ${view.cards[slot.position]}, not ${expected}`);
  }
  const playable = state.legal_moves.filter((m) => m.kind === "play").map((m) => m.position).sort((a, b) => a - b);
  assert(JSON.stringify(view.playable.sort((a, b) => a - b)) === JSON.stringify(playable), `${where}highlighted ${view.playable} != playable ${playable}`);
  run.seen.checks += 1;
  return { state, view };
}

/** Deal a game from a link and wait until it is on the table. */
export async function openLink(page, base, query) {
  await page.goto(`${base}/?${query}`);
  await page.waitForFunction(() => document.body.dataset.version === "0" && document.querySelector("#table .card"));
}

/** Wait until `predicate` (run in the page) holds. */
export async function until(page, predicate, arg, timeout = 10_000) {
  await page.waitForFunction(predicate, arg, { timeout });
}

/** The page's own player: {id, key}. */
export async function player(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem("tripeaks.player")));
}

/** A call to the API with a player key, from the test (not through the page's routes). */
export async function apiAs(base, key, path, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  assert(r.ok, `${method} ${path}: ${r.status} ${await r.clone().text()}`);
  return r.status === 204 ? null : r.json();
}

/** A few moves by taps or clicks (a card that fits, else a draw), then concede: a result. */
export async function playThenConcede(page, moves, touch) {
  const act = (sel) => (touch ? page.tap(sel) : page.click(sel));
  for (let i = 0; i < moves; i++) {
    const state = await apiState(page);
    const play = state.legal_moves.find((m) => m.kind === "play");
    await act(play ? `#table .card[data-position="${play.position}"]` : "#stock");
    await waitVersion(page, state.version + 1);
  }
  await act("#concede");
  await act("#concede");
  await until(page, () => document.getElementById("end").open && "armed" in document.getElementById("end").dataset);
}

/** The table's geometry as drawn: the viewport, the cards on the table (their boxes and
 * their rank's font size), the share of the screen's height from the table's top to the
 * stock and waste's bottom, and the controls' boxes (every visible button that is not a
 * table card). */
export async function geometry(page) {
  return page.evaluate(() => {
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height };
    };
    const visible = (el) => el.offsetParent !== null && getComputedStyle(el).visibility !== "hidden";
    // A card's box from its layout, not its transformed rectangle: a card turning over
    // (rotateY) or lifted is drawn narrower or higher for a moment, where it stays.
    const table = document.getElementById("table").getBoundingClientRect();
    const slot = (b) => {
      const left = table.left + b.offsetLeft;
      const top = table.top + b.offsetTop;
      return { left, top, right: left + b.offsetWidth, bottom: top + b.offsetHeight, w: b.offsetWidth, h: b.offsetHeight };
    };
    const cards = [...document.querySelectorAll("#table .card")].filter(visible).map((b) => ({
      p: Number(b.dataset.position),
      ...slot(b),
      rank: b.querySelector(".corner") ? parseFloat(getComputedStyle(b.querySelector(".corner")).fontSize) : null,
    }));
    const controls = [...document.querySelectorAll("button, a[href]")]
      .filter((el) => visible(el) && !el.closest("#table") && !el.closest("dialog"))
      .map((el) => ({ id: el.id || el.textContent.trim().slice(0, 20), ...box(el) }));
    const board = box(document.getElementById("board"));
    const piles = box(document.getElementById("piles"));
    return {
      W: innerWidth,
      H: innerHeight,
      scrollWidth: document.documentElement.scrollWidth,
      cards,
      controls,
      tableShare: (Math.max(board.bottom, piles.bottom) - board.top) / innerHeight,
      stock: box(document.getElementById("stock")),
      waste: box(document.getElementById("waste")),
    };
  });
}

export const overlaps = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

/** What the issue asks of each screen: upright, the table at least 80% of the height,
 * cards 36 px wide or more and the controls in the lowest quarter, under the thumbs; on a
 * desktop cards of 60 px or more; everywhere a rank of 16 px or more, every card on the
 * screen, nothing wider than it, and no control over a card. Answers the figures. */
export function assertGeometry(g, screen, label) {
  const where = `${label} (${screen} ${g.W}x${g.H})`;
  assert(g.cards.length > 0, `${where}: no cards`);
  const width = Math.min(...g.cards.map((c) => c.w));
  const rank = Math.min(...g.cards.filter((c) => c.rank != null).map((c) => c.rank));
  assert(g.scrollWidth <= g.W, `${where}: the page is ${g.scrollWidth} px wide`);
  for (const c of g.cards) assert(c.left >= -0.5 && c.right <= g.W + 0.5 && c.top >= -0.5 && c.bottom <= g.H + 0.5, `${where}: card ${c.p} is off the screen`);
  assert(rank >= 16, `${where}: a rank of ${rank} px`);
  for (const control of g.controls) {
    const under = g.cards.filter((c) => overlaps(c, control));
    assert(under.length === 0, `${where}: ${control.id} is over card(s) ${under.map((c) => c.p).join(" ")}`);
  }
  if (screen === "portrait") {
    assert(g.tableShare >= 0.8, `${where}: the table takes ${(100 * g.tableShare).toFixed(0)}% of the height`);
    assert(width >= 36, `${where}: cards ${width.toFixed(1)} px wide`);
    const low = g.controls.filter((c) => ["stock", "undo", "hint", "concede"].includes(c.id));
    for (const c of [...low, g.stock]) assert(c.top >= 0.7 * g.H && c.bottom <= g.H + 0.5, `${where}: ${c.id ?? "the stock"} at ${c.top.toFixed(0)}-${c.bottom.toFixed(0)}, not under the thumbs`);
  }
  if (screen === "desktop") assert(width >= 60, `${where}: cards ${width.toFixed(1)} px wide`);
  return { cardWidth: Number(width.toFixed(1)), rank, tableShare: Number(g.tableShare.toFixed(2)) };
}
