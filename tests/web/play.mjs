// Plays the reference web client in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core), as tests/web/test_browser.py asks:
//
//   node tests/web/play.mjs '{"base": "http://127.0.0.1:PORT", "deal": [...], "order": [...],
//                             "screenshots": "var/screenshots", "chromium": "/usr/bin/chromium"}'
//
// It plays a game to its end by clicks (and a few keys) on an explicit deal, and checks
// after every step that what the page shows is the API's state. It prints one JSON line
// (what it saw) and exits 0, or prints the failure and exits 1.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const config = JSON.parse(process.argv[2]);
const { base, deal, order, screenshots } = config;
const drawFirst = config.draw_first ?? true;
mkdirSync(screenshots, { recursive: true });

const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

const seen = { checks: 0, screenshots: [], steps: [] };
const problems = [];

function assert(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

const started = Date.now();
function step(text) {
  seen.steps.push(`${((Date.now() - started) / 1000).toFixed(1)}s ${text}`);
}

/** The page's own saved game: {id, token}. */
async function session(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem("tripeaks.game")));
}

/** The game's state from the API, fetched the way any client would. */
async function apiState(page) {
  return page.evaluate(async () => {
    const s = JSON.parse(localStorage.getItem("tripeaks.game"));
    const r = await fetch(`/v1/games/${s.id}`, { headers: { Authorization: `Bearer ${s.token}` } });
    return r.json();
  });
}

async function waitVersion(page, version) {
  await page.waitForFunction((v) => document.body.dataset.version === String(v), version, { timeout: 10_000 });
}

/** What the page shows, read from the DOM. */
async function shown(page) {
  return page.evaluate(() => {
    const text = (id) => document.getElementById(id).textContent.trim();
    const cards = {};
    for (const b of document.querySelectorAll("#table .card")) {
      cards[b.dataset.position] = b.hidden ? "removed" : b.classList.contains("back") ? "back" : b.dataset.card;
    }
    const playable = [...document.querySelectorAll("#table .card.playable")].map((b) => Number(b.dataset.position));
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
      endVisible: !document.getElementById("end").hidden,
      undoVisible: !document.getElementById("undo").hidden,
      undoEnabled: !document.getElementById("undo").disabled,
      hintVisible: !document.getElementById("hint").hidden,
    };
  });
}

/** Check that the page shows the API's state: score, streak, stock, waste, status, cards. */
async function check(page, label) {
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
  const statusWords = { in_progress: /move|draw|redeal/i, won: /won/i, lost: /lost/i, conceded: /conceded/i };
  assert(statusWords[state.status].test(view.status), `${where}status text '${view.status}' for ${state.status}`);
  for (const slot of state.tableau) {
    // Once the game is over, the revealed deal shows the cards that never turned.
    const hidden = state.reveal ? state.reveal.deal[slot.position] : "back";
    const expected = slot.removed ? "removed" : slot.face_up ? slot.card : hidden;
    assert(view.cards[slot.position] === expected, `${where}position ${slot.position} shows ${view.cards[slot.position]}, not ${expected}`);
  }
  const playable = state.legal_moves.filter((m) => m.kind === "play").map((m) => m.position).sort((a, b) => a - b);
  assert(JSON.stringify(view.playable.sort((a, b) => a - b)) === JSON.stringify(playable), `${where}highlighted ${view.playable} != playable ${playable}`);
  assert(view.endVisible === (state.status !== "in_progress"), `${where}end panel shown: ${view.endVisible}`);
  seen.checks += 1;
  return { state, view };
}

async function shot(page, name) {
  const path = join(screenshots, name);
  await page.screenshot({ path, fullPage: true });
  seen.screenshots.push(path);
}

function watch(page) {
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    // The one error answer the run provokes on purpose: the stale move's 412.
    if (m.type() === "error" && !/status of 412/.test(m.text())) problems.push(`console error: ${m.text()}`);
  });
}

async function playByClick(page, position) {
  const before = Number(await page.evaluate(() => document.body.dataset.version));
  await page.click(`#table .card[data-position="${position}"]`);
  await waitVersion(page, before + 1);
}

const browser = await chromium.launch({
  executablePath: config.chromium,
  args: CHROMIUM_FLAGS,
  timeout: 30_000,
});
let exitCode = 0;
try {
  // ------------------------------------------------------------------ desktop: a whole game
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  desktop.setDefaultTimeout(10_000);
  const page = await desktop.newPage();
  watch(page);
  const link = `${base}/?undo=1&deal=${deal.join("-")}`;
  await page.goto(link);
  await page.waitForSelector("#table .card.face");
  await waitVersion(page, 0);
  step("opened a link to an explicit deal with undo on");
  assert((await page.evaluate(() => location.search)) === "", "the query is dropped once the game is dealt");
  const game = await session(page);
  assert(JSON.stringify(game.chosenDeal) === JSON.stringify(deal), "the page keeps the deal it was given");
  let { state, view } = await check(page, "start");
  assert(state.rules.undo === true && view.undoVisible && !view.undoEnabled, "undo shown, disabled at the start");
  assert(state.deal_number === null && state.commitment.length === 64, "an explicit deal with a commitment");
  const specHasHint = await page.evaluate(async () => {
    const spec = await (await fetch("/openapi.json")).json();
    return Object.keys(spec.paths).some((p) => p.endsWith("/hint"));
  });
  await page.waitForFunction(() => document.body.dataset.version !== undefined);
  await page.waitForTimeout(200); // the spec probe answers
  view = await shown(page);
  assert(view.hintVisible === specHasHint, `hint button shown (${view.hintVisible}) iff the API has hints (${specHasHint})`);
  seen.hint = specHasHint;
  await shot(page, "desktop-start.png");

  // Refusals: said on the page, nothing posted.
  await page.click('#table .card[data-position="0"]');
  await page.waitForFunction(() => /face down/.test(document.getElementById("message").textContent));
  const notFitting = order.find((p, i) => i > 0 && !state.legal_moves.some((m) => m.position === p));
  await page.click(`#table .card[data-position="${notFitting}"]`);
  await page.waitForFunction(() => /does not go on/.test(document.getElementById("message").textContent));
  seen.refusal = (await shown(page)).message;
  assert((await apiState(page)).version === 0, "a refused card posts nothing");
  step(`refusals: '${seen.refusal}'`);

  // Draw with the keyboard.
  let version = 0;
  if (drawFirst) {
    await page.keyboard.press("d");
    await waitVersion(page, ++version);
    ({ state } = await check(page, "after draw"));
    assert(state.waste_top === deal[29] && state.stock_count === deal.length - 30, "drew the stock's top card");
    step(`drew with 'd': waste top ${state.waste_top}, stock ${state.stock_count}`);
  }

  // Play with the keyboard: Enter on a card, focus follows to the nearest free card,
  // arrows move between free cards, Space plays.
  await page.focus(`#table .card[data-position="${order[0]}"]`);
  await page.keyboard.press("Enter");
  await waitVersion(page, ++version);
  await check(page, "after Enter");
  const focused = () => page.evaluate(() => Number(document.activeElement?.dataset.position));
  const afterPlay = await focused();
  assert(!Number.isNaN(afterPlay), "focus stays on the table after a play");
  await page.keyboard.press("ArrowRight");
  const right = await focused();
  await page.keyboard.press("ArrowLeft");
  assert((await focused()) === afterPlay && right !== afterPlay, `arrows move between free cards (${afterPlay} -> ${right} -> back)`);
  await page.focus(`#table .card[data-position="${order[1]}"]`);
  await page.keyboard.press("Space");
  await waitVersion(page, ++version);
  await check(page, "after Space");
  step("played two cards with Enter and Space; arrows moved the focus");

  // Undo, then play the card again by a click.
  await page.click("#undo");
  await waitVersion(page, ++version);
  ({ state } = await check(page, "after undo"));
  assert(state.tableau[order[1]].removed === false, "undo put the card back");
  await playByClick(page, order[1]);
  version += 1;
  await check(page, "after replaying");
  step("undo took a play back");

  // Half the game by clicks, then a reload resumes it.
  let next = 2;
  for (; next < Math.floor(order.length / 2); next++) {
    await playByClick(page, order[next]);
    version += 1;
    await check(page, `play ${order[next]}`);
  }
  const beforeReload = await shown(page);
  await shot(page, "desktop-mid-game.png");
  await page.reload();
  await waitVersion(page, version);
  const afterReload = await shown(page);
  assert((await session(page)).id === game.id, "the reload kept the game");
  assert(afterReload.score === beforeReload.score && afterReload.wasteTop === beforeReload.wasteTop, "the reload shows the same game");
  await check(page, "after reload");
  step(`reloaded at version ${version}: the game resumed (score ${afterReload.score})`);

  // Another tab plays behind the page's back: the page's next move names a stale version
  // (If-Match), the server refuses it (412), and the page shows the game as it now is.
  await page.evaluate(async (position) => {
    const s = JSON.parse(localStorage.getItem("tripeaks.game"));
    await fetch(`/v1/games/${s.id}/play`, {
      method: "POST",
      headers: { Authorization: `Bearer ${s.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ position }),
    });
  }, order[next]);
  await page.click(`#table .card[data-position="${order[next]}"]`);
  await waitVersion(page, ++version);
  next += 1;
  assert(/refreshed/.test(await page.textContent("#message")), "a stale move refreshes the table");
  await check(page, "after a stale move");
  step("a move made elsewhere: the stale click was refused (412) and the table refreshed");

  // The rest by clicks, to the end.
  for (; next < order.length; next++) {
    await playByClick(page, order[next]);
    version += 1;
    await check(page, `play ${order[next]}`);
  }
  ({ state, view } = await check(page, "end"));
  assert(state.status === "won", `the game is won, not ${state.status}`);
  await page.waitForFunction(() => /verified ✓/.test(document.getElementById("verify").textContent), null, { timeout: 10_000 });
  seen.final = {
    id: game.id,
    token: game.token,
    score: view.score,
    status: view.status,
    verify: await page.textContent("#verify"),
    end: await page.textContent("#end-title"),
  };
  await shot(page, "desktop-won.png");
  step(`won: ${seen.final.end}; ${seen.final.verify}`);

  // The new-game panel: golf on a chosen deal number, options from the layout.
  await page.keyboard.press("n");
  await page.waitForSelector("dialog#new-game[open]");
  await page.selectOption("#ng-layout", "golf");
  assert(!(await page.isChecked('input[name="wrap"]')), "golf starts without wrap");
  assert((await page.inputValue('select[name="scoring"]')) === "cards_left", "golf counts the cards left");
  await page.fill('input[name="deal_number"]', "5");
  await page.click("#ng-start");
  await page.waitForSelector("dialog#new-game", { state: "hidden" });
  await page.waitForFunction(() => document.body.dataset.status === "in_progress");
  ({ state } = await check(page, "golf"));
  assert(state.layout === "golf" && state.deal_number === 5 && state.rules.wrap === false, "golf deal 5 was dealt");
  assert(/deal #5/.test(await page.textContent("#game-title")), "the chosen deal number is shown");
  await shot(page, "desktop-golf.png");
  step("new-game panel: golf, deal #5");

  // Six peaks from a link; concede ends it and the reveal checks against deal #3.
  await page.goto(`${base}/?layout=six_peaks&deal_number=3`);
  await page.waitForFunction(() => document.getElementById("table").dataset.layout === "six_peaks" && document.body.dataset.version === "0");
  await check(page, "six peaks");
  await shot(page, "desktop-six-peaks.png");
  await page.click("#concede");
  await page.click("#concede");
  await page.waitForFunction(() => document.body.dataset.status === "conceded");
  await check(page, "conceded");
  await page.waitForFunction(() => /verified ✓/.test(document.getElementById("verify").textContent), null, { timeout: 10_000 });
  await shot(page, "desktop-six-peaks-conceded.png");
  step(`six peaks deal #3 conceded: ${await page.textContent("#verify")}`);
  await desktop.close();

  // ------------------------------------------------------------------ hints
  // A server with GET /v1/games/{id}/hint (its OpenAPI says so): the button is there and
  // its answer, a suggested move and a win chance, is shown on the table. (Stubbed here,
  // in the shape the endpoint answers, so that the page is tested whatever this server has.)
  const withHints = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  withHints.setDefaultTimeout(10_000);
  await withHints.route("**/openapi.json", (route) =>
    route.fulfill({ json: { openapi: "3.1.0", paths: { "/v1/games/{game_id}/hint": { get: {} } } } }),
  );
  await withHints.route("**/v1/games/*/hint", (route) =>
    route.fulfill({
      json: { move: { move: `play ${order[0]}`, kind: "play", position: order[0], card: deal[order[0]] }, win_chance: 0.93 },
    }),
  );
  const hinting = await withHints.newPage();
  watch(hinting);
  await hinting.goto(`${base}/?deal=${deal.join("-")}`);
  await hinting.waitForFunction(() => document.body.dataset.version === "0");
  await hinting.waitForSelector("#hint", { state: "visible" });
  await hinting.keyboard.press("h");
  await hinting.waitForSelector(`#table .card.hinted[data-position="${order[0]}"]`);
  seen.hintMessage = await hinting.textContent("#message");
  assert(/Hint: play .*93%/.test(seen.hintMessage), `the hint is shown: ${seen.hintMessage}`);
  await playByClick(hinting, order[0]);
  assert((await hinting.$$("#table .card.hinted")).length === 0, "the hint goes once a move is made");
  step(`hint shown: '${seen.hintMessage}'`);
  await withHints.close();

  // A server whose OpenAPI cannot be read: the button is offered, and goes on a 404.
  const noSpec = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  noSpec.setDefaultTimeout(10_000);
  await noSpec.route("**/openapi.json", (route) => route.fulfill({ status: 404, json: {} }));
  await noSpec.route("**/v1/games/*/hint", (route) =>
    route.fulfill({ status: 404, contentType: "application/problem+json", json: { type: "/problems/not-found", title: "Not found", status: 404, detail: "no resource" } }),
  );
  const probing = await noSpec.newPage();
  await probing.goto(`${base}/?deal=${deal.join("-")}`);
  await probing.waitForFunction(() => document.body.dataset.version === "0");
  await probing.click("#hint");
  await probing.waitForSelector("#hint", { state: "hidden" });
  assert(/no hints/.test(await probing.textContent("#message")), "a 404 says the server has no hints");
  step("no hint endpoint: the button goes");
  await noSpec.close();

  // ------------------------------------------------------------------ phone size
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  phone.setDefaultTimeout(10_000);
  const mobile = await phone.newPage();
  watch(mobile);
  await mobile.goto(`${base}/?deal=${deal.join("-")}`);
  await mobile.waitForFunction(() => document.body.dataset.version === "0");
  await check(mobile, "phone start");
  const width = await mobile.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert(width[0] <= width[1], `the page fits a phone's width (${width[0]} > ${width[1]})`);
  await mobile.tap(`#table .card[data-position="${order[0]}"]`);
  await waitVersion(mobile, 1);
  await check(mobile, "phone after a tap");
  await mobile.tap("#stock");
  await waitVersion(mobile, 2);
  await check(mobile, "phone after a draw");
  await shot(mobile, "phone-tripeaks.png");
  await mobile.tap("#new-game-button");
  await mobile.waitForSelector("dialog#new-game[open]");
  await shot(mobile, "phone-new-game.png");
  await mobile.selectOption("#ng-layout", "golf");
  await mobile.tap("#ng-start");
  await mobile.waitForSelector("dialog#new-game", { state: "hidden" });
  await mobile.waitForFunction(() => document.getElementById("table").dataset.layout === "golf");
  await check(mobile, "phone golf");
  await shot(mobile, "phone-golf.png");
  step("phone: tap to play and draw, golf from the panel");
  await phone.close();

  assert(problems.length === 0, problems.join("; "));
} catch (e) {
  exitCode = 1;
  seen.error = String(e.stack || e);
  seen.problems = problems;
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(seen) + "\n");
process.exit(exitCode);
