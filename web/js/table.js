// Drawing a table from a layout's geometry (GET /v1/layouts/{name}) and a game's state.
// Nothing here knows a layout: positions carry their row and their x in half-card units,
// and fit.js places them (stacking a wide layout's parts on a narrow screen).

import { card } from "./cards.js";
import { fit } from "./fit.js";

/** Fill a card element's face (or back). */
export function paintCard(el, code) {
  el.replaceChildren();
  el.classList.remove("red", "joker", "back", "face", "empty");
  if (code == null) {
    el.classList.add("back");
    return;
  }
  const c = card(code);
  el.classList.add("face");
  if (c.red) el.classList.add("red");
  if (c.rank === 0) el.classList.add("joker");
  el.dataset.card = code;
  // The glyphs are drawn by CSS from data attributes: the button's name says the card in
  // words ("Jack of hearts"), and its visible text is not a second, shorter name for it.
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.setAttribute("aria-hidden", "true");
  corner.dataset.rank = c.rank === 0 ? "JK" : c.label;
  corner.dataset.suit = c.rank === 0 ? "★" : c.symbol;
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.setAttribute("aria-hidden", "true");
  pip.dataset.suit = c.rank === 0 ? "★" : c.symbol;
  el.append(corner, pip);
}

export class Table {
  /** `onPlay(position)` is called when a card is clicked or pressed (Enter/Space). */
  constructor(el, onPlay) {
    this.el = el;
    this.onPlay = onPlay;
    this.layout = null;
    this.buttons = [];
    el.addEventListener("keydown", (e) => this.onKey(e));
  }

  setLayout(layout) {
    if (this.layout && this.layout.name === layout.name) return;
    this.layout = layout;
    this.placed = null;
    this.el.dataset.layout = layout.name;
    delete this.el.dataset.u;
    this.buttons = layout.positions.map((p) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "card slot";
      b.dataset.position = p.index;
      b.style.zIndex = String(p.row + 1);
      if (p.peak) b.classList.add("peak");
      b.addEventListener("click", () => this.onPlay(p.index));
      return b;
    });
    this.el.replaceChildren(...this.buttons);
  }

  /** Size the table for a space of `width` by `height` pixels (fit.js); `minU` is a
   * zoom's floor, `maxStep` how far apart the rows may spread. Answers the fit. */
  resize(width, height, { minU = 0, maxU = 48, maxStep } = {}) {
    if (!this.layout) return null;
    const f = fit(this.layout, width, height, { minU, maxU, maxStep });
    const key = `${f.u}|${f.lines}|${f.step}`;
    if (this.placed !== key) {
      this.placed = key;
      this.el.style.setProperty("--u", `${f.u}px`);
      this.el.style.setProperty("--tw", String(f.tw));
      this.el.style.setProperty("--th", String(f.th));
      for (const b of this.buttons) {
        const at = f.place.get(Number(b.dataset.position));
        b.style.setProperty("--x", String(at.x));
        b.style.setProperty("--y", String(at.y));
      }
    }
    this.el.dataset.u = String(f.u);
    this.el.dataset.lines = String(f.lines);
    return f;
  }

  /** Show `game`'s tableau; `hinted` is a position to point at, or null. */
  update(game, hinted = null) {
    const focusedBefore = this.buttons.indexOf(document.activeElement);
    const playable = new Set(game.legal_moves.filter((m) => m.kind === "play").map((m) => m.position));
    const over = game.status !== "in_progress";
    for (const slot of game.tableau) {
      const b = this.buttons[slot.position];
      b.hidden = slot.removed;
      if (slot.removed) {
        b.classList.remove("playable", "hinted");
        continue;
      }
      // Once the game is over, its deal is public: the cards never turned show, dimmed.
      const revealed = !slot.face_up && game.reveal ? game.reveal.deal[slot.position] : null;
      const known = slot.face_up ? slot.card : revealed;
      if (b.dataset.shown !== String(known)) {
        paintCard(b, known);
        b.dataset.shown = String(known);
        if (known == null) delete b.dataset.card;
      }
      b.classList.toggle("revealed", revealed != null);
      b.classList.toggle("free", slot.free);
      b.classList.toggle("covered", !slot.free);
      b.classList.toggle("playable", playable.has(slot.position));
      b.classList.toggle("hinted", hinted === slot.position);
      // Free cards are the keyboard's stops; the rest can still be clicked (to learn why not).
      b.tabIndex = slot.free && !over ? 0 : -1;
      const what = revealed ? `${card(known).name} (was face down)` : known ? card(known).name : "face-down card";
      const state = playable.has(slot.position) ? ", playable" : slot.free ? "" : ", covered";
      b.setAttribute("aria-label", `${what}${state}`);
    }
    // A played card leaves: keep the keyboard on the table, on the nearest free card.
    if (focusedBefore >= 0 && this.buttons[focusedBefore].hidden && !over) {
      this.nearestFree(this.layout.positions[focusedBefore])?.focus();
    }
  }

  freeButtons() {
    return this.buttons.filter((b) => !b.hidden && b.classList.contains("free"));
  }

  nearestFree(from) {
    let best = null;
    let bestScore = Infinity;
    for (const b of this.freeButtons()) {
      const p = this.layout.positions[Number(b.dataset.position)];
      const score = Math.abs(p.x - from.x) * 2 + Math.abs(p.row - from.row) + (b.classList.contains("playable") ? 0 : 0.5);
      if (score < bestScore) [best, bestScore] = [b, score];
    }
    return best;
  }

  /** Focus the first playable card (else the first free one). */
  focusFirst() {
    const free = this.sortedFree();
    (free.find((b) => b.classList.contains("playable")) ?? free[0])?.focus();
  }

  sortedFree() {
    const pos = (b) => this.layout.positions[Number(b.dataset.position)];
    return this.freeButtons().sort((a, b) => pos(a).x - pos(b).x || pos(a).row - pos(b).row);
  }

  onKey(e) {
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(e.key)) return;
    const i = this.buttons.indexOf(document.activeElement);
    if (i < 0) return;
    e.preventDefault();
    const free = this.sortedFree();
    if (!free.length) return;
    const here = this.layout.positions[i];
    let target = null;
    if (e.key === "Home") target = free[0];
    else if (e.key === "End") target = free[free.length - 1];
    else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      const step = e.key === "ArrowLeft" ? -1 : 1;
      const at = free.indexOf(this.buttons[i]);
      if (at >= 0) target = free[(at + step + free.length) % free.length];
      else target = this.nearestFree(here);
    } else {
      const up = e.key === "ArrowUp";
      const candidates = free.filter((b) => {
        const p = this.layout.positions[Number(b.dataset.position)];
        return up ? p.row < here.row : p.row > here.row;
      });
      let bestScore = Infinity;
      for (const b of candidates) {
        const p = this.layout.positions[Number(b.dataset.position)];
        const score = Math.abs(p.x - here.x) * 4 + Math.abs(p.row - here.row);
        if (score < bestScore) [target, bestScore] = [b, score];
      }
    }
    target?.focus();
  }
}
