// The browser scenarios of tests/web/test_browser.py, one function each (play.mjs runs
// the one its config names). Each waits for states, never for a number of milliseconds.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import {
  apiAs,
  apiMoves,
  apiState,
  assert,
  assertGeometry,
  check,
  endShown,
  geometry,
  openLink,
  overlaps,
  player,
  playThenConcede,
  session,
  shown,
  until,
  version,
  waitVersion,
} from "./lib.mjs";

const require = createRequire(import.meta.url);
const ACCENT = "rgb(255, 213, 74)";

async function playByClick(page, position) {
  const before = await version(page);
  await page.click(`#table .card[data-position="${position}"]`);
  await waitVersion(page, before + 1);
}

/** Open the new-game panel's detailed options, where the page folds them away. */
async function openOptions(page) {
  await page.evaluate(() => {
    const more = document.getElementById("ng-more");
    if (more) more.open = true;
  });
}

/** Count, from now on, the motion the page draws: flying cards, rising points, flips,
 * falling cards (read back with motionSeen). */
async function watchMotion(page) {
  await page.evaluate(() => {
    window.__motion = { flying: 0, points: 0, flipped: 0, confetti: 0, last: 0 };
    new MutationObserver((records) => {
      for (const r of records) {
        const nodes = r.type === "attributes" ? [r.target] : [...r.addedNodes];
        for (const n of nodes) {
          if (!(n instanceof Element)) continue;
          for (const k of Object.keys(window.__motion)) if (n.classList.contains(k)) window.__motion[k] += 1;
        }
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
  });
}

const motionSeen = (page) => page.evaluate(() => window.__motion);

/** Run axe-core on the page as it is; fail on any violation. */
async function axe(run, page, label) {
  // Evaluated through the driver, not a <script> tag: the page's CSP allows only its own.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
  });
  assert(result.length === 0, `axe-core at ${label}: ${result.join("; ")}`);
  run.seen.axe = [...(run.seen.axe ?? []), label];
}

// ------------------------------------------------------------------ a whole game (desktop)

export async function classic(run) {
  const { base, deal, order } = run.config;
  const context = await run.context("desktop");
  const page = await run.page(context);
  // The one error answer the run provokes on purpose: the stale move's 412.
  run.allowedErrors.push(/status of 412/);
  await openLink(page, base, `undo=1&deal=${deal.join("-")}`);
  run.step("opened a link to an explicit deal with undo on");
  assert((await page.evaluate(() => location.search)) === "", "the query is dropped once the game is dealt");
  const game = await session(page);
  assert(JSON.stringify(game.chosenDeal) === JSON.stringify(deal), "the page keeps the deal it was given");
  let { state, view } = await check(run, page, "start");
  assert(state.rules.undo === true && view.undoVisible && !view.undoEnabled, "undo shown, disabled at the start");
  assert(state.deal_number === null && state.commitment.length === 64, "an explicit deal with a commitment");
  assert(state.player_id !== null, "the first visit made a player, and the game is theirs");
  await until(page, () => !document.getElementById("hint").hidden);
  assert(await page.isVisible("#undo-key") || (await page.evaluate(() => matchMedia("(hover: none)").matches)), "undo's key is named where undo is allowed");
  const bar = await page.evaluate(() => {
    const el = document.getElementById("scorebar");
    return { role: el.getAttribute("role"), outputs: el.querySelectorAll("output, [aria-live]").length, text: el.textContent.replace(/\s+/g, " ") };
  });
  assert(bar.role === "status" && bar.outputs === 0 && /Score \d+ Streak \d+.*Cards left \d+/.test(bar.text), `the score bar is one live region with names: ${JSON.stringify(bar)}`);
  const title = await page.textContent("header");
  assert((title.match(/TriPeaks/g) ?? []).length === 1, `the header names the layout once: '${title}'`);
  await run.shot(page, "desktop-start.png");

  // Refusals: said on the page, nothing posted.
  await page.click('#table .card[data-position="0"]');
  await until(page, () => /face down/.test(document.getElementById("message").textContent));
  const notFitting = order.find((p, i) => i > 0 && !state.legal_moves.some((m) => m.position === p));
  await page.click(`#table .card[data-position="${notFitting}"]`);
  await until(page, () => /does not go on/.test(document.getElementById("message").textContent));
  run.seen.refusal = (await shown(page)).message;
  assert((await apiState(page)).version === 0, "a refused card posts nothing");
  run.step(`refusals: '${run.seen.refusal}'`);

  // Draw with the keyboard.
  let v = 0;
  await page.keyboard.press("d");
  await waitVersion(page, ++v);
  ({ state } = await check(run, page, "after draw"));
  assert(state.waste_top === deal[29] && state.stock_count === deal.length - 30, "drew the stock's top card");

  // Play with the keyboard: Enter on a card, focus follows to the nearest free card,
  // arrows move between free cards, Space plays.
  await page.focus(`#table .card[data-position="${order[0]}"]`);
  await page.keyboard.press("Enter");
  await waitVersion(page, ++v);
  await check(run, page, "after Enter");
  const focused = () => page.evaluate(() => Number(document.activeElement?.dataset.position));
  const afterPlay = await focused();
  assert(!Number.isNaN(afterPlay), "focus stays on the table after a play");
  await page.keyboard.press("ArrowRight");
  const right = await focused();
  await page.keyboard.press("ArrowLeft");
  assert((await focused()) === afterPlay && right !== afterPlay, `arrows move between free cards (${afterPlay} -> ${right} -> back)`);
  await page.focus(`#table .card[data-position="${order[1]}"]`);
  await page.keyboard.press("Space");
  await waitVersion(page, ++v);
  await check(run, page, "after Space");
  run.step("played two cards with Enter and Space; arrows moved the focus");

  // Undo, then play the card again by a click.
  await page.click("#undo");
  await waitVersion(page, ++v);
  ({ state } = await check(run, page, "after undo"));
  assert(state.tableau[order[1]].removed === false, "undo put the card back");
  await playByClick(page, order[1]);
  v += 1;
  await check(run, page, "after replaying");

  // Half the game by clicks, then a reload resumes it.
  let next = 2;
  for (; next < Math.floor(order.length / 2); next++) {
    await playByClick(page, order[next]);
    v += 1;
    await check(run, page, `play ${order[next]}`);
  }
  const beforeReload = await shown(page);
  await run.shot(page, "desktop-mid-game.png");
  await page.reload();
  await waitVersion(page, v);
  const afterReload = await shown(page);
  assert((await session(page)).id === game.id, "the reload kept the game");
  assert(afterReload.score === beforeReload.score && afterReload.wasteTop === beforeReload.wasteTop, "the reload shows the same game");
  await check(run, page, "after reload");
  run.step(`reloaded at version ${v}: the game resumed (score ${afterReload.score})`);

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
  await waitVersion(page, ++v);
  next += 1;
  const stale = await page.textContent("#message");
  assert(/another tab/.test(stale) && !/If-Match|v\d/.test(stale), `a stale move is explained in words: '${stale}'`);
  await check(run, page, "after a stale move");
  run.step("a move made elsewhere: the stale click was refused (412) and the table refreshed");

  // A tab that comes back shows the game as it is now.
  await page.evaluate(async (position) => {
    const s = JSON.parse(localStorage.getItem("tripeaks.game"));
    await fetch(`/v1/games/${s.id}/play`, {
      method: "POST",
      headers: { Authorization: `Bearer ${s.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ position }),
    });
    document.dispatchEvent(new Event("visibilitychange"));
  }, order[next]);
  await waitVersion(page, ++v);
  next += 1;
  await check(run, page, "after the tab came back");

  // The rest by clicks, to the end.
  for (; next < order.length; next++) {
    await playByClick(page, order[next]);
    v += 1;
    if (next < order.length - 1) await check(run, page, `play ${order[next]}`);
  }
  await until(page, () => document.getElementById("end").open);
  ({ state, view } = await check(run, page, "end"));
  assert(state.status === "won", `the game is won, not ${state.status}`);
  assert(await page.evaluate(() => document.activeElement?.id === "again"), "focus moves to the end panel's first action");
  await until(page, () => /verified ✓/.test(document.getElementById("verify").textContent));
  const breakdown = await page.textContent("#breakdown");
  assert(/Streak points\s*406/.test(breakdown) && /Peak bonuses\s*\+60/.test(breakdown) && /Draw penalties\s*−5/.test(breakdown), `the score's breakdown: ${breakdown}`);
  await until(page, () => /cleared it/.test(document.getElementById("analysis-text").textContent));
  run.seen.final = {
    id: game.id,
    token: game.token,
    score: view.score,
    status: view.status,
    verify: await page.textContent("#verify"),
    end: await page.textContent("#end-title"),
    analysis: await page.textContent("#analysis-text"),
  };
  await run.shot(page, "desktop-won.png");
  await axe(run, page, "desktop, the end of a won game");
  run.step(`won: ${run.seen.final.end}; ${run.seen.final.verify}; ${run.seen.final.analysis}`);

  // The new-game panel: golf on a chosen deal number, options from the layout.
  await until(page, () => "armed" in document.getElementById("end").dataset);
  await page.click("#end-close");
  await page.keyboard.press("n");
  await page.waitForSelector("dialog#new-game[open]");
  assert(await page.isHidden("#ng-warning"), "no warning when no game is in progress");
  assert(await page.isChecked('input[name="preset"][value="relaxed"]') && (await page.isHidden("#custom-preset")), "the panel opens on the preset of the game's rules (undo: Relaxed)");
  await axe(run, page, "desktop, the new-game panel");
  await page.click('label.preset:has(input[value="golf"])');
  await openOptions(page);
  assert(!(await page.isChecked('input[name="wrap"]')), "golf starts without wrap");
  assert((await page.inputValue('select[name="scoring"]')) === "cards_left", "golf counts the cards left");
  await page.fill('input[name="deal_number"]', "5");
  await page.click("#ng-start");
  await page.waitForSelector("dialog#new-game", { state: "hidden" });
  await until(page, () => document.body.dataset.status === "in_progress" && document.getElementById("table").dataset.layout === "golf");
  ({ state } = await check(run, page, "golf"));
  assert(state.layout === "golf" && state.deal_number === 5 && state.rules.wrap === false, "golf deal 5 was dealt");
  assert(/#5/.test(await page.textContent("#game-sub")), "the chosen deal number is shown");
  await run.shot(page, "desktop-new-game-golf.png");
  run.step("new-game panel: golf, deal #5");

  // A game in progress: the panel warns before leaving it.
  await page.click("#stock");
  await waitVersion(page, 1);
  await page.click("#new-game-button");
  await page.waitForSelector("dialog#new-game[open]");
  assert(await page.isVisible("#ng-warning"), "the panel warns before abandoning a game in progress");
  assert(/Leave it/.test(await page.textContent("#ng-start")), "the deal button says the game is left");
  await page.click("#ng-cancel");

  // "New deal, same rules" keeps a winnable deal winnable. A winnable deal is a solver
  // search, and so is the analysis the end panel asked for: the server runs one a player
  // at a time, and the page waits for its analysis (within the server's budgets) before
  // asking, rather than be refused (503).
  await page.goto(`${base}/?winnable_only=1&undo=1`);
  await until(page, () => document.body.dataset.version === "0" && document.body.dataset.status === "in_progress", null, 20_000);
  await page.click("#concede");
  await page.click("#concede");
  await until(page, () => document.getElementById("end").open && "armed" in document.getElementById("end").dataset);
  const creating = page.waitForRequest((r) => r.url().endsWith("/v1/games") && r.method() === "POST", { timeout: 120_000 });
  await page.click("#again");
  const body = JSON.parse((await creating).postData());
  assert(body.winnable_only === true && body.rules?.undo === true, `the new deal keeps the rules and winnable_only: ${JSON.stringify(body)}`);
  await until(page, () => document.body.dataset.version === "0" && document.body.dataset.status === "in_progress", null, 20_000);
  run.step(`new deal, same rules: ${JSON.stringify(body)}`);

  // Six peaks from a link; concede ends it and the reveal checks against deal #3.
  await page.goto(`${base}/?layout=six_peaks&deal_number=3`);
  await until(page, () => document.getElementById("table").dataset.layout === "six_peaks" && document.body.dataset.version === "0");
  await check(run, page, "six peaks");
  await run.shot(page, "desktop-six-peaks.png");
  await page.click("#concede");
  await page.click("#concede");
  await until(page, () => document.body.dataset.status === "conceded");
  await check(run, page, "conceded");
  await until(page, () => /verified ✓/.test(document.getElementById("verify").textContent));
  await run.shot(page, "desktop-six-peaks-conceded.png");
  run.step(`six peaks deal #3 conceded: ${await page.textContent("#verify")}`);

  await context.close();
  await hints(run);
}

// A server with GET /v1/games/{id}/hint (its OpenAPI says so): the button is there and its
// answer, a suggested move and a win chance, is shown on the table, its chance as a range
// over its samples. (Stubbed here, so that the page is tested whatever this server has.)
async function hints(run) {
  const { base, deal, order } = run.config;
  const withHints = await run.context("desktop");
  await withHints.route("**/openapi.json", (route) =>
    route.fulfill({ json: { openapi: "3.1.0", paths: { "/v1/games/{game_id}/hint": { get: {} } } } }),
  );
  let samples = 64;
  let chance = 0.74;
  let ci = [0.6312, 0.8307]; // the server's interval; an older server sends none
  let at = 0; // the version the stub answers for
  await withHints.route("**/v1/games/*/hint", (route) =>
    route.fulfill({
      json: {
        game_id: "x",
        version: at,
        move: { move: `play ${order[0]}`, kind: "play", position: order[0], card: deal[order[0]] },
        win_chance: chance,
        ...(ci ? { win_chance_ci95: ci } : {}),
        samples,
        exact: false,
        unknown: 0,
      },
    }),
  );
  const page = await run.page(withHints);
  await openLink(page, base, `deal=${deal.join("-")}`);
  await page.waitForSelector("#hint", { state: "visible" });
  await page.keyboard.press("h");
  await page.waitForSelector(`#table .card.hinted[data-position="${order[0]}"]`);
  run.seen.hintMessage = await page.textContent("#message");
  assert(/Hint: play .*63–83% \(64 possible deals tried\)/.test(run.seen.hintMessage), `the hint's chance is the server's range: ${run.seen.hintMessage}`);
  // The hint's mark is not the focus ring: both show on a hinted card that has the focus.
  await page.focus(`#table .card[data-position="${order[0]}"]`);
  const looks = await page.evaluate((p) => {
    const el = document.querySelector(`#table .card[data-position="${p}"]`);
    const frame = getComputedStyle(el, "::before");
    return { hint: `${frame.borderTopStyle} ${frame.borderTopColor}`, focus: `${getComputedStyle(el).outlineStyle} ${getComputedStyle(el).outlineColor}`, focused: el.matches(":focus-visible") };
  }, order[0]);
  assert(looks.focused && looks.hint.startsWith("dashed") && looks.focus.startsWith("solid") && !looks.focus.endsWith(looks.hint.split(" ").slice(1).join(" ")), `the hint is drawn unlike the focus ring: ${JSON.stringify(looks)}`);
  await playByClick(page, order[0]);
  assert((await page.$$("#table .card.hinted")).length === 0, "the hint goes once a move is made");
  // Three samples, all won, from a server that gives no interval: no "100%".
  at = 1;
  samples = 3;
  chance = 1;
  ci = undefined;
  await page.keyboard.press("h");
  await until(page, () => /Hint:/.test(document.getElementById("message").textContent));
  const few = await page.textContent("#message");
  assert(!/100%/.test(few) && /over \d+% \(3 possible deals tried\)/.test(few), `a handful of samples is not a certainty: ${few}`);
  run.step(`hint shown: '${run.seen.hintMessage}', then '${few}'`);
  await withHints.close();

  // A server whose OpenAPI cannot be read: the button is offered, and goes on a 404.
  const noSpec = await run.context("desktop");
  await noSpec.route("**/openapi.json", (route) => route.fulfill({ status: 404, json: {} }));
  await noSpec.route("**/v1/games/*/hint", (route) =>
    route.fulfill({ status: 404, contentType: "application/problem+json", json: { type: "/problems/not-found", title: "Not found", status: 404, detail: "no resource" } }),
  );
  run.allowedErrors.push(/status of 404/);
  const probing = await run.page(noSpec);
  await openLink(probing, base, `deal=${deal.join("-")}`);
  await probing.click("#hint");
  await probing.waitForSelector("#hint", { state: "hidden" });
  assert(/no hints/.test(await probing.textContent("#message")), "a 404 says the server has no hints");
  run.step("no hint endpoint: the button goes");
  await noSpec.close();
}

// ------------------------------------------------------------------ a win at each size

export async function win(run) {
  const { base, deal, order, screen } = run.config;
  const context = await run.context(screen);
  const page = await run.page(context);
  // Upright, its one draw costs 400 of the 466 its plays earn: a win whose total is small,
  // which must still read as a win.
  const costly = screen === "portrait";
  await openLink(page, base, `${costly ? "draw_penalty=400&" : ""}deal=${deal.join("-")}`);
  const touch = screen !== "desktop";
  const act = (sel) => (touch ? page.tap(sel) : page.click(sel));
  assert(await page.evaluate(() => document.getElementById("undo-key").hidden), "no undo help where undo is not allowed");
  assert((await page.isVisible(".keys")) === !touch, `key help ${touch ? "hidden on a touch screen" : "shown with a keyboard"}`);
  // The table as the issue asks it drawn, at the start and halfway (cards gone, others
  // turned).
  run.seen.geometry = [assertGeometry(await geometry(page), screen, "the start")];
  await run.shot(page, `${screen}-table.png`);
  await watchMotion(page);
  let v = 0;
  await act("#stock");
  await waitVersion(page, ++v);
  for (const [i, p] of order.entries()) {
    await act(`#table .card[data-position="${p}"]`);
    await waitVersion(page, ++v);
    if (i === Math.floor(order.length / 2)) run.seen.geometry.push(assertGeometry(await geometry(page), screen, "halfway"));
  }
  await until(page, () => document.getElementById("end").open);
  const motion = await motionSeen(page);
  assert(motion.flying >= order.length && motion.points >= order.length && motion.flipped >= 18 && motion.confetti > 0, `cards fly, points rise, cards flip, a win rains cards: ${JSON.stringify(motion)}`);
  assert(motion.last === 1, `the last card's flight is the win's own: ${JSON.stringify(motion)}`);
  const { state } = await check(run, page, `${screen} won`);
  assert(state.status === "won", `won at ${screen}`);
  assert(await page.evaluate(() => document.activeElement?.id === "again"), "focus on the end panel's first action");
  await until(page, () => /verified ✓/.test(document.getElementById("verify").textContent));
  // The win is said as one: every card cleared, the total counted up to the server's, and
  // the player's record right after it (GET /v1/players/me).
  const meaning = await page.textContent("#end-meaning");
  assert(/All 28 cards cleared/.test(meaning), `a win says so: '${meaning}'`);
  if (costly) assert(state.score.total === 66 && /earned 466 points and the draws cost 400: a small total is still a win/.test(meaning), `a small total reads as a win: ${state.score.total}, '${meaning}'`);
  await until(page, (total) => document.getElementById("end-score").textContent === `${total} points`, state.score.total);
  await until(page, () => !document.getElementById("end-player").hidden);
  const record = await page.textContent("#end-player");
  const me = await apiAs(run.config.base, (await player(page)).key, "/v1/players/me");
  const line = me.stats.by_layout.find((l) => l.layout === "tripeaks");
  assert(record.includes(`${line.best_score}`) && /best/.test(record), `the player's record after the win: '${record}' for ${JSON.stringify(line)}`);
  // The end's analysis is a solver search, one an address at a time: this browser's own
  // address (lib.mjs) has no other, and the analysis comes with no 503 on the way.
  await until(page, () => /You cleared it/.test(document.getElementById("analysis-text").textContent), undefined, 90_000);
  await run.shot(page, `${screen}-won.png`);
  await axe(run, page, `${screen}, a win's end panel`);
  run.step(`${screen}: won by ${touch ? "taps" : "clicks"}; ${JSON.stringify(run.seen.geometry)}; '${meaning}' '${record}'`);
  await context.close();
}

// ------------------------------------------------------------------ a loss, and where the win went

export async function loss(run) {
  const { base, screen, deal_number: n } = run.config;
  const context = await run.context(screen);
  const page = await run.page(context);
  await openLink(page, base, `deal_number=${n}`);
  const touch = screen !== "desktop";
  const act = (sel) => (touch ? page.tap(sel) : page.click(sel));
  // Draw the whole stock first, then play what fits: a way to lose a winnable deal.
  for (;;) {
    const state = await apiState(page);
    if (state.status !== "in_progress") break;
    const before = state.version;
    const play = state.legal_moves.find((m) => m.kind === "play");
    if (state.stock_count > 0) await act("#stock");
    else if (play) await act(`#table .card[data-position="${play.position}"]`);
    else break;
    await waitVersion(page, before + 1);
  }
  await until(page, () => document.getElementById("end").open);
  const { state } = await check(run, page, `${screen} lost`);
  assert(state.status === "lost", `lost at ${screen}, not ${state.status}`);
  assert(/Lost/.test(await page.textContent("#status")), "the status says lost");
  await until(page, () => /slipped away|Nobody could/.test(document.getElementById("analysis-text").textContent), null, 30_000);
  const analysis = await page.textContent("#analysis-text");
  assert(/could be cleared.*slipped away at move \d+/.test(analysis), `the analysis says where the win was lost: ${analysis}`);
  await until(page, () => !document.getElementById("replay-wrap").hidden && document.querySelectorAll("#replay .card").length > 0);
  run.seen.lossAnalysis = analysis;
  await run.shot(page, `${screen}-lost.png`);
  if (screen === "desktop") await axe(run, page, "desktop, the end of a lost game");
  run.step(`${screen}: lost; ${analysis}`);
  await context.close();
}

// ------------------------------------------------------------------ the double tap

export async function doubleTap(run) {
  const { base, losing } = run.config;
  const context = await run.context("portrait");
  const page = await run.page(context);
  await openLink(page, base, `deal=${losing.join("-")}`);
  const id = (await session(page)).id;
  const stockCards = losing.length - 29;
  let box = null;
  for (let i = 1; i <= stockCards; i++) {
    box = await page.locator("#stock").boundingBox();
    await page.tap("#stock");
    await waitVersion(page, i);
  }
  await until(page, () => document.body.dataset.status === "lost");
  run.step("drew the last card: the game is lost");
  // The second tap of a double tap, where the stock was.
  await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
  await until(page, () => document.body.dataset.status === "in_progress" || "armed" in (document.getElementById("end").dataset ?? {}));
  const after = await session(page);
  assert(after.id === id && (await page.evaluate(() => document.body.dataset.status)) === "lost", "the second tap dealt a new game and skipped the summary");
  assert(await endShown(page), "the summary is shown");
  await run.shot(page, "portrait-lost-summary.png");
  // Armed, its first action deals a new game with the same rules.
  await page.tap("#again");
  await until(page, (old) => JSON.parse(localStorage.getItem("tripeaks.game")).id !== old && document.body.dataset.version === "0", id);
  run.step("a second tap after the last draw kept the summary; its button then dealt anew");
  await context.close();
}

// ------------------------------------------------------------------ hover on a touch screen

export async function touchHover(run) {
  const { base } = run.config;
  const context = await run.context("portrait");
  const page = await run.page(context);
  await openLink(page, base, "deal_number=1");
  await page.tap("#new-game-button");
  await page.waitForSelector("dialog#new-game[open]");
  await openOptions(page);
  await page.tap('input[name="dealkind"][value="number"]');
  await page.tap("#ng-start"); // no number given: refused, the panel stays
  await until(page, () => document.getElementById("ng-error").textContent.length > 0);
  const look = await page.evaluate(() => {
    const b = document.getElementById("ng-start");
    return { hovered: b.matches(":hover"), background: getComputedStyle(b).backgroundColor };
  });
  assert(look.hovered, "the tapped button is under the (emulated) finger");
  assert(look.background === ACCENT, `a tapped primary button keeps its colour, not ${look.background}`);
  run.step(`a tapped primary button stays ${look.background}`);
  await context.close();
}

// ------------------------------------------------------------------ rapid taps, slow network

export async function rapid(run) {
  const { base, deal, order } = run.config;
  const context = await run.context("desktop");
  // Every move takes 300 ms more to arrive (the route holds it, then sends it on).
  await context.route("**/v1/games/*/moves", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await route.continue();
  });
  const page = await run.page(context);
  await openLink(page, base, `deal=${deal.join("-")}`);
  // Three cards, each fitting on the one before, tapped while the first is on its way.
  for (const p of order.slice(0, 3)) await page.click(`#table .card[data-position="${p}"]`, { noWaitAfter: true });
  // Then three draws, tapped as fast.
  for (let i = 0; i < 3; i++) await page.click("#stock", { noWaitAfter: true });
  await waitVersion(page, 6, 15_000);
  await until(page, () => document.body.dataset.queued === "0");
  const moves = await apiMoves(page);
  const expected = [...order.slice(0, 3).map((p) => `play ${p}`), "draw", "draw", "draw"];
  assert(JSON.stringify(moves) === JSON.stringify(expected), `every tap applied once, in order: ${moves}`);
  await check(run, page, "after rapid taps");
  run.step(`six taps during 300 ms round trips: ${moves.join(", ")}`);
  await context.close();
}

// ------------------------------------------------------------------ a bad link

export async function badLink(run) {
  const { base } = run.config;
  const context = await run.context("desktop");
  const page = await run.page(context);
  await page.goto(`${base}/?layout=klondike`);
  await page.waitForSelector("dialog#new-game[open]");
  const said = await page.textContent("#ng-error");
  await page.click("#ng-cancel");
  await until(page, () => (document.body.dataset.version === "0" && document.querySelector("#table .card")) || undefined, null, 5_000).catch(() => null);
  const status = await page.textContent("#status");
  assert(!/Loading/.test(status) && (await page.evaluate(() => document.body.dataset.version === "0")), `after Cancel the page is left '${status}', with no game`);
  assert(said.length > 0 && !/expected one of|'klondike'/.test(said), `the error is said in words: '${said}'`);
  await check(run, page, "after a bad link and Cancel");
  run.step(`a bad link ('${said}'), then Cancel: a game`);
  // A deal of two cards: the server lists the 50 missing; the page says it in a sentence.
  run.allowedErrors.push(/status of 422/);
  await page.goto(`${base}/?deal=As-2s`);
  await page.waitForSelector("dialog#new-game[open]");
  await until(page, () => document.getElementById("ng-error").textContent.length > 0);
  const deal = await page.textContent("#ng-error");
  assert(/not a whole deck: 50 cards are missing/.test(deal) && (deal.match(/\b[2-9TJQKA][cdhs]\b/g) ?? []).length === 0, `a short deal said in words: '${deal}'`);
  run.step(`a short deal: '${deal}'`);
  // A link to a challenge that is not there: its page says so, and Done leaves a game.
  run.allowedErrors.push(/status of 404/);
  await page.goto(`${base}/?challenge=no-such-challenge`);
  await page.waitForSelector('dialog#challenge[open][data-mode="view"]');
  await until(page, () => /no challenge at that link/.test(document.getElementById("ch-error").textContent));
  assert(await page.isHidden("#ch-body"), "nothing of a challenge is shown");
  await page.click("#ch-done");
  await until(page, () => location.search === "" && document.querySelector("#table .card") && !/Loading/.test(document.getElementById("status").textContent));
  await check(run, page, "after a link to no challenge");
  run.step("a link to no challenge, then Done: a game");
  await context.close();
}

// ------------------------------------------------------------------ every layout, every screen

/** Every card of the table and the stock and waste, measured on the page. */
async function measure(page) {
  return page.evaluate(() => {
    const W = innerWidth;
    const H = innerHeight;
    const inside = (r) => r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5;
    const cards = [...document.querySelectorAll("#table .card")]
      .filter((b) => !b.hidden)
      .map((b) => {
        const r = b.getBoundingClientRect();
        const corner = b.querySelector(".corner");
        let legible = true;
        let font = null;
        if (corner) {
          const c = corner.getBoundingClientRect();
          font = parseFloat(getComputedStyle(corner).fontSize);
          const cx = c.left + c.width / 2;
          const cy = c.top + c.height / 2;
          const hit = inside(c) ? document.elementFromPoint(cx, cy) : null;
          legible = font >= 12 && c.left >= r.left - 0.5 && c.right <= r.right + 0.5 && (hit === b || b.contains(hit));
        }
        return { p: Number(b.dataset.position), w: r.width, h: r.height, inside: inside(r), legible, font, left: r.left, right: r.right };
      });
    const piles = ["#stock", "#waste"].map((s) => inside(document.querySelector(s).getBoundingClientRect()));
    return { cards, piles, scrollWidth: document.documentElement.scrollWidth, W, H };
  });
}

export async function fitAll(run) {
  const { base } = run.config;
  const layouts = (await (await fetch(`${base}/v1/layouts`)).json()).layouts.map((l) => l.name);
  const report = [];
  for (const screen of ["desktop", "portrait", "landscape", "small"]) {
    // Without motion: a pan then moves the table at once (and the page's reduced-motion
    // path is played through).
    const context = await run.context(screen, { reducedMotion: "reduce" });
    const page = await run.page(context);
    const phone = screen !== "desktop";
    for (const name of layouts) {
      await openLink(page, base, `layout=${name}&deal_number=1&open_peaks=1`);
      await page.evaluate(() => scrollTo(0, 0));
      const figures = assertGeometry(await geometry(page), screen, name);
      const m = await measure(page);
      const where = `${name} at ${screen} (${m.W}x${m.H})`;
      assert(m.scrollWidth <= m.W, `${where}: the page is wider than the screen (${m.scrollWidth})`);
      assert(m.piles.every(Boolean), `${where}: the stock and waste are on the screen`);
      // A card 36 px wide (and 1.4 times as tall) is tapped as it is: TriPeaks' ten
      // across a phone of 390 px are 39 px, with no pan.
      const small = m.cards.filter((c) => c.w < 36);
      const out = m.cards.filter((c) => !c.inside);
      assert(out.length === 0, `${where}: cards off the screen: ${out.map((c) => c.p).join(" ")}`);
      const blurred = m.cards.filter((c) => !c.legible);
      assert(blurred.length === 0, `${where}: rank and suit not legible on ${blurred.map((c) => `${c.p} (${c.font}px)`).join(" ")}`);
      const width = Math.min(...m.cards.map((c) => c.w));
      let via = "fits";
      if (phone && small.length) {
        // Too small a tap target: the page must offer bigger cards, and a pan to reach them.
        assert(await page.isVisible("#zoom"), `${where}: cards ${width.toFixed(1)} px and no zoom offered`);
        await page.tap("#zoom");
        await until(page, () => document.body.classList.contains("zoomed"));
        // What the table shows is its scrolling box (the pan's buttons are beside it).
        const view = await page.locator("#table-wrap").boundingBox();
        const left = Math.max(0, view.x);
        const right = Math.min(m.W, view.x + view.width);
        for (const c of m.cards) {
          for (let i = 0; i < 20; i++) {
            const r = await page.locator(`#table .card[data-position="${c.p}"]`).boundingBox();
            if (r.x >= left - 0.5 && r.x + r.width <= right + 0.5) break;
            const side = r.x < left ? "#pan-left" : "#pan-right";
            // The table may still be settling (Chromium snaps its scroll to a card a frame
            // after the zoom, and the pan controls follow the scroll event): shown soon.
            const shown = await page
              .locator(side)
              .waitFor({ state: "visible", timeout: 2000 })
              .then(() => true, () => false);
            assert(shown, `${where}: card ${c.p} is off screen and ${side} is not shown`);
            await page.tap(side);
            await page.waitForFunction(
              ([sel, x]) => Math.abs(document.querySelector(sel).getBoundingClientRect().x - x) > 1,
              [`#table .card[data-position="${c.p}"]`, r.x],
            );
          }
          const r = await page.locator(`#table .card[data-position="${c.p}"]`).boundingBox();
          assert(r.x >= left - 0.5 && r.x + r.width <= right + 0.5 && r.y >= -0.5 && r.y + r.height <= m.H + 0.5, `${where}: card ${c.p} not reachable by panning`);
          assert(Math.min(r.width, r.height) >= 40, `${where}: zoomed card ${c.p} is ${r.width.toFixed(1)} px`);
          // The pan's buttons sit beside the table: none covers a card the table shows.
          const g = await geometry(page);
          // A card shows as far as the scrolling box clips it.
          const shownCards = g.cards
            .map((k) => ({ ...k, left: Math.max(k.left, left), right: Math.min(k.right, right) }))
            .filter((k) => k.right > k.left + 0.5);
          for (const pan of g.controls.filter((k) => k.id.startsWith("pan-"))) {
            const under = shownCards.filter((k) => overlaps(k, pan));
            assert(under.length === 0, `${where}: ${pan.id} covers card(s) ${under.map((k) => k.p).join(" ")}`);
          }
        }
        await run.shot(page, `${screen}-${name}-zoomed.png`);
        await page.tap("#zoom");
        await until(page, () => !document.body.classList.contains("zoomed"));
        via = `zoom and pan (fitted ${width.toFixed(1)} px)`;
      }
      await run.shot(page, `${screen}-${name}.png`);
      // A move or two at this size, checked against the API.
      await watchMotion(page);
      const state = await apiState(page);
      const play = state.legal_moves.find((mv) => mv.kind === "play");
      const target = play ? `#table .card[data-position="${play.position}"]` : "#stock";
      if (phone) await page.tap(target);
      else await page.click(target);
      await waitVersion(page, 1);
      await check(run, page, where);
      const motion = await motionSeen(page);
      assert(Object.values(motion).every((n) => n === 0), `${where}: motion under prefers-reduced-motion: ${JSON.stringify(motion)}`);
      report.push(`${where}: cards ${width.toFixed(1)} px wide, ${via}; rank ${figures.rank} px, table ${Math.round(100 * figures.tableShare)}% of the height`);
    }
    if (phone) await axe(run, page, `${screen}, a game`);
    await context.close();
  }
  run.seen.fit = report;
  // The figures, beside the screenshots (docs/web-client.md quotes them).
  writeFileSync(join(run.config.screenshots, "fit.txt"), `${report.join("\n")}\n`);
  run.step(report.join("; "));
}

// ------------------------------------------------------------------ the daily challenge

export async function daily(run) {
  const { base } = run.config;
  const context = await run.context("portrait");
  const page = await run.page(context);
  await page.goto(base);
  await until(page, () => document.body.dataset.version === "0");
  const player = await page.evaluate(() => JSON.parse(localStorage.getItem("tripeaks.player")));
  assert(player && /^tpk\./.test(player.key), "the first visit made a player and kept its key");
  const first = await apiState(page);
  assert(first.player_id === player.id, "the first game is the player's");
  await page.tap("#new-game-button");
  await page.waitForSelector("dialog#new-game[open]");
  await page.tap('label.preset:has(input[value="daily"])');
  // Before the tap, the page says what a new account's result counts for.
  await until(page, () => /Today's challenge \(.*provisional/.test(document.getElementById("ng-daily").textContent));
  await run.shot(page, "portrait-new-game.png");
  await page.tap("#ng-start");
  await page.waitForSelector("dialog#new-game", { state: "hidden", timeout: 20_000 });
  await until(page, () => /Daily challenge/.test(document.getElementById("game-sub").textContent) && document.body.dataset.version === "0");
  let state = await apiState(page);
  assert(state.challenge && state.challenge.ranked, "a ranked daily challenge game");
  assert(await page.isHidden("#hint"), "no hint button in a ranked game");
  // A few moves by taps, then concede: the result is ranked (it ends within the day),
  // provisional (the account is new) and apart until the server's fair-play check,
  // minutes later, finds it fair; the end screen says so, then shows it in its place.
  for (let i = 0; i < 4; i++) {
    state = await apiState(page);
    const play = state.legal_moves.find((m) => m.kind === "play");
    await page.tap(play ? `#table .card[data-position="${play.position}"]` : "#stock");
    await waitVersion(page, i + 1);
  }
  await check(run, page, "daily");
  await run.shot(page, "portrait-daily.png");
  await page.tap("#concede");
  await page.tap("#concede");
  await until(page, () => document.getElementById("end").open);
  await until(page, () => /ranked \d+ of \d+|provisional/.test(document.getElementById("rank-text").textContent));
  const apart = await page.textContent("#rank-text");
  if (/provisional/.test(apart)) {
    await run.shot(page, "portrait-daily-provisional.png");
    run.step(`daily challenge conceded: ${apart}`);
  }
  await until(page, () => /ranked \d+ of \d+/.test(document.getElementById("rank-text").textContent), undefined, 120_000);
  const rank = await page.textContent("#rank-text");
  assert(/ranked 1 of 1/.test(rank), `the player's rank: ${rank}`);
  assert((await page.$$("#rank-list li.me")).length === 1, "the player's line on the board");
  assert(/revealed after/.test(await page.textContent("#verify")), "the deal stays secret until the day is over");
  await run.shot(page, "portrait-daily-leaderboard.png");
  run.step(`daily challenge conceded: ${rank}`);

  // Statistics and the games list; the first game resumes from it.
  await until(page, () => "armed" in document.getElementById("end").dataset);
  await page.tap("#end-close");
  await page.tap("#player-button");
  await page.waitForSelector("dialog#player-panel[open]");
  await until(page, () => document.querySelectorAll("#pp-games li button").length >= 2);
  const stats = await page.textContent("#pp-stats");
  assert(/Played\s*1/.test(stats), `statistics count the ended game: ${stats}`);
  await run.shot(page, "portrait-player.png");
  await page.tap(`#pp-games button[data-game="${first.id}"]`);
  await until(page, (id) => JSON.parse(localStorage.getItem("tripeaks.game")).id === id && document.body.dataset.status === "in_progress", first.id);
  await check(run, page, "resumed from the games list");
  run.step(`player panel: ${stats.replace(/\s+/g, " ")}; resumed the first game`);
  await context.close();
}

// ------------------------------------------------------------------ challenges among friends

/** The lines of a board (board.js) as the page shows them. */
async function boardLines(page, root) {
  return page.evaluate((root) =>
    [...document.querySelectorAll(`${root} .board-list li:not(.gap)`)].map((li) => ({
      player: li.dataset.player,
      me: li.classList.contains("me"),
      text: [...li.querySelectorAll(":scope > span, .who > span")].filter((c) => !c.classList.contains("who")).map((c) => c.textContent.trim()).join(" | "),
      button: li.querySelector("button")?.textContent ?? null,
    })), root);
}

/** Ada sets a challenge and copies its link; Bea, a fresh browser (a new player), opens
 * the link and plays it; Bea follows Ada from the board and reads it among the people she
 * follows, then unfollows; Ada closes it, and Bea practises its deal. */
export async function friends(run) {
  const { base, screen } = run.config;
  const touch = screen !== "desktop";
  const act = (page, sel) => (touch ? page.tap(sel) : page.click(sel));

  // Ada: a first visit, then the new-game panel's way to set a challenge.
  const adaContext = await run.context(screen, { permissions: ["clipboard-read", "clipboard-write"] });
  const ada = await run.page(adaContext);
  await ada.goto(base);
  await until(ada, () => document.body.dataset.version === "0");
  const adaMe = await player(ada);
  await apiAs(base, adaMe.key, "/v1/players/me", { method: "PATCH", body: { name: "Ada" } });
  await act(ada, "#new-game-button");
  await ada.waitForSelector("dialog#new-game[open]");
  await act(ada, "#ng-challenge");
  await ada.waitForSelector('dialog#challenge[open][data-mode="set"]');
  await until(ada, () => document.getElementById("ch-layout").options.length >= 3);
  await ada.fill("#ch-name", "Friday race");
  await ada.selectOption("#ch-hours", "24");
  await ada.selectOption("#ch-attempts", "2");
  await ada.selectOption("#ch-tier", "easy");
  await run.shot(ada, `${screen}-challenge-set.png`);
  await axe(run, ada, `${screen}, the form that sets a challenge`);
  await act(ada, "#ch-submit");
  await ada.waitForSelector("#ch-view:not([hidden]) #ch-share:not([hidden])", { timeout: 30_000 });
  const link = await ada.inputValue("#ch-link");
  const id = new URL(link).searchParams.get("challenge");
  assert(link === `${base}/?challenge=${id}` && id, `the challenge's link: ${link}`);
  let c = await apiAs(base, null, `/v1/challenges/${id}`);
  assert(c.name === "Friday race" && c.attempts === 2 && c.status === "open" && c.kind === "set" && c.creator_id === adaMe.id, `the challenge set: ${JSON.stringify(c)}`);
  assert(c.winnable_only && Math.abs(new Date(c.closes_at) - Date.now() - 24 * 3600_000) < 120_000, `open for a day: ${c.closes_at}`);
  assert(c.tier === "easy" && c.difficulty === null, `drawn easy, its measure shown once closed: ${c.tier}, ${JSON.stringify(c.difficulty)}`);
  assert((await ada.textContent("#ch-invite")) === c.invite_code && /^[0-9A-Z]{5}-[0-9A-Z]{5}$/.test(c.invite_code), "the invite code is shown");
  assert(await ada.isVisible("#ch-set-note"), "the page says the challenge is set");
  await act(ada, "#ch-copy");
  await until(ada, () => /copied/i.test(document.getElementById("ch-copied").textContent));
  const copied = await ada.evaluate(() => navigator.clipboard.readText());
  assert(copied === link, `the clipboard holds the link: ${copied}`);
  await run.shot(ada, `${screen}-challenge-link.png`);
  run.step(`Ada set "${c.name}" (${id}, code ${c.invite_code}) and copied its link`);

  // The invite code names the same challenge.
  const byCode = await apiAs(base, null, `/v1/challenges/invites/${c.invite_code.toLowerCase()}`);
  assert(byCode.id === id, "the invite code opens the challenge");

  // Ada plays her first attempt: ranked, no hints, the board at its end.
  await act(ada, "#ch-play");
  await ada.waitForSelector("dialog#challenge", { state: "hidden" });
  await until(ada, () => /Friday race/.test(document.getElementById("game-sub").textContent) && document.body.dataset.version === "0");
  let state = await apiState(ada);
  assert(state.challenge?.id === id && state.challenge.ranked && state.player_id === adaMe.id, `Ada's attempt: ${JSON.stringify(state.challenge)}`);
  assert(await ada.isHidden("#hint"), "no hints in a ranked challenge game");
  await playThenConcede(ada, 3, touch);
  await until(ada, () => /ranked 1 of 1/.test(document.getElementById("rank-text").textContent));
  assert(/challenge's leaderboard/.test(await ada.textContent("#rank-title")), "the end shows the challenge's board");
  assert(/Back to the challenge/.test(await ada.textContent("#again")), "the end leads back to the challenge");
  assert(/revealed after the challenge closes/.test(await ada.textContent("#verify")), "the deal stays secret until it closes");
  run.step("Ada played and conceded: ranked 1 of 1");

  // Bea: a fresh browser opens the link: the challenge's page, no game dealt.
  const beaContext = await run.context(screen);
  const bea = await run.page(beaContext);
  await bea.goto(link);
  await bea.waitForSelector('dialog#challenge[open][data-mode="view"]');
  const beaMe = await player(bea);
  assert(beaMe && beaMe.id !== adaMe.id, "the link made Bea a player of her own");
  await apiAs(base, beaMe.key, "/v1/players/me", { method: "PATCH", body: { name: "Bea" } });
  await until(bea, () => /Ada/.test(document.getElementById("ch-facts").textContent) && document.querySelectorAll("#ch-board .board-list li").length === 1);
  const page = await bea.evaluate(() => ({
    title: document.getElementById("ch-title").textContent,
    when: document.getElementById("ch-when").textContent,
    facts: document.getElementById("ch-facts").textContent.replace(/\s+/g, " "),
    play: document.getElementById("ch-play").textContent,
    creator: !document.getElementById("ch-close-now").hidden,
    game: localStorage.getItem("tripeaks.game"),
  }));
  assert(page.title === "Friday race" && /closes in 2[34] hours/.test(page.when), `the challenge's page: ${JSON.stringify(page)}`);
  assert(/TriPeaks/.test(page.facts) && /Attempts\s*best of 2/.test(page.facts) && /Entries\s*1/.test(page.facts) && /Set by\s*Ada/.test(page.facts) && /Drawn\s*an easy deal/.test(page.facts), `its facts: ${page.facts}`);
  assert(page.play === "Play it" && !page.creator && page.game === null, `a play button, no setter's actions, no game dealt: ${JSON.stringify(page)}`);
  assert(new URL(bea.url()).searchParams.get("challenge") === id, "the address names the challenge while its page is open");
  await run.shot(bea, `${screen}-challenge-page.png`);
  await axe(run, bea, `${screen}, a challenge's page from its link`);
  run.step(`Bea opened the link: ${page.when} ${page.facts}`);

  await act(bea, "#ch-play");
  await bea.waitForSelector("dialog#challenge", { state: "hidden" });
  await until(bea, () => document.body.dataset.version === "0" && /Friday race/.test(document.getElementById("game-sub").textContent));
  assert((await bea.evaluate(() => location.search)) === "", "the query is dropped once the game starts");
  state = await apiState(bea);
  assert(state.challenge?.id === id && state.player_id === beaMe.id, "Bea's attempt is hers");
  await check(run, bea, "Bea's attempt");
  await playThenConcede(bea, 1, touch);
  await until(bea, () => /ranked \d of 2/.test(document.getElementById("rank-text").textContent) && document.querySelectorAll("#rank-list li").length === 2);
  let lines = await boardLines(bea, "#ranking");
  const adaLine = lines.find((l) => l.player === adaMe.id);
  assert(adaLine && /Ada/.test(adaLine.text) && adaLine.button === "Follow" && lines.find((l) => l.me)?.button === null, `Ada's line has a follow button, Bea's none: ${JSON.stringify(lines)}`);

  // Bea follows Ada from the board, then reads it among the people she follows.
  await act(bea, `#ranking li[data-player="${adaMe.id}"] button.follow`);
  await until(bea, (ada) => document.querySelector(`#ranking li[data-player="${ada}"] button`)?.textContent === "Unfollow", adaMe.id);
  let following = await apiAs(base, beaMe.key, "/v1/players/me/following");
  assert(following.count === 1 && following.following[0].player_id === adaMe.id && following.following[0].name === "Ada", `Bea follows Ada: ${JSON.stringify(following)}`);
  await act(bea, '#ranking .board-toggle button[data-among="following"]');
  await until(bea, () => /among you and the 1 player you follow/.test(document.getElementById("rank-text").textContent) && document.querySelectorAll("#rank-list li").length === 2);
  const among = await apiAs(base, beaMe.key, `/v1/challenges/${id}/leaderboard?among=following`);
  lines = await boardLines(bea, "#ranking");
  assert(among.ranked === 2 && lines.length === among.entries.length, `the board among those followed: ${JSON.stringify(among)}`);
  among.entries.forEach((e, i) => {
    const l = lines[i];
    // (A provisional mark may come off between the two reads: the server's check ran.)
    const text = l.text.replace(" · provisional", "");
    assert(l.player === e.player_id && text.startsWith(`#${e.rank} | `) && text.includes(` | ${e.moves} moves · #${e.global_rank} overall | ${String(e.score).replace("-", "−")}`), `line ${i}: ${l.text} for ${JSON.stringify(e)}`);
  });
  assert(await bea.evaluate(() => document.querySelector('#ranking .board-toggle button[data-among="following"]').getAttribute("aria-pressed") === "true"), "the toggle says which board");
  await run.shot(bea, `${screen}-board-following.png`);
  await axe(run, bea, `${screen}, the board among those followed`);
  run.step(`among following: ${lines.map((l) => l.text).join(" | ")}`);

  // Unfollow from the same board: only Bea is left on it.
  await act(bea, `#ranking li[data-player="${adaMe.id}"] button.follow`);
  await until(bea, () => /follow nobody yet/.test(document.getElementById("rank-text").textContent) && document.querySelectorAll("#rank-list li").length === 1);
  following = await apiAs(base, beaMe.key, "/v1/players/me/following");
  assert(following.count === 0, "Bea no longer follows Ada");
  run.step("Bea unfollowed Ada");

  // Ada goes back to the challenge: her second attempt is offered; she closes it.
  await act(ada, "#again");
  await ada.waitForSelector('dialog#challenge[open][data-mode="view"]');
  await until(ada, () => /Play again \(attempt 2 of 2\)/.test(document.getElementById("ch-play").textContent));
  assert(/played 1 of 2 attempts/.test(await ada.textContent("#ch-entry")), "Ada's entry is shown");
  await act(ada, "#ch-close-now");
  await until(ada, () => /Sure/.test(document.getElementById("ch-close-now").textContent));
  await act(ada, "#ch-close-now");
  await until(ada, () => /^Closed/.test(document.getElementById("ch-when").textContent) && !document.getElementById("ch-practise").hidden);
  assert(await ada.isHidden("#ch-play") && (await ada.isHidden("#ch-close-now")), "a closed challenge offers practice, not play");
  c = await apiAs(base, null, `/v1/challenges/${id}`);
  assert(c.status === "closed" && c.reveal && c.entries === 2, `closed and revealed: ${JSON.stringify(c)}`);
  assert(c.difficulty?.tier === "easy", `closed, its deal's measure shown: ${JSON.stringify(c.difficulty)}`);
  await until(ada, () => /Difficulty\s*easy: the hint won \d+ of \d+ games/.test(document.getElementById("ch-facts").textContent));
  run.step("Ada closed the challenge");
  await adaContext.close();

  // Bea finds it among her challenges, and practises its deal.
  await until(bea, () => "armed" in document.getElementById("end").dataset);
  await act(bea, "#end-close");
  await act(bea, "#player-button");
  await bea.waitForSelector("dialog#player-panel[open]");
  await act(bea, `#pp-challenges button[data-challenge="${id}"]`);
  await bea.waitForSelector('dialog#challenge[open][data-mode="view"]');
  await until(bea, () => !document.getElementById("ch-practise").hidden);
  await act(bea, "#ch-practise");
  await bea.waitForSelector("dialog#challenge", { state: "hidden" });
  await until(bea, () => /Practice · Friday race/.test(document.getElementById("game-sub").textContent) && document.body.dataset.version === "0");
  state = await apiState(bea);
  assert(state.practice?.challenge_id === id && !state.challenge && state.commitment === c.commitment, `a practice game of its deal: ${JSON.stringify(state.practice)}`);
  await playThenConcede(bea, 2, touch);
  state = await apiState(bea);
  assert(state.practice.rank >= 1 && state.practice.ranked === 2, `the practice compared: ${JSON.stringify(state.practice)}`);
  const suffix = { 1: "st", 2: "nd", 3: "rd" }[state.practice.rank];
  await until(bea, () => !document.getElementById("practice-text").hidden);
  const practice = await bea.textContent("#practice-text");
  const said = state.practice.rank > 2 ? `would have ranked 3rd, after all 2 results` : `would have ranked ${state.practice.rank}${suffix} of 2`;
  assert(practice.includes(said), `the practice's comparison: ${practice}, not '${said}'`);
  await until(bea, () => /verified ✓/.test(document.getElementById("verify").textContent));
  await run.shot(bea, `${screen}-practice-end.png`);
  run.step(`practice: ${practice}`);
  run.seen.challenge = id;
  run.seen.players = { ada: adaMe.id, bea: beaMe.id };
  await beaContext.close();
}

/** The player page: a daily played makes a streak of one day; the badges (a month of
 * daily wins each, which no test can play) are added to the server's answer here. */
export async function streak(run) {
  const { base, screen } = run.config;
  const touch = screen !== "desktop";
  const act = (page, sel) => (touch ? page.tap(sel) : page.click(sel));
  const context = await run.context(screen);
  const now = new Date();
  const month = (back) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7);
  const badges = [
    { layout: "tripeaks", month: month(1), tier: "silver", wins: 22 },
    { layout: "tripeaks", month: month(2), tier: "bronze", wins: 12 },
    { layout: "golf", month: month(3), tier: "gold", wins: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 0)).getUTCDate() },
  ];
  await context.route("**/v1/players/me", async (route) => {
    if (route.request().method() !== "GET") return route.continue();
    const response = await route.fetch();
    const json = await response.json();
    await route.fulfill({ response, json: { ...json, badges: [...json.badges, ...badges] } });
  });
  const page = await run.page(context);
  await page.goto(base);
  await until(page, () => document.body.dataset.version === "0");
  const me = await player(page);
  await act(page, "#new-game-button");
  await page.waitForSelector("dialog#new-game[open]");
  await act(page, 'label.preset:has(input[value="daily"])');
  await act(page, "#ng-start");
  await page.waitForSelector("dialog#new-game", { state: "hidden", timeout: 20_000 });
  await until(page, () => /Daily challenge/.test(document.getElementById("game-sub").textContent) && document.body.dataset.version === "0");
  await playThenConcede(page, 2, touch);
  // The end says the streak of days as the game left it.
  await until(page, () => /Daily challenge: 1 day played in a row \(longest 1\)/.test(document.getElementById("end-player").textContent));
  // A new account's result: ranked apart until the server's fair-play check finds it fair.
  await until(page, () => /ranked \d+ of \d+/.test(document.getElementById("rank-text").textContent), undefined, 120_000);
  await act(page, "#end-close");
  await act(page, "#player-button");
  await page.waitForSelector("dialog#player-panel[open]");
  await until(page, () => document.querySelector('#pp-daily table[data-layout="tripeaks"]') && document.querySelectorAll("#pp-badges li.badge").length === 3 && document.querySelectorAll("#pp-games li button").length >= 2);
  const real = await apiAs(base, me.key, "/v1/players/me");
  const daily = real.daily.find((d) => d.layout === "tripeaks");
  assert(daily && daily.played_streak === 1 && daily.played_longest === 1 && daily.won_streak === 0, `the server counts the day: ${JSON.stringify(real.daily)}`);
  const cells = await page.evaluate(() =>
    [...document.querySelectorAll('#pp-daily table[data-layout="tripeaks"] tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent.trim())),
  );
  assert(JSON.stringify(cells) === JSON.stringify([["Played", String(daily.played_streak), String(daily.played_longest)], ["Won", String(daily.won_streak), String(daily.won_longest)]]), `the streaks shown: ${JSON.stringify(cells)}`);
  assert(await page.evaluate(() => document.querySelector("#pp-daily tbody tr td .lit") !== null), "a current streak is lit");
  // Right after a game, its best score: the layout's (the overall line mixes schemes and
  // has none; the page said "Best score –").
  const line = real.stats.by_layout.find((l) => l.layout === "tripeaks" && l.scoring === "classic");
  const stats = (await page.innerText("#pp-stats")).replace(/\s+/g, " ");
  assert(line && line.best_score != null && stats.includes(`Best · TriPeaks ${line.best_score}`) && !/–/.test(stats), `the best score shown: '${stats}' for ${JSON.stringify(line)}`);
  const shownBadges = await page.$$eval("#pp-badges li.badge", (lis) => lis.map((li) => `${li.className}: ${li.innerText.replace(/\s+/g, " ")}`));
  assert(/silver: Silver TriPeaks \w+ \d{4} · 22 wins/.test(shownBadges[0]) && /gold: Gold Golf/.test(shownBadges[2]), `the badges: ${shownBadges}`);
  assert(/\(daily\)/.test(await page.textContent("#pp-games")), "the daily game is listed as one");
  await run.shot(page, `${screen}-player-streak.png`);
  await axe(run, page, `${screen}, the player page with streaks and badges`);
  run.step(`player page: ${JSON.stringify(cells)}; ${shownBadges.join("; ")}`);
  await context.close();
}

// ------------------------------------------------------------------ events

/** What the event's page shows: title, when, facts, rules, the player's entry, rounds. */
async function eventPage(page) {
  return page.evaluate(() => {
    const text = (id) => document.getElementById(id).textContent.replace(/\s+/g, " ").trim();
    return {
      title: text("ev-title"),
      when: text("ev-when"),
      facts: document.getElementById("ev-facts").innerText.replace(/\s+/g, " ").trim(),
      rules: [...document.querySelectorAll("#ev-rules li")].map((li) => li.textContent),
      entry: document.getElementById("ev-entry").hidden ? "" : text("ev-entry"),
      join: !document.getElementById("ev-join").hidden,
      rounds: [...document.querySelectorAll("#ev-rounds li")].map((li) => ({
        round: Number(li.dataset.round),
        text: li.innerText.replace(/\s+/g, " "),
        mine: li.querySelector(".mine")?.textContent ?? null,
        button: li.querySelector("button")?.textContent ?? null,
      })),
    };
  });
}

/** The events the server runs (the test made them through the operator's API, the
 * league with five entrants before this player): the list of those running; a weekly golf
 * event whose rounds open one a day; then the league: joined (sixth, so in the second
 * cohort of three), its first round played, the cohort's board at the end checked against
 * the API's (and the whole board's), and back to the event with the round's best. */
export async function events(run) {
  const { base, screen, event: eventId, golf: golfId } = run.config;
  const touch = screen !== "desktop";
  const act = (page, sel) => (touch ? page.tap(sel) : page.click(sel));
  const context = await run.context(screen);
  const page = await run.page(context);
  await page.goto(base);
  await until(page, () => document.body.dataset.version === "0");
  const me = await player(page);
  await apiAs(base, me.key, "/v1/players/me", { method: "PATCH", body: { name: "Zoe" } });

  // The events running now, from the new-game panel: the API's list, in its order.
  await act(page, "#new-game-button");
  await page.waitForSelector("dialog#new-game[open]");
  await act(page, "#ng-events");
  await page.waitForSelector('dialog#events[open][data-mode="list"]');
  const listed = (await apiAs(base, null, "/v1/events?state=running&kind=human")).events;
  const event = listed.find((e) => e.id === eventId);
  assert(event && listed.some((e) => e.id === golfId), `both events are running: ${listed.map((e) => e.name)}`);
  await until(page, (n) => document.querySelectorAll("#ev-list li[data-entrants]").length === n, listed.length);
  const items = await page.$$eval("#ev-list li", (lis) => lis.map((li) => ({ id: li.dataset.event, text: li.innerText.replace(/\s+/g, " ") })));
  assert(JSON.stringify(items.map((i) => i.id)) === JSON.stringify(listed.map((e) => e.id)), `the list is the API's: ${JSON.stringify(items)}`);
  const number = event.current_edition;
  let edition = await apiAs(base, null, `/v1/events/${eventId}/editions/${number}`);
  const item = items.find((i) => i.id === eventId).text;
  assert(
    item.includes(event.name) && /TriPeaks · 3 rounds · ends in (48 hours|2 days)/.test(item) && item.includes(`${edition.entrants} players · cohorts of 3`),
    `the league in the list: ${item} (${edition.entrants} entrants)`,
  );
  const golfItem = items.find((i) => i.id === golfId).text;
  assert(/Golf · 3 rounds · ends in \d+ days/.test(golfItem) && /one board/.test(golfItem), `the golf week in the list: ${golfItem}`);
  await run.shot(page, `${screen}-events.png`);
  await axe(run, page, `${screen}, the events running`);
  run.step(`events listed: ${items.map((i) => i.text).join(" | ")}`);

  // The golf week: rounds open one a day, the later ones say when; no join (a round enters).
  await act(page, `#ev-list button[data-event="${golfId}"]`);
  await page.waitForSelector('dialog#events[data-mode="event"]');
  await until(page, () => document.querySelectorAll("#ev-rounds li").length === 3);
  const golfEvent = listed.find((e) => e.id === golfId);
  const golfEdition = await apiAs(base, null, `/v1/events/${golfId}/editions/${golfEvent.current_edition}`);
  let view = await eventPage(page);
  assert(view.title === "Golf week" && !view.join && view.rules.includes("Your first round enters you."), `the golf week: ${JSON.stringify(view)}`);
  assert(view.rules.some((r) => r.startsWith("3 rounds of Golf, one more opening each day")), `its rules: ${view.rules}`);
  for (const r of golfEdition.rounds) {
    const shownRound = view.rounds.find((x) => x.round === r.round);
    if (new Date(r.opens_at) > Date.now()) {
      const hours = Math.round((new Date(r.opens_at) - Date.now()) / 3600_000);
      assert(shownRound.button === null && new RegExp(`opens in (${hours - 1}|${hours}|${hours + 1}) hours|opens in \\d+ minutes?|opens in \\d days|opens tomorrow`).test(shownRound.text), `round ${r.round} opens later (${r.opens_at}): ${shownRound.text}`);
    } else {
      assert(shownRound.button === `Play round ${r.round}` && /open · 1 played it/.test(shownRound.text), `round ${r.round} is open: ${shownRound.text}`);
    }
  }
  await page.locator("#ev-rounds").scrollIntoViewIfNeeded();
  await run.shot(page, `${screen}-event-rounds-later.png`);
  run.step(`golf week: ${view.rounds.map((r) => r.text).join(" | ")}`);
  await act(page, "#ev-back");
  await page.waitForSelector('dialog#events[data-mode="list"]');

  // The league: its rules in words, then joined.
  await until(page, (id) => document.querySelector(`#ev-list button[data-event="${id}"]`), eventId);
  await act(page, `#ev-list button[data-event="${eventId}"]`);
  await page.waitForSelector('dialog#events[data-mode="event"]');
  await until(page, () => !document.getElementById("ev-join").hidden && document.querySelectorAll("#ev-rounds li").length === 3);
  view = await eventPage(page);
  assert(view.title === event.name && /^Open: ends in (48 hours|2 days)/.test(view.when), `the league's page: ${view.title}, ${view.when}`);
  assert(/Layout TriPeaks/.test(view.facts) && /Rounds 3/.test(view.facts) && /Tries a round best of 2/.test(view.facts) && view.facts.includes(`Players ${edition.entrants}`) && /Cohorts 3 players/.test(view.facts), `its facts: ${view.facts}`);
  for (const words of ["3 rounds of TriPeaks, all open at once", "Up to 2 tries at each round", "cohorts of 3", "Join, then play the rounds in any order."]) {
    assert(view.rules.some((r) => r.includes(words)), `its rules say "${words}": ${view.rules}`);
  }
  assert(view.rounds.every((r) => r.button === null) && /Join to play/.test(view.entry), `no round to play before joining: ${JSON.stringify(view)}`);
  await run.shot(page, `${screen}-event-page.png`);
  await act(page, "#ev-join");
  await until(page, () => /You have joined/.test(document.getElementById("ev-entry").textContent) && document.querySelectorAll("#ev-rounds button").length === 3);
  const place = await apiAs(base, me.key, `/v1/events/${eventId}/join`, { method: "POST" }); // again: the same place
  edition = await apiAs(base, null, `/v1/events/${eventId}/editions/${number}`);
  assert(place.player_id === me.id && place.number === edition.entrants && place.cohort === Math.floor((place.number - 1) / 3), `the player's place: ${JSON.stringify(place)}`);
  await until(page, () => /of your cohort ranked so far/.test(document.querySelector("#ev-board .board-text").textContent));
  view = await eventPage(page);
  assert(view.entry === `You have joined: number ${place.number} to join, in cohort ${place.cohort + 1}.` && !view.join, `the entry: ${view.entry}`);
  assert(view.facts.includes(`Players ${edition.entrants}`), `the players counted: ${view.facts}`);
  assert(JSON.stringify(view.rounds.map((r) => r.button)) === JSON.stringify(["Play round 1", "Play round 2", "Play round 3"]), `the rounds to play: ${JSON.stringify(view.rounds)}`);
  const cohortButton = '#ev-board .board-toggle button[data-among="cohort"]';
  assert(await page.isVisible(cohortButton) && (await page.getAttribute(cohortButton, "aria-pressed")) === "true", "the event's board opens on the player's cohort");
  await run.shot(page, `${screen}-event-joined.png`);
  await axe(run, page, `${screen}, an event's page, joined`);
  run.step(`joined: ${view.entry}`);

  // Round 1: an ordinary game, named in the header, ranked, no hints.
  await act(page, '#ev-rounds li[data-round="1"] button');
  await page.waitForSelector("dialog#events", { state: "hidden" });
  await until(page, (name) => document.getElementById("game-sub").textContent.startsWith(`Event · ${name} · round 1`) && document.body.dataset.version === "0", event.name);
  const state = await apiState(page);
  assert(state.challenge?.id === `${edition.id}.1` && state.challenge.ranked && state.player_id === me.id, `the round's game: ${JSON.stringify(state.challenge)}`);
  assert(await page.isHidden("#hint"), "no hints in an event's round");
  await check(run, page, "an event's round");
  await playThenConcede(page, 3, touch);

  // The end: the edition's board, the player's cohort first, as the API ranks it.
  // A new account's result: ranked apart until the server's fair-play check finds it fair.
  await until(page, () => /ranked \d+ of \d+ in your cohort \(#\d+ overall\)/.test(document.getElementById("rank-text").textContent), undefined, 120_000);
  assert((await page.textContent("#rank-title")) === "The event's leaderboard" && (await page.textContent("#again")) === "Back to the event", "the end names the event and leads back to it");
  const cohort = await apiAs(base, me.key, `/v1/events/${eventId}/editions/${number}/leaderboard?cohort=mine&limit=50`);
  await until(page, (n) => document.querySelectorAll("#rank-list li").length === n, cohort.entries.length);
  let lines = await boardLines(page, "#ranking");
  assert(cohort.ranked === 3 && lines.length === 3, `the cohort of three: ${JSON.stringify(cohort)}`);
  cohort.entries.forEach((e, i) => {
    const l = lines[i];
    const text = l.text.replace(" · provisional", ""); // measured ok: none is marked
    assert(l.player === e.player_id && text.startsWith(`#${e.rank} | `) && text.includes(` | ${e.moves} moves · #${e.global_rank} overall | ${String(e.score).replace("-", "−")}`), `cohort line ${i}: ${l.text} for ${JSON.stringify(e)}`);
  });
  const mine = cohort.entries.find((e) => e.player_id === me.id);
  const rankText = await page.textContent("#rank-text");
  assert(rankText === `You are ranked ${mine.rank} of 3 in your cohort (#${mine.global_rank} overall).`, `the player's place: ${rankText}`);
  assert(lines.find((l) => l.me)?.text.includes("You") && lines.filter((l) => !l.me).every((l) => l.button === "Follow"), `a follow button on the others' lines: ${JSON.stringify(lines)}`);
  await run.shot(page, `${screen}-event-board.png`);
  await axe(run, page, `${screen}, an event's board, the player's cohort`);
  run.step(`cohort board: ${lines.map((l) => l.text).join(" | ")}`);

  // Everyone: the whole board, the player's place on it.
  await act(page, '#ranking .board-toggle button[data-among=""]');
  await until(page, () => /^You are ranked \d+ of \d+\.$/.test(document.getElementById("rank-text").textContent));
  const whole = await apiAs(base, null, `/v1/events/${eventId}/editions/${number}/leaderboard?limit=100`);
  const overall = whole.entries.find((e) => e.player_id === me.id);
  assert((await page.textContent("#rank-text")) === `You are ranked ${overall.rank} of ${whole.ranked}.` && overall.rank === mine.global_rank, `the whole board: ${await page.textContent("#rank-text")}`);
  lines = await boardLines(page, "#ranking");
  assert(lines.slice(0, 3).every((l, i) => l.player === whole.entries[i].player_id), "the top of the whole board");

  // Back to the event: the round's best, a second try offered, the total.
  await until(page, () => "armed" in document.getElementById("end").dataset);
  await act(page, "#again");
  await page.waitForSelector('dialog#events[open][data-mode="event"]');
  await until(page, () => /Your best/.test(document.querySelector('#ev-rounds li[data-round="1"]')?.textContent ?? ""));
  const entries = (await apiAs(base, me.key, "/v1/players/me/challenges?limit=100")).challenges;
  const round1 = entries.find((c) => c.challenge.id === `${edition.id}.1`).entry;
  const total = entries.find((c) => c.challenge.id === edition.id).entry;
  view = await eventPage(page);
  const first = view.rounds[0];
  assert(first.mine === `Your best: ${round1.score} in ${round1.moves} moves · 1 of 2 tries` && first.button === "Play again (2 of 2)", `round 1 after a try: ${JSON.stringify(first)}`);
  assert(view.entry.endsWith(`Your total: ${total.score} (${total.moves} moves).`) && total.score === overall.score, `the total: ${view.entry}`);
  run.step(`back to the event: ${first.text}; ${view.entry}`);

  // Under "Me": the edition is one line (its total), its rounds not listed apart; it opens
  // the event's page.
  await act(page, "#ev-done");
  await act(page, "#player-button");
  await page.waitForSelector("dialog#player-panel[open]");
  await until(page, (name) => document.getElementById("pp-challenges").textContent.includes(`Event: ${name}`), event.name);
  const listedMine = await page.$$eval("#pp-challenges li", (lis) => lis.map((li) => li.textContent));
  assert(listedMine.length === 1 && listedMine[0].includes(`Event: ${event.name} · TriPeaks · open · total ${total.score}`), `the player's challenges: ${listedMine}`);
  await act(page, `#pp-challenges button[data-event="${eventId}"]`);
  await page.waitForSelector('dialog#events[open][data-mode="event"]');
  await until(page, (name) => document.getElementById("ev-title").textContent === name && document.querySelectorAll("#ev-rounds li").length === 3, event.name);

  // A link to the event opens its page over the saved game; closing it drops the query.
  await page.goto(`${base}/?event=${eventId}`);
  await page.waitForSelector('dialog#events[open][data-mode="event"]');
  await until(page, (name) => document.getElementById("ev-title").textContent === name, event.name);
  await act(page, "#ev-done");
  await until(page, (id) => location.search === "" && JSON.parse(localStorage.getItem("tripeaks.game")).id === id && document.body.dataset.status === "conceded", state.id);
  run.seen.player = me;
  await context.close();
}

/** The interactive docs, /docs (Swagger UI) and /redoc (ReDoc), under their
 * Content-Security-Policy: each renders the API from the spec, with no violation (a
 * refused script, style, image or worker is a console error, which fails the run). */
export async function docs(run) {
  const { base } = run.config;
  const context = await run.context("desktop");
  const page = await run.page(context);
  // ReDoc's menu shows its maker's logo from their CDN: the CSP refuses it (nothing on the
  // page comes from elsewhere), which is the one violation expected.
  const elsewhere = /^https:\/\/cdn\.redoc\.ly\//;
  run.allowedErrors.push(/cdn\.redoc\.ly/);
  const violations = [];
  await page.exposeFunction("reportViolation", (v) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      window.reportViolation(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });

  run.step("Swagger UI");
  const swagger = await page.goto(`${base}/docs`);
  assert(swagger.headers()["content-security-policy"], "/docs has a CSP");
  await page.locator(".swagger-ui .info .title").waitFor();
  await page.locator(".opblock-summary").first().waitFor();
  await page.locator(".opblock-summary").first().click();  // an operation opens
  await page.locator(".opblock-body").first().waitFor();
  await run.shot(page, "docs-swagger.png");

  run.step("ReDoc");
  const redoc = await page.goto(`${base}/redoc`);
  assert(redoc.headers()["content-security-policy"], "/redoc has a CSP");
  await page.locator(".api-content h1").first().waitFor();
  await page.locator('[role="search"] input').fill("move");  // the search worker answers
  await page.locator('[data-role="search:results"] li, .search-results li, [role="search"] li').first().waitFor();
  await run.shot(page, "docs-redoc.png");
  const unexpected = violations.filter((v) => !elsewhere.test(v.split(" ")[1] ?? ""));
  assert(unexpected.length === 0, `CSP violations: ${unexpected.join("; ")}`);
  run.seen.violations = unexpected;
}

// ------------------------------------------------------------------ ranked duels

/** A dialog as a phone shows it: inside the screen, no sideways pan, every button big
 * enough to tap and every text readable. Answers its size. */
async function assertDialogFits(page, id, label) {
  const g = await page.evaluate((id) => {
    const d = document.getElementById(id);
    const r = d.getBoundingClientRect();
    const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
    const buttons = [...d.querySelectorAll("button, select, input[type=checkbox]")].filter(visible).map((b) => {
      const box = b.getBoundingClientRect();
      return { id: b.id || b.textContent.trim().slice(0, 24), h: box.height, w: box.width, left: box.left, right: box.right };
    });
    const texts = [...d.querySelectorAll("p, li, span, b, button, label, h2, h3, dt, dd")].filter((el) => visible(el) && el.textContent.trim());
    return {
      W: innerWidth,
      H: innerHeight,
      page: document.documentElement.scrollWidth,
      left: r.left,
      right: r.right,
      top: r.top,
      bottom: r.bottom,
      scrollWidth: d.scrollWidth,
      clientWidth: d.clientWidth,
      buttons,
      smallest: Math.min(...texts.map((el) => parseFloat(getComputedStyle(el).fontSize))),
    };
  }, id);
  const where = `${label} (${g.W}x${g.H})`;
  assert(g.left >= 0 && g.right <= g.W + 0.5 && g.top >= 0 && g.bottom <= g.H + 0.5, `${where}: the dialog is off the screen: ${JSON.stringify(g)}`);
  assert(g.page <= g.W && g.scrollWidth <= g.clientWidth, `${where}: a sideways pan (page ${g.page}, dialog ${g.scrollWidth} > ${g.clientWidth})`);
  for (const b of g.buttons) {
    assert(b.left >= g.left - 0.5 && b.right <= g.right + 0.5, `${where}: ${b.id} sticks out of the dialog`);
    if (b.id !== "du-bots") assert(b.h >= 40, `${where}: ${b.id} is ${b.h.toFixed(0)} px tall`);
  }
  assert(g.smallest >= 12, `${where}: a text of ${g.smallest} px`);
  return g;
}

/** The duel as the page shows it in a `.duel-state`. */
async function duelShown(page, root) {
  return page.evaluate((root) => {
    const box = document.querySelector(`${root} .duel-state`);
    const text = (sel) => box.querySelector(sel)?.textContent.trim() ?? null;
    return {
      status: box.dataset.status,
      result: box.dataset.result,
      title: text(".duel-title"),
      text: text(".duel-text"),
      vs: box.querySelector(".duel-vs")?.getAttribute("aria-label") ?? null,
      rating: text(".duel-rating"),
      provisional: !!box.querySelector(".duel-rating .mark"),
    };
  }, root);
}

/** The duel's end revealed the deal, and the page checked it against the commitment. */
async function dealVerified(page) {
  try {
    await until(page, () => /verified ✓/.test(document.getElementById("verify").textContent), undefined, 20_000);
  } catch {
    const state = await apiState(page);
    throw new Error(`the deal is not verified: '${await page.textContent("#verify")}'; the game's reveal ${JSON.stringify(state.reveal)}, ${JSON.stringify(state.challenge)}`);
  }
}

const RESULT_TITLE = { won: "You won the duel!", lost: "You lost the duel", draw: "A draw", void: "No result" };
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");
const scoreText = (n) => (n < 0 ? `−${-n}` : String(n));

/** The decided duel on screen is the API's: result, both scores, the rating's change. */
function assertResult(shownDuel, d, who) {
  assert(d.status === "finished" && shownDuel.status === "finished", `${who}: the duel is decided: ${JSON.stringify(d)}`);
  assert(shownDuel.title === RESULT_TITLE[d.result], `${who}: the result '${shownDuel.title}' for ${d.result}`);
  assert(shownDuel.text === `Your score ${scoreText(d.you.score)} against ${d.opponent.name}'s ${scoreText(d.opponent.score)}.`, `${who}: the scores '${shownDuel.text}' for ${JSON.stringify([d.you.score, d.opponent.score])}`);
  const change = d.you.rating_change;
  assert(change !== null && shownDuel.rating.includes(`${d.you.rating} → ${d.you.rating + change} ${signed(change)}`), `${who}: the rating '${shownDuel.rating}' for ${d.you.rating} ${change}`);
  assert(shownDuel.provisional === d.you.provisional, `${who}: the provisional mark`);
}

/** Ada asks for a ranked duel and plays at once (nobody to match yet: her score waits);
 * Bea, another browser, is matched to it from her player page and plays the same deal;
 * both see the result and their rating's change (Ada by looking again); the rating board
 * shows both, from the top, around Ada and among the people she follows; her duels and
 * her player page; Bea plays another duel. The screens are checked at the phone's size. */
export async function duel(run) {
  const { base, screen } = run.config;
  const touch = screen !== "desktop";
  const phone = screen === "portrait";
  const act = (page, sel) => (touch ? page.tap(sel) : page.click(sel));
  const dialogFits = (page, id, label) => (phone ? assertDialogFits(page, id, label) : null);
  // A deal search the server is too busy for (the fair-play measure, an analysis) is
  // answered 503 with Retry-After: the page asks again, as it says.
  run.allowedErrors.push(/status of 503 .*\/v1\/duels\)$/);

  // Ada: a first visit, then "Play a ranked duel…" in the new-game panel.
  const adaContext = await run.context(screen);
  const ada = await run.page(adaContext);
  await ada.goto(base);
  await until(ada, () => document.body.dataset.version === "0");
  const adaMe = await player(ada);
  await apiAs(base, adaMe.key, "/v1/players/me", { method: "PATCH", body: { name: "Ada" } });
  await act(ada, "#new-game-button");
  await ada.waitForSelector("dialog#new-game[open]");
  await act(ada, "#ng-duel");
  await ada.waitForSelector('dialog#duel[open][data-mode="ask"]');
  await until(ada, () => document.getElementById("du-layout").options.length >= 3 && /starts at 1500/.test(document.getElementById("du-rating").textContent));
  const form = await ada.evaluate(() => ({ layout: document.getElementById("du-layout").value, preset: document.getElementById("du-preset").value, bots: document.getElementById("du-bots").checked }));
  assert(form.layout === "tripeaks" && form.preset === "standard" && !form.bots, `the default duel: ${JSON.stringify(form)}`);
  await dialogFits(ada, "duel", "the duel's form");
  await run.shot(ada, `${screen}-duel-ask.png`);
  await axe(run, ada, `${screen}, the duel's form`);
  await act(ada, "#du-play");
  await ada.waitForSelector("dialog#duel", { state: "hidden", timeout: 90_000 });
  await until(ada, () => !document.getElementById("duel-line").hidden && document.body.dataset.version === "0");
  let adaState = await apiState(ada);
  let mine = await apiAs(base, adaMe.key, "/v1/players/me/duels");
  assert(mine.duels.length === 1, `Ada's duels: ${JSON.stringify(mine)}`);
  let adaDuel = mine.duels[0];
  assert(adaDuel.status === "waiting" && adaDuel.role === "host" && adaDuel.game_id === adaState.id && adaDuel.opponent === null, `Ada opened a duel and plays it: ${JSON.stringify(adaDuel)}`);
  const line = await ada.textContent("#duel-line");
  assert(line === `Ranked duel · waiting for an opponent · your rating ${adaDuel.you.rating} (provisional)`, `the line over Ada's game: ${line}`);
  assert(adaState.challenge && !adaState.reveal && adaState.commitment === adaDuel.commitment, "the duel's deal, committed and secret");
  assert(await ada.isHidden("#hint"), "no hint button in a duel's game");
  if (phone) run.seen.geometry = assertGeometry(await geometry(ada), screen, "a duel's game");
  await check(run, ada, "Ada's duel game");
  await run.shot(ada, `${screen}-duel-playing.png`);
  run.step(`Ada opened duel ${adaDuel.id}: ${line}`);

  // She finishes first: her score is in, the opponent's to come.
  await playThenConcede(ada, 3, touch);
  await until(ada, () => !document.getElementById("end-duel").hidden && document.querySelector("#end-duel .duel-state").dataset.status === "waiting");
  let seenDuel = await duelShown(ada, "#end-duel");
  adaState = await apiState(ada);
  assert(seenDuel.title === "Waiting for an opponent" && seenDuel.text.includes(`Your score ${scoreText(adaState.score.total)} is in`), `Ada waits: ${JSON.stringify(seenDuel)}`);
  assert((await ada.textContent("#again")) === "Play another duel", "the end offers another duel");
  assert(await ada.isHidden("#ranking"), "no challenge board for a duel");
  assert(/revealed when the duel ends/.test(await ada.textContent("#verify")) && !adaState.reveal, "the deal stays secret until the duel ends");
  if (phone) await dialogFits(ada, "end", "the end of a duel's game, waiting");
  await run.shot(ada, `${screen}-duel-waiting.png`);
  run.step(`Ada conceded: ${seenDuel.title}`);

  // Bea: another browser, another player, asks from her player page: matched to Ada's.
  const beaContext = await run.context(screen);
  const bea = await run.page(beaContext);
  await bea.goto(base);
  await until(bea, () => document.body.dataset.version === "0");
  const beaMe = await player(bea);
  await apiAs(base, beaMe.key, "/v1/players/me", { method: "PATCH", body: { name: "Bea" } });
  await act(bea, "#player-button");
  await bea.waitForSelector("dialog#player-panel[open]");
  await until(bea, () => /No rating yet/.test(document.getElementById("pp-ratings").textContent));
  await act(bea, "#pp-duel");
  await bea.waitForSelector('dialog#duel[open][data-mode="ask"]');
  await until(bea, () => document.getElementById("du-layout").options.length >= 3);
  await act(bea, "#du-play");
  await bea.waitForSelector("dialog#duel", { state: "hidden", timeout: 90_000 });
  await until(bea, () => /vs Ada/.test(document.getElementById("duel-line").textContent) && document.body.dataset.version === "0");
  const beaState = await apiState(bea);
  let beaDuel = await apiAs(base, beaMe.key, `/v1/duels/${adaDuel.id}`);
  assert(beaDuel.status === "matched" && beaDuel.role === "challenger" && beaDuel.game_id === beaState.id && beaDuel.opponent.name === "Ada", `Bea is matched to Ada's duel: ${JSON.stringify(beaDuel)}`);
  assert(beaDuel.opponent.score === null, "Ada's score is not shown to Bea before the duel ends");
  assert(beaState.commitment === adaState.commitment, "the same deal for both");
  const beaLine = await bea.textContent("#duel-line");
  assert(beaLine === `Ranked duel vs Ada (${beaDuel.opponent.rating}) · your rating ${beaDuel.you.rating} (provisional)`, `the line over Bea's game: ${beaLine}`);
  assert(await bea.isHidden("#hint"), "no hint button in a duel's game");
  await check(run, bea, "Bea's duel game");
  run.step(`Bea matched: ${beaLine}`);

  // Ada looks again: matched now, her opponent's result to come.
  await until(ada, () => "armed" in document.getElementById("end").dataset);
  await act(ada, "#end-duel-again");
  await until(ada, () => document.querySelector("#end-duel .duel-state").dataset.status === "matched");
  seenDuel = await duelShown(ada, "#end-duel");
  assert(seenDuel.title === "Waiting for your opponent" && seenDuel.text.includes(`Bea (${beaDuel.you.rating}) has the same deal`) && seenDuel.vs === `You ${scoreText(adaState.score.total)}, Bea –`, `Ada waits for Bea: ${JSON.stringify(seenDuel)}`);
  run.step(`Ada looked again: ${seenDuel.text}`);

  // Bea finishes: the duel is decided at once, and her end shows the result.
  await playThenConcede(bea, 1, touch);
  await until(bea, () => document.querySelector("#end-duel .duel-state")?.dataset.status === "finished", undefined, 20_000);
  beaDuel = await apiAs(base, beaMe.key, `/v1/duels/${adaDuel.id}`);
  assertResult(await duelShown(bea, "#end-duel"), beaDuel, "Bea");
  // Decided, the duel reveals its deal: the page checks it against the commitment.
  await dealVerified(bea);
  if (phone) await dialogFits(bea, "end", "the end of a duel's game, decided");
  await run.shot(bea, `${screen}-duel-result.png`);
  await axe(run, bea, `${screen}, a duel's result`);
  run.step(`Bea's result: ${beaDuel.result}, ${signed(beaDuel.you.rating_change)}`);

  // Ada looks again: her result, her rating's change.
  if (await ada.isVisible("#end-duel-again")) await act(ada, "#end-duel-again");
  await until(ada, () => document.querySelector("#end-duel .duel-state").dataset.status === "finished");
  adaDuel = await apiAs(base, adaMe.key, `/v1/duels/${adaDuel.id}`);
  assertResult(await duelShown(ada, "#end-duel"), adaDuel, "Ada");
  const opposite = { won: "lost", lost: "won", draw: "draw" };
  assert(opposite[adaDuel.result] === beaDuel.result, `one result each: ${adaDuel.result} and ${beaDuel.result}`);
  assert(adaDuel.opponent.rating_change === beaDuel.you.rating_change, "both changes shown to both");
  await dealVerified(ada);
  await run.shot(ada, `${screen}-duel-result-host.png`);
  run.step(`Ada's result: ${adaDuel.result}, ${signed(adaDuel.you.rating_change)}`);

  // The rating board: both of them, as the API ranks them.
  await until(ada, () => "armed" in document.getElementById("end").dataset);
  await act(ada, "#end-duel-board");
  await ada.waitForSelector('dialog#duel[open][data-mode="board"]');
  await until(ada, () => document.querySelectorAll("#du-board .board-list li").length === 2 && /2 players rated/.test(document.querySelector("#du-board .board-text").textContent));
  const board = await apiAs(base, null, "/v1/ratings/tripeaks.standard");
  let lines = await boardLines(ada, "#du-board");
  assert(board.rated === 2 && lines.length === 2, `the board: ${JSON.stringify(board)}`);
  board.entries.forEach((e, i) => {
    const name = e.player_id === adaMe.id ? "You" : e.name;
    assert(lines[i].player === e.player_id && lines[i].text.startsWith(`#${e.rank} | ${name} | 1 duel`) && lines[i].text.includes(` | ${e.rating}`), `board line ${i}: ${lines[i].text} for ${JSON.stringify(e)}`);
  });
  assert(new Set(board.entries.map((e) => e.player_id)).size === 2 && board.entries.some((e) => e.player_id === beaMe.id), "both on the board");
  const adaRating = board.entries.find((e) => e.player_id === adaMe.id).rating;
  assert(adaRating === adaDuel.you.rating + adaDuel.you.rating_change, `Ada's rating on the board ${adaRating}`);
  assert(/Your rating \d+ \(provisional\): #\d of 2/.test(await ada.textContent("#du-board .board-text")), "Ada's place said");
  await dialogFits(ada, "duel", "the rating board");
  await run.shot(ada, `${screen}-duel-board.png`);
  await axe(run, ada, `${screen}, the rating board`);
  run.step(`board: ${lines.map((l) => l.text).join(" / ")}`);

  // Around Ada; then she follows Bea and reads it among the people she follows.
  await act(ada, '#du-board .board-toggle button[data-view="around"]');
  await until(ada, () => document.querySelector('#du-board .board-toggle button[data-view="around"]').getAttribute("aria-pressed") === "true" && document.querySelectorAll("#du-board .board-list li.me").length === 1 && !/Reading/.test(document.querySelector("#du-board .board-text").textContent));
  const around = await apiAs(base, adaMe.key, "/v1/ratings/tripeaks.standard?around=me&limit=3");
  lines = await boardLines(ada, "#du-board");
  assert(lines.length === around.entries.length, `around Ada: ${JSON.stringify(lines)} for ${JSON.stringify(around)}`);
  await act(ada, '#du-board .board-toggle button[data-view=""]');
  await until(ada, (bea) => document.querySelector(`#du-board li[data-player="${bea}"] button.follow`)?.textContent === "Follow", beaMe.id);
  await act(ada, `#du-board li[data-player="${beaMe.id}"] button.follow`);
  await until(ada, (bea) => document.querySelector(`#du-board li[data-player="${bea}"] button.follow`)?.textContent === "Unfollow", beaMe.id);
  await act(ada, '#du-board .board-toggle button[data-view="following"]');
  await until(ada, () => /Among you and the 1 player you follow/.test(document.querySelector("#du-board .board-text").textContent) && document.querySelectorAll("#du-board .board-list li").length === 2);
  const among = await apiAs(base, adaMe.key, "/v1/ratings/tripeaks.standard?among=following");
  lines = await boardLines(ada, "#du-board");
  among.entries.forEach((e, i) => assert(lines[i].player === e.player_id && lines[i].text.includes(`#${e.global_rank} overall`), `among line ${i}: ${lines[i].text}`));
  run.step("the board around Ada and among the people she follows");

  // Her duels: this one, decided; its page.
  await act(ada, "#du-to-mine");
  await until(ada, () => document.querySelectorAll("#du-list li[data-duel]").length === 1);
  const item = await ada.textContent("#du-list li");
  const word = { won: "won", lost: "lost", draw: "drawn" }[adaDuel.result];
  assert(item.includes("TriPeaks · standard · vs Bea") && item.includes(`${word} ${scoreText(adaDuel.you.score)}–${scoreText(adaDuel.opponent.score)} · ${signed(adaDuel.you.rating_change)}`), `Ada's duels: ${item}`);
  await dialogFits(ada, "duel", "my duels");
  await run.shot(ada, `${screen}-my-duels.png`);
  await act(ada, `#du-list li[data-duel="${adaDuel.id}"] button`);
  await until(ada, () => document.getElementById("duel").dataset.mode === "view" && document.querySelector("#du-view .duel-state").dataset.status === "finished");
  assertResult(await duelShown(ada, "#du-view"), adaDuel, "Ada's duel page");
  assert((await ada.textContent("#du-title")) === "Ranked duel vs Bea", "the duel's page names the opponent");
  await act(ada, "#du-done");

  // Her player page: the pool's rating, its rank and record.
  await act(ada, "#player-button");
  await ada.waitForSelector("dialog#player-panel[open]");
  await until(ada, () => document.querySelector('#pp-ratings li[data-pool="tripeaks.standard"]'));
  const ratings = await apiAs(base, null, `/v1/players/${adaMe.id}/ratings`);
  const r = ratings.ratings[0];
  const shownRating = (await ada.textContent('#pp-ratings li[data-pool="tripeaks.standard"]')).replace(/\s+/g, " ");
  assert(shownRating.includes(`TriPeaks · standard: ${r.rating} (provisional)`) && shownRating.includes(`#${r.rank} · 1 duel: ${r.wins} won, ${r.losses} lost, ${r.draws} drawn · last duel ${signed(adaDuel.you.rating_change)}`), `Ada's rating on her page: ${shownRating} for ${JSON.stringify(r)}`);
  await until(ada, (id) => /TriPeaks \(ranked duel\) · conceded/.test(document.querySelector(`#pp-games button[data-game="${id}"]`)?.closest("li").textContent), adaDuel.game_id);
  await dialogFits(ada, "player-panel", "the player page");
  await run.shot(ada, `${screen}-player-ratings.png`);
  run.step(`Ada's page: ${shownRating}`);
  await adaContext.close();

  // Bea plays another duel from the end of hers: nobody waits, so she opens one.
  await until(bea, () => "armed" in document.getElementById("end").dataset);
  await act(bea, "#again");
  await until(bea, () => /waiting for an opponent/.test(document.getElementById("duel-line").textContent) && document.body.dataset.version === "0", undefined, 90_000);
  const again = await apiAs(base, beaMe.key, "/v1/players/me/duels");
  assert(again.duels.length === 2 && again.duels[0].status === "waiting" && again.duels[0].role === "host" && again.duels[0].game_id === (await apiState(bea)).id, `Bea's second duel: ${JSON.stringify(again.duels[0])}`);
  run.step("Bea plays another duel");

  // She deals an ordinary game, then asks for a third duel: refused while the second's
  // game is unfinished, and that game offered; it comes back to the table.
  const second = again.duels[0];
  run.allowedErrors.push(/status of 409 .*\/v1\/duels\)$/);
  await act(bea, "#new-game-button");
  await bea.waitForSelector("dialog#new-game[open]");
  await act(bea, 'label.preset:has(input[value="classic"])');
  await act(bea, "#ng-start");
  await bea.waitForSelector("dialog#new-game", { state: "hidden" });
  await until(bea, (id) => document.getElementById("duel-line").hidden && document.body.dataset.version === "0" && JSON.parse(localStorage.getItem("tripeaks.game")).id !== id, second.game_id);
  await act(bea, "#new-game-button");
  await bea.waitForSelector("dialog#new-game[open]");
  await act(bea, "#ng-duel");
  await bea.waitForSelector('dialog#duel[open][data-mode="ask"]');
  await until(bea, () => document.getElementById("du-layout").options.length >= 3);
  await act(bea, "#du-play");
  await bea.waitForSelector("#du-ask .said .resume-duel");
  assert(/a ranked duel's game to finish first/.test(await bea.textContent("#du-ask .said")), "the refusal says why");
  await act(bea, "#du-ask .said .resume-duel");
  await bea.waitForSelector("dialog#duel", { state: "hidden" });
  await until(bea, (id) => JSON.parse(localStorage.getItem("tripeaks.game")).id === id && /waiting for an opponent/.test(document.getElementById("duel-line").textContent), second.game_id);
  assert(await bea.isHidden("#hint"), "no hint button in the duel's game resumed");
  run.step("a third duel refused: the second's game resumed");
  run.seen.duel = adaDuel.id;
  run.seen.players = { ada: adaMe, bea: beaMe };
  await beaContext.close();
}
